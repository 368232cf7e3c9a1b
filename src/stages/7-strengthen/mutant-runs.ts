import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { makeTempDir, readTextIfExists, removeTree } from '../../core/fs.js';
import { baseTestMethod } from '../../core/test-reports.js';
import type { Verdict } from '../../core/verdict.js';
import { withPatch, type ProjectState } from '../../project/state.js';
import { patchFromDiff, withTests, type RepairSubject } from '../../repair/project.js';
import { patchedTree, preparedInstanceTree } from '../../repair/verify-patch.js';
import { runTestClass, type JavaSandboxSetup, type PreparedTree } from '../../sandbox/java-runs.js';
import { withReruns } from '../../runners/wrappers.js';
import {
  parseObservations,
  stableObservations,
  type Observation,
  type StableObservations,
} from './amplify/observations.js';
import { observeSourceRoot } from './amplify/probes.js';
import { compiledDropping, droppingFailures, runEach } from './agent/gates.js';
import {
  compiledProbes,
  compileDropping,
  FOREIGN_LOCALE_ARGS,
  OBSERVE_FILE,
  passingOnGold,
  withClasses,
  type AmplifySetup,
  type GatedClass,
  type SourceClass,
  type StageOneLoss,
} from './stage-one.js';

/*
 * Where Stage II runs what executes a mutant: the probes that look for evidence and the kill gate
 * of its tests, with gold's runs in the same place so that only the code differs. The harness's
 * own mutants run under Maven like gold; an agent's are untrusted and run only in the sandbox,
 * gold's runs beside them too.
 */

/** A probe class: the instance's tests of one class, as they are and varied, observing. */
export interface Probe extends GatedClass {
  origin: SourceClass;
}

export interface Probed {
  /** The probes that compiled (methods javac rejected dropped). */
  probes: Probe[];
  /** Per probe file, what held in every run. */
  observed: Map<string, StableObservations>;
}

/** A mutant as a patch of the base tree. */
export interface MutantPatch {
  id: string;
  patch: string;
}

export interface MutantRuns {
  /** Probes on gold: 3 runs and a fourth under another locale and time zone. */
  onGold(probes: Probe[], losses: StageOneLoss[]): Promise<Probed | undefined>;
  /** Probes on a mutant: 2 runs. */
  onMutant(mutant: MutantPatch, probes: Probe[]): Promise<Probed | undefined>;
  /** The classes with only their methods that pass on gold in 3 runs here. */
  passingOnGold<T extends GatedClass>(classes: T[], losses: StageOneLoss[]): Promise<T[]>;
  /** Per class file, the methods failing on the mutant in each of 3 runs. */
  killing(mutant: MutantPatch, classes: readonly GatedClass[]): Promise<Map<string, Set<string>>>;
}

/** The methods failing in every one of a class's runs (a run that did not judge fails none). */
export function failingInEvery(verdicts: readonly Verdict[]): Set<string> {
  const [first, ...rest] = verdicts.map(
    (verdict) =>
      new Set(
        verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored'
          ? verdict.failures.map((failure) => baseTestMethod(failure.testMethod))
          : [],
      ),
  );
  return new Set([...(first ?? [])].filter((method) => rest.every((run) => run.has(method))));
}

const JUDGED = ['Passed', 'TestFailed', 'TestErrored'];

/** The harness's mutants: every run under Maven, in the stage's working copy. */
export function mavenMutantRuns(subject: RepairSubject, setup: AmplifySetup): MutantRuns {
  const { layout } = subject.project;
  const mutantState = (mutant: MutantPatch): ProjectState =>
    withTests(subject, withPatch(subject.base, patchFromDiff(mutant.patch)));

  async function probed(
    state: ProjectState,
    probes: Probe[],
    losses: StageOneLoss[],
    options: { runs: number; foreignLast: boolean },
  ): Promise<Probed | undefined> {
    const compiled = await compiledProbes(state, probes, subject, setup, losses);
    if (!compiled) return undefined;
    const work = await makeTempDir('stage-two');
    try {
      const observed = new Map<string, StableObservations>();
      for (const probe of compiled.classes) {
        const runs: Observation[][] = [];
        for (let run = 0; run < options.runs; run++) {
          const file = path.join(work, `${run}-${path.basename(probe.file)}.jsonl`);
          const jvmArgs = [`-Dwitnessgym.observations=${file}`];
          if (options.foreignLast && run === options.runs - 1) jvmArgs.push(...FOREIGN_LOCALE_ARGS);
          const result = await setup.maven.run({
            target: compiled.target,
            testClass: probe.testClass,
            jvmArgs,
          });
          if (!JUDGED.includes(result.verdict.kind)) break;
          const parsed = parseObservations((await readTextIfExists(file)) ?? '');
          runs.push(parsed.kind === 'Parsed' ? parsed.observations : []);
        }
        if (runs.length === options.runs) observed.set(probe.file, stableObservations(runs));
      }
      return { probes: compiled.classes, observed };
    } finally {
      await removeTree(work);
    }
  }

  return {
    onGold: (probes, losses) =>
      probed(withTests(subject, subject.gold), probes, losses, { runs: 4, foreignLast: true }),
    onMutant: (mutant, probes) =>
      probed(mutantState(mutant), probes, [], { runs: 2, foreignLast: false }),
    passingOnGold: (classes, losses) => passingOnGold(subject, classes, setup, losses),
    async killing(mutant, classes) {
      const compiled = await compileDropping(
        (current) => withClasses(mutantState(mutant), current, layout.testSources, false),
        [...classes],
        setup,
        subject,
        [],
        'final-compile',
      );
      const killed = new Map<string, Set<string>>();
      const repeated = withReruns(setup.maven, 3);
      for (const entry of compiled?.classes ?? []) {
        const result = await repeated.run({ target: compiled!.target, testClass: entry.testClass });
        killed.set(entry.file, failingInEvery(result.runs.map((run) => run.verdict)));
      }
      return killed;
    },
  };
}

/**
 * An agent's mutants: every run that executes one in the sandbox, over the harness's builds of
 * the instance's trees (the mutant's production code compiled in the sandbox too), and gold's
 * runs there as well.
 */
export function sandboxMutantRuns(
  subject: RepairSubject,
  cache: CacheLayout,
  java: JavaSandboxSetup,
): MutantRuns {
  const { layout } = subject.project;
  const observeSource = async () => ({
    file: path.posix.join(layout.testSources, OBSERVE_FILE),
    content: await readFile(path.join(observeSourceRoot(), OBSERVE_FILE), 'utf8'),
  });
  const goldTree = () => preparedInstanceTree(subject, 'gold', cache);

  /** The mutant's tree for `use`, its production jar removed after. */
  async function onMutantTree<T>(
    mutant: MutantPatch,
    use: (tree: PreparedTree) => Promise<T>,
  ): Promise<T | undefined> {
    const base = await preparedInstanceTree(subject, 'base', cache);
    const patched = await patchedTree(mutant.patch, base, layout, java);
    if (patched.kind !== 'Patched') return undefined;
    try {
      return await use(patched.tree);
    } finally {
      await removeTree(path.dirname(patched.tree.productionJar));
    }
  }

  async function probed(
    tree: PreparedTree,
    probes: Probe[],
    losses: StageOneLoss[],
    options: { runs: number; foreignLast: boolean },
  ): Promise<Probed | undefined> {
    const compiled = await compiledDropping(tree, probes, java, 'probe-compile', losses, [
      await observeSource(),
    ]);
    if (!compiled) return undefined;
    try {
      const observed = new Map<string, StableObservations>();
      for (const probe of compiled.classes) {
        const runs: Observation[][] = [];
        for (let run = 0; run < options.runs; run++) {
          const foreign = options.foreignLast && run === options.runs - 1;
          const result = await runTestClass(
            foreign ? { ...tree, jvmArgs: [...tree.jvmArgs, ...FOREIGN_LOCALE_ARGS] } : tree,
            compiled.dir,
            probe.testClass,
            java,
            { observe: true },
          );
          if (!JUDGED.includes(result.verdict.kind)) break;
          const parsed = parseObservations(result.observations ?? '');
          runs.push(parsed.kind === 'Parsed' ? parsed.observations : []);
        }
        if (runs.length === options.runs) observed.set(probe.file, stableObservations(runs));
      }
      return { probes: compiled.classes, observed };
    } finally {
      await removeTree(compiled.dir);
    }
  }

  /** Per class file, the methods failing in each of 3 runs on `tree`. */
  async function failingThrice(
    tree: PreparedTree,
    classes: readonly GatedClass[],
  ): Promise<Map<string, Set<string>>> {
    const compiled = await compiledDropping(tree, [...classes], java, 'final-compile', []);
    const failing = new Map<string, Set<string>>();
    if (!compiled) return failing;
    try {
      for (const entry of compiled.classes) {
        const verdicts: Verdict[] = [];
        for (let run = 0; run < 3; run++) {
          verdicts.push((await runTestClass(tree, compiled.dir, entry.testClass, java)).verdict);
        }
        failing.set(entry.file, failingInEvery(verdicts));
      }
      return failing;
    } finally {
      await removeTree(compiled.dir);
    }
  }

  return {
    onGold: async (probes, losses) =>
      probed(await goldTree(), probes, losses, { runs: 4, foreignLast: true }),
    onMutant: (mutant, probes) =>
      onMutantTree(mutant, (tree) => probed(tree, probes, [], { runs: 2, foreignLast: false })),
    async passingOnGold(classes, losses) {
      const tree = await goldTree();
      const compiled = await compiledDropping(tree, classes, java, 'final-compile', losses);
      if (!compiled) return [];
      try {
        let kept = compiled.classes;
        for (let run = 0; run < 3 && kept.length > 0; run++) {
          const results = await runEach(tree, { classes: kept, dir: compiled.dir }, java);
          kept = droppingFailures(
            kept,
            results,
            'fails-on-gold',
            `on gold, sandboxed run ${run + 1} of 3`,
            losses,
          );
        }
        return kept;
      } finally {
        await removeTree(compiled.dir);
      }
    },
    async killing(mutant, classes) {
      return (await onMutantTree(mutant, (tree) => failingThrice(tree, classes))) ?? new Map();
    },
  };
}

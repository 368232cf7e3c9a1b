import path from 'node:path';
import { makeTempDir, readTextIfExists, removeTree, sha256Text } from '../../core/fs.js';
import type { Verdict } from '../../core/verdict.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { ProjectTypes } from '../../lang/java/type-index.js';
import { patchOf, withPatch, type ProjectState } from '../../project/state.js';
import { patchFromDiff, withTests, type RepairSubject } from '../../repair/project.js';
import { judgedOnTree, patchedTree, preparedInstanceTree } from '../../repair/verify-patch.js';
import type { JavaSandboxSetup } from '../../sandbox/java-runs.js';
import { withReruns } from '../../runners/wrappers.js';
import type { TestRunner } from '../../runners/types.js';
import { baseTestMethod } from '../../core/test-reports.js';
import { finalClass, keepOnly, methodsOf } from './amplify/assertions.js';
import {
  parseObservations,
  stableObservations,
  type Observation,
  type StableObservations,
} from './amplify/observations.js';
import { probeClass } from './amplify/probes.js';
import { codeListing } from './compiler-equivalence.js';
import { sourceRootRelative } from './coverage.js';
import { differences, type Evidence } from './evidence.js';
import { mutantCandidates, type GoldFile, type MutantCandidate } from './mutants.js';
import type { FileSlice } from './relevant.js';
import {
  amplifiedClass,
  compileDropping,
  FOREIGN_LOCALE_ARGS,
  passingGuardAndApiRule,
  passingOnGold,
  simpleName,
  sourceClasses,
  withClasses,
  type AmplifiedClass,
  type AmplifySetup,
  type GatedClass,
  type SourceClass,
  type StageOneLoss,
} from './stage-one.js';

/*
 * Stage II's deterministic engine (SWE-ABS §3.3, decided by evidence instead of votes): plausible
 * wrong patches of gold (mutants, by family), kept only if they touch the slice, compile, differ
 * from gold's bytecode and pass the current suite in 3 runs in the sandbox. A survivor is a blind
 * spot only with evidence: one of the instance's tests, as it is or with one input changed, whose
 * observed result differs between gold and the mutant. Survivors split into a generating half and
 * a held-out half; tests are written for the first only (amplified from the instance's tests,
 * gated as Stage I's, and failing on the mutant in 3 runs), the fewest that keep the kill set;
 * the held-out half measures whether they generalise to wrong patches they were not written for.
 */

/** Tests of a class probed as they are, beside their input variants. */
const AS_IS_PER_CLASS = 60;
/** Mutants tried per family and instance, drawn by the seed. */
export const MUTANTS_PER_FAMILY = 6;

export type MutantFate =
  /** Changes no line of gold's slice: not about the issue. */
  | { kind: 'Irrelevant' }
  | { kind: 'DoesNotCompile'; detail: string }
  /** Compiles to gold's bytecode (trivial compiler equivalence): equivalent, whatever tests say. */
  | { kind: 'CompilerEquivalent' }
  /** The current suite fails on it in one of 3 runs. */
  | { kind: 'Killed'; by: string[] }
  | { kind: 'NotJudged'; reason: string }
  /** Survives, and no probe tells it from gold: possibly equivalent, never a blind spot. */
  | { kind: 'Unproven' }
  /**
   * Survives, and a probe tells it from gold: a blind spot. `killedBy`: the new tests that fail on
   * it in 3 runs (generating half); null for the held-out half, which re-evaluation measures.
   */
  | { kind: 'NonEquivalent'; evidence: Evidence; killedBy: string[] | null };

export interface MutantRecord extends Omit<MutantCandidate, 'source'> {
  half: 'generating' | 'held-out';
  /** The mutant as a patch of the base tree: gold's change with the mutation. */
  patch: string;
  fate: MutantFate;
}

export interface StageTwoOutcome {
  mutants: MutantRecord[];
  classes: AmplifiedClass[];
  variantsTried: number;
  losses: StageOneLoss[];
}

export interface StageTwoSetup extends AmplifySetup {
  java: JavaSandboxSetup;
  /** Share of surviving mutants held out from test generation (0: none). */
  holdOut: number;
  maxPerFamily: number;
}

/** Which half a mutant falls in: by a hash of the seed, the instance and the mutant. */
export function mutantHalf(
  seed: number,
  instanceId: string,
  mutantId: string,
  holdOut: number,
): MutantRecord['half'] {
  const draw = Number.parseInt(sha256Text(`${seed}:${instanceId}:${mutantId}`).slice(0, 8), 16);
  return draw / 0x1_0000_0000 < holdOut ? 'held-out' : 'generating';
}

/** Whether a mutant changes a line of the slice (or a line gold changed, or a deletion's anchor). */
function touchesSlice(candidate: MutantCandidate, files: readonly FileSlice[]): boolean {
  const slice = files.find((entry) => entry.file === candidate.file);
  if (!slice) return false;
  const lines = new Set([...slice.relevant, ...slice.changed, ...slice.anchors]);
  return candidate.goldLines.some((line) => lines.has(line));
}

async function goldFilesOf(
  subject: RepairSubject,
  files: readonly FileSlice[],
  setup: StageTwoSetup,
): Promise<GoldFile[]> {
  const read = async (state: ProjectState) => {
    await setup.copy.checkout(state);
    return Promise.all(
      files.map(async (entry) => readTextIfExists(path.join(setup.copy.root, entry.file))),
    );
  };
  const base = await read(subject.base);
  const gold = await read(subject.gold);
  return files.map((entry, index) => ({
    file: entry.file,
    base: base[index] ?? null,
    gold: gold[index] ?? '',
    changed: entry.changed,
    relevant: entry.relevant,
  }));
}

/** The mutant as a patch of the base tree: every gold file as gold leaves it but the mutated one. */
function mutantPatch(candidate: MutantCandidate, files: readonly GoldFile[]): string {
  return patchOf(
    files.map((entry) => ({
      file: entry.file,
      before: entry.base ?? '',
      after: entry.file === candidate.file ? candidate.source : entry.gold,
    })),
  ).diff;
}

/** How the current suite, in the sandbox, and javac take a relevant mutant. */
async function survival(
  subject: RepairSubject,
  patch: string,
  file: string,
  goldListing: (file: string) => Promise<string>,
  setup: StageTwoSetup,
): Promise<MutantFate | { kind: 'Survives' }> {
  const { layout } = subject.project;
  const prepared = await preparedInstanceTree(subject, 'base', setup.cache);
  const patched = await patchedTree(patch, prepared, layout, setup.java);
  if (patched.kind === 'CompileFailed') {
    return { kind: 'DoesNotCompile', detail: patched.messages[0]?.message ?? 'does not compile' };
  }
  if (patched.kind !== 'Patched') {
    return {
      kind: 'NotJudged',
      reason: patched.kind === 'DoesNotApply' ? patched.reason : 'compile timed out',
    };
  }
  try {
    const relative = sourceRootRelative(layout.mainSources, file);
    const listing = await codeListing(patched.tree.productionJar, relative);
    if (listing === (await goldListing(relative))) return { kind: 'CompilerEquivalent' };
    for (let run = 0; run < 3; run++) {
      const judged = await judgedOnTree(
        subject.instance,
        patched.tree,
        prepared,
        layout,
        setup.java,
      );
      if (judged.kind !== 'Judged') {
        return { kind: 'NotJudged', reason: `the suite's ${judged.kind} on the mutant` };
      }
      if (judged.judgement.kind === 'Resolved') continue;
      const { stillFailing, broken, notJudged } = judged.judgement;
      if (stillFailing.length + broken.length > 0) {
        return { kind: 'Killed', by: [...stillFailing, ...broken].sort() };
      }
      return { kind: 'NotJudged', reason: notJudged[0]?.reason ?? 'not judged' };
    }
    return { kind: 'Survives' };
  } finally {
    await removeTree(path.dirname(patched.tree.productionJar));
  }
}

/** Gold's production classes compiled by the harness, for the bytecode comparison. */
function goldListings(subject: RepairSubject, setup: StageTwoSetup) {
  const listings = new Map<string, Promise<string>>();
  let jar: Promise<string> | undefined;
  const goldJar = async () => {
    const prepared = await preparedInstanceTree(subject, 'base', setup.cache);
    const patched = await patchedTree(
      subject.instance.patch,
      prepared,
      subject.project.layout,
      setup.java,
    );
    if (patched.kind !== 'Patched') throw new Error(`gold does not build: ${patched.kind}`);
    return patched.tree.productionJar;
  };
  return {
    listing(relative: string): Promise<string> {
      jar ??= goldJar();
      if (!listings.has(relative))
        listings.set(
          relative,
          jar.then((file) => codeListing(file, relative)),
        );
      return listings.get(relative)!;
    },
    async close(): Promise<void> {
      if (jar) await removeTree(path.dirname(await jar));
    },
  };
}

interface Probe {
  file: string;
  source: string;
  methods: string[];
  origin: SourceClass;
}

/** Each probe class run `runs` times on a built state (the last under a foreign locale if asked). */
async function observedRuns(
  probes: readonly Probe[],
  target: Parameters<TestRunner['run']>[0]['target'],
  setup: StageTwoSetup,
  options: { runs: number; foreignLast: boolean },
): Promise<Map<string, StableObservations>> {
  const work = await makeTempDir('stage-two');
  try {
    const observed = new Map<string, StableObservations>();
    for (const probe of probes) {
      const runs: Observation[][] = [];
      for (let run = 0; run < options.runs; run++) {
        const file = path.join(work, `${simpleName(probe.origin.newClass)}-${run}.jsonl`);
        const jvmArgs = [`-Dwitnessgym.observations=${file}`];
        if (options.foreignLast && run === options.runs - 1) jvmArgs.push(...FOREIGN_LOCALE_ARGS);
        const result = await setup.maven.run({
          target,
          testClass: probe.origin.newClass,
          jvmArgs,
        });
        if (!['Passed', 'TestFailed', 'TestErrored'].includes(result.verdict.kind)) break;
        const parsed = parseObservations((await readTextIfExists(file)) ?? '');
        runs.push(parsed.kind === 'Parsed' ? parsed.observations : []);
      }
      if (runs.length === options.runs) observed.set(probe.file, stableObservations(runs));
    }
    return observed;
  } finally {
    await removeTree(work);
  }
}

/** The probe classes compiled with `state`, and their observations in `runs` runs. */
async function probed(
  state: ProjectState,
  probes: Probe[],
  subject: RepairSubject,
  setup: StageTwoSetup,
  losses: StageOneLoss[],
  options: { runs: number; foreignLast: boolean },
): Promise<{ probes: Probe[]; observed: Map<string, StableObservations> } | undefined> {
  const compiled = await compileDropping(
    (classes) => withClasses(state, classes, subject.project.layout.testSources, true),
    probes,
    setup,
    subject,
    losses,
    'probe-compile',
    // Observe.java has no licence header: Apache RAT (commons-compress) would refuse it.
    {
      ...subject.project.build,
      mavenArgs: [...subject.project.build.mavenArgs, '-Drat.skip=true'],
    },
  );
  if (!compiled) return undefined;
  const observed = await observedRuns(compiled.classes, compiled.target, setup, options);
  return { probes: compiled.classes, observed };
}

/** The methods failing in every one of a class's runs (a run that did not judge fails none). */
function failingInEvery(verdicts: readonly Verdict[]): Set<string> {
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

/** A killing test candidate: a final class, and the mutants each method fails on in 3 runs. */
interface KillingClass extends GatedClass {
  origin: SourceClass;
  kills: Map<string, Set<string>>;
}

/** The fewest methods that kill every mutant the candidates kill (greedy set cover). */
export function fewestKilling(kills: ReadonlyMap<string, ReadonlySet<string>>): {
  chosen: string[];
  killed: Set<string>;
} {
  const killed = new Set<string>();
  const chosen: string[] = [];
  for (;;) {
    let best: { test: string; adds: number } | undefined;
    for (const [test, mutants] of [...kills].sort(([a], [b]) => (a < b ? -1 : 1))) {
      const adds = [...mutants].filter((mutant) => !killed.has(mutant)).length;
      if (adds > 0 && (!best || adds > best.adds)) best = { test, adds };
    }
    if (!best) return { chosen, killed };
    chosen.push(best.test);
    for (const mutant of kills.get(best.test)!) killed.add(mutant);
  }
}

export async function stageTwo(
  subject: RepairSubject,
  files: readonly FileSlice[],
  setup: StageTwoSetup,
): Promise<StageTwoOutcome> {
  await loadJavaGrammar();
  const losses: StageOneLoss[] = [];
  const { instance } = subject;
  const goldFiles = await goldFilesOf(subject, files, setup);
  const candidates = mutantCandidates(goldFiles, {
    types: ProjectTypes.fromSources(goldFiles.map((entry) => entry.gold)),
    seed: setup.seed,
    maxPerFamily: setup.maxPerFamily,
  });
  const mutants: MutantRecord[] = [];
  const listings = goldListings(subject, setup);
  try {
    for (const candidate of candidates) {
      const described = {
        id: candidate.id,
        family: candidate.family,
        operator: candidate.operator,
        detail: candidate.detail,
        file: candidate.file,
        goldLines: candidate.goldLines,
      };
      const patch = mutantPatch(candidate, goldFiles);
      const half = mutantHalf(setup.seed, instance.instance_id, candidate.id, setup.holdOut);
      const fate: MutantFate | { kind: 'Survives' } = touchesSlice(candidate, files)
        ? await survival(subject, patch, candidate.file, (file) => listings.listing(file), setup)
        : { kind: 'Irrelevant' };
      // A survivor's fate is decided by the probes below.
      mutants.push({
        ...described,
        half,
        patch,
        fate: fate.kind === 'Survives' ? { kind: 'Unproven' } : fate,
      });
    }
  } finally {
    await listings.close();
  }
  const survivors = mutants.filter((mutant) => mutant.fate.kind === 'Unproven');
  if (survivors.length === 0) return { mutants, classes: [], variantsTried: 0, losses };

  // Probes on gold: the instance's tests as they are and varied, 3 runs and a foreign one.
  const { layout } = subject.project;
  const gold = withTests(subject, subject.gold);
  await setup.copy.checkout(gold);
  const sources = await sourceClasses(subject, setup, losses, { asIs: AS_IS_PER_CLASS });
  const variantsTried = sources.reduce((sum, entry) => sum + entry.variants.length, 0);
  const probes: Probe[] = sources.map((origin) => {
    const source = probeClass(origin.source, origin.variants, {
      className: simpleName(origin.newClass),
    });
    return { file: origin.newFile, source, methods: methodsOf(source), origin };
  });
  const onGold = await probed(gold, probes, subject, setup, losses, { runs: 4, foreignLast: true });
  if (!onGold) return { mutants, classes: [], variantsTried, losses };

  // Each survivor, twice: a difference stable on both sides is the evidence.
  const mutantState = (mutant: MutantRecord) =>
    withTests(subject, withPatch(subject.base, patchFromDiff(mutant.patch)));
  const evidenceOf = new Map<string, Evidence[]>();
  for (const mutant of survivors) {
    const onMutant = await probed(mutantState(mutant), onGold.probes, subject, setup, [], {
      runs: 2,
      foreignLast: false,
    });
    const found = onMutant
      ? onGold.probes.flatMap((probe) => {
          const [g, m] = [onGold.observed.get(probe.file), onMutant.observed.get(probe.file)];
          return g && m
            ? differences(g, m, probe.methods).map((e) => ({
                ...e,
                probe: `${probe.file}#${e.probe}`,
              }))
            : [];
        })
      : [];
    evidenceOf.set(mutant.id, found);
    if (found.length > 0)
      mutant.fate = { kind: 'NonEquivalent', evidence: found[0]!, killedBy: null };
  }

  // Killing tests for the generating half: the probes that told a mutant from gold, with checks.
  const targets = survivors.filter(
    (mutant) => mutant.half === 'generating' && mutant.fate.kind === 'NonEquivalent',
  );
  const wanted = new Map<string, Set<string>>();
  for (const mutant of targets) {
    for (const evidence of evidenceOf.get(mutant.id)!) {
      const [file, method] = evidence.probe.split('#') as [string, string];
      wanted.set(file, (wanted.get(file) ?? new Set()).add(method));
    }
  }
  const finals: KillingClass[] = [];
  for (const [file, methods] of wanted) {
    const probe = onGold.probes.find((entry) => entry.file === file)!;
    const { origin } = probe;
    const text = finalClass(origin.source, origin.variants, onGold.observed.get(file)!, {
      className: simpleName(origin.newClass),
      framework: origin.framework,
    });
    const kept = methodsOf(text).filter((method) => methods.has(method));
    const lost = [...methods].filter((method) => !kept.includes(method));
    if (lost.length > 0) {
      losses.push({
        gate: 'no-stable-oracle',
        tests: lost.map((method) => `${file}#${method}`),
        detail: 'no assertion holds on what gold did in every run',
      });
    }
    if (kept.length > 0) {
      finals.push({
        testClass: origin.newClass,
        file,
        source: keepOnly(text, kept),
        methods: kept,
        origin,
        kills: new Map(),
      });
    }
  }
  let kept = await passingOnGold(subject, finals, setup, losses);

  // The kill gate: a method kills a mutant if it fails on it in each of 3 runs.
  const repeated = withReruns(setup.maven, 3);
  for (const mutant of kept.length > 0 ? targets : []) {
    const compiled = await compileDropping(
      (classes) => withClasses(mutantState(mutant), classes, layout.testSources, false),
      kept,
      setup,
      subject,
      [],
      'final-compile',
    );
    if (!compiled) continue;
    for (const entry of compiled.classes) {
      const result = await repeated.run({ target: compiled.target, testClass: entry.testClass });
      for (const method of failingInEvery(result.runs.map((run) => run.verdict))) {
        const owner = kept.find((candidate) => candidate.file === entry.file)!;
        owner.kills.set(method, (owner.kills.get(method) ?? new Set()).add(mutant.id));
      }
    }
  }
  kept = kept.flatMap((entry) => {
    const killing = entry.methods.filter((method) => entry.kills.has(method));
    const idle = entry.methods.filter((method) => !entry.kills.has(method));
    if (idle.length > 0) {
      losses.push({
        gate: 'kills-no-mutant',
        tests: idle.map((method) => `${entry.file}#${method}`),
        detail: 'passes on every surviving mutant in one of 3 runs',
      });
    }
    return killing.length === 0
      ? []
      : [{ ...entry, methods: killing, source: keepOnly(entry.source, killing) }];
  });
  kept = await passingGuardAndApiRule(subject, kept, setup, losses);

  // The fewest tests that keep the kill set.
  const kills = new Map<string, Set<string>>(
    kept.flatMap((entry) =>
      entry.methods.map(
        (method) => [`${entry.testClass}#${method}`, entry.kills.get(method)!] as const,
      ),
    ),
  );
  const { chosen } = fewestKilling(kills);
  const classes: AmplifiedClass[] = [];
  for (const entry of kept) {
    const methods = entry.methods.filter((method) =>
      chosen.includes(`${entry.testClass}#${method}`),
    );
    const spare = entry.methods.filter((method) => !methods.includes(method));
    if (spare.length > 0) {
      losses.push({
        gate: 'not-needed',
        tests: spare.map((method) => `${entry.file}#${method}`),
        detail: 'kills only mutants the chosen tests kill',
      });
    }
    if (methods.length > 0) {
      classes.push(
        amplifiedClass(entry.origin, {
          ...entry,
          methods,
          source: keepOnly(entry.source, methods),
        }),
      );
    }
  }
  for (const mutant of targets) {
    if (mutant.fate.kind !== 'NonEquivalent') continue;
    mutant.fate.killedBy = chosen.filter((test) => kills.get(test)!.has(mutant.id)).sort();
  }
  return { mutants, classes, variantsTried, losses };
}

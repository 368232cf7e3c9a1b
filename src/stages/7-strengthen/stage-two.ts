import path from 'node:path';
import { readTextIfExists, removeTree, sha256Text } from '../../core/fs.js';
import type { PhaseClock } from '../../core/phase-clock.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { ProjectTypes } from '../../lang/java/type-index.js';
import { patchOf, type ProjectState } from '../../project/state.js';
import { withTests, type RepairSubject } from '../../repair/project.js';
import { judgedOnTree, patchedTree, preparedInstanceTree } from '../../repair/verify-patch.js';
import type { JavaSandboxSetup } from '../../sandbox/java-runs.js';
import { finalClass, keepOnly, methodsOf } from './amplify/assertions.js';
import { probeClass } from './amplify/probes.js';
import { codeListing } from './compiler-equivalence.js';
import { sourceRootRelative } from './coverage.js';
import { differences, type Evidence } from './evidence.js';
import type { EquivalenceVotes } from './agent/equivalence.js';
import { mavenMutantRuns, sandboxMutantRuns, type Probe } from './mutant-runs.js';
import {
  mutantCandidates,
  type GoldFile,
  NO_FIX,
  type MutantCandidate,
  type RuleFamily,
} from './mutants.js';
import type { FileSlice } from './relevant.js';
import {
  amplifiedClass,
  passingGuardAndApiRule,
  simpleName,
  sourceClasses,
  type AmplifiedClass,
  type AmplifySetup,
  type GatedClass,
  type SourceClass,
  type StageOneLoss,
} from './stage-one.js';

/*
 * Stage II (SWE-ABS §3.3, decided by evidence instead of votes): plausible wrong patches of gold
 * (mutants: the rules' families, or an agent's), kept only if they touch the slice, compile, differ
 * from gold's bytecode and pass the current suite in 3 runs in the sandbox. A survivor is a blind
 * spot only with evidence: one of the instance's tests, as it is, with one input changed or with a
 * call added to a method the survivors change, whose observed result differs between gold and
 * the mutant. Survivors split into a generating half and a held-out half; tests are written for
 * the first only (amplified from the instance's tests, gated as Stage I's, and failing on the
 * mutant in 3 runs), the fewest that keep the kill set; the held-out half measures whether they
 * generalise to wrong patches they were not written for.
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
  /**
   * Survives, and none of the `compared` probe methods (run on gold and on it) tells it from gold:
   * possibly equivalent, never a blind spot.
   */
  | { kind: 'Unproven'; compared: number; votes?: EquivalenceVotes }
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

/**
 * Who writes the mutants: the rules (mutants.ts; run under Maven like gold), or an agent (its
 * mutants untrusted: every run of one, and gold's beside it, in the sandbox).
 */
export type MutantSource =
  | { kind: 'rules' }
  | {
      kind: 'agent';
      generate: (subject: RepairSubject, files: readonly GoldFile[]) => Promise<MutantCandidate[]>;
      /** SWE-ABS's three votes on a survivor no probe told from gold: recorded, never decisive. */
      judge: (
        subject: RepairSubject,
        file: GoldFile,
        source: string,
        mutantId: string,
      ) => Promise<EquivalenceVotes>;
    };

export interface StageTwoSetup extends AmplifySetup {
  java: JavaSandboxSetup;
  clock: PhaseClock;
  source: MutantSource;
  /** Share of surviving mutants held out from test generation (0: none). */
  holdOut: number;
  maxPerFamily: number;
  /** The rules' families tried (the agent's source ignores it). */
  families: readonly RuleFamily[];
}

/**
 * Which half a mutant falls in: by a hash of the seed, the instance and the mutant. `no-fix` (the
 * bug itself) always generates: a suite that still accepts the bug is the first blind spot to
 * close, and the witness-drop control measures exactly that.
 */
export function mutantHalf(
  seed: number,
  instanceId: string,
  mutant: Pick<MutantCandidate, 'id' | 'operator'>,
  holdOut: number,
): MutantRecord['half'] {
  if (mutant.operator === NO_FIX) return 'generating';
  const draw = Number.parseInt(sha256Text(`${seed}:${instanceId}:${mutant.id}`).slice(0, 8), 16);
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
export function mutantPatch(candidate: MutantCandidate, files: readonly GoldFile[]): string {
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
  const candidates =
    setup.source.kind === 'agent'
      ? await setup.source.generate(subject, goldFiles)
      : mutantCandidates(goldFiles, {
          types: ProjectTypes.fromSources(goldFiles.map((entry) => entry.gold)),
          seed: setup.seed,
          maxPerFamily: setup.maxPerFamily,
          families: setup.families,
        });
  const runs =
    setup.source.kind === 'agent'
      ? sandboxMutantRuns(subject, setup.cache, setup.java)
      : mavenMutantRuns(subject, setup);
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
      const half = mutantHalf(setup.seed, instance.instance_id, candidate, setup.holdOut);
      const fate: MutantFate | { kind: 'Survives' } = touchesSlice(candidate, files)
        ? await setup.clock.time('mutants through the suite', () =>
            survival(subject, patch, candidate.file, (file) => listings.listing(file), setup),
          )
        : { kind: 'Irrelevant' };
      // A survivor's fate is decided by the probes below.
      mutants.push({
        ...described,
        half,
        patch,
        fate: fate.kind === 'Survives' ? { kind: 'Unproven', compared: 0 } : fate,
      });
    }
  } finally {
    await listings.close();
  }
  const survivors = mutants.filter((mutant) => mutant.fate.kind === 'Unproven');
  if (survivors.length === 0) return { mutants, classes: [], variantsTried: 0, losses };

  // Probes on gold: the instance's tests as they are and varied, 3 runs and a foreign one.
  await setup.copy.checkout(withTests(subject, subject.gold));
  const sources = await setup.clock.time('probe sources', () =>
    sourceClasses(subject, setup, losses, {
      asIs: AS_IS_PER_CLASS,
      // Calls aimed at the methods the survivors change.
      callsTo: survivors.reduce((lines, mutant) => {
        const file = lines.get(mutant.file) ?? new Set<number>();
        for (const line of mutant.goldLines) file.add(line);
        return lines.set(mutant.file, file);
      }, new Map<string, Set<number>>()),
    }),
  );
  const variantsTried = sources.reduce((sum, entry) => sum + entry.variants.length, 0);
  const probes: Probe[] = sources.map((origin) => {
    const source = probeClass(origin.source, origin.variants, {
      className: simpleName(origin.newClass),
    });
    return {
      testClass: origin.newClass,
      file: origin.newFile,
      source,
      methods: methodsOf(source),
      origin,
    };
  });
  const onGold = await setup.clock.time('probes on gold', () => runs.onGold(probes, losses));
  if (!onGold) return { mutants, classes: [], variantsTried, losses };

  // Each survivor, twice: a difference stable on both sides is the evidence.
  const evidenceOf = new Map<string, Evidence[]>();
  for (const mutant of survivors) {
    const onMutant = await setup.clock.time('probes on mutants', () =>
      runs.onMutant(mutant, onGold.probes),
    );
    // Only methods that compiled and ran on both sides are compared: one javac dropped on the
    // mutant reached nothing there, which is no difference in behaviour.
    const compared = (onMutant?.probes ?? []).flatMap((probe) => {
      const gold = onGold.probes.find((entry) => entry.file === probe.file);
      const [g, m] = [onGold.observed.get(probe.file), onMutant!.observed.get(probe.file)];
      if (!gold || !g || !m) return [];
      const methods = probe.methods.filter((method) => gold.methods.includes(method));
      return [{ file: probe.file, methods, g, m }];
    });
    const found = compared.flatMap(({ file, methods, g, m }) =>
      differences(g, m, methods).map((e) => ({ ...e, probe: `${file}#${e.probe}` })),
    );
    evidenceOf.set(mutant.id, found);
    mutant.fate =
      found.length > 0
        ? { kind: 'NonEquivalent', evidence: found[0]!, killedBy: null }
        : {
            kind: 'Unproven',
            compared: compared.reduce((sum, entry) => sum + entry.methods.length, 0),
          };
  }

  // The agent's votes on what no probe told apart, recorded beside the evidence's verdict.
  if (setup.source.kind === 'agent') {
    for (const mutant of survivors) {
      if (mutant.fate.kind !== 'Unproven') continue;
      const candidate = candidates.find((entry) => entry.id === mutant.id)!;
      const file = goldFiles.find((entry) => entry.file === candidate.file)!;
      const { judge } = setup.source;
      mutant.fate.votes = await setup.clock.time('equivalence judge', () =>
        judge(subject, file, candidate.source, mutant.id),
      );
    }
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
    const { origin } = onGold.probes.find((entry) => entry.file === file)!;
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
  let kept = await setup.clock.time('kill gate', () => runs.passingOnGold(finals, losses));

  // The kill gate: a method kills a mutant if it fails on it in each of 3 runs.
  for (const mutant of kept.length > 0 ? targets : []) {
    const killing = await setup.clock.time('kill gate', () => runs.killing(mutant, kept));
    for (const [file, methods] of killing) {
      const owner = kept.find((candidate) => candidate.file === file)!;
      for (const method of methods) {
        if (owner.methods.includes(method))
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
  kept = await setup.clock.time('guard and API rule', () =>
    passingGuardAndApiRule(subject, kept, setup, losses),
  );

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

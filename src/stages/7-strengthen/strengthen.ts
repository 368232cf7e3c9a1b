import type { CacheLayout } from '../../core/cache.js';
import type { PhaseClock } from '../../core/phase-clock.js';
import { describeVerdict } from '../../core/verdict.js';
import { pristineState } from '../../project/project.js';
import { patchOf, withPatch, type Patch, type ProjectState } from '../../project/state.js';
import { compiledSources, WorkingCopy } from '../../project/working-copy.js';
import { instanceTestClasses, type RepairInstance } from '../../repair/instance.js';
import { patchFromDiff, withTests, type RepairSubject } from '../../repair/project.js';
import type { TestRunner } from '../../runners/types.js';
import { measureSliceCoverage, type RelevantLines, type SliceCoverage } from './coverage.js';
import { instanceSlice, type FileSlice } from './relevant.js';
import { failingMethods, stageOne, type AmplifiedClass, type StageOneLoss } from './stage-one.js';
import {
  storedGoldAlternatives,
  splitAlternatives,
  type AlternativeLoss,
  type GoldAlternative,
} from './alternatives.js';
import { agentStageOne, type AgentEngineSetup } from './agent/engine.js';
import { stageTwo, type MutantSource, type StageTwoOutcome } from './stage-two.js';
import { agentMutantSource } from './agent/mutation.js';
import type { JavaSandboxSetup } from '../../sandbox/java-runs.js';
import type { RuleFamily } from './mutants.js';

/*
 * Strengthening one instance, Stage I (SWE-ABS §3.2): the slice of gold's change, its coverage by
 * the instance's tests, tests amplified where they miss relevant lines, and the coverage after.
 * New tests go into new classes (`…StrengthenedTest`); the instance's own test files are never
 * edited. A new test that fails on the base tree joins FAIL_TO_PASS, one that passes there joins
 * PASS_TO_PASS; the lists and the test patch from before are kept as `original_*`.
 */

/** Gold's correct alternatives, split into the guard's and those held out from it. */
export interface SplitAlternatives {
  guard: GoldAlternative[];
  heldOut: GoldAlternative[];
  losses: AlternativeLoss[];
}

export type InstanceStrengthening =
  | { kind: 'NotSliced'; reason: string }
  | { kind: 'NotMeasured'; files: FileSlice[]; reason: string }
  | {
      kind: 'Strengthened' | 'Unchanged';
      files: FileSlice[];
      before: Extract<SliceCoverage, { kind: 'Measured' }>;
      after: Extract<SliceCoverage, { kind: 'Measured' }> | null;
      /** Why nothing was added, when nothing was. */
      why: string | null;
      classes: AmplifiedClass[];
      failToPass: string[];
      passToPass: string[];
      variantsTried: number;
      losses: StageOneLoss[];
      /**
       * Gold's correct alternatives, when the gates needed them: those the guard ran the new
       * tests on, and those held out from it (the re-evaluation measures false negatives on these).
       */
      alternatives: SplitAlternatives | null;
      /** Stage II, when asked: its mutants and kept tests, split on the base tree. */
      mutation: StageTwoResult | null;
      instance: RepairInstance;
    };

/** Stage II's outcome with its new tests split on the base tree. */
export type StageTwoResult = StageTwoOutcome & { failToPass: string[]; passToPass: string[] };

export type StrengthenStage = 'coverage' | 'mutation';

export interface StrengthenSetup {
  cache: CacheLayout;
  maven: TestRunner;
  seed: number;
  engine: StageOneEngine;
  stages: readonly StrengthenStage[];
  java: JavaSandboxSetup;
  /** Share of Stage II's surviving mutants held out from test generation. */
  holdOut: number;
  mutantsPerFamily: number;
  /** The rules' mutant families Stage II's deterministic engine tries. */
  mutantFamilies: readonly RuleFamily[];
  /** Mutants the agent engine asks its agent for, per instance. */
  agentMutants: number;
  /** Where the instance's time goes (phases may nest: the guard's alternatives, in a stage). */
  clock: PhaseClock;
}

/** Who writes the new tests: the amplifier, or an agent (its tests gated in the sandbox). */
export type StageOneEngine =
  { kind: 'deterministic' } | { kind: 'agent'; setup: Omit<AgentEngineSetup, 'cache'> };

type Measured = Extract<SliceCoverage, { kind: 'Measured' }>;

/** What an engine added: the classes, how they split on the base tree, and coverage after. */
type AddedTests =
  | { kind: 'NothingMissed' }
  | {
      kind: 'Added';
      classes: AmplifiedClass[];
      patch: Patch;
      failToPass: string[];
      passToPass: string[];
      after: Measured | null;
      variantsTried: number;
      losses: StageOneLoss[];
    };

/** The coverage before with the lines an agent's tests reached (measured in the sandbox) added. */
export function withCovered(before: Measured, covered: readonly string[]): Measured {
  const reached = new Set(covered);
  const files = before.files.map((file) => {
    const now = file.missed.filter((line) => reached.has(`${file.file}:${line}`));
    return {
      ...file,
      covered: [...file.covered, ...now].sort((a, b) => a - b),
      missed: file.missed.filter((line) => !now.includes(line)),
    };
  });
  return { ...before, files, covered: files.reduce((sum, file) => sum + file.covered.length, 0) };
}

function patchOfClasses(classes: readonly AmplifiedClass[]): Patch {
  return patchOf(classes.map((entry) => ({ file: entry.file, before: '', after: entry.source })));
}

/** The agent engine: every run of its tests was in the sandbox, the split and coverage too. */
async function agentAdded(
  subject: RepairSubject,
  before: Measured,
  guard: readonly GoldAlternative[],
  setup: AgentEngineSetup,
): Promise<AddedTests> {
  const outcome = await agentStageOne(subject, before, guard, setup);
  if (outcome.kind === 'NothingMissed') return outcome;
  return {
    kind: 'Added',
    classes: outcome.classes,
    patch: patchOfClasses(outcome.classes),
    failToPass: outcome.failToPass,
    passToPass: outcome.passToPass,
    after: withCovered(before, outcome.covered),
    variantsTried: outcome.attempts,
    losses: outcome.losses,
  };
}

/** Which new tests fail on the base tree (the bug's: FAIL_TO_PASS) and which pass there. */
async function splitOnBase(
  subject: RepairSubject,
  classes: readonly AmplifiedClass[],
  setup: { maven: TestRunner; copy: WorkingCopy },
): Promise<{ failToPass: string[]; passToPass: string[] }> {
  const changed = await setup.copy.checkout(
    withPatch(withTests(subject, subject.base), patchOfClasses(classes)),
  );
  const target = {
    projectDir: setup.copy.root,
    build: subject.project.build,
    changed: compiledSources(changed),
  };
  const compiled = await setup.maven.compile(target);
  if (compiled.kind !== 'Compiled') {
    // Both stages keep only tests that compile against the base tree: this is a harness fault.
    throw new Error(
      `the base tree with the new tests does not build: ${describeVerdict(compiled.verdict)}`,
    );
  }
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  for (const entry of classes) {
    const run = await setup.maven.run({ target, testClass: entry.testClass });
    const failing = failingMethods(run.verdict, entry.methods);
    for (const method of entry.methods) {
      (failing.has(method) ? failToPass : passToPass).push(`${entry.testClass}#${method}`);
    }
  }
  return { failToPass, passToPass };
}

/** The deterministic engine: its own tests, run under Maven for coverage and the split. */
async function amplifiedAdded(
  subject: RepairSubject,
  gold: ProjectState,
  before: Measured,
  relevant: RelevantLines,
  tests: ReadonlyMap<string, readonly string[] | null>,
  setup: {
    cache: CacheLayout;
    maven: TestRunner;
    seed: number;
    copy: WorkingCopy;
    guard: () => Promise<GoldAlternative[]>;
  },
): Promise<AddedTests> {
  const amplified = await stageOne(subject, before, setup);
  if (amplified.kind === 'NothingMissed') return amplified;
  const { variantsTried, losses } = amplified;
  const patch = patchOfClasses(amplified.classes);
  if (amplified.classes.length === 0) {
    return {
      kind: 'Added',
      classes: [],
      patch,
      failToPass: [],
      passToPass: [],
      after: null,
      variantsTried,
      losses,
    };
  }
  const after = await measureSliceCoverage(subject, withPatch(gold, patch), relevant, {
    ...setup,
    testClasses: new Map([
      ...tests,
      ...amplified.classes.map((entry) => [entry.testClass, entry.methods] as const),
    ]),
  });

  const { failToPass, passToPass } = await splitOnBase(subject, amplified.classes, setup);
  return {
    kind: 'Added',
    classes: amplified.classes,
    patch,
    failToPass,
    passToPass,
    after: after.kind === 'Measured' ? after : null,
    variantsTried,
    losses,
  };
}

/** Stage II's mutants: the rules', or (agent engine) the agent's, its runs kept as Stage I's. */
function mutantSource(setup: StrengthenSetup): MutantSource {
  const { engine } = setup;
  if (engine.kind !== 'agent') return { kind: 'rules' };
  return agentMutantSource({
    ...engine.setup,
    cache: setup.cache,
    count: setup.agentMutants,
    saveRun: (index, result) => engine.setup.saveRun(`mutant-${index}`, result),
    saveJudgeRun: (mutantId, vote, result) =>
      engine.setup.saveRun(`judge-${mutantId}-${vote}`, result),
  });
}

/** The instance with new tests added (its lists and test patch from before kept as `original_*`). */
function withAddedTests(
  instance: RepairInstance,
  added: { patch: Patch; failToPass: readonly string[]; passToPass: readonly string[] },
): RepairInstance {
  return {
    ...instance,
    test_patch: `${instance.test_patch}${added.patch.diff}`,
    FAIL_TO_PASS: [...instance.FAIL_TO_PASS, ...added.failToPass].sort(),
    PASS_TO_PASS: [...instance.PASS_TO_PASS, ...added.passToPass].sort(),
  };
}

/** Why an instance was left unchanged, stage by stage. */
function whyUnchanged(stageOne: AddedTests | null, mutation: StageTwoOutcome | null): string {
  const reasons: string[] = [];
  if (stageOne?.kind === 'NothingMissed')
    reasons.push('the instance tests cover every relevant line');
  else if (stageOne) reasons.push('no coverage test passed every gate');
  if (mutation) {
    const survivors = mutation.mutants.filter(
      (mutant) => mutant.fate.kind === 'Unproven' || mutant.fate.kind === 'NonEquivalent',
    );
    const proven = survivors.filter((mutant) => mutant.fate.kind === 'NonEquivalent');
    reasons.push(
      survivors.length === 0
        ? `none of ${mutation.mutants.length} mutants survived the suite`
        : `${survivors.length} mutants survived, ${proven.length} told from gold by a probe, no killing test passed every gate`,
    );
  }
  return reasons.join('; ');
}

export async function strengthenInstance(
  subject: RepairSubject,
  setup: StrengthenSetup,
): Promise<InstanceStrengthening> {
  const { project, instance } = subject;
  const copy = await WorkingCopy.create(
    project.root,
    pristineState(project),
    project.layout,
    'strengthen',
  );
  try {
    const gold = withTests(subject, subject.gold);
    await copy.checkout(gold);
    const { clock } = setup;
    const slice = await clock.time('slice', () => instanceSlice(subject, copy.root, setup.cache));
    if (slice.kind === 'NotSliced') return slice;
    const tests = instanceTestClasses(instance);
    const before = await clock.time('coverage', () =>
      measureSliceCoverage(subject, gold, slice.relevant, { ...setup, copy, testClasses: tests }),
    );
    if (before.kind === 'NotMeasured') {
      return { kind: 'NotMeasured', files: slice.files, reason: before.reason };
    }
    // The guard's correct alternatives cost Maven runs: made once, and only when a test needs them.
    let alternatives: SplitAlternatives | null = null;
    const guard = async (): Promise<GoldAlternative[]> => {
      if (!alternatives) {
        const made = await clock.time('alternatives', () =>
          storedGoldAlternatives(subject, { ...setup, copy }),
        );
        alternatives = {
          ...splitAlternatives(made.alternatives, instance.instance_id, setup.seed),
          losses: made.losses,
        };
      }
      return alternatives.guard;
    };

    // Stage I: tests where the suite misses relevant lines.
    let stageOne: AddedTests | null = null;
    if (setup.stages.includes('coverage')) {
      const { engine } = setup;
      stageOne = await clock.time('stage I', async () =>
        engine.kind === 'agent'
          ? agentAdded(subject, before, await guard(), { ...engine.setup, cache: setup.cache })
          : amplifiedAdded(subject, gold, before, slice.relevant, tests, {
              ...setup,
              copy,
              guard,
            }),
      );
    }
    const added = stageOne?.kind === 'Added' ? stageOne : null;
    let current = added && added.classes.length > 0 ? withAddedTests(instance, added) : instance;

    // Stage II: mutants the suite (Stage I's tests included) lets pass, and tests that kill them.
    let mutation: StageTwoResult | null = null;
    if (setup.stages.includes('mutation')) {
      const subjectTwo: RepairSubject = {
        ...subject,
        instance: current,
        testPatch: current === instance ? subject.testPatch : patchFromDiff(current.test_patch),
      };
      const outcome = await stageTwo(subjectTwo, slice.files, {
        ...setup,
        copy,
        guard,
        maxPerFamily: setup.mutantsPerFamily,
        families: setup.mutantFamilies,
        source: mutantSource(setup),
      });
      const split =
        outcome.classes.length > 0
          ? await clock.time('split on base', () =>
              splitOnBase(subjectTwo, outcome.classes, { ...setup, copy }),
            )
          : { failToPass: [], passToPass: [] };
      mutation = { ...outcome, ...split };
      if (outcome.classes.length > 0) {
        current = withAddedTests(current, { ...split, patch: patchOfClasses(outcome.classes) });
      }
    }

    const failToPass = [...(added?.failToPass ?? []), ...(mutation?.failToPass ?? [])];
    const passToPass = [...(added?.passToPass ?? []), ...(mutation?.passToPass ?? [])];
    const report = {
      files: slice.files,
      before,
      after: added?.after ?? null,
      classes: added?.classes ?? [],
      failToPass: added?.failToPass ?? [],
      passToPass: added?.passToPass ?? [],
      variantsTried: added?.variantsTried ?? 0,
      losses: added?.losses ?? [],
      alternatives,
      mutation,
    };
    if (current === instance) {
      return {
        kind: 'Unchanged',
        ...report,
        why: whyUnchanged(stageOne, mutation),
        instance,
      };
    }
    const mutants = mutation?.mutants ?? [];
    const strengthened: RepairInstance = {
      ...current,
      original_test_patch: instance.test_patch,
      original_FAIL_TO_PASS: instance.FAIL_TO_PASS,
      original_PASS_TO_PASS: instance.PASS_TO_PASS,
      strengthening: {
        engine: setup.engine.kind,
        stages: [...setup.stages],
        added: [...failToPass, ...passToPass].sort(),
        coverage: {
          relevant: before.relevant,
          before: before.covered,
          after: added?.after?.covered ?? before.covered,
        },
        ...(mutation
          ? {
              mutants: {
                surviving: mutants.filter((mutant) =>
                  ['Unproven', 'NonEquivalent'].includes(mutant.fate.kind),
                ).length,
                proven: mutants.filter((mutant) => mutant.fate.kind === 'NonEquivalent').length,
                killed: mutants.filter(
                  (mutant) =>
                    mutant.fate.kind === 'NonEquivalent' && (mutant.fate.killedBy?.length ?? 0) > 0,
                ).length,
              },
            }
          : {}),
      },
    };
    return { kind: 'Strengthened', ...report, why: null, instance: strengthened };
  } finally {
    await copy.close();
  }
}

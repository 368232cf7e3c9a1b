import type { CacheLayout } from '../../core/cache.js';
import { describeVerdict } from '../../core/verdict.js';
import { pristineState } from '../../project/project.js';
import { patchOf, withPatch, type Patch, type ProjectState } from '../../project/state.js';
import { compiledSources, WorkingCopy } from '../../project/working-copy.js';
import { instanceTestClasses, type RepairInstance } from '../../repair/instance.js';
import { withTests, type RepairSubject } from '../../repair/project.js';
import type { TestRunner } from '../../runners/types.js';
import { measureSliceCoverage, type RelevantLines, type SliceCoverage } from './coverage.js';
import { instanceSlice, type FileSlice } from './relevant.js';
import { failingMethods, stageOne, type AmplifiedClass, type StageOneLoss } from './stage-one.js';
import {
  goldAlternatives,
  splitAlternatives,
  type AlternativeLoss,
  type GoldAlternative,
} from './alternatives.js';
import { agentStageOne, type AgentEngineSetup } from './agent/engine.js';

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
      instance: RepairInstance;
    };

/** Who writes the new tests: the amplifier, or an agent (its tests gated in the sandbox). */
export type StageOneEngine =
  { kind: 'deterministic' } | { kind: 'agent'; setup: Omit<AgentEngineSetup, 'cache'> };

type Measured = Extract<SliceCoverage, { kind: 'Measured' }>;

function unchanged(
  instance: RepairInstance,
  files: FileSlice[],
  before: Measured,
  why: string,
  tried: {
    variantsTried: number;
    losses: StageOneLoss[];
    alternatives: SplitAlternatives | null;
  } = {
    variantsTried: 0,
    losses: [],
    alternatives: null,
  },
): InstanceStrengthening {
  return {
    kind: 'Unchanged',
    files,
    before,
    after: null,
    why,
    classes: [],
    failToPass: [],
    passToPass: [],
    ...tried,
    instance,
  };
}

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

  // On the base tree: which new tests fail (the bug's) and which pass.
  const changed = await setup.copy.checkout(withPatch(withTests(subject, subject.base), patch));
  const target = {
    projectDir: setup.copy.root,
    build: subject.project.build,
    changed: compiledSources(changed),
  };
  const compiled = await setup.maven.compile(target);
  if (compiled.kind !== 'Compiled') {
    // Stage I kept only tests that compile against the base tree: this is a harness fault.
    throw new Error(
      `the base tree with the new tests does not build: ${describeVerdict(compiled.verdict)}`,
    );
  }
  const failToPass: string[] = [];
  const passToPass: string[] = [];
  for (const entry of amplified.classes) {
    const run = await setup.maven.run({ target, testClass: entry.testClass });
    const failing = failingMethods(run.verdict, entry.methods);
    for (const method of entry.methods) {
      (failing.has(method) ? failToPass : passToPass).push(`${entry.testClass}#${method}`);
    }
  }
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

export async function strengthenInstance(
  subject: RepairSubject,
  setup: { cache: CacheLayout; maven: TestRunner; seed: number; engine: StageOneEngine },
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
    const slice = await instanceSlice(subject, copy.root, setup.cache);
    if (slice.kind === 'NotSliced') return slice;
    const tests = instanceTestClasses(instance);
    const before = await measureSliceCoverage(subject, gold, slice.relevant, {
      ...setup,
      copy,
      testClasses: tests,
    });
    if (before.kind === 'NotMeasured') {
      return { kind: 'NotMeasured', files: slice.files, reason: before.reason };
    }
    // The guard's correct alternatives cost Maven runs: made once, and only when a test needs them.
    let alternatives: SplitAlternatives | null = null;
    const guard = async (): Promise<GoldAlternative[]> => {
      if (!alternatives) {
        const made = await goldAlternatives(subject, { ...setup, copy });
        alternatives = {
          ...splitAlternatives(made.alternatives, instance.instance_id, setup.seed),
          losses: made.losses,
        };
      }
      return alternatives.guard;
    };
    const added =
      setup.engine.kind === 'agent'
        ? await agentAdded(subject, before, await guard(), {
            ...setup.engine.setup,
            cache: setup.cache,
          })
        : await amplifiedAdded(subject, gold, before, slice.relevant, tests, {
            ...setup,
            copy,
            guard,
          });
    if (added.kind === 'NothingMissed') {
      return unchanged(
        instance,
        slice.files,
        before,
        'the instance tests cover every relevant line',
      );
    }
    if (added.classes.length === 0) {
      return unchanged(instance, slice.files, before, 'no new test passed every gate', {
        variantsTried: added.variantsTried,
        losses: added.losses,
        alternatives,
      });
    }
    const { failToPass, passToPass } = added;
    const strengthened: RepairInstance = {
      ...instance,
      test_patch: `${instance.test_patch}${added.patch.diff}`,
      FAIL_TO_PASS: [...instance.FAIL_TO_PASS, ...failToPass].sort(),
      PASS_TO_PASS: [...instance.PASS_TO_PASS, ...passToPass].sort(),
      original_test_patch: instance.test_patch,
      original_FAIL_TO_PASS: instance.FAIL_TO_PASS,
      original_PASS_TO_PASS: instance.PASS_TO_PASS,
      strengthening: {
        engine: setup.engine.kind,
        stages: ['coverage'],
        added: [...failToPass, ...passToPass].sort(),
        coverage: {
          relevant: before.relevant,
          before: before.covered,
          after: added.after?.covered ?? before.covered,
        },
      },
    };
    return {
      kind: 'Strengthened',
      files: slice.files,
      before,
      after: added.after,
      why: null,
      classes: added.classes,
      failToPass,
      passToPass,
      variantsTried: added.variantsTried,
      losses: added.losses,
      alternatives,
      instance: strengthened,
    };
  } finally {
    await copy.close();
  }
}

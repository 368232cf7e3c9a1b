import type { CacheLayout } from '../../core/cache.js';
import { baseTestMethod } from '../../core/test-reports.js';
import { describeVerdict } from '../../core/verdict.js';
import { pristineState } from '../../project/project.js';
import { patchOf, withPatch } from '../../project/state.js';
import { compiledSources, WorkingCopy } from '../../project/working-copy.js';
import { instanceTestClasses, type RepairInstance } from '../../repair/instance.js';
import { withTests, type RepairSubject } from '../../repair/project.js';
import type { TestRunner } from '../../runners/types.js';
import { measureSliceCoverage, type SliceCoverage } from './coverage.js';
import { instanceSlice, type FileSlice } from './relevant.js';
import { stageOne, type AmplifiedClass, type StageOneLoss } from './stage-one.js';

/*
 * Strengthening one instance, Stage I (SWE-ABS §3.2): the slice of gold's change, its coverage by
 * the instance's tests, tests amplified where they miss relevant lines, and the coverage after.
 * New tests go into new classes (`…StrengthenedTest`); the instance's own test files are never
 * edited. A new test that fails on the base tree joins FAIL_TO_PASS, one that passes there joins
 * PASS_TO_PASS; the lists and the test patch from before are kept as `original_*`.
 */

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
      instance: RepairInstance;
    };

export async function strengthenInstance(
  subject: RepairSubject,
  setup: { cache: CacheLayout; maven: TestRunner; seed: number },
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
    const amplified = await stageOne(subject, before, { ...setup, copy });
    const unchanged = (
      why: string,
      variantsTried = 0,
      losses: StageOneLoss[] = [],
    ): InstanceStrengthening => ({
      kind: 'Unchanged',
      files: slice.files,
      before,
      after: null,
      why,
      classes: [],
      failToPass: [],
      passToPass: [],
      variantsTried,
      losses,
      instance,
    });
    if (amplified.kind === 'NothingMissed') {
      return unchanged('the instance tests cover every relevant line');
    }
    if (amplified.classes.length === 0) {
      return unchanged(
        'no amplified test passed every gate',
        amplified.variantsTried,
        amplified.losses,
      );
    }

    const added = patchOf(
      amplified.classes.map((entry) => ({ file: entry.file, before: '', after: entry.source })),
    );
    const goldWithNew = withPatch(gold, added);
    const after = await measureSliceCoverage(subject, goldWithNew, slice.relevant, {
      ...setup,
      copy,
      testClasses: new Map([
        ...tests,
        ...amplified.classes.map((entry) => [entry.testClass, entry.methods] as const),
      ]),
    });

    // On the base tree: which new tests fail (the bug's) and which pass.
    const baseWithNew = withPatch(withTests(subject, subject.base), added);
    const changed = await copy.checkout(baseWithNew);
    const target = {
      projectDir: copy.root,
      build: project.build,
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
      const ids = entry.methods.map((method) => `${entry.testClass}#${method}`);
      const run = await setup.maven.run({ target, testClass: entry.testClass });
      const failing =
        run.verdict.kind === 'TestFailed' || run.verdict.kind === 'TestErrored'
          ? new Set(run.verdict.failures.map((failure) => baseTestMethod(failure.testMethod)))
          : run.verdict.kind === 'Passed'
            ? new Set<string>()
            : new Set(entry.methods);
      for (const [index, method] of entry.methods.entries()) {
        (failing.has(method) ? failToPass : passToPass).push(ids[index]!);
      }
    }
    const strengthened: RepairInstance = {
      ...instance,
      test_patch: `${instance.test_patch}${added.diff}`,
      FAIL_TO_PASS: [...instance.FAIL_TO_PASS, ...failToPass].sort(),
      PASS_TO_PASS: [...instance.PASS_TO_PASS, ...passToPass].sort(),
      original_test_patch: instance.test_patch,
      original_FAIL_TO_PASS: instance.FAIL_TO_PASS,
      original_PASS_TO_PASS: instance.PASS_TO_PASS,
      strengthening: {
        engine: 'deterministic',
        stages: ['coverage'],
        added: [...failToPass, ...passToPass].sort(),
        coverage: {
          relevant: before.relevant,
          before: before.covered,
          after: after.kind === 'Measured' ? after.covered : before.covered,
        },
      },
    };
    return {
      kind: 'Strengthened',
      files: slice.files,
      before,
      after: after.kind === 'Measured' ? after : null,
      why: null,
      classes: amplified.classes,
      failToPass,
      passToPass,
      variantsTried: amplified.variantsTried,
      losses: amplified.losses,
      instance: strengthened,
    };
  } finally {
    await copy.close();
  }
}

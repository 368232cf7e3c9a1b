import { describeVerdict } from '../../core/verdict.js';
import { pristineState } from '../../project/project.js';
import { WorkingCopy } from '../../project/working-copy.js';
import type { TestRunner } from '../../runners/types.js';
import { testStatuses } from '../../repair/judge.js';
import { withTests, type RepairSubject } from '../../repair/project.js';
import { runInstanceTests } from '../../repair/run.js';

/*
 * S0: an instance is sound when, in `runs` fresh Maven runs each, its FAIL_TO_PASS tests fail and
 * its PASS_TO_PASS tests pass on the base tree with the test patch, and all of them pass on the
 * gold tree with the test patch. A broken or flaky instance is reported and skipped, never
 * repaired: a strengthened suite built on it would inherit its fault.
 */

export const S0_RUNS = 3;

export type InstanceValidity =
  | { kind: 'Valid'; instanceId: string; durationMs: number }
  /** The tests say something other than the instance claims, the same in every run. */
  | {
      kind: 'Invalid';
      instanceId: string;
      side: 'base' | 'gold';
      problems: string[];
      durationMs: number;
    }
  /** Runs of one class disagreed. */
  | {
      kind: 'Flaky';
      instanceId: string;
      side: 'base' | 'gold';
      classes: string[];
      durationMs: number;
    }
  /** A tree did not build, or a patch does not apply. */
  | {
      kind: 'Broken';
      instanceId: string;
      side: 'base' | 'gold';
      reason: string;
      durationMs: number;
    };

export async function validateInstance(
  subject: RepairSubject,
  setup: { maven: TestRunner; runs?: number },
): Promise<InstanceValidity> {
  const started = Date.now();
  const instanceId = subject.instance.instance_id;
  const took = () => Date.now() - started;
  const copy = await WorkingCopy.create(
    subject.project.root,
    pristineState(subject.project),
    subject.project.layout,
    'validate',
  );
  try {
    for (const side of ['base', 'gold'] as const) {
      const state = withTests(subject, side === 'base' ? subject.base : subject.gold);
      let ran;
      try {
        ran = await runInstanceTests(subject, state, {
          runner: setup.maven,
          copy,
          runs: setup.runs ?? S0_RUNS,
        });
      } catch (error) {
        if (!/does not apply/.test((error as Error).message)) throw error;
        return {
          kind: 'Broken',
          instanceId,
          side,
          reason: (error as Error).message,
          durationMs: took(),
        };
      }
      if (ran.kind === 'CompileFailed') {
        return {
          kind: 'Broken',
          instanceId,
          side,
          reason: describeVerdict(ran.verdict),
          durationMs: took(),
        };
      }
      const flaky = ran.classes.filter((run) => run.verdict.kind === 'Flaky');
      if (flaky.length > 0) {
        return {
          kind: 'Flaky',
          instanceId,
          side,
          classes: flaky.map((run) => run.testClass),
          durationMs: took(),
        };
      }
      const { FAIL_TO_PASS, PASS_TO_PASS } = subject.instance;
      const statuses = testStatuses([...FAIL_TO_PASS, ...PASS_TO_PASS], ran.classes);
      const problems: string[] = [];
      for (const [test, status] of statuses) {
        const shouldFail = side === 'base' && FAIL_TO_PASS.includes(test);
        if (status.kind === 'NotJudged') problems.push(`${test} was not judged: ${status.reason}`);
        else if (shouldFail && status.kind === 'Passed')
          problems.push(`${test} passes on the base tree`);
        else if (!shouldFail && status.kind === 'Failed') {
          problems.push(`${test} fails on the ${side} tree (${status.exception})`);
        }
      }
      if (problems.length > 0)
        return { kind: 'Invalid', instanceId, side, problems, durationMs: took() };
    }
    return { kind: 'Valid', instanceId, durationMs: took() };
  } finally {
    await copy.close();
  }
}

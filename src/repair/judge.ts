import { baseTestMethod } from '../core/test-reports.js';
import { describeVerdict, type Verdict } from '../core/verdict.js';
import { splitTestId, type RepairInstance } from './instance.js';

/*
 * How a repair instance's tests came out on one tree, and whether that resolves the instance:
 * SWE-bench's rule, every FAIL_TO_PASS and PASS_TO_PASS test passes. Verdicts come from the
 * runners (exit codes and Surefire reports), never from what a test prints.
 */

/** One test class of the instance, run on one tree (several runs fold into one verdict). */
export interface ClassRun {
  testClass: string;
  verdict: Verdict;
}

export type TestStatus =
  | { kind: 'Passed' }
  | { kind: 'Failed'; exception: string }
  /** The class did not run to a judgement: it did not compile, timed out, crashed, was flaky. */
  | { kind: 'NotJudged'; reason: string };

/** The status of each named test (`Class#method`) from its class's run. */
export function testStatuses(
  tests: readonly string[],
  runs: readonly ClassRun[],
): Map<string, TestStatus> {
  const byClass = new Map(runs.map((run) => [run.testClass, run.verdict]));
  const statuses = new Map<string, TestStatus>();
  for (const id of tests) {
    const { testClass, method } = splitTestId(id);
    const verdict = byClass.get(testClass);
    if (!verdict) {
      statuses.set(id, { kind: 'NotJudged', reason: `${testClass} was not run` });
      continue;
    }
    switch (verdict.kind) {
      case 'Passed':
        statuses.set(id, { kind: 'Passed' });
        break;
      case 'TestFailed':
      case 'TestErrored': {
        const failure = verdict.failures.find(
          (detail) =>
            detail.testClass === testClass && baseTestMethod(detail.testMethod) === method,
        );
        statuses.set(
          id,
          failure ? { kind: 'Failed', exception: failure.exceptionType } : { kind: 'Passed' },
        );
        break;
      }
      default:
        statuses.set(id, { kind: 'NotJudged', reason: describeVerdict(verdict) });
    }
  }
  return statuses;
}

export type RepairJudgement =
  | { kind: 'Resolved' }
  | {
      kind: 'Unresolved';
      /** FAIL_TO_PASS tests that still fail, PASS_TO_PASS tests the tree breaks. */
      stillFailing: string[];
      broken: string[];
      notJudged: { test: string; reason: string }[];
    };

/** SWE-bench's verdict on a tree with the instance's tests: resolved iff every named test passes. */
export function judgeRepair(
  instance: Pick<RepairInstance, 'FAIL_TO_PASS' | 'PASS_TO_PASS'>,
  runs: readonly ClassRun[],
): RepairJudgement {
  const statuses = testStatuses([...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS], runs);
  const failing = (ids: readonly string[]) =>
    ids.filter((id) => statuses.get(id)?.kind === 'Failed');
  const notJudged = [...statuses].flatMap(([test, status]) =>
    status.kind === 'NotJudged' ? [{ test, reason: status.reason }] : [],
  );
  const stillFailing = failing(instance.FAIL_TO_PASS);
  const broken = failing(instance.PASS_TO_PASS);
  if (stillFailing.length === 0 && broken.length === 0 && notJudged.length === 0) {
    return { kind: 'Resolved' };
  }
  return { kind: 'Unresolved', stillFailing, broken, notJudged };
}

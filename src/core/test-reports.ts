import type { SingleVerdict, TestCounts, TestFailureDetail } from './verdict.js';

/** The results of one test class, as a test runner reported them (a Surefire `<testsuite>`). */
export interface SuiteReport {
  testClass: string;
  counts: TestCounts;
  timeMs: number;
  cases: CaseReport[];
}

export interface CaseReport {
  testClass: string;
  testMethod: string;
  timeMs: number;
  outcome: 'passed' | 'failure' | 'error' | 'skipped';
  detail?: TestFailureDetail;
}

function aggregateCounts(reports: SuiteReport[]): TestCounts {
  const counts: TestCounts = { tests: 0, failures: 0, errors: 0, skipped: 0 };
  for (const report of reports) {
    counts.tests += report.counts.tests;
    counts.failures += report.counts.failures;
    counts.errors += report.counts.errors;
    counts.skipped += report.counts.skipped;
  }
  return counts;
}

/**
 * The verdict of a set of Surefire reports: any assertion failure makes it TestFailed (details of
 * errors are kept alongside), only errors TestErrored, nothing run (or all skipped) NoTestsRan.
 * A test that runs out of memory hit the harness's bound, not an assertion: Crashed.
 */
export function verdictFromReports(reports: SuiteReport[]): SingleVerdict {
  const cases = reports.flatMap((report) => report.cases);
  const details = cases.flatMap((testCase) => (testCase.detail ? [testCase.detail] : []));
  const outOfMemory = details.find((detail) => detail.exceptionType.endsWith('OutOfMemoryError'));
  if (outOfMemory) {
    return {
      kind: 'Crashed',
      reason: `${outOfMemory.exceptionType} in ${outOfMemory.testClass}.${outOfMemory.testMethod}`,
    };
  }
  const counts = aggregateCounts(reports);
  if (details.some((detail) => detail.category === 'failure')) {
    return { kind: 'TestFailed', counts, failures: orderFailuresFirst(details) };
  }
  if (details.length > 0) return { kind: 'TestErrored', counts, failures: details };
  if (counts.tests - counts.skipped <= 0) {
    return {
      kind: 'NoTestsRan',
      reason: reports.length === 0 ? 'no test report was written' : 'every test was skipped',
    };
  }
  return {
    kind: 'Passed',
    counts,
    testTimeMs: reports.reduce((sum, report) => sum + report.timeMs, 0),
  };
}

function orderFailuresFirst(details: TestFailureDetail[]): TestFailureDetail[] {
  return [
    ...details.filter((detail) => detail.category === 'failure'),
    ...details.filter((detail) => detail.category === 'error'),
  ];
}

import type { SingleVerdict, TestCounts, TestFailureDetail } from './verdict.js';

/** What a runner's report says of a thrown exception, before its class is settled. */
export interface ReportedThrowable {
  /**
   * The first line of the throwable as its trace prints it: its toString(), by default
   * `java.lang.Foo: message` (Surefire's XML has the trace as text; the warm JVM sends the line).
   */
  printed: string | undefined;
  /** Frames of the trace as printed, the one that constructed the throwable first. */
  frames: readonly string[];
}

/** The type of a failure whose printed form does not name its exception's class. */
export const UNNAMED_THROWABLE = 'unknown';

const QUALIFIED_CLASS_NAME = /^(?:[\p{L}_$][\p{L}\p{N}_$]*\.)+[\p{L}_$][\p{L}\p{N}_$]*$/u;

/**
 * Throwables that print their message without their class name (their toString() is
 * getMessage()), by the method that constructs them. JUnit 4's assertArrayEquals prints `array
 * lengths differed, expected.length=3 actual.length=2; …`, or with a message argument `round
 * trip: arrays first differed …`, whose part before ':' would pass for a class name.
 */
const PRINTED_WITHOUT_CLASS = [
  {
    constructedIn: /^(?:[^/(]*\/)*org\.junit\.internal\.ComparisonCriteria\.arrayEquals\(/,
    type: 'org.junit.internal.ArrayComparisonFailure',
  },
];

/**
 * The class of a failure's exception, by one rule for every runner, read from what both have:
 * the printed first line and the frames. Surefire's `type` attribute is that line up to its first
 * ':', so a throwable whose toString() does not start with its class puts its message there; the
 * warm JVM knows the class, but naming it from there would make the two runners disagree. So: a
 * throwable known to print without its class is named by where it was constructed; otherwise the
 * line's text before ':' when it is a qualified class name; otherwise the failure is unnamed.
 */
export function thrownClass(reported: ReportedThrowable): string {
  const top = reported.frames[0];
  const known = PRINTED_WITHOUT_CLASS.find((entry) => top && entry.constructedIn.test(top));
  if (known) return known.type;
  const named = reported.printed?.split(':')[0]!.trim();
  return named && QUALIFIED_CLASS_NAME.test(named) ? named : UNNAMED_THROWABLE;
}

/** What a witness is known to show: the exception class each failing test method ends with. */
export type FailingMethods = Record<string, string>;

/**
 * A test method's name without its parameters: Surefire names each run of a parameterised test
 * (`testEncode[Renault-…]`, `parse(String)[2]`), the warm JVM names the method.
 */
export function baseTestMethod(name: string): string {
  return name.replace(/\[.*\]$/, '').replace(/\(.*\)$/, '');
}

/** The failing methods of a run and their exception classes (none unless the run failed). */
export function failingMethodsOf(verdict: SingleVerdict): FailingMethods {
  if (verdict.kind !== 'TestFailed' && verdict.kind !== 'TestErrored') return {};
  return Object.fromEntries(verdict.failures.map((f) => [f.testMethod, f.exceptionType]));
}

/** A signature by test method, parameterised runs folded into their method. */
function byMethod(signature: FailingMethods): FailingMethods {
  return Object.fromEntries(
    Object.entries(signature).map(([method, exception]) => [baseTestMethod(method), exception]),
  );
}

/**
 * How the observed failures differ from the expected ones, or undefined when they are equal: the
 * one comparison of the build's Maven confirmation and of `case verify`.
 */
export function signatureMismatch(
  expectedRuns: FailingMethods,
  observedRuns: FailingMethods,
): string | undefined {
  const problems: string[] = [];
  const expected = byMethod(expectedRuns);
  const observed = byMethod(observedRuns);
  for (const [method, exception] of Object.entries(expected)) {
    const seen = observed[method];
    if (seen === undefined) problems.push(`${method} does not fail (expected ${exception})`);
    else if (seen !== exception)
      problems.push(`${method} fails with ${seen}, expected ${exception}`);
  }
  for (const [method, exception] of Object.entries(observed)) {
    if (!(method in expected)) problems.push(`${method} fails with ${exception}, unexpected`);
  }
  return problems.length === 0 ? undefined : problems.join('; ');
}

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

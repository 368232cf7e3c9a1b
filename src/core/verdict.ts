/**
 * The answer to "run this test class of this project: what happened?". Every toolchain and runner
 * produces this union; consumers switch on `kind`, never on a boolean plus a message.
 */

export interface TestFailureDetail {
  testClass: string;
  testMethod: string;
  /** `failure` is an assertion (Surefire `<failure>`); `error` any other throwable (`<error>`). */
  category: 'failure' | 'error';
  exceptionType: string;
  message: string;
  /** Top frames of the stack trace, outermost first as printed. */
  frames: string[];
  /**
   * Every frame of the trace as printed, `Caused by:` sections included (capped): which methods
   * the failure passed through, when a report has the whole trace.
   */
  stack?: string[];
}

export interface TestCounts {
  tests: number;
  failures: number;
  errors: number;
  skipped: number;
}

export interface CompileMessage {
  file: string;
  line: number | null;
  column: number | null;
  message: string;
}

export type Verdict =
  | { kind: 'Passed'; counts: TestCounts; testTimeMs: number }
  | { kind: 'TestFailed'; counts: TestCounts; failures: TestFailureDetail[] }
  | { kind: 'TestErrored'; counts: TestCounts; failures: TestFailureDetail[] }
  | { kind: 'CompileError'; scope: 'main' | 'test'; messages: CompileMessage[] }
  | { kind: 'Timeout'; phase: 'compile' | 'test'; limitMs: number }
  | { kind: 'Crashed'; reason: string }
  | { kind: 'NoTestsRan'; reason: string }
  | { kind: 'InfraError'; cause: InfraCause; reason: string }
  | { kind: 'Flaky'; kinds: SingleVerdictKind[]; runs: SingleVerdict[] };

export type InfraCause = 'dependency-resolution' | 'build-tool' | 'io';
export type VerdictKind = Verdict['kind'];
export type SingleVerdict = Exclude<Verdict, { kind: 'Flaky' }>;
export type SingleVerdictKind = SingleVerdict['kind'];

/** A verdict in which the test ran and observed the code misbehave. */
export function exposesBug(verdict: Verdict): boolean {
  return verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored';
}

/**
 * Folds repeated runs of the same test into one verdict: identical kinds give the first run's
 * verdict; any disagreement is `Flaky` with every run kept.
 */
export function combineRuns(runs: SingleVerdict[]): Verdict {
  const first = runs[0];
  if (first === undefined) throw new Error('combineRuns needs at least one run');
  const kinds = runs.map((run) => run.kind);
  if (kinds.every((kind) => kind === first.kind)) return first;
  return { kind: 'Flaky', kinds, runs };
}

/** One line for people, e.g. `TestFailed: JSONParserTest.testParse AssertionError: expected...`. */
export function describeVerdict(verdict: Verdict): string {
  switch (verdict.kind) {
    case 'Passed':
      return `Passed (${verdict.counts.tests} tests, ${verdict.counts.skipped} skipped)`;
    case 'TestFailed':
    case 'TestErrored': {
      const first = verdict.failures[0];
      const where = first
        ? `${simpleName(first.testClass)}.${first.testMethod} ${first.exceptionType}: ${oneLine(first.message)}`
        : 'no detail';
      const more = verdict.failures.length > 1 ? ` (+${verdict.failures.length - 1} more)` : '';
      return `${verdict.kind}: ${where}${more}`;
    }
    case 'CompileError': {
      const first = verdict.messages[0];
      const where = first ? `${first.file}:${first.line ?? '?'} ${oneLine(first.message)}` : '';
      return `CompileError (${verdict.scope} sources): ${where}`;
    }
    case 'Timeout':
      return `Timeout (${verdict.phase} exceeded ${Math.round(verdict.limitMs / 1000)} s)`;
    case 'Crashed':
    case 'NoTestsRan':
      return `${verdict.kind}: ${verdict.reason}`;
    case 'InfraError':
      return `InfraError (${verdict.cause}): ${verdict.reason}`;
    case 'Flaky':
      return `Flaky: runs disagree (${verdict.kinds.join(', ')})`;
  }
}

function simpleName(fqcn: string): string {
  return fqcn.slice(fqcn.lastIndexOf('.') + 1);
}

function oneLine(text: string, max = 160): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > max ? `${flat.slice(0, max - 1)}…` : flat;
}

import { describe, expect, it } from 'vitest';
import type { SingleVerdict } from '../../core/verdict.js';
import { projectLayout } from '../../toolchains/layout.js';
import type { CaseRecord } from '../4-archive/case.js';
import {
  compileDiagnosis,
  diagnoseRuns,
  membersEntered,
  primaryTest,
  runOrder,
  testClassOf,
} from './verify-submission.js';

const counts = (tests: number, skipped = 0) => ({ tests, failures: 0, errors: 0, skipped });
const passed: SingleVerdict = { kind: 'Passed', counts: counts(2), testTimeMs: 5 };
const skipped: SingleVerdict = { kind: 'Passed', counts: counts(2, 2), testTimeMs: 5 };
const failed: SingleVerdict = {
  kind: 'TestFailed',
  counts: { tests: 2, failures: 1, errors: 0, skipped: 0 },
  failures: [
    {
      testClass: 'a.BTest',
      testMethod: 'exposes',
      category: 'failure',
      exceptionType: 'org.opentest4j.AssertionFailedError',
      message: 'expected: <1> but was: <2>',
      frames: [],
    },
  ],
};
const errored: SingleVerdict = { ...failed, kind: 'TestErrored' };

describe('diagnoseRuns', () => {
  it('is a success only when buggy fails 3 of 3, clean passes 3 of 3 and the bug ran', () => {
    expect(diagnoseRuns([failed, failed, failed], [passed, passed, passed], true)).toEqual({
      kind: 'Success',
    });
    expect(diagnoseRuns([failed, failed, failed], [passed, passed, passed], false)).toEqual({
      kind: 'BugNotExecuted',
    });
  });

  it('splits a pass on buggy by whether the bug was reached', () => {
    expect(diagnoseRuns([passed], [], false).kind).toBe('NotReached');
    expect(diagnoseRuns([passed], [], true).kind).toBe('NotTriggered');
  });

  it('never counts skipped tests as a pass or a failure', () => {
    expect(diagnoseRuns([skipped], [], true)).toMatchObject({ kind: 'NoTestsRan', side: 'buggy' });
    expect(diagnoseRuns([failed, failed, failed], [skipped], true)).toMatchObject({
      kind: 'NoTestsRan',
      side: 'clean',
    });
  });

  it('calls a test that fails on both trees a wrong oracle', () => {
    expect(diagnoseRuns([failed, failed, failed], [failed], true).kind).toBe('FailsOnClean');
  });

  it('calls runs that disagree flaky, on either side', () => {
    expect(diagnoseRuns([failed, errored], [], true)).toEqual({
      kind: 'Flaky',
      side: 'buggy',
      kinds: ['TestFailed', 'TestErrored'],
    });
    expect(diagnoseRuns([failed, failed, failed], [passed, failed], true)).toMatchObject({
      kind: 'Flaky',
      side: 'clean',
    });
  });

  it('keeps timeouts and crashes apart from failures', () => {
    expect(diagnoseRuns([{ kind: 'Timeout', phase: 'test', limitMs: 10 }], [], true)).toEqual({
      kind: 'TestTimeout',
      side: 'buggy',
    });
    expect(diagnoseRuns([{ kind: 'Crashed', reason: 'exit 1' }], [], true).kind).toBe(
      'TestCrashed',
    );
  });
});

describe('compileDiagnosis', () => {
  const failed = {
    kind: 'CompileFailed' as const,
    messages: [{ file: 'src/test/java/a/BTest.java', line: 3, column: null, message: 'oops' }],
    durationMs: 1,
  };
  it("is the agent's error on the buggy tree, with project-relative places", () => {
    expect(compileDiagnosis('buggy', failed)).toEqual({
      kind: 'DoesNotCompile',
      messages: ['src/test/java/a/BTest.java:3: oops'],
    });
  });
  it('calls a test that compiles only against the buggy tree a wrong oracle, quoting nothing', () => {
    const diagnosis = compileDiagnosis('clean', failed);
    expect(diagnosis.kind).toBe('FailsOnClean');
    expect(JSON.stringify(diagnosis)).not.toContain('oops');
  });
  it('keeps a compile that ran out of time apart', () => {
    expect(compileDiagnosis('buggy', { kind: 'Timeout', limitMs: 5 })).toEqual({
      kind: 'TestTimeout',
      side: 'buggy',
    });
  });
});

describe('runOrder', () => {
  it('interleaves both sides, the same for the same seed, another for another', () => {
    const order = runOrder(3, 'case\0test');
    expect(order.filter((side) => side === 'buggy')).toHaveLength(3);
    expect(order.filter((side) => side === 'clean')).toHaveLength(3);
    expect(runOrder(3, 'case\0test')).toEqual(order);
    const orders = new Set(
      Array.from({ length: 20 }, (_, i) => runOrder(3, `seed ${i}`).join(',')),
    );
    expect(orders.size).toBeGreaterThan(1);
  });
});

describe('the class the verifier runs', () => {
  const layout = projectLayout({});
  const official = 'src/test/java/a/BTest.java';
  it('is the official test when written, else the first file with a test', () => {
    const helper = { file: 'src/test/java/a/Helper.java', content: 'class Helper {}' };
    const test = { file: 'src/test/java/a/CTest.java', content: '@Test void t() {}' };
    expect(primaryTest([helper, test], official)).toBe(test);
    expect(primaryTest([helper, test, { file: official, content: '' }], official).file).toBe(
      official,
    );
    expect(testClassOf(layout, test.file)).toBe('a.CTest');
  });
});

describe('membersEntered', () => {
  const record = {
    bugMembers: [
      {
        file: 'src/main/java/a/Format.java',
        key: 'Format.headers()',
        binaryClass: 'a.Format$Inner',
        name: 'headers',
        cleanLine: 40,
        buggyLines: { first: 40, last: 44 },
      },
    ],
  } as unknown as CaseRecord;
  const method = (owner: string, name: string, line: number | null) => ({
    owner,
    name,
    descriptor: '()V',
    line,
  });

  // Lines 41 and 43 of the member were changed by the bug.
  const changed = new Map([['src/main/java/a/Format.java', [41, 43]]]);

  it('finds a member the trace entered at a changed first line', () => {
    expect([...membersEntered(record, [method('a/Format$Inner', 'headers', 41)], changed)]).toEqual(
      ['Format.headers()'],
    );
  });

  it('finds a member whose changed line the trace saw start, after entering it elsewhere', () => {
    // The trace hits each line as it starts: line 43 ran though an exception may have ended the
    // method before any later probe, where JaCoCo marks no line.
    const entries = [
      method('a/Format$Inner', 'headers', 40),
      method('a/Format$Inner', 'headers', 43),
    ];
    expect([...membersEntered(record, entries, changed)]).toEqual(['Format.headers()']);
  });

  it('needs the same class and name, and its first line to be one the bug changed', () => {
    const entered = (owner: string, name: string, line: number | null) =>
      membersEntered(record, [method(owner, name, line)], changed).size;
    // Entered, but its first line is not changed: a test can run it without running the bug.
    expect(entered('a/Format$Inner', 'headers', 40)).toBe(0);
    expect(entered('a/Format$Inner', 'headers', null)).toBe(0);
    expect(entered('a/Format', 'headers', 41)).toBe(0);
    expect(entered('a/Format$Inner', 'headersOf', 41)).toBe(0);
    expect(membersEntered(record, [], changed).size).toBe(0);
  });
});

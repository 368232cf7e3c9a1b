import { describe, expect, it } from 'vitest';
import type { SingleVerdict } from '../../core/verdict.js';
import { projectLayout } from '../../toolchains/layout.js';
import type { CaseRecord } from '../4-archive/case.js';
import {
  compileDiagnosis,
  diagnoseRuns,
  membersOnStack,
  primaryTest,
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
  const testError: SingleVerdict = {
    kind: 'CompileError',
    scope: 'test',
    messages: [{ file: 'src/test/java/a/BTest.java', line: 3, column: 1, message: 'oops' }],
  };
  it("is the agent's when its test does not compile, the harness's when production does not", () => {
    expect(compileDiagnosis('buggy', testError)).toEqual({
      kind: 'DoesNotCompile',
      messages: ['src/test/java/a/BTest.java:3: oops'],
    });
    expect(compileDiagnosis('buggy', { ...testError, scope: 'main' }).kind).toBe('HarnessFault');
  });
  it('calls a test that compiles only against the buggy tree a wrong oracle', () => {
    expect(compileDiagnosis('clean', testError).kind).toBe('FailsOnClean');
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

describe('membersOnStack', () => {
  const record = {
    bugMembers: [
      {
        file: 'src/main/java/a/Format.java',
        key: 'Format.headers()',
        binaryClass: 'a.Format',
        name: 'headers',
        cleanLine: 40,
        buggyLines: { first: 40, last: 44 },
      },
    ],
  } as unknown as CaseRecord;
  const failingAt = (stack: string[]): SingleVerdict => ({
    ...errored,
    failures: [{ ...errored.failures[0]!, stack }],
  });

  it('finds a member a failure passed through, Caused-by frames included', () => {
    const verdict = failingAt([
      'a.FormatTest.test(FormatTest.java:9)',
      'a.Format.headers(Format.java:42)',
    ]);
    expect([...membersOnStack(record, verdict)]).toEqual(['Format.headers()']);
  });

  it('needs the frame to be inside the member, and a failure at all', () => {
    expect(membersOnStack(record, failingAt(['a.Format.headers(Format.java:60)'])).size).toBe(0);
    expect(membersOnStack(record, failingAt(['a.Format.headersOf(Format.java:42)'])).size).toBe(0);
    expect(membersOnStack(record, passed).size).toBe(0);
  });
});

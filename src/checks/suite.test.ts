import { describe, expect, it } from 'vitest';
import type { SingleVerdict, TestFailureDetail } from '../core/verdict.js';
import { checkNarrow, coWitnessesOf, judgeSuite, type SuiteRun } from './suite.js';

function failure(testMethod: string, exceptionType: string, stack?: string[]): TestFailureDetail {
  return {
    testClass: 'p.T',
    testMethod,
    category: 'error',
    exceptionType,
    message: '',
    frames: [],
    ...(stack ? { stack } : {}),
  };
}

function errored(tests: number, failures: TestFailureDetail[]): SingleVerdict {
  return {
    kind: 'TestErrored',
    counts: { tests, failures: 0, errors: failures.length, skipped: 0 },
    failures,
  };
}

describe('checkNarrow', () => {
  it('passes a bug that fails a few tests of a class', () => {
    const verdict = errored(10, [failure('a', 'java.lang.NullPointerException')]);
    expect(checkNarrow([{ testClass: 'p.T', verdict }]).kind).toBe('Passed');
  });

  it('refuses a bug whose failures meet a broken class initialiser, named or as a cause', () => {
    const direct = errored(10, [failure('a', 'java.lang.ExceptionInInitializerError')]);
    expect(checkNarrow([{ testClass: 'p.T', verdict: direct }])).toMatchObject({
      kind: 'Failed',
      stage: 'too-broad',
      reason: expect.stringMatching(/breaks a class's initialisation: p\.T\.a/),
    });
    const caused = errored(10, [
      failure('b', 'java.lang.IllegalStateException', [
        'at p.T.b(T.java:3)',
        'Caused by: java.lang.NoClassDefFoundError: Could not initialize class p.CSVFormat',
      ]),
    ]);
    expect(checkNarrow([{ testClass: 'p.U', verdict: caused }]).kind).toBe('Failed');
  });

  it('refuses a bug that fails most tests of a class, not half of them or a class of two', () => {
    const npe = 'java.lang.NullPointerException';
    const most = errored(
      5,
      ['a', 'b', 'c'].map((name) => failure(name, npe)),
    );
    expect(checkNarrow([{ testClass: 'p.T', verdict: most }])).toMatchObject({
      kind: 'Failed',
      reason: "the bug fails most of p.T's tests (3 of 5)",
    });
    const half = errored(
      6,
      ['a', 'b', 'c'].map((name) => failure(name, npe)),
    );
    expect(checkNarrow([{ testClass: 'p.T', verdict: half }]).kind).toBe('Passed');
    const small = errored(
      2,
      ['a', 'b'].map((name) => failure(name, npe)),
    );
    expect(checkNarrow([{ testClass: 'p.T', verdict: small }]).kind).toBe('Passed');
  });
});

describe('judgeSuite', () => {
  const run = (runner: SuiteRun['runner'], failing: string[]): SuiteRun => ({
    runner,
    classesRun: 5,
    failing: failing.map((testClass) => ({ testClass, failingMethods: { m: 'E' } })),
    durationMs: 1,
  });

  it('keeps a case no other class exposes', () => {
    expect(judgeSuite([run('jvm', []), run('maven', [])], 'refuse').kind).toBe('Contained');
  });

  it('refuses a case other classes expose, or hides them as co-witnesses', () => {
    const runs = [run('jvm', ['p.B']), run('maven', ['p.A', 'p.B'])];
    expect(judgeSuite(runs, 'refuse')).toMatchObject({
      kind: 'GivenAway',
      classes: ['p.A', 'p.B'],
    });
    expect(judgeSuite(runs, 'hide')).toMatchObject({
      kind: 'Hidden',
      coWitnesses: [{ testClass: 'p.A' }, { testClass: 'p.B' }],
    });
    expect(coWitnessesOf(runs)).toHaveLength(2);
  });
});

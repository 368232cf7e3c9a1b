import { describe, expect, it } from 'vitest';
import type { Verdict } from '../core/verdict.js';
import { judgeRepair, testStatuses } from './judge.js';

/* SWE-bench's rule on one tree: resolved iff every FAIL_TO_PASS and PASS_TO_PASS test passes. */

const counts = { tests: 3, failures: 1, errors: 0, skipped: 0 };

function failed(testClass: string, testMethod: string, exceptionType: string): Verdict {
  return {
    kind: 'TestFailed',
    counts,
    failures: [
      { testClass, testMethod, category: 'failure', exceptionType, message: 'm', frames: [] },
    ],
  };
}

const instance = {
  FAIL_TO_PASS: ['org.example.ParserTest#parsesEmpty'],
  PASS_TO_PASS: ['org.example.ParserTest#parsesOne', 'org.example.LexerTest#lexes'],
};

describe('judgeRepair', () => {
  it('resolves when every named test passes', () => {
    expect(
      judgeRepair(instance, [
        { testClass: 'org.example.ParserTest', verdict: { kind: 'Passed', counts, testTimeMs: 5 } },
        { testClass: 'org.example.LexerTest', verdict: { kind: 'Passed', counts, testTimeMs: 5 } },
      ]),
    ).toEqual({ kind: 'Resolved' });
  });

  it('names the FAIL_TO_PASS tests still failing and the PASS_TO_PASS tests broken', () => {
    const judgement = judgeRepair(instance, [
      {
        testClass: 'org.example.ParserTest',
        // A parameterised run's name folds into its method.
        verdict: failed('org.example.ParserTest', 'parsesEmpty[1]', 'java.lang.AssertionError'),
      },
      {
        testClass: 'org.example.LexerTest',
        verdict: failed('org.example.LexerTest', 'lexes', 'java.lang.NullPointerException'),
      },
    ]);
    expect(judgement).toEqual({
      kind: 'Unresolved',
      stillFailing: ['org.example.ParserTest#parsesEmpty'],
      broken: ['org.example.LexerTest#lexes'],
      notJudged: [],
    });
  });

  it('never resolves a tree whose tests did not run to a verdict', () => {
    const judgement = judgeRepair(instance, [
      { testClass: 'org.example.ParserTest', verdict: { kind: 'Passed', counts, testTimeMs: 5 } },
      {
        testClass: 'org.example.LexerTest',
        verdict: { kind: 'Timeout', phase: 'test', limitMs: 9 },
      },
    ]);
    expect(judgement.kind).toBe('Unresolved');
    expect(judgement.kind === 'Unresolved' && judgement.notJudged.map((n) => n.test)).toEqual([
      'org.example.LexerTest#lexes',
    ]);
    // A class not run at all is not judged either.
    expect(testStatuses(['org.example.Other#x'], []).get('org.example.Other#x')).toEqual({
      kind: 'NotJudged',
      reason: 'org.example.Other was not run',
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { SingleVerdict, TestFailureDetail } from '../../core/verdict.js';
import { mavenEnding } from '../../runners/test-support.js';
import { confirmWithMaven } from './validate.js';

/** A witness run failing in `parse` with `exceptionType`, once per JUnit parameter. */
function failingIn(exceptionType: string, ...methods: string[]): SingleVerdict {
  const failures: TestFailureDetail[] = methods.map((testMethod) => ({
    testClass: 'p.ParserTest',
    testMethod,
    category: 'error',
    exceptionType,
    message: 'boom',
    frames: [],
  }));
  return {
    kind: 'TestErrored',
    counts: { tests: methods.length, failures: 0, errors: methods.length, skipped: 0 },
    failures,
  };
}

const target = {
  projectDir: '/p',
  build: { mavenArgs: [], jvmArgs: [], surefireVersion: '3.5.2', generators: [] },
  changed: [],
};

describe('the inject-time Maven confirmation', () => {
  const fast = failingIn('java.lang.NullPointerException', 'parse');

  it('accepts a replay failing as the fast run did (parameterised runs folded)', async () => {
    const maven = mavenEnding(failingIn('java.lang.NullPointerException', 'parse[1]', 'parse[2]'));
    const outcome = await confirmWithMaven(maven, target, 'p.ParserTest', 1000, fast);
    expect(outcome).toEqual({ kind: 'Passed', evidence: { verdict: 'TestErrored' } });
  });

  // Such a bug would be archived, then refuted by `case verify`.
  it('refuses a replay that fails otherwise, with the difference as reason', async () => {
    const maven = mavenEnding(failingIn('java.io.IOException', 'parse'));
    const outcome = await confirmWithMaven(maven, target, 'p.ParserTest', 1000, fast);
    expect(outcome).toMatchObject({
      kind: 'Failed',
      stage: 'maven',
      reason:
        'the Maven replay fails otherwise than the fast runner: parse fails with java.io.IOException, expected java.lang.NullPointerException',
    });
  });
});

import { describe, expect, it } from 'vitest';
import type { SingleVerdict } from '../core/verdict.js';
import { timeLimit, UNKNOWN_TIME_LIMIT_MS } from './time-limits.js';
import type { TestRequest, TestRunner } from './types.js';
import { withReruns, withTimeLimit, withTracing } from './wrappers.js';

const PASSED: SingleVerdict = {
  kind: 'Passed',
  counts: { tests: 1, failures: 0, errors: 0, skipped: 0 },
  testTimeMs: 1,
};
const FAILED: SingleVerdict = {
  kind: 'TestFailed',
  counts: { tests: 1, failures: 1, errors: 0, skipped: 0 },
  failures: [],
};

/** A runner that answers with the given verdicts in turn and remembers what it was asked. */
function scripted(verdicts: SingleVerdict[], traces = true) {
  const requests: TestRequest[] = [];
  const runner: TestRunner = {
    kind: 'runner',
    name: 'jvm',
    traces,
    targetOf: async (projectDir, build) => ({ projectDir, build, changed: [] }),
    compile: async (target) => ({
      kind: 'Compiled',
      durationMs: 0,
      copyMs: 0,
      offline: true,
      workDir: target.projectDir,
    }),
    run: async (request) => {
      requests.push(request);
      return { verdict: verdicts[requests.length - 1]!, testMs: 10, durationMs: 12, compileMs: 0 };
    },
    close: async () => undefined,
  };
  return { runner, requests };
}

const request: TestRequest = {
  target: {
    projectDir: '/p',
    build: { mavenArgs: [], jvmArgs: [], surefireVersion: '3.5.2', generators: [] },
    changed: [],
  },
  testClass: 'p.ATest',
};

describe('runner wrappers', () => {
  it('a time limit fills in the policy where a request has none', async () => {
    const { runner, requests } = scripted([PASSED, PASSED]);
    const limited = withTimeLimit(runner, () => 1234);
    await limited.run(request);
    await limited.run({ ...request, timeoutMs: 99 });
    expect(requests.map((r) => r.timeoutMs)).toEqual([1234, 99]);
  });

  it('reruns fold the runs, Flaky when they disagree, and stop where asked', async () => {
    const same = await withReruns(scripted([FAILED, FAILED, FAILED]).runner, 3).run(request);
    expect(same.verdict.kind).toBe('TestFailed');
    expect(same.runs).toHaveLength(3);
    const mixed = await withReruns(scripted([FAILED, PASSED, FAILED]).runner, 3).run(request);
    expect(mixed.verdict).toMatchObject({
      kind: 'Flaky',
      kinds: ['TestFailed', 'Passed', 'TestFailed'],
    });
    const stopped = await withReruns(scripted([FAILED, PASSED, FAILED]).runner, 3, {
      stopAfter: (run) => run.verdict.kind === 'Passed',
    }).run(request);
    expect(stopped.runs).toHaveLength(2);
  });

  it('tracing asks every run for a trace, and refuses a runner that cannot', async () => {
    const { runner, requests } = scripted([PASSED]);
    await withTracing(runner, true).run(request);
    expect(requests[0]!.trace).toEqual({ perTest: true });
    expect(() => withTracing(scripted([], false).runner)).toThrow(/cannot trace/);
  });

  it('every wrapper passes a method selection through', async () => {
    const { runner, requests } = scripted([PASSED, PASSED, PASSED]);
    const selected = { ...request, methods: ['parsesEmpty', 'parsesNested'] };
    await withTimeLimit(runner, () => 1).run(selected);
    await withTracing(runner, true).run(selected);
    await withReruns(runner, 1).run(selected);
    expect(requests.map((r) => r.methods)).toEqual([
      ['parsesEmpty', 'parsesNested'],
      ['parsesEmpty', 'parsesNested'],
      ['parsesEmpty', 'parsesNested'],
    ]);
  });
});

describe('time limits', () => {
  it('follow PIT for the warm JVM and give Maven its start-up allowance', () => {
    expect(timeLimit('jvm', 'run', 1000)).toBe(5250);
    expect(timeLimit('jvm', 'reference', 1000)).toBe(10_500);
    expect(timeLimit('maven', 'run', 1000)).toBe(63_000);
    expect(timeLimit('jvm', 'trace', 1000)).toBe(12_000);
    expect(timeLimit('jvm', 'run', undefined)).toBe(UNKNOWN_TIME_LIMIT_MS);
  });
});

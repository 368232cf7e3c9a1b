import { combineRuns } from '../core/verdict.js';
import type { RepeatedRunResult, TestRequest, TestRunner, TestRunResult } from './types.js';

/** A runner that passes everything through to `inner` except `run`. */
function around(
  inner: TestRunner,
  run: (request: TestRequest) => Promise<TestRunResult>,
): TestRunner {
  return {
    kind: 'runner',
    name: inner.name,
    traces: inner.traces,
    targetOf: (projectDir, build) => inner.targetOf(projectDir, build),
    compile: (target, timeoutMs) => inner.compile(target, timeoutMs),
    run,
    close: () => inner.close(),
  };
}

/** Requests without a limit get the policy's limit for their test class. */
export function withTimeLimit(
  inner: TestRunner,
  limitFor: (request: TestRequest) => number,
): TestRunner {
  return around(inner, (request) =>
    inner.run(
      request.timeoutMs === undefined ? { ...request, timeoutMs: limitFor(request) } : request,
    ),
  );
}

/** Every request records the methods it enters. */
export function withTracing(inner: TestRunner, perTest = false): TestRunner {
  if (!inner.traces) throw new Error(`the ${inner.name} runner cannot trace`);
  return around(inner, (request) => inner.run({ ...request, trace: { perTest } }));
}

export interface RerunOptions {
  /** Ends the series after a run for which it holds (one that breaks a required streak, say). */
  stopAfter?: (run: TestRunResult) => boolean;
}

/**
 * Runs each request `runs` times and folds the runs into one verdict; a compile failure ends the
 * series, as it would recur.
 */
export function withReruns(
  inner: TestRunner,
  runs: number,
  options: RerunOptions = {},
): { run(request: TestRequest): Promise<RepeatedRunResult> } {
  if (!Number.isInteger(runs) || runs < 1) throw new Error(`reruns must be ≥ 1, got ${runs}`);
  return {
    async run(request) {
      const results: TestRunResult[] = [];
      for (let index = 0; index < runs; index++) {
        const result = await inner.run(request);
        results.push(result);
        if (result.verdict.kind === 'CompileError') break;
        if (options.stopAfter?.(result)) break;
      }
      return { verdict: combineRuns(results.map((result) => result.verdict)), runs: results };
    },
  };
}

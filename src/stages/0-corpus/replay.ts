import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import { combineRuns, type SingleVerdict, type Verdict } from '../../core/verdict.js';
import type { ProjectRef } from '../../project/project.js';
import { baselineClass, type BaselineClass } from '../../project/baseline.js';
import type { JvmRunner } from '../../toolchains/jvm/runner.js';
import { testSourceFile } from '../../toolchains/layout.js';
import type { Toolchain } from '../../toolchains/types.js';
import { createTestRunner } from '../../runners/index.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { RunnerName } from '../../runners/types.js';
import { withReruns, withTimeLimit } from '../../runners/wrappers.js';

export interface ReplayOptions {
  runner: RunnerName;
  /** A warm runner to reuse across replays; one is started (and stopped) per replay otherwise. */
  jvmRunner?: JvmRunner;
  toolchain: Toolchain;
  cache: CacheLayout;
  testClass: string;
  runs: number;
  /** Limit for each test run; derived from the baseline when not given. */
  timeoutMs?: number;
  compileTimeoutMs?: number;
  /** Keep the disposable copy for inspection instead of deleting it. */
  keep?: boolean;
}

export interface ReplayRun {
  verdict: SingleVerdict;
  durationMs: number;
}

export interface ReplayResult {
  project: string;
  testClass: string;
  runner: RunnerName;
  verdict: Verdict;
  runs: ReplayRun[];
  timings: { copyMs: number; compileMs: number; testMs: number[]; totalMs: number };
  timeoutMs: number;
  /** The paper's replay form, with the recipe's flags, for people and case files. */
  replayCommand: string;
  baseline: Pick<BaselineClass, 'status' | 'usability' | 'durationMs'> | null;
  tools: Record<string, string>;
  offline: boolean;
  workDir: string | null;
}

const FQCN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;

/**
 * Replays one test class `runs` times and folds the runs into one verdict. Compilation is always
 * its own step, so a compile error is never a test failure. With Maven each run is judged from the
 * exit code and fresh Surefire reports; with the warm JVM from the JUnit Platform's own events.
 */
export async function replayTestClass(
  project: ProjectRef,
  options: ReplayOptions,
): Promise<ReplayResult> {
  const { toolchain, testClass } = options;
  if (!FQCN.test(testClass)) {
    throw new UserError(
      `--test expects a fully qualified class name such as org.example.FooTest, got '${testClass}'`,
    );
  }
  if (!Number.isInteger(options.runs) || options.runs < 1) {
    throw new UserError(`--runs expects a positive whole number, got ${options.runs}`);
  }
  const testSource = testSourceFile(project.layout, testClass);
  if (!(await exists(path.join(project.root, testSource)))) {
    throw new UserError(`test class ${testClass} not found in ${project.label}: no ${testSource}`);
  }
  const baselineEntry = baselineClass(project.baseline, testClass);
  const timeoutMs =
    options.timeoutMs ?? timeLimit(options.runner, 'run', baselineEntry?.durationMs);
  const started = performance.now();
  const runner = createTestRunner(options.runner, {
    cache: options.cache,
    toolchain,
    keep: options.keep ?? false,
    ...(options.jvmRunner ? { jvm: options.jvmRunner } : {}),
  });
  const target = await runner.targetOf(project.root, project.build);
  let compileFailure: SingleVerdict | undefined;
  let runs: ReplayRun[] = [];
  let compiled;
  try {
    compiled = await runner.compile(target, options.compileTimeoutMs);
    if (compiled.kind === 'CompileFailed') {
      compileFailure = compiled.verdict;
    } else {
      const repeated = withReruns(
        withTimeLimit(runner, () => timeoutMs),
        options.runs,
      );
      const result = await repeated.run({
        target,
        testClass,
        ...(options.compileTimeoutMs ? { compileTimeoutMs: options.compileTimeoutMs } : {}),
      });
      runs = result.runs.map((run) => ({ verdict: run.verdict, durationMs: run.durationMs }));
    }
  } finally {
    await runner.close();
  }
  return {
    project: project.label,
    testClass,
    runner: options.runner,
    verdict: compileFailure ?? combineRuns(runs.map((run) => run.verdict)),
    runs,
    timings: {
      copyMs: compiled.copyMs,
      compileMs: compiled.durationMs,
      testMs: runs.map((run) => run.durationMs),
      totalMs: Math.round(performance.now() - started),
    },
    timeoutMs,
    replayCommand: toolchain.replayCommand(project.build, testClass),
    baseline: baselineEntry
      ? {
          status: baselineEntry.status,
          usability: baselineEntry.usability,
          durationMs: baselineEntry.durationMs,
        }
      : null,
    tools: await toolchain.versions(),
    offline: compiled.kind === 'Compiled' ? compiled.offline : true,
    workDir:
      options.keep && compiled.kind === 'Compiled' && compiled.workDir !== project.root
        ? compiled.workDir
        : null,
  };
}

import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../core/fs.js';
import { combineRuns, type SingleVerdict, type Verdict } from '../core/verdict.js';
import type { BaselineClass } from '../stages/0-corpus/baseline.js';
import { JvmRunner, staleSources, warmRunTimeout } from '../toolchains/jvm/runner.js';
import type { Toolchain } from '../toolchains/types.js';
import type { ProjectRef } from './project.js';

export type RunnerName = 'maven' | 'jvm';

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
  baseline: Pick<BaselineClass, 'status' | 'usable' | 'durationMs'> | null;
  tools: Record<string, string>;
  offline: boolean;
  workDir: string | null;
}

const FQCN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*$/;
const DEFAULT_COMPILE_TIMEOUT_MS = 1_800_000;
const DEFAULT_TEST_TIMEOUT_MS = 600_000;
const MAVEN_RUN_ALLOWANCE_MS = 60_000;

/** A test class's source must exist under a test source tree, or the name is a user mistake. */
async function findTestSource(root: string, testClass: string): Promise<string | undefined> {
  const relative = `${testClass.split('$')[0]!.replace(/\./g, '/')}.java`;
  async function walk(dir: string): Promise<string | undefined> {
    let entries;
    try {
      entries = await readdir(dir, { withFileTypes: true });
    } catch {
      return undefined;
    }
    for (const entry of entries) {
      if (!entry.isDirectory() || entry.name === 'target' || entry.name.startsWith('.')) continue;
      const full = path.join(dir, entry.name);
      if (entry.name === 'test' && path.basename(dir) === 'src') {
        for (const sourceRoot of await readdir(full, { withFileTypes: true })) {
          if (!sourceRoot.isDirectory()) continue;
          const candidate = path.join(full, sourceRoot.name, relative);
          if (await exists(candidate)) return candidate;
        }
      } else {
        const found = await walk(full);
        if (found) return found;
      }
    }
    return undefined;
  }
  return walk(root);
}

/**
 * Limit for one run. Maven pays JVM starts and plugin resolution on top of the class's own time;
 * the warm JVM follows PIT (1.25 × normal + 4 s); its compile step has a limit of its own.
 */
function defaultTimeout(runner: RunnerName, baseline: BaselineClass | undefined): number {
  if (!baseline) return DEFAULT_TEST_TIMEOUT_MS;
  return runner === 'maven'
    ? MAVEN_RUN_ALLOWANCE_MS + 3 * baseline.durationMs
    : warmRunTimeout(baseline.durationMs);
}

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
  if (!(await findTestSource(project.root, testClass))) {
    throw new UserError(
      `test class ${testClass} not found in ${project.label}: no ${testClass.replace(/\./g, '/')}.java under a src/test directory`,
    );
  }
  const baselineEntry = project.baseline?.classes.find((entry) => entry.testClass === testClass);
  const timeoutMs = options.timeoutMs ?? defaultTimeout(options.runner, baselineEntry);
  const started = performance.now();
  const execution =
    options.runner === 'jvm'
      ? await replayInWarmJvm(project, options, timeoutMs)
      : await replayWithMaven(project, options, timeoutMs);
  const runs = execution.runs;
  return {
    project: project.label,
    testClass,
    runner: options.runner,
    verdict: execution.compileFailure ?? combineRuns(runs.map((run) => run.verdict)),
    runs,
    timings: {
      copyMs: execution.copyMs,
      compileMs: execution.compileMs,
      testMs: runs.map((run) => run.durationMs),
      totalMs: Math.round(performance.now() - started),
    },
    timeoutMs,
    replayCommand: toolchain.replayCommand(project.build, testClass),
    baseline: baselineEntry
      ? {
          status: baselineEntry.status,
          usable: baselineEntry.usable,
          durationMs: baselineEntry.durationMs,
        }
      : null,
    tools: await toolchain.versions(),
    offline: execution.offline,
    workDir: execution.workDir,
  };
}

interface Execution {
  runs: ReplayRun[];
  /** Set when compilation failed: the verdict, with no test run. */
  compileFailure?: SingleVerdict;
  copyMs: number;
  compileMs: number;
  offline: boolean;
  workDir: string | null;
}

/** Ground truth: a disposable copy, `mvn test-compile`, then Surefire once per run. */
async function replayWithMaven(
  project: ProjectRef,
  options: ReplayOptions,
  timeoutMs: number,
): Promise<Execution> {
  const { toolchain, testClass } = options;
  const workDir = await makeTempDir('replay');
  const copy = path.join(workDir, 'project');
  try {
    const copyStarted = performance.now();
    await copyProjectTree(project.root, copy);
    const copyMs = Math.round(performance.now() - copyStarted);
    const context = { repository: options.cache.mavenRepo, offline: true };
    const compiled = await toolchain.compile(
      copy,
      project.build,
      context,
      options.compileTimeoutMs ?? DEFAULT_COMPILE_TIMEOUT_MS,
    );
    const execution = {
      runs: [] as ReplayRun[],
      copyMs,
      compileMs: compiled.durationMs,
      workDir: options.keep ? copy : null,
    };
    if (compiled.kind === 'Failed') {
      return { ...execution, compileFailure: compiled.verdict, offline: context.offline };
    }
    context.offline = compiled.offline;
    for (let index = 0; index < options.runs; index++) {
      const run = await toolchain.runTests(copy, project.build, context, {
        selection: toolchain.selectClass(testClass),
        timeoutMs,
      });
      execution.runs.push({ verdict: run.verdict, durationMs: run.durationMs });
    }
    return { ...execution, offline: context.offline };
  } finally {
    if (!options.keep) await removeTree(workDir);
  }
}

/**
 * Fast path: the project's compiled classes stay as they are; sources newer than their classes
 * are compiled into an overlay and the class runs in a warm JVM, in a fresh class loader per run.
 */
async function replayInWarmJvm(
  project: ProjectRef,
  options: ReplayOptions,
  timeoutMs: number,
): Promise<Execution> {
  const moduleDir = path.join(project.root, project.build.module ?? '');
  for (const dir of ['classes', 'test-classes']) {
    if (!(await exists(path.join(moduleDir, 'target', dir)))) {
      throw new UserError(
        `the jvm runner needs compiled classes, and ${path.join(moduleDir, 'target', dir)} is missing: run 'mvn test-compile' there or use --runner maven`,
      );
    }
  }
  const sources = await staleSources(project.root, project.build);
  const runner = options.jvmRunner ?? new JvmRunner(options.cache);
  const runs: ReplayRun[] = [];
  let compileMs = 0;
  try {
    for (let index = 0; index < options.runs; index++) {
      const run = await runner.run({
        projectDir: project.root,
        build: project.build,
        testClass: options.testClass,
        sources,
        timeoutMs,
        ...(options.compileTimeoutMs ? { compileTimeoutMs: options.compileTimeoutMs } : {}),
      });
      if (index === 0) compileMs = run.timings.compileMs;
      if (run.verdict.kind === 'CompileError') {
        return {
          runs,
          compileFailure: run.verdict,
          copyMs: 0,
          compileMs,
          offline: true,
          workDir: null,
        };
      }
      runs.push({ verdict: run.verdict, durationMs: run.timings.wallMs - run.timings.compileMs });
    }
  } finally {
    if (!options.jvmRunner) await runner.close();
  }
  return { runs, copyMs: 0, compileMs, offline: true, workDir: null };
}

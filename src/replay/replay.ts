import { readdir } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../core/fs.js';
import { combineRuns, type SingleVerdict, type Verdict } from '../core/verdict.js';
import type { BaselineClass } from '../stages/0-corpus/baseline.js';
import type { Toolchain } from '../toolchains/types.js';
import type { ProjectRef } from './project.js';

export interface ReplayOptions {
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
/** Fixed cost of a Maven test run (JVM starts, plugin resolution) added to a class's own time. */
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

function defaultTimeout(baseline: BaselineClass | undefined): number {
  if (!baseline) return DEFAULT_TEST_TIMEOUT_MS;
  return MAVEN_RUN_ALLOWANCE_MS + 3 * baseline.durationMs;
}

/**
 * Replays one test class on a disposable copy of a project: compile as its own step (so a
 * compile error is never a test failure), then run the class `runs` times, each run judged from
 * the exit code and fresh Surefire reports.
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
  const timeoutMs = options.timeoutMs ?? defaultTimeout(baselineEntry);
  const started = performance.now();
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
    const runs: ReplayRun[] = [];
    let verdict: Verdict;
    if (compiled.kind === 'Failed') {
      verdict = compiled.verdict;
    } else {
      context.offline = compiled.offline;
      for (let index = 0; index < options.runs; index++) {
        const run = await toolchain.runTests(copy, project.build, context, {
          selection: toolchain.selectClass(testClass),
          timeoutMs,
        });
        runs.push({ verdict: run.verdict, durationMs: run.durationMs });
      }
      verdict = combineRuns(runs.map((run) => run.verdict));
    }
    return {
      project: project.label,
      testClass,
      verdict,
      runs,
      timings: {
        copyMs,
        compileMs: compiled.durationMs,
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
      offline: context.offline,
      workDir: options.keep ? copy : null,
    };
  } finally {
    if (!options.keep) await removeTree(workDir);
  }
}

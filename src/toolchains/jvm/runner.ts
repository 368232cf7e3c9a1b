import { readFile, readdir, stat } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { makeTempDir, removeTree, sha256Text } from '../../core/fs.js';
import { lastLine } from '../../core/process.js';
import {
  thrownClass,
  verdictFromReports,
  type CaseReport,
  type SuiteReport,
} from '../../core/test-reports.js';
import type { SingleVerdict } from '../../core/verdict.js';
import { testJvmArgs, type BuildSettings } from '../build-settings.js';
import { projectLayout } from '../layout.js';
import { jdkTool } from '../maven/maven.js';
import { JvmHelper, type HelperFault } from './helper.js';
import type { CompileAnswer, RawTrace, RunAnswer, TestResult } from './protocol.js';
import {
  prepareProjectRuntime,
  runnerClasspath,
  type ProjectRuntime,
  type RunnerClasspath,
} from './setup.js';

export interface ChangedSource {
  /** Absolute path of a changed .java file. */
  path: string;
  scope: 'main' | 'test';
}

export interface JvmCompileRequest {
  projectDir: string;
  build: BuildSettings;
  /** Sources that differ from the compiled classes; compiled into a fresh overlay. */
  sources: ChangedSource[];
  /** Limit for compiling the changed sources and rerunning generators. */
  compileTimeoutMs?: number;
}

/** A compile request's outcome: the build is kept for runs of the same sources either way. */
export type JvmCompileResult =
  | { kind: 'Compiled'; compileMs: number }
  | { kind: 'Failed'; verdict: SingleVerdict; compileMs: number };

export interface JvmRunRequest extends JvmCompileRequest {
  testClass: string;
  /** Limit for running the test class; the JVM is killed and restarted past it. */
  timeoutMs: number;
  /** Only these test methods of the class (by name); absent or empty, the whole class. */
  methods?: string[];
  /** Record which production methods the run enters, in first-hit order. */
  trace?: boolean;
  /** With `trace`, also record per test (each test's first hits after a marker). */
  perTest?: boolean;
}

// A traced run's hits are handed on as the runner JVM wrote them.
export type { RawTrace, TracedMethod } from './protocol.js';

/** How one test of a run ended, with its part of the trace log when traced per test. */
export interface TestOutcome {
  testClass: string;
  testMethod: string;
  outcome: 'Passed' | 'Failed' | 'Errored' | 'Skipped';
  traceIndex?: number;
}

export interface JvmRunResult {
  verdict: SingleVerdict;
  timings: { compileMs: number; loadMs: number; testMs: number; wallMs: number };
  /** The runner JVM was (re)started for this request. */
  started: boolean;
  /** The same sources were compiled for an earlier request; that build was run again. */
  buildReused: boolean;
  /**
   * The recipe's build steps rerun for this request's classes (their time is part of compileMs),
   * and the time spent learning which methods a step executes.
   */
  buildSteps: { rerun: number; rerunMs: number; learningMs: number };
  trace?: RawTrace;
  /** Each test's outcome as the runner reported it, with its index in the trace log. */
  tests?: TestOutcome[];
}

const DEFAULT_MAX_JVMS = 2;
/** Builds kept for requests that repeat the same sources (a witness run three times, say). */
const KEPT_BUILDS = 4;
const DEFAULT_COMPILE_TIMEOUT_MS = 120_000;

export function toReports(results: TestResult[]): SuiteReport[] {
  const byClass = new Map<string, CaseReport[]>();
  for (const result of results) {
    const testCase: CaseReport = {
      testClass: result.testClass,
      testMethod: result.testMethod,
      timeMs: 0,
      outcome: result.outcome,
      ...(result.outcome === 'failure' || result.outcome === 'error'
        ? {
            detail: {
              testClass: result.testClass,
              testMethod: result.testMethod,
              category: result.outcome,
              exceptionType: thrownClass({ printed: result.printed, frames: result.frames ?? [] }),
              message: result.message ?? '',
              frames: result.frames ?? [],
            },
          }
        : {}),
    };
    byClass.set(result.testClass, [...(byClass.get(result.testClass) ?? []), testCase]);
  }
  return [...byClass].map(([testClass, cases]) => ({
    testClass,
    timeMs: 0,
    cases,
    counts: {
      tests: cases.length,
      failures: cases.filter((c) => c.outcome === 'failure').length,
      errors: cases.filter((c) => c.outcome === 'error').length,
      skipped: cases.filter((c) => c.outcome === 'skipped').length,
    },
  }));
}

/** The recipe's build steps with the source directory filled in; the runner sets `{outputDir}`. */
function generatorsFor(build: BuildSettings, projectDir: string) {
  const sourceDir = path.resolve(projectDir, projectLayout(build).mainSources);
  return build.generators.map((generator) => ({
    ...generator,
    args: generator.args.map((arg) => arg.replaceAll('{sourceDir}', sourceDir)),
  }));
}

const TEST_OUTCOMES: Record<TestResult['outcome'], TestOutcome['outcome']> = {
  passed: 'Passed',
  failure: 'Failed',
  error: 'Errored',
  skipped: 'Skipped',
};

function testOutcome(result: TestResult): TestOutcome {
  return {
    testClass: result.testClass,
    testMethod: result.testMethod,
    outcome: TEST_OUTCOMES[result.outcome],
    ...(result.traceIndex === undefined ? {} : { traceIndex: result.traceIndex }),
  };
}

/** The verdict of a compile answer that stops the request before its run. */
function compileVerdict(answer: Exclude<CompileAnswer, { kind: 'Compiled' }>): SingleVerdict {
  switch (answer.kind) {
    case 'Error':
      return { kind: 'InfraError', cause: 'build-tool', reason: `runner: ${answer.message}` };
    case 'CompileFailed':
      return { kind: 'CompileError', scope: answer.scope, messages: answer.messages };
    case 'BuildStepFailed':
      return {
        kind: 'InfraError',
        cause: 'build-tool',
        reason: `build step failed: ${answer.reason}`,
      };
  }
}

function runVerdict(answer: RunAnswer): SingleVerdict {
  switch (answer.kind) {
    case 'Error':
      return { kind: 'InfraError', cause: 'build-tool', reason: `runner: ${answer.message}` };
    case 'RunCrashed':
      return { kind: 'Crashed', reason: answer.reason };
    case 'TestClassNotFound':
      return { kind: 'NoTestsRan', reason: `test class not found: ${answer.className}` };
    case 'Ran':
      return verdictFromReports(toReports(answer.results));
  }
}

/** Changed sources compiled (and generators rerun) into an overlay, kept for identical requests. */
interface CompiledOverlay {
  key: string;
  overlay: string;
  /** The compile answer: a compile error is kept too, as it would recur (a harness fault is not). */
  answer: Exclude<CompileAnswer, { kind: 'Error' }>;
  users: number;
}

/**
 * Validates candidates in warm JVMs, one per project directory and set of JVM flags (at most
 * `maxJvms`, the least recently used one stopped first).
 */
export class JvmRunner {
  private readonly helpers = new Map<string, JvmHelper>();
  /** Project runtimes by directory and build settings: computed once, off the hot path. */
  private readonly runtimes = new Map<string, Promise<ProjectRuntime>>();
  private runner: Promise<RunnerClasspath> | undefined;
  /** Most recently used last. */
  private readonly builds: CompiledOverlay[] = [];
  /**
   * Per project runtime, the methods each build step executes, as a runner JVM learnt them; given
   * to every JVM that starts later, so a restart (after a timeout, say) does not learn them again.
   */
  private readonly learntBuildSteps = new Map<string, Record<string, string[]>>();
  /** Per project runtime, the JVM (helper and start count) known to hold all its learnt steps. */
  private readonly learntGivenTo = new Map<string, { helper: JvmHelper; starts: number }>();

  constructor(
    private readonly cache: CacheLayout,
    private readonly maxJvms = DEFAULT_MAX_JVMS,
  ) {}

  /**
   * Tests resolve relative paths against the working directory, which a JVM cannot change: like
   * Surefire's fork, a runner JVM runs in the module directory, so there is one per directory.
   */
  private async helperFor(build: BuildSettings, moduleDir: string): Promise<JvmHelper> {
    const jvmArgs = [...testJvmArgs(build), `-Dbasedir=${moduleDir}`];
    const key = [moduleDir, ...jvmArgs].join('\0');
    let helper = this.helpers.get(key);
    if (helper) {
      this.helpers.delete(key); // re-inserted below as most recently used
    } else {
      this.runner ??= runnerClasspath(this.cache);
      helper = new JvmHelper(moduleDir, jdkTool('java'), jvmArgs, await this.runner);
      while (this.helpers.size >= this.maxJvms) {
        const [oldestKey, oldest] = this.helpers.entries().next().value!;
        this.helpers.delete(oldestKey);
        await oldest.stop();
      }
    }
    this.helpers.set(key, helper);
    return helper;
  }

  /**
   * Compiles a request's changed sources (rerunning build steps as needed) into a kept build, so
   * a later run of the same sources runs it without compiling; a failed compile is its verdict.
   */
  async compile(request: JvmCompileRequest): Promise<JvmCompileResult> {
    const prepared = await this.prepare(request);
    const acquired = await this.acquireBuild(request, prepared);
    const { compileMs } = acquired;
    if (acquired.kind === 'Fault') return { kind: 'Failed', verdict: acquired.verdict, compileMs };
    acquired.build.users--;
    const { answer } = acquired.build;
    return answer.kind === 'Compiled'
      ? { kind: 'Compiled', compileMs }
      : { kind: 'Failed', verdict: compileVerdict(answer), compileMs };
  }

  async run(request: JvmRunRequest): Promise<JvmRunResult> {
    const started = performance.now();
    const prepared = await this.prepare(request);
    const { helper } = prepared;
    const startsBefore = helper.starts;
    const timings = { compileMs: 0, loadMs: 0, testMs: 0, wallMs: 0 };
    const acquired = await this.acquireBuild(request, prepared);
    timings.compileMs = acquired.compileMs;
    const buildReused = acquired.kind === 'Build' && acquired.reused;
    const finish = (verdict: SingleVerdict, extra: Partial<JvmRunResult> = {}): JvmRunResult => ({
      verdict,
      started: helper.starts !== startsBefore,
      buildReused,
      buildSteps: acquired.buildSteps,
      timings: { ...timings, wallMs: Math.round(performance.now() - started) },
      ...extra,
    });
    if (acquired.kind === 'Fault') return finish(acquired.verdict);
    const { build } = acquired;
    try {
      if (build.answer.kind !== 'Compiled') return finish(compileVerdict(build.answer));
      const ran = await helper.request(
        {
          op: 'run',
          project: prepared.project,
          overlay: build.overlay,
          testClass: request.testClass,
          ...(request.methods ? { methods: request.methods } : {}),
          ...(request.trace ? { trace: true, perTest: request.perTest ?? false } : {}),
        },
        request.timeoutMs,
      );
      if (ran.kind !== 'Answered') {
        return finish(await this.fault(helper, ran, 'test', request.timeoutMs));
      }
      const { answer } = ran;
      if (answer.kind === 'Ran') {
        timings.loadMs = answer.loadMs;
        timings.testMs = answer.testMs;
      }
      const verdict = runVerdict(answer);
      // Threads left running, or a heap that overflowed, make the JVM unfit for the next request.
      if ((answer.kind !== 'Error' && answer.restart) || verdict.kind === 'Crashed') {
        await helper.stop();
      }
      if (answer.kind !== 'Ran') return finish(verdict);
      return finish(verdict, {
        ...(answer.trace ? { trace: answer.trace } : {}),
        tests: answer.results.map(testOutcome),
      });
    } finally {
      build.users--;
    }
  }

  /** The project's runtime (computed once per directory and settings) and its runner JVM. */
  private async prepare(request: JvmCompileRequest) {
    const runtimeKey = JSON.stringify([path.resolve(request.projectDir), request.build]);
    let runtime = this.runtimes.get(runtimeKey);
    if (!runtime) {
      runtime = prepareProjectRuntime(request.projectDir, request.build, this.cache);
      this.runtimes.set(runtimeKey, runtime);
      runtime.catch(() => this.runtimes.delete(runtimeKey));
    }
    const project = await runtime;
    const moduleDir = path.resolve(request.projectDir, request.build.module ?? '');
    const helper = await this.helperFor(request.build, moduleDir);
    return { runtimeKey, project, helper };
  }

  /**
   * The build of the request's sources, marked in use: a kept one, or a new one compiled now
   * (a compile error is kept too, as it would recur). A harness fault while compiling is
   * returned as the verdict, and nothing is kept.
   */
  private async acquireBuild(
    request: JvmCompileRequest,
    { runtimeKey, project, helper }: Awaited<ReturnType<JvmRunner['prepare']>>,
  ): Promise<
    | {
        kind: 'Build';
        build: CompiledOverlay;
        reused: boolean;
        compileMs: number;
        buildSteps: JvmRunResult['buildSteps'];
      }
    | {
        kind: 'Fault';
        verdict: SingleVerdict;
        compileMs: number;
        buildSteps: JvmRunResult['buildSteps'];
      }
  > {
    const buildSteps = { rerun: 0, rerunMs: 0, learningMs: 0 };
    const generators = generatorsFor(request.build, request.projectDir);
    const buildKey = await buildKeyOf(project.key, generators, request.sources);
    const kept = this.takeBuild(buildKey);
    if (kept) return { kind: 'Build', build: kept, reused: true, compileMs: 0, buildSteps };
    const overlay = await makeTempDir('overlay');
    const compileLimitMs = request.compileTimeoutMs ?? DEFAULT_COMPILE_TIMEOUT_MS;
    // Compile and run are separate requests, so the run gets the baseline-derived limit alone.
    const compiled = await helper.request(
      {
        op: 'compile',
        project,
        overlay,
        sources: request.sources,
        generators,
        learnt: this.learntFor(runtimeKey, helper),
      },
      compileLimitMs,
    );
    if (compiled.kind !== 'Answered') {
      await removeTree(overlay);
      return {
        kind: 'Fault',
        verdict: await this.fault(helper, compiled, 'compile', compileLimitMs),
        compileMs: 0,
        buildSteps,
      };
    }
    const { answer } = compiled;
    if (answer.kind === 'Compiled' || answer.kind === 'BuildStepFailed') {
      const { learnt, ...spent } = answer.buildSteps;
      this.learntBuildSteps.set(runtimeKey, {
        ...this.learntBuildSteps.get(runtimeKey),
        ...learnt,
      });
      // The JVM that answered now holds all of it: what it was given and what it learnt.
      this.learntGivenTo.set(runtimeKey, { helper, starts: helper.starts });
      Object.assign(buildSteps, spent);
    }
    if (answer.kind === 'Error') {
      await removeTree(overlay);
      return { kind: 'Fault', verdict: compileVerdict(answer), compileMs: 0, buildSteps };
    }
    const build = await this.keepBuild({ key: buildKey, overlay, answer, users: 1 });
    return { kind: 'Build', build, reused: false, compileMs: answer.compileMs, buildSteps };
  }

  /**
   * The learnt build steps to send with a compile request: all of them to a JVM that may not have
   * them (a new or restarted one), nothing to one that answered a compile request with them.
   */
  private learntFor(runtimeKey: string, helper: JvmHelper): Record<string, string[]> {
    const given = this.learntGivenTo.get(runtimeKey);
    const holds = helper.running && given?.helper === helper && given.starts === helper.starts;
    return holds ? {} : (this.learntBuildSteps.get(runtimeKey) ?? {});
  }

  /** The kept build for `key`, marked in use and most recently used; undefined if none. */
  private takeBuild(key: string): CompiledOverlay | undefined {
    const index = this.builds.findIndex((build) => build.key === key);
    if (index < 0) return undefined;
    const [build] = this.builds.splice(index, 1);
    this.builds.push(build!);
    build!.users++;
    return build;
  }

  /** Keeps a new build, dropping the least recently used ones no request is using. */
  private async keepBuild(build: CompiledOverlay): Promise<CompiledOverlay> {
    this.builds.push(build);
    while (this.builds.length > KEPT_BUILDS) {
      const index = this.builds.findIndex((kept) => kept.users === 0);
      if (index < 0) break;
      const [dropped] = this.builds.splice(index, 1);
      await removeTree(dropped!.overlay);
    }
    return build;
  }

  /**
   * The verdict when the runner JVM did not answer: it broke the protocol, did not start, hung,
   * or died.
   */
  private async fault(
    helper: JvmHelper,
    outcome: HelperFault,
    phase: 'compile' | 'test',
    limitMs: number,
  ): Promise<SingleVerdict> {
    if (outcome.kind === 'ProtocolFault') {
      return {
        kind: 'InfraError',
        cause: 'build-tool',
        reason: `runner: protocol: ${outcome.reason}`,
      };
    }
    if (outcome.startup) {
      const detail = outcome.kind === 'Exited' ? lastLine(outcome.stderr) : 'no answer within 60 s';
      return {
        kind: 'InfraError',
        cause: 'build-tool',
        reason: `runner JVM did not start: ${detail}`,
      };
    }
    if (outcome.kind === 'Timeout') return { kind: 'Timeout', phase, limitMs };
    await helper.stop();
    const how = outcome.signal ? `signal ${outcome.signal}` : `exit code ${outcome.code}`;
    return { kind: 'Crashed', reason: `runner JVM died (${how})` };
  }

  async close(): Promise<void> {
    for (const helper of this.helpers.values()) await helper.stop();
    this.helpers.clear();
    for (const build of this.builds.splice(0)) await removeTree(build.overlay);
  }
}

/** What a build depends on: the project's classes and class path, the generators, the sources' text. */
async function buildKeyOf(
  projectKey: string,
  generators: unknown,
  sources: readonly ChangedSource[],
): Promise<string> {
  const texts = await Promise.all(
    sources.map(async (source) => [source.path, source.scope, await readFile(source.path, 'utf8')]),
  );
  return sha256Text(JSON.stringify([projectKey, generators, texts]));
}

/**
 * What an edited copy of a compiled project changed: sources newer than their compiled class, and
 * sources without a class that appeared after the build (not ones the build leaves out).
 */
export async function staleSources(
  projectDir: string,
  build: BuildSettings,
): Promise<ChangedSource[]> {
  const layout = projectLayout(build);
  const roots = [
    {
      dir: path.resolve(projectDir, layout.mainSources),
      classes: path.resolve(projectDir, layout.mainClasses),
      scope: 'main' as const,
    },
    {
      dir: path.resolve(projectDir, layout.testSources),
      classes: path.resolve(projectDir, layout.testClasses),
      scope: 'test' as const,
    },
  ];
  const changed: ChangedSource[] = [];
  for (const root of roots) {
    let entries;
    try {
      entries = await readdir(root.dir, { withFileTypes: true, recursive: true });
    } catch {
      continue;
    }
    const builtAt = (await stat(root.classes).catch(() => undefined))?.mtimeMs ?? 0;
    for (const entry of entries) {
      if (!entry.isFile() || !entry.name.endsWith('.java')) continue;
      // These compile to nothing (or to nothing by that name) when they carry no annotations.
      if (entry.name === 'module-info.java' || entry.name === 'package-info.java') continue;
      const source = path.join(entry.parentPath, entry.name);
      const relative = path.relative(root.dir, source).replace(/\.java$/, '.class');
      const compiled = await stat(path.join(root.classes, relative)).catch(() => undefined);
      const sourceTime = (await stat(source)).mtimeMs;
      const stale = compiled ? compiled.mtimeMs < sourceTime : sourceTime > builtAt;
      if (stale) changed.push({ path: source, scope: root.scope });
    }
  }
  return changed;
}

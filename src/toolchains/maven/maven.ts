import { existsSync } from 'node:fs';
import { projectLayout } from '../layout.js';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { exists, removeTree } from '../../core/fs.js';
import { runProcess, shellJoin, type RunResult } from '../../core/process.js';
import { verdictFromReports, type SuiteReport } from '../../core/test-reports.js';
import type { SingleVerdict } from '../../core/verdict.js';
import { testJvmArgs, type BuildSettings } from '../build-settings.js';
import type { CompileOutcome, TestRun, Toolchain, ToolchainContext } from '../types.js';
import {
  failedCompileScope,
  firstErrorLine,
  forkFailure,
  parseDumpedThrowable,
  isDependencyResolutionFailure,
  needsOnlineRetry,
  parseCompileMessages,
  stripAnsi,
} from './output.js';
import { readSurefireReports } from './surefire.js';

const JDK17_HOME = '/usr/lib/jvm/java-17-openjdk-amd64';

/** The JDK used for builds and the warm JVM: $JAVA_HOME, else Debian's JDK 17. */
export function javaHome(): string | undefined {
  return process.env.JAVA_HOME || (existsSync(JDK17_HOME) ? JDK17_HOME : undefined);
}

/** Path of a JDK tool (java, javac, jar, javap), falling back to the one on PATH. */
export function jdkTool(name: 'java' | 'javac' | 'jar' | 'javap'): string {
  const home = javaHome();
  return home ? path.join(home, 'bin', name) : name;
}

export function mavenEnvironment(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  const home = javaHome();
  if (home) env.JAVA_HOME = home;
  // Maven itself runs briefly: C1 only and a serial collector start it faster.
  env.MAVEN_OPTS = '-XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Xmx1g';
  delete env.MAVEN_ARGS;
  return env;
}

/** Flags of every Maven run of the harness: batch, quiet, the cache's repository, offline or not. */
export function mavenArgs(flags: readonly string[], context: ToolchainContext): string[] {
  return [
    '-B',
    '-q',
    '-Dstyle.color=never',
    `-Dmaven.repo.local=${context.repository}`,
    ...(context.offline ? ['-o'] : []),
    ...flags,
  ];
}

function surefireGoal(build: BuildSettings): string {
  return `org.apache.maven.plugins:maven-surefire-plugin:${build.surefireVersion}:test`;
}

/**
 * Surefire's flags for one run. The JVM flags go in as the user property argLine, which (tried
 * on Surefire 3.5.2) replaces an `argLine` the pom sets as a property (commons-lang3's java9+
 * profile), is kept when the pom's own `<argLine>` configuration starts with `${argLine}`
 * (commons-io appends -Xmx25M, so its heap wins over ours), and is dropped when that
 * configuration is a literal: then neither the recipe's flags nor `extraJvmArgs` reach the test
 * JVM, and a Java agent among them writes nothing. No corpus pom does that.
 */
function testArgs(
  build: BuildSettings,
  selection: string | undefined,
  extraJvmArgs: readonly string[] = [],
): string[] {
  return [
    ...(build.module ? ['-pl', build.module] : []),
    surefireGoal(build),
    ...(selection ? [`-Dtest=${selection}`] : []),
    '-Dsurefire.failIfNoSpecifiedTests=false',
    '-DfailIfNoTests=false',
    '-DtrimStackTrace=false',
    '-Dmaven.test.failure.ignore=true',
    // Test output goes to files, so Maven's console only carries Maven's and Surefire's words.
    '-Dmaven.test.redirectTestOutputToFile=true',
    '-DskipTests=false',
    `-DargLine=${[...extraJvmArgs, ...testJvmArgs(build)].join(' ')}`,
  ];
}

export function reportsDirectory(projectDir: string, build: BuildSettings): string {
  return path.join(projectDir, projectLayout(build).surefireReports);
}

/**
 * A test class the provider could not even run (its static initialiser threw) is a test error,
 * as the JUnit Platform reports it; the throwable comes from Surefire's dump file.
 */
async function providerErrorVerdict(
  reportsDir: string,
  selection: string | undefined,
): Promise<SingleVerdict | undefined> {
  let names: string[];
  try {
    names = (await readdir(reportsDir)).filter((name) => name.endsWith('.dump')).sort();
  } catch {
    return undefined;
  }
  for (const name of names) {
    const thrown = parseDumpedThrowable(await readFile(path.join(reportsDir, name), 'utf8'));
    if (!thrown) continue;
    const testClass = selection?.split(',')[0] ?? 'unknown';
    return {
      kind: 'TestErrored',
      counts: { tests: 1, failures: 0, errors: 1, skipped: 0 },
      failures: [{ testClass, testMethod: 'initializationError', category: 'error', ...thrown }],
    };
  }
  return undefined;
}

async function testRunVerdict(
  run: RunResult,
  reports: SuiteReport[],
  limitMs: number,
  reportsDir: string,
  selection: string | undefined,
): Promise<SingleVerdict> {
  if (run.timedOut) return { kind: 'Timeout', phase: 'test', limitMs };
  const log = run.stdout + run.stderr;
  if (run.exitCode !== 0) {
    const failure = forkFailure(log);
    if (failure?.kind === 'Died') return { kind: 'Crashed', reason: failure.reason };
    if (failure?.kind === 'ProviderError') {
      const errored = await providerErrorVerdict(reportsDir, selection);
      if (errored) return errored;
      return { kind: 'Crashed', reason: 'the test provider failed in the forked JVM' };
    }
    if (isDependencyResolutionFailure(log)) {
      return { kind: 'InfraError', cause: 'dependency-resolution', reason: firstErrorLine(log) };
    }
    return { kind: 'InfraError', cause: 'build-tool', reason: firstErrorLine(log) };
  }
  return verdictFromReports(reports);
}

function compileFailure(run: RunResult, limitMs: number): SingleVerdict {
  if (run.timedOut) return { kind: 'Timeout', phase: 'compile', limitMs };
  const log = run.stdout + run.stderr;
  const messages = parseCompileMessages(log);
  if (messages.length > 0)
    return { kind: 'CompileError', scope: failedCompileScope(log), messages };
  if (isDependencyResolutionFailure(log)) {
    return { kind: 'InfraError', cause: 'dependency-resolution', reason: firstErrorLine(log) };
  }
  return { kind: 'InfraError', cause: 'build-tool', reason: firstErrorLine(log) };
}

let versionsPromise: Promise<Record<string, string>> | undefined;

async function toolVersions(): Promise<Record<string, string>> {
  const run = await runProcess('mvn', ['-v', '-B'], { env: mavenEnvironment(), timeoutMs: 60_000 });
  const text = stripAnsi(run.stdout);
  return {
    maven: /Apache Maven (\S+)/.exec(text)?.[1] ?? 'unknown',
    java: /Java version: ([^,\n]+)/.exec(text)?.[1]?.trim() ?? 'unknown',
  };
}

export const mavenToolchain: Toolchain = {
  kind: 'toolchain',
  name: 'maven',

  async detect(projectDir) {
    return exists(path.join(projectDir, 'pom.xml'));
  },

  async compile(projectDir, build, context, timeoutMs): Promise<CompileOutcome> {
    const attempt = (offline: boolean) =>
      runProcess(
        'mvn',
        [
          ...mavenArgs(build.mavenArgs, { ...context, offline }),
          ...(build.module ? ['-pl', build.module, '-am'] : []),
          'test-compile',
        ],
        { cwd: projectDir, env: mavenEnvironment(), timeoutMs },
      );
    let offline = context.offline;
    let run = await attempt(offline);
    let durationMs = run.durationMs;
    if (
      offline &&
      run.exitCode !== 0 &&
      !run.timedOut &&
      needsOnlineRetry(run.stdout + run.stderr)
    ) {
      offline = false;
      run = await attempt(false);
      durationMs += run.durationMs;
    }
    if (run.exitCode === 0 && !run.timedOut) return { kind: 'Compiled', durationMs, offline };
    return {
      kind: 'Failed',
      verdict: compileFailure(run, timeoutMs),
      durationMs,
      log: run.stdout + run.stderr,
    };
  },

  async runTests(projectDir, build, context, request): Promise<TestRun> {
    const reportsDir = reportsDirectory(projectDir, build);
    // Stale reports from an earlier run must never be read as this run's results.
    await removeTree(reportsDir);
    // Tests' temporary files stay in the build output, not in the machine's temp directory.
    const testTemp = path.join(projectDir, projectLayout(build).testTemp);
    await mkdir(testTemp, { recursive: true });
    const args = [
      ...mavenArgs(build.mavenArgs, context),
      ...testArgs(build, request.selection, [
        `-Djava.io.tmpdir=${testTemp}`,
        ...(request.jvmArgs ?? []),
      ]),
    ];
    const run = await runProcess('mvn', args, {
      cwd: projectDir,
      env: mavenEnvironment(),
      timeoutMs: request.timeoutMs,
    });
    // Reports of classes that finished before a timeout are still worth reading (baseline).
    const reports = await readSurefireReports(reportsDir);
    return {
      verdict: await testRunVerdict(run, reports, request.timeoutMs, reportsDir, request.selection),
      reports,
      durationMs: run.durationMs,
      command: run.command,
      log: run.stdout + run.stderr,
    };
  },

  // `-Dtest=Outer` alone runs none of JUnit 5's @Nested classes (`Outer$Inner`).
  selectClass(testClass) {
    return `${testClass},${testClass}$*`;
  },

  // Surefire's syntax for methods of one class; nested classes are classes of their own here.
  selectMethods(testClass, methods) {
    if (methods.length === 0) throw new Error('an empty method selection would run no test');
    return `${testClass}#${methods.join('+')}`;
  },

  // The harness's own Surefire, named as its runs name it: the version a pom leaves to Maven's
  // defaults may be missing from the repository, and an offline replay would fail on it.
  replayCommand(build, testClass) {
    return shellJoin([
      'mvn',
      '-q',
      '-B',
      ...(build.module ? ['-pl', build.module] : []),
      ...build.mavenArgs,
      ...(build.jvmArgs.length > 0 ? [`-DargLine=${build.jvmArgs.join(' ')}`] : []),
      `-Dtest=${this.selectClass(testClass)}`,
      'test-compile',
      surefireGoal(build),
    ]);
  },

  versions() {
    versionsPromise ??= toolVersions();
    return versionsPromise;
  },
};

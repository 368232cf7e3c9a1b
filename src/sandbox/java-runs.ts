import { mkdir, readdir, readFile, readlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { jacocoAgentArg } from '../coverage/jacoco.js';
import { copyProjectTree, makeTempDir, removeTree } from '../core/fs.js';
import { runProcess, type RunResult } from '../core/process.js';
import { readUntrustedFile } from '../core/untrusted-fs.js';
import type { CompileMessage, SingleVerdict } from '../core/verdict.js';
import { TestResultSchema } from '../toolchains/jvm/protocol.js';
import { toReports } from '../toolchains/jvm/runner.js';
import { verdictFromReports } from '../core/test-reports.js';
import { BUILD_OUTPUT } from '../toolchains/layout.js';
import { jdkTool } from '../toolchains/maven/maven.js';
import { ISOLATED_HOME, isolatedJavaArgs, systemJavaArchiveDirs } from './bwrap.js';
import { createControlGroup, type GroupLimits } from './cgroup.js';

/*
 * Every compile and run of untrusted Java (an agent's tests; from the next stages on, its
 * patches): each in a fresh bubblewrap sandbox with no network, an environment of a few fixed
 * variables, a private /tmp and home, and only what the run needs bound in at fixed paths.
 *
 * The tree a run sees is a harness-made build of one side of a case (`PreparedTree`): the
 * project without its production sources or classes, its own tests compiled. The production
 * classes reach the test JVM only as a jar on its standard input, a pipe: the launcher
 * (jvm/runner/.../SandboxRun.java) defines them from memory before any test code runs, so no file
 * in the sandbox holds them and no loader serves their bytes. Every run copies the tree afresh,
 * binds the same paths and sets the same environment, whichever side it is: the buggy and the
 * clean run differ in the production classes' behaviour and in nothing a test can read.
 */

/** Where things are inside a run's sandbox; the same for every run. */
export const IN_SANDBOX = {
  project: '/project',
  tests: '/run/agent-tests',
  sources: '/run/agent-sources',
  out: '/run/out',
  classpath: '/run/cp',
  production: '/run/production.jar',
  coverageAgent: '/run/coverage-agent.jar',
  resources: '/tmp/witnessgym-resources',
} as const;

/** A side of a case built by the harness (trusted code only), ready to be run untrusted tests on. */
export interface PreparedTree {
  /** Host directory: the project tree without production sources or build output but its compiled tests. */
  template: string;
  /** The module's directory relative to the tree ('' for a single-module project). */
  module: string;
  /** Compiled tests relative to the tree. */
  testClasses: string;
  /** Host path of the production classes and resources, as a jar. */
  productionJar: string;
  /** Dependency and JUnit Platform jars, in class-path order (host paths). */
  classpath: readonly string[];
  /** The launcher's own class path: boot entries (class-loader code, ASM) and the rest. */
  launcher: { boot: readonly string[]; classpath: readonly string[] };
  /** The language level (`-source`/`-target`) of the agent's tests. */
  release: string;
  /** The test JVM's flags: the pom's own argLine and the recipe's. */
  jvmArgs: readonly string[];
}

export interface JavaRunLimits {
  wallMs: number;
  /** Largest file a run may write, and the size of its /tmp and home. */
  fileBytes: number;
  /** Open files per process. */
  openFiles: number;
  /** Processes and threads of the whole run, and its memory (a control group of its own). */
  group: GroupLimits;
}

export const DEFAULT_JAVA_RUN_LIMITS: JavaRunLimits = {
  wallMs: 600_000,
  fileBytes: 256 * 1024 * 1024,
  openFiles: 4096,
  group: { pids: 1024, memoryBytes: 4 * 1024 * 1024 * 1024 },
};

export interface JavaSandboxSetup {
  /** Directories under /usr the sandbox shows empty (any holding Java archives). */
  hidden: readonly string[];
  limits: JavaRunLimits;
}

/**
 * Every directory of Java archives under /usr hidden (they may hold any version of a project, as
 * Debian's Maven does), the default limits.
 */
export async function isolatedJavaSetup(
  limits: JavaRunLimits = DEFAULT_JAVA_RUN_LIMITS,
): Promise<JavaSandboxSetup> {
  return { hidden: await systemJavaArchiveDirs(), limits };
}

/** A source file the agent submitted, project-relative. */
export interface SourceFile {
  file: string;
  content: string;
}

export type TestCompileOutcome =
  | { kind: 'Compiled'; classes: string; durationMs: number }
  | { kind: 'CompileFailed'; messages: CompileMessage[]; durationMs: number }
  | { kind: 'Timeout'; limitMs: number };

/**
 * One entry of the launcher's trace: a production method that ran (its first line), or a line of
 * one that started (that line).
 */
export interface EnteredMethod {
  /** Internal name, e.g. org/example/Outer$Inner. */
  owner: string;
  name: string;
  descriptor: string;
  /** The method's first line of code, or the line that started; null without line numbers. */
  line: number | null;
}

export interface SandboxedTestRun {
  verdict: SingleVerdict;
  durationMs: number;
  /** With `trace`: the production methods the run entered. */
  entered?: EnteredMethod[];
  /** With `coverage`: a harness-owned copy of the JaCoCo data the run wrote, if any. */
  coverageData?: string;
  /** With `observe`: what the probe classes' observations file held, if the run wrote one. */
  observations?: string;
}

export interface TestRunOptions {
  trace?: boolean;
  /** JaCoCo's agent jar and the packages to record. */
  coverage?: { agentJar: string; includes: readonly string[] };
  /** Probe classes run: their observations file is read back (amplify/probes.ts). */
  observe?: boolean;
}

const MAX_RESULT_BYTES = 16 * 1024 * 1024;
const MAX_COVERAGE_BYTES = 64 * 1024 * 1024;
const MAX_CONSOLE_BYTES = 64 * 1024;

/** Variables every untrusted Java process gets, and no others. */
function isolatedEnv(): NodeJS.ProcessEnv {
  const jdk = path.dirname(path.dirname(jdkTool('java')));
  return {
    PATH: `${path.join(jdk, 'bin')}:/usr/local/bin:/usr/bin:/bin`,
    HOME: ISOLATED_HOME,
    TMPDIR: '/tmp',
    USER: 'sandbox',
    LANG: 'C.UTF-8',
    TZ: 'UTC',
    JAVA_HOME: jdk,
  };
}

/** Limits set on the process inside: file size and open files (no core dumps). */
function limited(limits: JavaRunLimits, command: string[]): string[] {
  return [
    '/usr/bin/prlimit',
    `--fsize=${limits.fileBytes}`,
    `--nofile=${limits.openFiles}`,
    '--core=0',
    '--',
    ...command,
  ];
}

/** Binds each jar at a numbered path: the host's paths (the cache) never show inside. */
function boundJars(prefix: string, jars: readonly string[]): { args: string[]; paths: string[] } {
  const args: string[] = [];
  const paths = jars.map((jar, index) => {
    const inside = `${prefix}/${String(index).padStart(3, '0')}${path.extname(jar) || '.dir'}`;
    args.push('--ro-bind', jar, inside);
    return inside;
  });
  return { args, paths };
}

/** Runs bwrap in a control group of its own where the machine allows one (see cgroup.ts). */
async function bwrap(args: string[], limits: JavaRunLimits, input?: Buffer): Promise<RunResult> {
  const group = await createControlGroup(limits.group);
  const command = group.kind === 'Limited' ? group.enter('bwrap', args) : { file: 'bwrap', args };
  try {
    return await runProcess(command.file, command.args, {
      env: isolatedEnv(),
      timeoutMs: limits.wallMs,
      graceMs: 1000,
      maxOutputBytes: MAX_CONSOLE_BYTES,
      ...(input ? { input } : {}),
    });
  } finally {
    if (group.kind === 'Limited') await group.dispose();
  }
}

/** javac's `file:line: error: message` lines, paths made project-relative. */
export function javacMessages(output: string, projectInSandbox: string): CompileMessage[] {
  const messages: CompileMessage[] = [];
  for (const line of output.split('\n')) {
    const match = /^([^:\s][^:]*\.java):(\d+): error: (.*)$/.exec(line);
    if (!match) continue;
    const named = match[1]!;
    const file = named.startsWith(`${projectInSandbox}/`)
      ? named.slice(projectInSandbox.length + 1)
      : path.isAbsolute(named)
        ? path.basename(named)
        : named;
    messages.push({ file, line: Number(match[2]), column: null, message: match[3]! });
  }
  return messages;
}

/** What javac compiles against inside the sandbox, beside the dependencies. */
type CompileAgainst = 'production-and-tests' | 'dependencies';

/**
 * javac in a sandbox, with no annotation processing (nothing of the sources runs while
 * compiling), into a fresh directory that is returned on success.
 */
async function compileInSandbox(
  tree: PreparedTree,
  sources: readonly SourceFile[],
  setup: JavaSandboxSetup,
  against: CompileAgainst,
): Promise<TestCompileOutcome> {
  const root = await makeTempDir('sandbox-javac');
  try {
    const sourceDir = path.join(root, 's');
    const out = path.join(root, 'o');
    await mkdir(out);
    for (const source of sources) {
      const target = path.join(sourceDir, source.file);
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, source.content);
    }
    const deps = boundJars(IN_SANDBOX.classpath, tree.classpath);
    const testClasses = path.join(tree.template, tree.testClasses);
    const testClassesInside = path.posix.join(IN_SANDBOX.project, tree.testClasses);
    const projectBinds =
      against === 'production-and-tests'
        ? [
            '--ro-bind',
            testClasses,
            testClassesInside,
            '--ro-bind',
            tree.productionJar,
            IN_SANDBOX.production,
          ]
        : [];
    const projectClasspath =
      against === 'production-and-tests' ? [IN_SANDBOX.production, testClassesInside] : [];
    const args = [
      ...isolatedJavaArgs(setup.hidden, setup.limits.fileBytes),
      '--ro-bind',
      sourceDir,
      IN_SANDBOX.sources,
      ...projectBinds,
      '--bind',
      out,
      IN_SANDBOX.out,
      ...deps.args,
      '--chdir',
      IN_SANDBOX.sources,
      '--',
      ...limited(setup.limits, [
        jdkTool('javac'),
        '-proc:none',
        '-nowarn',
        '-encoding',
        'UTF-8',
        // As Maven's compiler plugin does with source and target: the language level of the
        // project, the JDK's own class library (not --release's older one).
        '-source',
        tree.release,
        '-target',
        tree.release,
        '-d',
        IN_SANDBOX.out,
        '-classpath',
        [...projectClasspath, ...deps.paths].join(':'),
        ...sources.map((source) => source.file),
      ]),
    ];
    const run = await bwrap(args, setup.limits);
    if (run.timedOut) return { kind: 'Timeout', limitMs: setup.limits.wallMs };
    if (run.exitCode !== 0) {
      const messages = javacMessages(`${run.stdout}\n${run.stderr}`, IN_SANDBOX.sources);
      return {
        kind: 'CompileFailed',
        messages:
          messages.length > 0
            ? messages
            : [
                {
                  file: '',
                  line: null,
                  column: null,
                  message: `javac exited with ${run.exitCode ?? run.signal}`,
                },
              ],
        durationMs: run.durationMs,
      };
    }
    const classes = await makeTempDir('sandbox-classes');
    await copyProjectTree(out, classes);
    return { kind: 'Compiled', classes, durationMs: run.durationMs };
  } finally {
    await removeTree(root);
  }
}

/** Compiles the agent's test sources against one side's classes, in a sandbox. */
export function compileTests(
  tree: PreparedTree,
  sources: readonly SourceFile[],
  setup: JavaSandboxSetup,
): Promise<TestCompileOutcome> {
  return compileInSandbox(tree, sources, setup, 'production-and-tests');
}

/**
 * Compiles a whole set of production sources (an agent's patch applied to them) against the
 * dependencies alone, in a sandbox; the classes become a jar with the tree's production
 * resources beside them, which `runTestClass` then pipes into the test JVM in place of the
 * prepared tree's own.
 */
export async function compileProduction(
  tree: PreparedTree,
  sources: readonly SourceFile[],
  resourcesDir: string,
  setup: JavaSandboxSetup,
): Promise<
  | { kind: 'Compiled'; productionJar: string; durationMs: number }
  | Exclude<TestCompileOutcome, { kind: 'Compiled' }>
> {
  const compiled = await compileInSandbox(tree, sources, setup, 'dependencies');
  if (compiled.kind !== 'Compiled') return compiled;
  try {
    // The resources the harness's build put beside the classes (properties, service files).
    const resources = (await readdir(resourcesDir, { withFileTypes: true, recursive: true }))
      .filter((entry) => entry.isFile() && !entry.name.endsWith('.class'))
      .map((entry) => path.relative(resourcesDir, path.join(entry.parentPath, entry.name)));
    for (const resource of resources) {
      await mkdir(path.dirname(path.join(compiled.classes, resource)), { recursive: true });
      await writeFile(
        path.join(compiled.classes, resource),
        await readFile(path.join(resourcesDir, resource)),
      );
    }
    const productionJar = path.join(await makeTempDir('sandbox-production'), 'production.jar');
    const jar = await runProcess(
      jdkTool('jar'),
      ['--create', '--file', productionJar, '-C', compiled.classes, '.'],
      { timeoutMs: 300_000 },
    );
    if (jar.exitCode !== 0) throw new Error(`jar: ${jar.stderr.trim()}`);
    return { kind: 'Compiled', productionJar, durationMs: compiled.durationMs };
  } finally {
    await removeTree(compiled.classes);
  }
}

const LauncherAnswerSchema = z.discriminatedUnion('kind', [
  z.object({
    kind: z.literal('Ran'),
    results: z.array(TestResultSchema),
    testMs: z.number().optional(),
    entered: z
      .array(
        z.object({
          owner: z.string(),
          name: z.string(),
          descriptor: z.string(),
          line: z.number().int().nullable().optional(),
        }),
      )
      .optional(),
  }),
  z.object({ kind: z.literal('TestClassNotFound'), className: z.string() }),
  z.object({ kind: z.literal('RunCrashed'), reason: z.string() }),
]);

/**
 * A run's own copy of the tree, as hard links where the file system allows (the copy is only ever
 * mounted read-only): what the sandbox binds has a fresh name each run, never one that says which
 * side it is.
 */
async function linkedCopy(template: string, destination: string): Promise<void> {
  const linked = await runProcess('cp', ['-al', template, destination], { timeoutMs: 300_000 });
  if (linked.exitCode === 0) return;
  await removeTree(destination);
  await copyProjectTree(template, destination);
}

/**
 * How the tree is mounted at /project: every entry read-only, each directory on the way to the
 * module and the module's build output an empty tmpfs of `bytes` at most (so a test may create
 * files where it runs and under target/, as under Maven, but can neither change the project nor
 * fill the host's disk), the compiled tests read-only inside it.
 */
async function projectMounts(copy: string, tree: PreparedTree, bytes: number): Promise<string[]> {
  const args: string[] = [];
  const writable = (inside: string) => args.push('--size', String(bytes), '--tmpfs', inside);
  const moduleSegments = tree.module === '' ? [] : tree.module.split('/');
  const mountLevel = async (host: string, inside: string, depth: number): Promise<void> => {
    writable(inside);
    const atModule = depth === moduleSegments.length;
    for (const entry of await readdir(host, { withFileTypes: true })) {
      const from = path.join(host, entry.name);
      const to = path.posix.join(inside, entry.name);
      if (!atModule && entry.name === moduleSegments[depth] && entry.isDirectory()) {
        await mountLevel(from, to, depth + 1);
      } else if (atModule && entry.name === BUILD_OUTPUT) {
        writable(to);
        const testClasses = path.posix.join(IN_SANDBOX.project, tree.testClasses);
        args.push('--ro-bind', path.join(copy, tree.testClasses), testClasses);
      } else if (entry.isSymbolicLink()) {
        args.push('--symlink', await readlink(from), to);
      } else {
        args.push('--ro-bind', from, to);
      }
    }
  };
  await mountLevel(copy, IN_SANDBOX.project, 0);
  return args;
}

/**
 * Runs one test class in a fresh sandbox over a fresh copy of the prepared tree, the agent's
 * compiled tests first on the test class path. What a run reports is read without trusting it:
 * a result that is missing, not a regular file, too large or malformed is a crash of the run.
 */
export async function runTestClass(
  tree: PreparedTree,
  agentClasses: string,
  testClass: string,
  setup: JavaSandboxSetup,
  options: TestRunOptions = {},
): Promise<SandboxedTestRun> {
  const root = await makeTempDir('sandbox-run');
  try {
    const project = path.join(root, 'p');
    const out = path.join(root, 'o');
    await linkedCopy(tree.template, project);
    await mkdir(out);
    const deps = boundJars(IN_SANDBOX.classpath, tree.classpath);
    const launcherBoot = boundJars('/run/launcher/boot', tree.launcher.boot);
    const launcherClasses = boundJars('/run/launcher/cp', tree.launcher.classpath);
    const moduleDir = path.posix.join(IN_SANDBOX.project, tree.module);
    const resultFile = `${IN_SANDBOX.out}/result.json`;
    const coverageArgs = options.coverage
      ? [
          jacocoAgentArg(
            IN_SANDBOX.coverageAgent,
            `${IN_SANDBOX.out}/coverage.exec`,
            options.coverage.includes,
          ),
        ]
      : [];
    const args = [
      ...isolatedJavaArgs(setup.hidden, setup.limits.fileBytes),
      ...(await projectMounts(project, tree, setup.limits.fileBytes)),
      '--ro-bind',
      agentClasses,
      IN_SANDBOX.tests,
      '--bind',
      out,
      IN_SANDBOX.out,
      ...deps.args,
      ...launcherBoot.args,
      ...launcherClasses.args,
      ...(options.coverage
        ? ['--ro-bind', options.coverage.agentJar, IN_SANDBOX.coverageAgent]
        : []),
      '--chdir',
      moduleDir,
      '--',
      ...limited(setup.limits, [
        jdkTool('java'),
        ...tree.jvmArgs,
        ...coverageArgs,
        ...(options.observe
          ? [`-Dwitnessgym.observations=${IN_SANDBOX.out}/observations.jsonl`]
          : []),
        `-Duser.home=${ISOLATED_HOME}`,
        '-Djava.io.tmpdir=/tmp',
        `-Dbasedir=${moduleDir}`,
        '-XX:+DisableAttachMechanism',
        '-XX:-UsePerfData',
        `-Xbootclasspath/a:${launcherBoot.paths.join(':')}`,
        '-Djava.system.class.loader=witnessgym.runner.SystemLoader',
        '-cp',
        [...launcherClasses.paths, ...deps.paths].join(':'),
        'witnessgym.runner.SandboxRun',
        resultFile,
        testClass,
        options.trace ? 'trace' : 'plain',
        IN_SANDBOX.resources,
        IN_SANDBOX.tests,
        path.posix.join(IN_SANDBOX.project, tree.testClasses),
      ]),
    ];
    const run = await bwrap(args, setup.limits, await readFile(tree.productionJar));
    if (run.timedOut) {
      return {
        verdict: { kind: 'Timeout', phase: 'test', limitMs: setup.limits.wallMs },
        durationMs: run.durationMs,
      };
    }
    const read = await readUntrustedFile(path.join(out, 'result.json'), MAX_RESULT_BYTES);
    const crashed = (reason: string): SandboxedTestRun => ({
      verdict: { kind: 'Crashed', reason },
      durationMs: run.durationMs,
    });
    if (read.kind !== 'Read') {
      return crashed(
        `the test JVM ended (exit ${run.exitCode ?? run.signal}) without reporting a result: System.exit, a crash or a limit`,
      );
    }
    let parsed;
    try {
      parsed = LauncherAnswerSchema.safeParse(JSON.parse(read.content.toString('utf8')));
    } catch {
      parsed = undefined;
    }
    if (!parsed?.success) return crashed('the run reported a malformed result');
    const answer = parsed.data;
    const result: SandboxedTestRun = (() => {
      switch (answer.kind) {
        case 'TestClassNotFound':
          return {
            verdict: { kind: 'NoTestsRan', reason: `test class ${answer.className} not found` },
            durationMs: run.durationMs,
          };
        case 'RunCrashed':
          return crashed(answer.reason);
        case 'Ran':
          return {
            verdict: verdictFromReports(toReports(answer.results)),
            durationMs: run.durationMs,
            ...(options.trace
              ? {
                  entered: (answer.entered ?? []).map((method) => ({
                    ...method,
                    line: method.line ?? null,
                  })),
                }
              : {}),
          };
      }
    })();
    if (options.observe) {
      const data = await readUntrustedFile(path.join(out, 'observations.jsonl'), MAX_RESULT_BYTES);
      if (data.kind === 'Read') result.observations = data.content.toString('utf8');
    }
    if (options.coverage) {
      const data = await readUntrustedFile(path.join(out, 'coverage.exec'), MAX_COVERAGE_BYTES);
      if (data.kind === 'Read') {
        const copy = path.join(await makeTempDir('sandbox-coverage'), 'coverage.exec');
        await writeFile(copy, data.content);
        result.coverageData = copy;
      }
    }
    return result;
  } finally {
    await removeTree(root);
  }
}

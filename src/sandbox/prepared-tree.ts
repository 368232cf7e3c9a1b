import { mkdir, readdir, readFile, rename, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../core/cache.js';
import { exists, makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { describeVerdict } from '../core/verdict.js';
import type { ProjectRef } from '../project/project.js';
import { withLock } from '../records/lock.js';
import { defineRecord, readRecordFile, writeRecordFile } from '../records/record.js';
import { testJvmArgs, type BuildSettings } from '../toolchains/build-settings.js';
import { prepareProjectRuntime, runnerClasspath } from '../toolchains/jvm/setup.js';
import { BUILD_OUTPUT } from '../toolchains/layout.js';
import { jdkTool, mavenArgs, mavenEnvironment, mavenToolchain } from '../toolchains/maven/maven.js';
import type { PreparedTree } from './java-runs.js';

/*
 * The harness's own build of a project tree, which every untrusted run on it starts from (see
 * java-runs.ts). Only trusted code is built here, by Maven. What the sandbox gets of it: the tree
 * without production sources and build output, but with the project's compiled tests; the
 * production classes as a jar; the dependency class path; the test JVM's flags, the pom's own
 * `argLine` among them (a Surefire argLine replaced ours before, so JaCoCo never attached and
 * the tests missed the flags they need). Built once per tree and kept in the cache.
 */

const PREPARED_VERSION = 1;
const HELP_PLUGIN = 'org.apache.maven.plugins:maven-help-plugin:3.5.2';

const PreparedFile = defineRecord({
  kind: 'evaluation-prepared-side',
  version: PREPARED_VERSION,
  schema: z.strictObject({
    /** What was built: a case and side, or a project state. */
    caseId: z.string(),
    side: z.string(),
    module: z.string(),
    testClasses: z.string(),
    classpath: z.array(z.string()),
    release: z.string(),
    jvmArgs: z.array(z.string()),
  }),
});

export interface PreparedSide extends PreparedTree {
  /** The compiled production classes on the host, for reading coverage against them. */
  classesDir: string;
  /** The tree's production sources on the host (never in a sandbox). */
  sourcesDir: string;
}

/** What a prepared tree is built from: a writer of its sources, and names for its record. */
export interface TreeToPrepare {
  project: ProjectRef;
  cache: CacheLayout;
  /** Cache directory of this tree's build (its key names every input). */
  dir: string;
  /** Who the tree is, for messages and the record: a case id and side, or a state. */
  label: { id: string; side: string };
  write: (destination: string) => Promise<void>;
}

/**
 * The flags of the pom's own Surefire `argLine`, from the effective POM (profiles and parents
 * applied). `@{argLine}` and `${argLine}` stand for flags other plugins add (JaCoCo's): here the
 * harness adds its own, so they are dropped.
 */
export function surefireArgLine(effectivePom: string): string[] {
  // The plugin Maven runs, not its <pluginManagement> entry (a parent's, often without the
  // child's argLine); the project's properties are the first block, before <build>.
  const plugins = effectivePom.replace(/<pluginManagement>[\s\S]*?<\/pluginManagement>/, '');
  const plugin = /<artifactId>maven-surefire-plugin<\/artifactId>[\s\S]*?<\/plugin>/.exec(
    plugins,
  )?.[0];
  const configured = plugin ? /<argLine>([\s\S]*?)<\/argLine>/.exec(plugin)?.[1] : undefined;
  const properties = /<properties>([\s\S]*?)<\/properties>/.exec(
    effectivePom.split('<build>')[0] ?? '',
  )?.[1];
  const property = properties ? /<argLine>([\s\S]*?)<\/argLine>/.exec(properties)?.[1] : undefined;
  const line = (configured ?? property ?? '')
    .replace(/[@$]\{argLine\}/g, property && configured ? property : '')
    .replace(/[@$]\{[^}]*\}/g, '')
    .replace(/&lt;/g, '<')
    .replace(/&gt;/g, '>')
    .replace(/&amp;/g, '&');
  return line.split(/\s+/).filter(Boolean);
}

async function pomJvmArgs(
  tree: string,
  build: BuildSettings,
  cache: CacheLayout,
): Promise<string[]> {
  const output = path.join(await makeTempDir('effective-pom'), 'pom.xml');
  try {
    const attempt = (offline: boolean) =>
      runProcess(
        'mvn',
        [
          ...mavenArgs(build.mavenArgs, { repository: cache.mavenRepo, offline }),
          ...(build.module ? ['-pl', build.module] : []),
          `${HELP_PLUGIN}:effective-pom`,
          `-Doutput=${output}`,
        ],
        { cwd: tree, env: mavenEnvironment(), timeoutMs: 600_000 },
      );
    let run = await attempt(true);
    if (run.exitCode !== 0) run = await attempt(false);
    if (run.exitCode !== 0) {
      throw new Error(`the effective POM of the case tree: ${run.stdout.slice(-400)}`);
    }
    return surefireArgLine(await readFile(output, 'utf8'));
  } finally {
    await removeTree(path.dirname(output));
  }
}

/** The class files under a directory, by `/`-separated relative path. */
async function classFiles(root: string): Promise<string[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.class'))
    .map((entry) =>
      path.relative(root, path.join(entry.parentPath, entry.name)).split(path.sep).join('/'),
    );
}

/**
 * The class-path entries that hold a production class: under its own name, or shaded under a
 * relocated package (`com/tool/shaded/org/example/Foo.class`). Such a copy would let a test
 * compare the code under test with another version of it instead of understanding the bug.
 */
export async function projectCopiesOn(
  classesDir: string,
  classpath: readonly string[],
): Promise<string[]> {
  const production = new Set(await classFiles(classesDir));
  const holdsCopy = (entry: string) => {
    if (production.has(entry)) return true;
    for (let at = entry.indexOf('/'); at >= 0; at = entry.indexOf('/', at + 1)) {
      if (production.has(entry.slice(at + 1))) return true;
    }
    return false;
  };
  const found: string[] = [];
  for (const entry of classpath) {
    let names: string[];
    if ((await stat(entry)).isDirectory()) {
      names = await classFiles(entry);
    } else {
      const listed = await runProcess(jdkTool('jar'), ['--list', '--file', entry], {
        timeoutMs: 120_000,
      });
      if (listed.exitCode !== 0) throw new Error(`cannot list ${entry}: ${listed.stderr.trim()}`);
      names = listed.stdout.split('\n').filter((name) => name.endsWith('.class'));
    }
    if (names.some(holdsCopy)) found.push(entry);
  }
  return found;
}

async function buildTree(input: TreeToPrepare): Promise<void> {
  const { project, cache, dir, label } = input;
  const { layout, build } = project;
  const temporary = `${dir}.tmp`;
  await removeTree(temporary);
  await mkdir(temporary, { recursive: true });
  const tree = path.join(temporary, 'tree');
  await input.write(tree);
  const compiled = await mavenToolchain.compile(
    tree,
    build,
    { repository: cache.mavenRepo, offline: true },
    1_200_000,
  );
  if (compiled.kind !== 'Compiled') {
    throw new Error(
      `the ${label.side} tree of ${label.id} does not build: ${describeVerdict(compiled.verdict)}`,
    );
  }
  const runtime = await prepareProjectRuntime(tree, build, cache);
  const copies = await projectCopiesOn(path.join(tree, layout.mainClasses), runtime.classpath);
  if (copies.length > 0) {
    throw new Error(
      `the test class path holds a copy of the project's own classes, which a test could compare the code under test with: ${copies.join(', ')}`,
    );
  }
  const jar = await runProcess(
    jdkTool('jar'),
    [
      '--create',
      '--file',
      path.join(temporary, 'production.jar'),
      '-C',
      path.join(tree, layout.mainClasses),
      '.',
    ],
    { timeoutMs: 300_000 },
  );
  if (jar.exitCode !== 0) throw new Error(`jar: ${jar.stderr.trim()}`);
  const jvmArgs = [...(await pomJvmArgs(tree, build, cache)), ...testJvmArgs(build)];
  await rename(path.join(tree, layout.mainClasses), path.join(temporary, 'classes'));
  // The sandbox's tree: no production sources, no build output but the compiled tests.
  const testClasses = path.join(temporary, 'test-classes');
  await rename(path.join(tree, layout.testClasses), testClasses);
  await rename(path.join(tree, layout.mainSources), path.join(temporary, 'sources'));
  for (const output of new Set([BUILD_OUTPUT, path.join(layout.module, BUILD_OUTPUT)])) {
    await rm(path.join(tree, output), { recursive: true, force: true });
  }
  await mkdir(path.dirname(path.join(tree, layout.testClasses)), { recursive: true });
  await rename(testClasses, path.join(tree, layout.testClasses));
  const release = Number.parseFloat(runtime.release ?? '8');
  await writeRecordFile(path.join(temporary, 'prepared.json'), PreparedFile, {
    caseId: label.id,
    side: label.side,
    module: layout.module,
    testClasses: layout.testClasses,
    // The bridge runs the JUnit Platform and holds the trace recorder instrumented classes call.
    classpath: [runtime.bridge, ...runtime.classpath],
    release: String(Number.isFinite(release) && release >= 8 ? Math.floor(release) : 8),
    jvmArgs,
  });
  await removeTree(dir);
  await rename(temporary, dir);
}

/** A tree built by the harness once and then read from the cache. */
export async function preparedTree(input: TreeToPrepare): Promise<PreparedSide> {
  const { dir } = input;
  const record = path.join(dir, 'prepared.json');
  if (!(await exists(record))) {
    await mkdir(path.dirname(dir), { recursive: true });
    await withLock(
      `${dir}.lock`,
      {
        purpose: `prepare the ${input.label.side} tree of ${input.label.id}`,
        log: () => undefined,
      },
      async () => {
        if (!(await exists(record))) await buildTree(input);
      },
    );
  }
  const prepared = (await readRecordFile(record, PreparedFile))!;
  const launcher = await runnerClasspath(input.cache);
  return {
    template: path.join(dir, 'tree'),
    module: prepared.module,
    testClasses: prepared.testClasses,
    productionJar: path.join(dir, 'production.jar'),
    classesDir: path.join(dir, 'classes'),
    sourcesDir: path.join(dir, 'sources'),
    classpath: prepared.classpath,
    launcher,
    release: prepared.release,
    jvmArgs: prepared.jvmArgs,
  };
}

import { open, readdir, readFile, writeFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { runnerCache, type CacheLayout } from '../../core/cache.js';
import { exists, sha256Text } from '../../core/fs.js';
import { withLock } from '../../records/lock.js';
import {
  defineRecord,
  readRecordFile,
  writeRecordFile,
  type RecordOf,
} from '../../records/record.js';
import { packageRoot } from '../../core/package-root.js';
import { runProcess } from '../../core/process.js';
import type { BuildSettings } from '../build-settings.js';
import { projectLayout } from '../layout.js';
import { jdkTool, mavenArgs, mavenEnvironment } from '../maven/maven.js';

/*
 * What the warm JVM needs for a project, computed once and cached: the project's test classpath
 * (from Maven), JUnit Platform jars that match the project's JUnit versions, the bridge compiled
 * against them, and the runner itself, compiled from the Java sources in this repository.
 */

const DEPENDENCY_PLUGIN = 'org.apache.maven.plugins:maven-dependency-plugin:3.6.1';
/** Platform used when the project has no JUnit 5 of its own (JUnit 3/4 through Vintage). */
const DEFAULT_JUPITER = '5.10.2';
/** The Vintage engine needs JUnit 4.12 or newer; JUnit 3 tests run on JUnit 4 unchanged. */
const VINTAGE_JUNIT = 'junit:junit:4.13.2';

export interface ProjectRuntime {
  /** Identifies the project's class-loading space inside a runner JVM. */
  key: string;
  classes: string;
  testClasses: string;
  /** Dependency and platform jars, in class-path order. */
  classpath: string[];
  bridge: string;
  /** `-source`/`-target` level of the project's compiled classes, e.g. "8". */
  release: string | null;
}

/** The runner's lock waits are reported where the CLI reports progress. */
function logToStderr(line: string): void {
  process.stderr.write(`${line}\n`);
}

/**
 * Runs `build` unless `isBuilt` says it is done; the building is done under the runner's lock,
 * and skipped there when another process built it meanwhile.
 */
async function buildOnce(
  cache: CacheLayout,
  purpose: string,
  isBuilt: () => Promise<boolean>,
  build: () => Promise<void>,
): Promise<void> {
  if (await isBuilt()) return;
  await withLock(runnerCache(cache).lock, { purpose, log: logToStderr }, async () => {
    if (!(await isBuilt())) await build();
  });
}

async function javac(args: string[], cwd?: string): Promise<void> {
  const run = await runProcess(jdkTool('javac'), args, {
    ...(cwd ? { cwd } : {}),
    timeoutMs: 300_000,
  });
  if (run.exitCode !== 0)
    throw new Error(`javac failed: ${run.stderr.trim() || run.stdout.trim()}`);
}

async function javaSources(dir: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (entry.isFile() && entry.name.endsWith('.java')) {
      found.push(path.join(entry.parentPath, entry.name));
    }
  }
  return found.sort();
}

async function contentHash(files: string[]): Promise<string> {
  const texts = await Promise.all(files.map((file) => readFile(file, 'utf8')));
  return sha256Text(texts.join('\0')).slice(0, 12);
}

/** Compiles `sources` into a directory named after their content, once. */
async function compileOnce(
  cache: CacheLayout,
  sourceDir: string,
  outRoot: string,
  classpath: string[],
  release: string,
): Promise<string> {
  const sources = await javaSources(sourceDir);
  const out = path.join(outRoot, `${path.basename(sourceDir)}-${await contentHash(sources)}`);
  const marker = path.join(out, '.complete');
  await buildOnce(
    cache,
    `compile ${out}`,
    () => exists(marker),
    async () => {
      await mkdir(out, { recursive: true });
      await javac([
        '--release',
        release,
        '-nowarn',
        '-d',
        out,
        ...(classpath.length > 0 ? ['-classpath', classpath.join(':')] : []),
        ...sources,
      ]);
      await writeFile(marker, '');
    },
  );
  return out;
}

/** Bytecode library of the tracing class loader; on the runner's class path only. */
const ASM = 'org.ow2.asm:asm:9.7';

/**
 * The runner's class paths: its class-loader code and ASM go on the boot class path (see
 * jvm/boot/Loaders.java for why), the rest (protocol, in-process compiler) on the class path.
 */
export interface RunnerClasspath {
  boot: string[];
  classpath: string[];
}

export async function runnerClasspath(cache: CacheLayout): Promise<RunnerClasspath> {
  const { dependencies: depsDir, classes: classesDir } = runnerCache(cache);
  const listFile = path.join(depsDir, 'classpath.txt');
  await buildOnce(
    cache,
    'resolve the runner dependencies',
    () => exists(listFile),
    async () => {
      await mkdir(depsDir, { recursive: true });
      await writeFile(path.join(depsDir, 'pom.xml'), platformPom([ASM]));
      await mavenClasspath(depsDir, [], cache, listFile);
    },
  );
  const jars = (await readFile(listFile, 'utf8')).trim().split(':');
  const jvmSources = path.join(packageRoot(), 'jvm');
  const boot = await compileOnce(cache, path.join(jvmSources, 'boot'), classesDir, jars, '17');
  const classes = await compileOnce(
    cache,
    path.join(jvmSources, 'runner'),
    classesDir,
    [boot, ...jars],
    '17',
  );
  return { boot: [boot, ...jars], classpath: [classes] };
}

async function mavenClasspath(
  projectDir: string,
  args: string[],
  cache: CacheLayout,
  outputFile: string,
): Promise<string[]> {
  const attempt = (offline: boolean) =>
    runProcess(
      'mvn',
      [
        ...mavenArgs(args, { repository: cache.mavenRepo, offline }),
        `${DEPENDENCY_PLUGIN}:build-classpath`,
        '-Dmdep.includeScope=test',
        `-Dmdep.outputFile=${outputFile}`,
      ],
      { cwd: projectDir, env: mavenEnvironment(), timeoutMs: 900_000 },
    );
  let run = await attempt(true);
  if (run.exitCode !== 0) run = await attempt(false);
  if (run.exitCode !== 0) {
    throw new Error(
      `cannot compute the test classpath of ${projectDir}: ${run.stdout.slice(-400)}`,
    );
  }
  const text = (await readFile(outputFile, 'utf8')).trim();
  return text === '' ? [] : text.split(':');
}

export interface JarId {
  group: string;
  artifact: string;
  version: string;
}

/** Reads group, artifact and version from a path inside a Maven repository. */
function jarId(jar: string, repository: string): JarId | undefined {
  const relative = path.relative(repository, jar).split(path.sep);
  if (relative.length < 4 || relative[0] === '..') return undefined;
  const version = relative[relative.length - 2]!;
  const artifact = relative[relative.length - 3]!;
  const group = relative.slice(0, -3).join('.');
  return { group, artifact, version };
}

function versionAtLeast(version: string, minimum: string): boolean {
  const a = version.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  const b = minimum.split(/[.-]/).map((part) => Number.parseInt(part, 10) || 0);
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if ((a[i] ?? 0) !== (b[i] ?? 0)) return (a[i] ?? 0) > (b[i] ?? 0);
  }
  return true;
}

/** JUnit 5.x pairs with Platform 1.x; from 6.0 both share one version. */
function platformVersionFor(jupiter: string): string {
  const [major, ...rest] = jupiter.split('.');
  return major === '5' ? ['1', ...rest].join('.') : jupiter;
}

export interface PlatformChoice {
  coordinates: string[];
  /** Project jars the platform replaces (an old JUnit 4 or JUnit 3 under Vintage). */
  drop: (id: JarId) => boolean;
}

export function choosePlatform(projectJars: JarId[]): PlatformChoice {
  const find = (group: string, artifact: string) =>
    projectJars.find((id) => id.group === group && id.artifact === artifact);
  const jupiterApi = find('org.junit.jupiter', 'junit-jupiter-api');
  const junit4 = find('junit', 'junit');
  const jupiter = jupiterApi?.version ?? DEFAULT_JUPITER;
  const platform =
    find('org.junit.platform', 'junit-platform-commons')?.version ?? platformVersionFor(jupiter);
  const coordinates = [`org.junit.platform:junit-platform-launcher:${platform}`];
  if (jupiterApi) coordinates.push(`org.junit.jupiter:junit-jupiter-engine:${jupiter}`);
  const oldJunit = junit4 !== undefined && !versionAtLeast(junit4.version, '4.12');
  if (junit4) {
    coordinates.push(`org.junit.vintage:junit-vintage-engine:${jupiter}`);
    if (oldJunit) coordinates.push(VINTAGE_JUNIT);
  }
  return {
    coordinates,
    drop: (id) => oldJunit && id.group === 'junit' && id.artifact === 'junit',
  };
}

function platformPom(coordinates: string[]): string {
  const dependencies = coordinates
    .map((coordinate) => {
      const [group, artifact, version] = coordinate.split(':');
      return `<dependency><groupId>${group}</groupId><artifactId>${artifact}</artifactId><version>${version}</version></dependency>`;
    })
    .join('');
  return `<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion><groupId>witnessgym</groupId><artifactId>jvm-runner-platform</artifactId><version>1</version><dependencies>${dependencies}</dependencies></project>\n`;
}

/** Major version of the first class file found: the level the project was compiled for. */
async function compiledRelease(classesDir: string): Promise<string | null> {
  let entries;
  try {
    entries = await readdir(classesDir, { withFileTypes: true, recursive: true });
  } catch {
    return null;
  }
  const first = entries.find((entry) => entry.isFile() && entry.name.endsWith('.class'));
  if (!first) return null;
  const handle = await open(path.join(first.parentPath, first.name), 'r');
  try {
    const header = Buffer.alloc(8);
    await handle.read(header, 0, 8, 0);
    const major = header.readUInt16BE(6);
    return major <= 52 ? `1.${major - 44}` : String(major - 44);
  } finally {
    await handle.close();
  }
}

/** What is cached per pom and build flags; class directories are added per project copy. */
/** A project's dependency class path and matching JUnit Platform jars, resolved once. */
const DependencyRuntimeFile = defineRecord({
  kind: 'jvm-dependency-runtime',
  version: 1,
  schema: z.strictObject({
    classpath: z.array(z.string()),
    platformDir: z.string(),
    platformJars: z.array(z.string()),
  }),
});
type DependencyRuntime = RecordOf<typeof DependencyRuntimeFile>;

async function dependencyRuntime(
  moduleDir: string,
  projectDir: string,
  build: BuildSettings,
  cache: CacheLayout,
): Promise<DependencyRuntime> {
  const pom = await readFile(path.join(moduleDir, 'pom.xml'), 'utf8');
  const key = sha256Text(JSON.stringify([pom, build.module ?? '', build.mavenArgs])).slice(0, 16);
  const dir = runnerCache(cache).projectRuntime(key);
  const record = path.join(dir, 'dependencies.json');
  await buildOnce(
    cache,
    `prepare the runtime of ${projectDir}`,
    () => exists(record),
    () => buildDependencyRuntime(dir, record, projectDir, build, cache),
  );
  return (await readRecordFile(record, DependencyRuntimeFile))!;
}

async function buildDependencyRuntime(
  dir: string,
  record: string,
  projectDir: string,
  build: BuildSettings,
  cache: CacheLayout,
): Promise<void> {
  await mkdir(dir, { recursive: true });

  const projectJars = await mavenClasspath(
    projectDir,
    [...(build.module ? ['-pl', build.module] : []), ...build.mavenArgs],
    cache,
    path.join(dir, 'project-classpath.txt'),
  );
  const ids = projectJars.map((jar) => ({ jar, id: jarId(jar, cache.mavenRepo) }));
  const choice = choosePlatform(ids.flatMap((entry) => (entry.id ? [entry.id] : [])));
  const platformKey = sha256Text(choice.coordinates.join(',')).slice(0, 12);
  const platformDir = runnerCache(cache).platform(platformKey);
  await mkdir(platformDir, { recursive: true });
  await writeFile(path.join(platformDir, 'pom.xml'), platformPom(choice.coordinates));
  const platformJars = await mavenClasspath(
    platformDir,
    [],
    cache,
    path.join(platformDir, 'classpath.txt'),
  );
  const kept = ids
    .filter((entry) => !(entry.id && choice.drop(entry.id)))
    .map((entry) => entry.jar);
  const seen = new Set(kept.map((jar) => path.basename(jar)));
  const runtime: DependencyRuntime = {
    classpath: [...kept, ...platformJars.filter((jar) => !seen.has(path.basename(jar)))],
    platformDir,
    platformJars,
  };
  await writeRecordFile(record, DependencyRuntimeFile, runtime);
}

/**
 * Everything the runner needs to load a project copy. The dependency part is computed with Maven
 * on first use, then read from the cache (keyed by the pom and build flags).
 */
export async function prepareProjectRuntime(
  projectDir: string,
  build: BuildSettings,
  cache: CacheLayout,
): Promise<ProjectRuntime> {
  const moduleDir = path.resolve(projectDir, build.module ?? '');
  const dependencies = await dependencyRuntime(moduleDir, projectDir, build, cache);
  // Compiled per content of the bridge sources, so an updated bridge is picked up at once.
  const bridge = await compileOnce(
    cache,
    path.join(packageRoot(), 'jvm', 'bridge'),
    dependencies.platformDir,
    dependencies.platformJars,
    '8',
  );
  const layout = projectLayout(build);
  const classes = path.resolve(projectDir, layout.mainClasses);
  return {
    key: sha256Text(JSON.stringify([moduleDir, dependencies.classpath, bridge])).slice(0, 16),
    classes,
    testClasses: path.resolve(projectDir, layout.testClasses),
    classpath: dependencies.classpath,
    bridge,
    release: await compiledRelease(classes),
  };
}

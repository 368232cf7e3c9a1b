import { createHash, randomBytes } from 'node:crypto';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { XMLParser } from 'fast-xml-parser';
import type { CacheLayout } from '../core/cache.js';
import { exists, makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { jdkTool } from '../toolchains/maven/maven.js';

/*
 * Line coverage of a test run with JaCoCo: its agent in the test JVM records which classes' probes
 * ran into an exec file, and its command-line tool maps that onto the class files' line tables.
 */

/** The newest release whose agent runtime Maven Central serves (0.8.16's is not); Java 17-25. */
export const JACOCO_VERSION = '0.8.15';

const MAVEN_CENTRAL = 'https://repo1.maven.org/maven2';
const DOWNLOAD_TIMEOUT_MS = 120_000;

export interface JacocoJars {
  version: string;
  /** The agent, for `-javaagent:` (the `runtime` jar: the agent with its dependencies inside). */
  agentJar: string;
  /** The command-line tool that turns exec files into reports (`nodeps`: self-contained). */
  cliJar: string;
}

/**
 * JaCoCo's agent and command-line jars, downloaded into the cache on first use and verified
 * against the SHA-1 Maven Central publishes. A jar is only renamed into place once verified, so
 * one that is there is whole; processes downloading at once each write a name of their own.
 */
export async function ensureJacoco(cache: CacheLayout): Promise<JacocoJars> {
  const dir = path.join(cache.downloads, `jacoco-${JACOCO_VERSION}`);
  const [agentJar, cliJar] = await Promise.all([
    ensureJar(dir, 'org.jacoco.agent', 'runtime'),
    ensureJar(dir, 'org.jacoco.cli', 'nodeps'),
  ]);
  return { version: JACOCO_VERSION, agentJar, cliJar };
}

async function ensureJar(dir: string, artifact: string, classifier: string): Promise<string> {
  const name = `${artifact}-${JACOCO_VERSION}-${classifier}.jar`;
  const target = path.join(dir, name);
  if (await exists(target)) return target;
  const url = `${MAVEN_CENTRAL}/org/jacoco/${artifact}/${JACOCO_VERSION}/${name}`;
  const [jar, sha1File] = await Promise.all([download(url), download(`${url}.sha1`)]);
  // The .sha1 holds the hex digest, sometimes followed by the file name.
  const published = Buffer.from(sha1File).toString('utf8').trim().split(/\s+/)[0]!.toLowerCase();
  const actual = createHash('sha1').update(jar).digest('hex');
  if (actual !== published) {
    throw new Error(`${url} hashes to SHA-1 ${actual}, but Maven Central publishes ${published}`);
  }
  await mkdir(dir, { recursive: true });
  const temporary = `${target}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temporary, jar);
    await rename(temporary, target);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
  return target;
}

async function download(url: string): Promise<Uint8Array> {
  const response = await fetch(url, { signal: AbortSignal.timeout(DOWNLOAD_TIMEOUT_MS) });
  if (!response.ok) throw new Error(`cannot download ${url}: HTTP ${response.status}`);
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * The test-JVM flag that records coverage of the classes matching `includes` (Java names with
 * `*` and `?`, as `org.apache.commons.csv.*`) into `destFile`. Appending, because a pom may fork
 * one JVM per test class (commons-io) and each must add to, not replace, the others' data: so
 * `destFile` must be a fresh path for every run. No whitespace anywhere, since Surefire's argLine
 * is split at it, and no `=` in the jar's path, which the JVM splits from the agent's options.
 */
export function jacocoAgentArg(
  agentJar: string,
  destFile: string,
  includes: readonly string[],
): string {
  // Without includes the agent instruments every class loaded, JUnit's and the libraries' too.
  if (includes.length === 0) throw new Error('a coverage agent needs the classes to include');
  if (agentJar.includes('=')) throw new Error(`the agent's path has an '=': ${agentJar}`);
  const arg = `-javaagent:${agentJar}=destfile=${destFile},includes=${includes.join(':')},append=true`;
  if (/\s/.test(arg)) throw new Error(`a coverage agent flag cannot hold whitespace: ${arg}`);
  return arg;
}

export type LineState = 'covered' | 'missed';

export interface MeasuredLineCoverage {
  kind: 'Measured';
  /**
   * Per source file, by its path relative to a source root (`org/apache/commons/csv/CSVFormat.java`),
   * each line that has code: covered when any of its instructions ran.
   */
  files: ReadonlyMap<string, ReadonlyMap<number, LineState>>;
}

/**
 * What a run's exec file says. No data is not "nothing covered": `missing`, the agent never
 * started (no JVM, or a pom's literal argLine dropped the flag); `empty`, the agent started (it
 * creates the file) but the JVM ended without dumping, killed outright (SIGKILL) or halted. A JVM
 * in which no included class ran still dumps: that is measured, with every line missed.
 */
export type LineCoverage =
  MeasuredLineCoverage | { kind: 'NoExecutionData'; cause: 'missing' | 'empty'; execFile: string };

export interface LineCoverageOptions {
  cliJar: string;
  execFile: string;
  /** The class files the run loaded, exactly as built: JaCoCo matches classes by their bytes. */
  classDirs: readonly string[];
  timeoutMs: number;
}

/**
 * Reads an exec file against the class directories with JaCoCo's XML report. Source files are not
 * needed: the lines come from the classes' line tables. A report that fails or times out throws.
 */
export async function readLineCoverage(options: LineCoverageOptions): Promise<LineCoverage> {
  const { execFile } = options;
  if (!(await exists(execFile))) return { kind: 'NoExecutionData', cause: 'missing', execFile };
  if ((await stat(execFile)).size === 0) {
    return { kind: 'NoExecutionData', cause: 'empty', execFile };
  }
  if (options.classDirs.length === 0) throw new Error('a coverage report needs class directories');
  const work = await makeTempDir('jacoco');
  try {
    const xmlFile = path.join(work, 'report.xml');
    const run = await runProcess(
      jdkTool('java'),
      [
        // A short-lived JVM: C1 only and a serial collector start it faster.
        '-XX:TieredStopAtLevel=1',
        '-XX:+UseSerialGC',
        '-jar',
        options.cliJar,
        'report',
        execFile,
        ...options.classDirs.flatMap((dir) => ['--classfiles', dir]),
        '--xml',
        xmlFile,
      ],
      { timeoutMs: options.timeoutMs },
    );
    if (run.timedOut) {
      throw new Error(`JaCoCo's report on ${execFile} took over ${options.timeoutMs} ms`);
    }
    if (run.exitCode !== 0) {
      const output = (run.stderr || run.stdout).trim();
      throw new Error(`JaCoCo's report on ${execFile} failed (exit ${run.exitCode}): ${output}`);
    }
    return { kind: 'Measured', files: parseXmlReport(await readFile(xmlFile, 'utf8')) };
  } finally {
    await removeTree(work);
  }
}

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '',
  isArray: (name, _path, _leaf, isAttribute) =>
    !isAttribute && ['package', 'sourcefile', 'line'].includes(name),
  parseAttributeValue: false,
  // The report's only DOCTYPE names JaCoCo's DTD; it declares no entities to expand.
  processEntities: false,
});

type XmlNode = Record<string, unknown>;

function children(node: XmlNode, name: string): XmlNode[] {
  const value = node[name];
  return Array.isArray(value) ? (value as XmlNode[]) : [];
}

function attribute(node: XmlNode, name: string): string {
  const value = node[name];
  if (typeof value !== 'string') throw new Error(`a JaCoCo report element lacks '${name}'`);
  return value;
}

/** Package names in the report are paths (`org/apache/commons/csv`); the default package is "". */
function parseXmlReport(xml: string): Map<string, Map<number, LineState>> {
  const report = (parser.parse(xml) as XmlNode).report;
  if (typeof report !== 'object' || report === null) {
    throw new Error('the JaCoCo XML report has no report element');
  }
  const files = new Map<string, Map<number, LineState>>();
  for (const pkg of children(report as XmlNode, 'package')) {
    const dir = attribute(pkg, 'name');
    for (const source of children(pkg, 'sourcefile')) {
      const name = attribute(source, 'name');
      const lines = new Map<number, LineState>();
      for (const line of children(source, 'line')) {
        const coveredInstructions = Number(attribute(line, 'ci'));
        lines.set(Number(attribute(line, 'nr')), coveredInstructions > 0 ? 'covered' : 'missed');
      }
      files.set(dir ? `${dir}/${name}` : name, lines);
    }
  }
  return files;
}

/**
 * How many of `lines` of `file` have code (lines without any, blank or comments, are left out),
 * and how many of those ran: change coverage's numerator and denominator for one file.
 */
export function coverageOfLines(
  coverage: MeasuredLineCoverage,
  file: string,
  lines: readonly number[],
): { lines: number; covered: number } {
  const states = coverage.files.get(file);
  let instrumented = 0;
  let covered = 0;
  for (const line of new Set(lines)) {
    const state = states?.get(line);
    if (state === undefined) continue;
    instrumented++;
    if (state === 'covered') covered++;
  }
  return { lines: instrumented, covered };
}

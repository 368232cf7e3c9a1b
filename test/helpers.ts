import { readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../src/core/cache.js';
import { copyProjectTree, makeTempDir } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { plainLine } from '../src/events/render.js';
import type { ProgressEvent } from '../src/events/types.js';
import { runProcess, type RunResult } from '../src/core/process.js';
import { DEFAULT_BUILD } from '../src/toolchains/build-settings.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';

const CLI = path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js');

export interface CliResult extends RunResult {
  json: unknown;
}

/** Runs the built CLI as a user would; `npm test` builds it first. */
export async function cli(args: string[], timeoutMs = 1_800_000): Promise<CliResult> {
  const result = await runProcess(process.execPath, [CLI, ...args], { timeoutMs });
  let json: unknown;
  if (args.includes('--json')) {
    try {
      json = JSON.parse(result.stdout);
    } catch {
      json = undefined;
    }
  }
  return { ...result, json };
}

/** The progress events a `--json` run wrote on stderr (one JSON line each). */
export function progressEvents(result: RunResult): ProgressEvent[] {
  return result.stderr
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as ProgressEvent);
}

/** Those events as a plain log would show them. */
export function progressLines(result: RunResult): string[] {
  return progressEvents(result).flatMap((event) => plainLine(event) ?? []);
}

/** A copy of the fixture project test/fixtures/<name>, compiled by Maven; returns its path. */
export async function builtFixture(name: string, cache: CacheLayout): Promise<string> {
  const project = path.join(await makeTempDir(name), 'project');
  await copyProjectTree(path.join(packageRoot(), 'test', 'fixtures', name), project);
  const compiled = await mavenToolchain.compile(
    project,
    DEFAULT_BUILD,
    { repository: cache.mavenRepo, offline: false },
    600_000,
  );
  if (compiled.kind !== 'Compiled') {
    throw new Error(`fixture ${name} did not compile: ${JSON.stringify(compiled.verdict)}`);
  }
  return project;
}

/** Fetches a corpus project (a no-op when cached) and returns its pristine path. */
export async function fetchCorpus(name: string): Promise<string> {
  const result = await cli(['corpus', 'fetch', name, '--json']);
  if (result.exitCode !== 0) {
    throw new Error(`corpus fetch ${name} failed (${result.exitCode}): ${result.stderr}`);
  }
  return (result.json as { path: string }).path;
}

export interface Edit {
  file: string;
  from: string;
  to: string;
}

/** A copy of a project with one-line source edits, each of which must match exactly once. */
export async function editedCopy(projectRoot: string, edits: Edit[]): Promise<string> {
  const copy = path.join(await makeTempDir('test'), 'project');
  await copyProjectTree(projectRoot, copy);
  for (const edit of edits) {
    const file = path.join(copy, edit.file);
    const text = await readFile(file, 'utf8');
    const occurrences = text.split(edit.from).length - 1;
    if (occurrences !== 1)
      throw new Error(`edit '${edit.from}' matches ${occurrences} times in ${edit.file}`);
    await writeFile(file, text.replace(edit.from, edit.to));
  }
  return copy;
}

/**
 * Processes other than this one whose `/proc/<pid>/<file>` (`cmdline`: the arguments,
 * `environ`: the environment), split at its NULs, satisfies `match`.
 */
export async function processesWhere(
  file: 'cmdline' | 'environ',
  match: (fields: string[]) => boolean,
): Promise<number[]> {
  const found: number[] = [];
  for (const pid of await readdir('/proc')) {
    if (!/^\d+$/.test(pid) || Number(pid) === process.pid) continue;
    try {
      if (match((await readFile(`/proc/${pid}/${file}`, 'utf8')).split('\0'))) {
        found.push(Number(pid));
      }
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

/** Processes whose command line mentions a path: what a run must not leave behind. */
export function processesMentioning(needle: string): Promise<number[]> {
  return processesWhere('cmdline', (argv) => argv.join(' ').includes(needle));
}

/** Processes whose environment holds `entry` (NAME=value): what a marked run left running. */
export function processesWithEnvironment(entry: string): Promise<number[]> {
  return processesWhere('environ', (environment) => environment.includes(entry));
}

/**
 * The records of a JSON-lines file the tool wrote ([] if it is missing). Strict, unlike the
 * tool's own reader: a line that does not parse fails the test.
 */
export async function readLines<T>(file: string): Promise<T[]> {
  const text = await readFile(file, 'utf8').catch(() => '');
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as T);
}

/** What `oneCaseBench` asks `witnessgym build` for, besides the project and --out. */
export const ONE_CASE_BUILD = [
  ...['--types', 'logic_predicate_inversion_in_guard', '--depths', '1'],
  ...['--buckets', 'short', '--per-cell', '1'],
  // json-simple's two APIs share their writers: a bug JSONValueTest exposes, JSONArrayTest
  // exposes too, so its cases keep only with the other class hidden as a co-witness.
  ...['--co-witnesses', 'hide'],
];

/**
 * A benchmark of one case built by `witnessgym build` into `<work>/bench`: a guard-inversion bug
 * at depth 1 in a short context of `project` (a corpus name or a fetched path). Returns the
 * benchmark and its case.
 */
export async function oneCaseBench(
  project: string,
  work: string,
): Promise<{ bench: string; caseDir: string; record: CaseRecord; cases: number }> {
  const bench = path.join(work, 'bench');
  const built = await cli(['build', project, ...ONE_CASE_BUILD, '--out', bench, '--json']);
  if (built.exitCode !== 0) throw new Error(`build ${project} failed: ${built.stderr}`);
  const index = (await readFile(path.join(bench, 'cases.jsonl'), 'utf8')).trim().split('\n');
  const id = (JSON.parse(index[0]!) as { instance_id: string }).instance_id;
  const caseDir = path.join(bench, id);
  const record = JSON.parse(await readFile(path.join(caseDir, 'case.json'), 'utf8')) as CaseRecord;
  return { bench, caseDir, record, cases: index.length };
}

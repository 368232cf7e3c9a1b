import { spawn } from 'node:child_process';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { cli, fetchCorpus } from './helpers.js';

/*
 * `witnessgym build` end to end on json-simple, killed with SIGKILL once a case is archived and
 * run again: the resumed build holds the same cases as one that was never interrupted, none lost
 * and none twice.
 */

const ARGS = [
  'build',
  'json-simple',
  '--types',
  'logic_predicate_inversion_in_guard',
  '--depths',
  '1',
  '--buckets',
  'short',
  '--per-cell',
  '2',
  // Its bugs are exposed by both of json-simple's API test classes: one is hidden as a co-witness.
  '--co-witnesses',
  'hide',
];

beforeAll(async () => {
  await fetchCorpus('json-simple');
});

interface LedgerLine {
  cell: unknown;
  injection: string;
  outcome: { kind: string; stoppedAt?: { kind: string } };
}

/** Lines of a stage output file, none when it is missing. */
async function lineCount(file: string): Promise<number> {
  try {
    return (await readFile(file, 'utf8')).split('\n').filter((line) => line.trim() !== '').length;
  } catch {
    return 0;
  }
}

async function ledgerLines(out: string): Promise<LedgerLine[]> {
  try {
    const text = await readFile(path.join(out, 'build', 'cases.jsonl'), 'utf8');
    return text
      .split('\n')
      .filter((line) => line.trim() !== '')
      .map((line) => JSON.parse(line) as LedgerLine);
  } catch {
    return [];
  }
}

/** Starts a build and kills its process group with SIGKILL once the ledger has a case. */
async function killedAfterFirstCase(out: string): Promise<void> {
  const child = spawn(
    process.execPath,
    [path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js'), ...ARGS, '--out', out],
    { detached: true, stdio: 'ignore' },
  );
  const exited = new Promise<void>((resolve) => child.on('exit', () => resolve()));
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    if (child.exitCode !== null)
      throw new Error(`the build ended (${child.exitCode}) before it was killed`);
    const lines = await ledgerLines(out);
    if (lines.some((line) => line.outcome.kind === 'Archived')) break;
  }
  process.kill(-child.pid!, 'SIGKILL');
  await exited;
}

async function caseDirectories(out: string): Promise<string[]> {
  return (await readdir(out)).filter((name) => name.startsWith('json-simple@')).sort();
}

describe('witnessgym build', () => {
  it('resumes after kill -9 with the same cases as an uninterrupted build', async () => {
    const dir = await makeTempDir('build');
    const whole = path.join(dir, 'whole');
    const resumed = path.join(dir, 'resumed');

    const uninterrupted = await cli([...ARGS, '--out', whole, '--json']);
    expect(uninterrupted.exitCode, uninterrupted.stderr).toBe(0);
    const summary = uninterrupted.json as { archived: number; wanted: number; cells: unknown[] };
    expect(summary).toMatchObject({ archived: 2, wanted: 2 });

    await killedAfterFirstCase(resumed);
    const before = (await ledgerLines(resumed)).length;
    const rerun = await cli([...ARGS, '--out', resumed, '--json']);
    expect(rerun.exitCode, rerun.stderr).toBe(0);
    const ledger = await ledgerLines(resumed);
    // The rerun kept what the killed run had decided (which may already be all of it: a second
    // case can be decided within the half second before the kill lands) and added what was missing.
    expect(ledger.length).toBeGreaterThanOrEqual(before);
    expect(await caseDirectories(resumed)).toEqual(await caseDirectories(whole));
    const index = (await readFile(path.join(resumed, 'cases.jsonl'), 'utf8'))
      .split('\n')
      .filter(Boolean)
      .map((line) => (JSON.parse(line) as { instance_id: string }).instance_id);
    expect(index).toHaveLength(2);
    expect(new Set(index).size).toBe(2);
    // No bug was tried twice in its cell.
    const tried = ledger.map((line) => JSON.stringify([line.cell, line.injection]));
    expect(new Set(tried).size).toBe(tried.length);

    // Each case verifies with Maven: it fails on the buggy tree as recorded, passes on clean.
    const [first] = await caseDirectories(resumed);
    const verified = await cli(['case', 'verify', path.join(resumed, first!), '--json']);
    expect(verified.exitCode, verified.stdout).toBe(0);

    // A Short entry says where the bug stopped, as data.
    for (const line of ledger.filter((entry) => entry.outcome.kind === 'Short')) {
      expect(['precondition', 'step', 'final', 'archive']).toContain(line.outcome.stoppedAt?.kind);
    }

    // Another seed into the same directory is refused before any work, in one line (more cells
    // or projects would extend the build instead).
    const other = await cli([...ARGS, '--seed', '7', '--out', resumed]);
    expect(other.exitCode).toBe(2);
    expect(other.stderr.trim().split('\n')).toHaveLength(1);
  });
});

describe('witnessgym build: a rerun of a finished build', () => {
  it('keeps what was tried and why a cell is short, and tries nothing more', async () => {
    const out = path.join(await makeTempDir('build-short'), 'bench');
    // One try per inject run and no spare: the cell cannot fill, and the rounds end it short.
    const short = [
      ...ARGS.map((arg, index) => (ARGS[index - 1] === '--per-cell' ? '4' : arg)),
      '--max-tries',
      '1',
      '--spare',
      '0',
      '--workers',
      '1',
      '--out',
      out,
      '--json',
    ];
    const first = await cli(short);
    expect(first.exitCode, first.stderr).toBe(1);
    const [projectWork] = await readdir(path.join(out, 'work'));
    const work = path.join(out, 'work', projectWork!, 'inject-short');
    const tried = async () => ({
      ledger: (await ledgerLines(out)).length,
      injections: await lineCount(path.join(work, 'injections.jsonl')),
      rejections: await lineCount(path.join(work, 'rejections.jsonl')),
    });
    const before = await tried();
    expect(before.injections + before.rejections).toBeGreaterThan(0);
    const cellsOf = (json: unknown) => (json as { cells: { reasons: string[] }[] }).cells;
    const [cell] = cellsOf(first.json);
    expect(cell!.reasons.length).toBeGreaterThan(0);

    const rerun = await cli(short);
    expect(rerun.exitCode, rerun.stderr).toBe(1);
    expect(await tried()).toEqual(before);
    expect(cellsOf(rerun.json)).toEqual(cellsOf(first.json));
  });
});

describe('witnessgym build: usage errors', () => {
  it('refuses a mistyped bucket with exit 2, in one line, writing nothing', async () => {
    const out = path.join(await makeTempDir('build-usage'), 'bench');
    const result = await cli([
      'build',
      'json-simple',
      '--types',
      'all',
      '--buckets',
      'shrt',
      '--out',
      out,
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toEqual([
      expect.stringMatching(/--buckets: 'shrt' is not one of short, mid-short, mid-long, long/),
    ]);
    await expect(readdir(out)).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

import { cp, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, resolveCacheDir } from '../src/core/cache.js';
import { exists, makeTempDir } from '../src/core/fs.js';
import { resolveFetchedProject } from '../src/project/project.js';
import { readRecords } from '../src/records/record.js';
import { ExecutionContextLine } from '../src/stages/1-trace/trace.js';
import { InjectionLine } from '../src/stages/2-inject/records.js';
import { TransformLine } from '../src/stages/3-transform/transform.js';
import { archiveCase, benchLayout, toolVersions } from '../src/stages/4-archive/archive.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';
import type { VerifyOutcome } from '../src/stages/4-archive/verify.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { cli, fetchCorpus, readLines } from './helpers.js';

/*
 * The case archive on json-simple: a bug injected and transformed by the CLI becomes a case;
 * the case's trees are materialised and exported, `case verify` confirms it with Maven, and a
 * case whose recorded signature was tampered with is refused.
 */

let bench: string;
let caseDir: string;
let record: CaseRecord;

beforeAll(async () => {
  await fetchCorpus('json-simple');
  const dir = await makeTempDir('case-archive-test');
  const injected = path.join(dir, 'inject');
  const transformed = path.join(dir, 'transform');
  const inject = await cli([
    'inject',
    'json-simple',
    '--types',
    'logic_predicate_inversion_in_guard',
    '--count',
    '1',
    '--seed',
    '3',
    '--out',
    injected,
    '--json',
  ]);
  expect(inject.exitCode, inject.stderr).toBe(0);
  const transform = await cli([
    'transform',
    'json-simple',
    '--from',
    injected,
    '--transforms',
    't_call_stack_deepen_v1',
    '--out',
    transformed,
    '--json',
  ]);
  expect(transform.exitCode, transform.stderr).toBe(0);

  const cache = cacheLayout(resolveCacheDir());
  const project = await resolveFetchedProject('json-simple', cache);
  const [injection] = (await readRecords(path.join(injected, 'injections.jsonl'), InjectionLine))
    .records;
  const [kept] = (await readRecords(path.join(transformed, 'transformed.jsonl'), TransformLine))
    .records;
  const contexts = (
    await readRecords(projectCache(cache, project.base).contextMap, ExecutionContextLine)
  ).records;
  bench = path.join(dir, 'bench');
  const outcome = await archiveCase(
    {
      project,
      injection: injection!,
      transform: kept!,
      contexts,
      tools: await toolVersions(mavenToolchain),
    },
    bench,
  );
  expect(outcome.kind).toBe('Archived');
  if (outcome.kind !== 'Archived') return;
  caseDir = outcome.dir;
  record = JSON.parse(await readFile(path.join(caseDir, 'case.json'), 'utf8')) as CaseRecord;
});

describe('case archive on json-simple', () => {
  it('records the case: witness, signature, tools, one index line', async () => {
    expect(record.tools.maven).not.toBe('unknown');
    expect(record.transforms).toEqual({ ids: ['t_call_stack_deepen_v1'], depth: 1 });
    expect(Object.keys(record.expectedFailure).length).toBeGreaterThan(0);
    expect(record.verifyCommand).toMatch(/^mvn .*-Dtest=.*test$/);
    const index = await readLines<{ instance_id: string; FAIL_TO_PASS: string[] }>(
      benchLayout(bench).index,
    );
    expect(index.map((line) => line.instance_id)).toEqual([record.id]);
    expect(index[0]!.FAIL_TO_PASS).toEqual(Object.keys(record.expectedFailure).sort());
  });

  it('materialises the buggy tree without the witness and without build output', async () => {
    const out = path.join(await makeTempDir('case-tree'), 'workspace');
    const result = await cli([
      'case',
      'materialise',
      caseDir,
      '--out',
      out,
      '--hide-witness',
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ kind: 'Materialised', witnessHidden: true });
    expect(await exists(path.join(out, record.officialTest.path))).toBe(false);
    expect(await exists(path.join(out, 'target'))).toBe(false);
    expect(await exists(path.join(out, '.git'))).toBe(false);
    expect(await exists(path.join(out, 'pom.xml'))).toBe(true);
    const file = record.bugRelatedFiles[0]!;
    const clean = path.join(await makeTempDir('case-tree'), 'clean');
    expect((await cli(['case', 'materialise', caseDir, '--out', clean, '--clean'])).exitCode).toBe(
      0,
    );
    expect(await readFile(path.join(out, file), 'utf8')).not.toBe(
      await readFile(path.join(clean, file), 'utf8'),
    );
  });

  it('refuses to materialise from a cached tree that was changed since its fetch', async () => {
    // Every case is written from the pristine tree: a file planted there would be in both sides.
    // The plant goes into a private copy of the cache's project: files running beside this one
    // read the shared pristine tree.
    const privateCache = cacheLayout(await makeTempDir('planted-cache'));
    const shared = projectCache(cacheLayout(resolveCacheDir()), record.project);
    const planted = projectCache(privateCache, record.project);
    await cp(shared.dir, planted.dir, { recursive: true, verbatimSymlinks: true });
    await writeFile(path.join(planted.pristine, 'planted-marker.txt'), 'planted');
    const out = path.join(await makeTempDir('case-tree'), 'planted');
    const result = await cli([
      '--cache-dir',
      privateCache.root,
      'case',
      'materialise',
      caseDir,
      '--out',
      out,
    ]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toContain('was changed since it was fetched (planted-marker.txt)');
  });

  it('exports a full snapshot per case and the index', async () => {
    const out = await makeTempDir('case-export');
    const result = await cli(['case', 'export', bench, '--out', out, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    expect(result.json).toMatchObject({ cases: 1, written: 1, existing: 0, corrupt: [] });
    expect((await readdir(out)).sort()).toEqual(['cases.jsonl', record.id].sort());
    expect(await exists(path.join(out, record.id, record.officialTest.path))).toBe(true);
  });

  it('verifies the case with Maven: fails on buggy with the recorded signature, passes on clean', async () => {
    const result = await cli(['case', 'verify', caseDir, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const outcome = result.json as VerifyOutcome;
    expect(outcome.kind).toBe('Verified');
    if (outcome.kind === 'Verified') expect(outcome.buggy.failures).toEqual(record.expectedFailure);
  });

  it('refuses a case whose recorded signature was tampered with', async () => {
    const other = path.join(await makeTempDir('case-tampered'), 'bench');
    await cp(bench, other, { recursive: true });
    const tampered = path.join(other, record.id);
    const [method] = Object.keys(record.expectedFailure);
    const file = path.join(tampered, 'case.json');
    const json = JSON.parse(await readFile(file, 'utf8')) as CaseRecord;
    json.expectedFailure = {
      ...json.expectedFailure,
      [method!]: 'java.lang.IllegalStateException',
    };
    await writeFile(file, JSON.stringify(json, null, 2));
    const result = await cli(['case', 'verify', tampered, '--json']);
    expect(result.exitCode).toBe(1);
    expect(result.json).toMatchObject({
      kind: 'Refuted',
      side: 'buggy',
      reason: expect.stringMatching(
        /signature differs: .*expected java\.lang\.IllegalStateException/,
      ),
    });
  });

  it('verifies a whole benchmark, records each outcome and skips verified cases on a rerun', async () => {
    const first = await cli(['case', 'verify', bench, '--json']);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(first.json).toMatchObject({
      cases: 1,
      earlier: 0,
      cleanRuns: 1,
      outcomes: [{ kind: 'Verified', caseId: record.id }],
    });
    const again = await cli(['case', 'verify', bench, '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect(again.json).toMatchObject({ cases: 1, earlier: 1, outcomes: [] });
  });

  it('names a directory that is neither a case nor a benchmark in one line, exit 2', async () => {
    const empty = await makeTempDir('case-none');
    const result = await cli(['case', 'verify', empty]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim()).toBe(
      `witnessgym: ${empty} is neither a case (no case.json) nor a benchmark holding cases: pass <bench>/<case-id> or <bench>`,
    );
  });
});

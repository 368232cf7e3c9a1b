import { copyFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, resolveCacheDir } from '../src/core/cache.js';
import { copyProjectTree, exists, makeTempDir } from '../src/core/fs.js';
import { runProcess } from '../src/core/process.js';
import { manifestBeside } from '../src/records/manifest.js';
import { findRecipe } from '../src/project/recipe.js';
import type { ExecutionContextRecord } from '../src/stages/1-trace/trace.js';
import type { InjectSummary } from '../src/stages/2-inject/records.js';
import {
  cli,
  fetchCorpus,
  progressEvents,
  progressLines,
  readLines,
  type CliResult,
} from './helpers.js';

/*
 * Two inject runs on one project at once, in a cache of this test's own where json-simple is
 * fetched but not traced yet: the project's lock lets one trace the map while the other waits,
 * so the map gets each class once and both runs inject as a single run does.
 */

let cacheDir: string;
let work: string;

beforeAll(async () => {
  await fetchCorpus('json-simple');
  const recipe = (await findRecipe('json-simple'))!;
  const shared = cacheLayout(resolveCacheDir());
  cacheDir = await makeTempDir('cache-lock');
  const own = cacheLayout(cacheDir);
  const from = projectCache(shared, recipe);
  const to = projectCache(own, recipe);
  await copyProjectTree(from.pristine, to.pristine, []);
  for (const file of [from.fetchRecord, from.baseline, manifestBeside(from.baseline)]) {
    await copyFile(file, path.join(to.dir, path.basename(file)));
  }
  // Hard links: the dependencies without downloading them again, on the same file system.
  await mkdir(path.dirname(own.mavenRepo), { recursive: true });
  const linked = await runProcess('cp', ['-al', shared.mavenRepo, own.mavenRepo]);
  expect(linked.exitCode, linked.stderr).toBe(0);
  expect(await exists(to.contextMap)).toBe(false);
  work = await makeTempDir('cache-lock-out');
});

function inject(out: string): Promise<CliResult> {
  return cli([
    '--cache-dir',
    cacheDir,
    'inject',
    'json-simple',
    '--types',
    'logic_predicate_inversion_in_guard',
    '--count',
    '1',
    '--seed',
    '3',
    '--out',
    path.join(work, out),
    '--json',
  ]);
}

async function decided(out: string): Promise<string[]> {
  const lines = [
    ...(await readLines<{ id: string }>(path.join(work, out, 'injections.jsonl'))),
    ...(await readLines<{ id: string }>(path.join(work, out, 'rejections.jsonl'))),
  ];
  return lines.map((line) => line.id).sort();
}

const tally = (result: CliResult) =>
  (result.json as InjectSummary).types.map((type) => [type.typeId, type.accepted, type.tried]);

describe('two inject runs on one project at once', () => {
  it('trace the map once under the lock and each give what a single run gives', async () => {
    const [first, second] = await Promise.all([inject('first'), inject('second')]);
    expect(first.exitCode, first.stderr).toBe(0);
    expect(second.exitCode, second.stderr).toBe(0);

    const runs = [progressLines(first), progressLines(second)];
    expect(
      runs.filter((lines) => lines.some((line) => line.startsWith('trace: 8 of 8 test classes'))),
    ).toHaveLength(1);
    expect(
      runs.filter((lines) =>
        lines.some((line) => /lock: waiting for .*project-json-simple@.*\.lock/.test(line)),
      ),
    ).toHaveLength(1);

    const map = await readLines<ExecutionContextRecord>(
      projectCache(cacheLayout(cacheDir), (await findRecipe('json-simple'))!).contextMap,
    );
    const classes = map.filter((record) => record.testMethod === null).map((r) => r.testClass);
    expect(classes).toHaveLength(8);
    expect(new Set(classes).size).toBe(8);

    const single = await inject('single');
    expect(single.exitCode, single.stderr).toBe(0);
    expect(progressEvents(single).filter((event) => event.kind === 'ItemDone')).toEqual([]);
    expect(tally(first)).toEqual(tally(single));
    expect(tally(second)).toEqual(tally(single));
    expect(await decided('first')).toEqual(await decided('single'));
    expect(await decided('second')).toEqual(await decided('single'));
  });
});

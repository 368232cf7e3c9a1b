import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, type CacheLayout } from '../../core/cache.js';
import { exists, makeTempDir } from '../../core/fs.js';
import { silent } from '../../events/types.js';
import { fetchState, FetchFile } from '../../project/fetched.js';
import { RecipeSchema, recipeBuildHash, type Recipe } from '../../project/recipe.js';
import { writeRecordFile } from '../../records/record.js';
import { projectLayout } from '../../toolchains/layout.js';
import type { Toolchain, TestRunRequest } from '../../toolchains/types.js';
import { fetchCorpusProject } from './fetch.js';

/* A fetch asked for a sampled baseline: a few classes run, nothing recorded. */

const recipe: Recipe = RecipeSchema.parse({
  name: 'demo',
  version: '1.0',
  summary: 'a demo project',
  source: { kind: 'local', path: '/nowhere/demo' },
  notes: 'notes',
  tests: { include: ['**/*Test'], exclude: ['**/SlowTest'] },
});

const COMPILED = [
  'demo.ATest',
  'demo.BTest',
  'demo.CTest',
  'demo.DTest',
  'demo.ETest',
  'demo.FTest',
];

/** Runs whatever classes the selection names, each passing; remembers the requests. */
function fakeToolchain(requests: TestRunRequest[]): Toolchain {
  return {
    kind: 'toolchain',
    name: 'fake',
    detect: () => Promise.resolve(true),
    compile: () => Promise.reject(new Error('the tree is compiled already')),
    runTests(_dir, _build, _context, request) {
      requests.push(request);
      const names = (request.selection ?? '').split(',').filter((name) => !name.includes('$'));
      const counts = { tests: 1, failures: 0, errors: 0, skipped: 0 };
      return Promise.resolve({
        verdict: { kind: 'Passed', counts, testTimeMs: 1 },
        reports: names.map((testClass) => ({ testClass, counts, timeMs: 1, cases: [] })),
        durationMs: 1,
        command: 'fake',
        log: '',
      });
    },
    selectClass: (testClass) => `${testClass},${testClass}$*`,
    selectMethods: (testClass, methods) => `${testClass}#${methods.join('+')}`,
    replayCommand: () => 'fake',
    versions: () => Promise.resolve({}),
  };
}

let cache: CacheLayout;

/** A compiled pristine tree with no baseline yet, as a fetch interrupted before it leaves it. */
beforeAll(async () => {
  cache = cacheLayout(await makeTempDir('baseline-sample'));
  const paths = projectCache(cache, recipe);
  const classes = path.join(paths.pristine, projectLayout(recipe.build).testClasses, 'demo');
  await mkdir(classes, { recursive: true });
  for (const name of [...COMPILED, 'demo.ATest$Nested', 'demo.Helper', 'demo.SlowTest']) {
    await writeFile(path.join(classes, `${name.slice('demo.'.length)}.class`), '');
  }
  await writeRecordFile(paths.fetchRecord, FetchFile, {
    inputs: { recipeBuildHash: recipeBuildHash(recipe) },
    commit: 'c0ffee',
    compiledAt: '2000-01-01T00:00:00.000Z',
  });
});

describe('a fetch with a sampled baseline', () => {
  it('runs that many selected classes, evenly spread, and records no baseline', async () => {
    const requests: TestRunRequest[] = [];
    const fetched = await fetchCorpusProject(recipe, cache, {
      toolchain: fakeToolchain(requests),
      events: silent,
      baselineSample: 3,
    });
    expect(requests.map((request) => request.selection)).toEqual([
      'demo.ATest,demo.ATest$*,demo.CTest,demo.CTest$*,demo.ETest,demo.ETest$*',
    ]);
    expect(fetched.baseline.classes.map((entry) => entry.testClass)).toEqual([
      'demo.ATest',
      'demo.CTest',
      'demo.ETest',
    ]);
    expect(fetched.baseline.usableCount).toBe(3);
    // Not a baseline to build on: the cache still says the project is unfetched.
    expect(await exists(projectCache(cache, recipe).baseline)).toBe(false);
    expect(await fetchState(cache, recipe)).toMatchObject({ kind: 'NotFetched' });
  });

  it('asked for more classes than there are, runs them all', async () => {
    const requests: TestRunRequest[] = [];
    const fetched = await fetchCorpusProject(recipe, cache, {
      toolchain: fakeToolchain(requests),
      events: silent,
      baselineSample: 50,
    });
    expect(fetched.baseline.classes.map((entry) => entry.testClass)).toEqual(COMPILED);
  });
});

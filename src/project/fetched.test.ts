import { mkdir } from 'node:fs/promises';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, type CacheLayout } from '../core/cache.js';
import { makeTempDir } from '../core/fs.js';
import { manifestBeside } from '../records/manifest.js';
import { writeRecordFile } from '../records/record.js';
import { BaselineFile, type Baseline } from './baseline.js';
import { BaselineManifestFile, fetchState, FetchFile } from './fetched.js';
import { RecipeSchema, recipeBuildHash, type Recipe } from './recipe.js';

const recipe: Recipe = RecipeSchema.parse({
  name: 'demo',
  version: '1.0',
  summary: 'a demo project',
  source: { kind: 'local', path: '/nowhere/demo' },
  notes: 'first notes',
});

const baseline: Baseline = {
  createdAt: '2000-01-01T00:00:00.000Z',
  tools: { maven: '3.9' },
  selection: null,
  suite: { status: 'Passed', durationMs: 10, description: 'Passed (1 tests, 0 skipped)' },
  classes: [
    {
      testClass: 'demo.DemoTest',
      status: 'Passed',
      counts: { tests: 1, failures: 0, errors: 0, skipped: 0 },
      durationMs: 10,
      usability: { kind: 'Usable' },
      runMode: 'suite',
    },
  ],
  usableCount: 1,
};

let cache: CacheLayout;

/** A cache holding `recipe` fully fetched, as fetchCorpusProject leaves it. */
beforeAll(async () => {
  cache = cacheLayout(await makeTempDir('fetch-test'));
  const paths = projectCache(cache, recipe);
  const recipeBuild = recipeBuildHash(recipe);
  await mkdir(paths.pristine, { recursive: true });
  await writeRecordFile(paths.fetchRecord, FetchFile, {
    inputs: { recipeBuildHash: recipeBuild },
    commit: 'c0ffee',
    compiledAt: '2000-01-01T00:00:00.000Z',
  });
  await writeRecordFile(paths.baseline, BaselineFile, baseline);
  await writeRecordFile(manifestBeside(paths.baseline), BaselineManifestFile, {
    inputs: {
      recipeBuildHash: recipeBuild,
      pristineCommit: 'c0ffee',
      baselineVersion: BaselineFile.version,
    },
  });
});

describe('what the cache holds for a recipe', () => {
  it('is the fetched project when built from the same recipe', async () => {
    expect(await fetchState(cache, recipe)).toMatchObject({
      kind: 'Fetched',
      project: { commit: 'c0ffee', baseline },
    });
  });

  it('stays fetched when only the notes or summary change', async () => {
    const edited = { ...recipe, notes: 'other notes', summary: 'another summary' };
    expect((await fetchState(cache, edited)).kind).toBe('Fetched');
  });

  it('is out of date once the build changes, naming the recipe hash', async () => {
    const edited = { ...recipe, build: { ...recipe.build, mavenArgs: ['-Dfoo'] } };
    const state = await fetchState(cache, edited);
    expect(state).toMatchObject({ kind: 'NotFetched' });
    expect(state.kind === 'NotFetched' && state.reason).toMatch(
      /^out of date \(fetch\.json records other inputs: recipeBuildHash [0-9a-f]{16} → [0-9a-f]{16}\)$/,
    );
  });

  it('is not fetched without a fetch record', async () => {
    const other = { ...recipe, version: '2.0' };
    expect(await fetchState(cache, other)).toEqual({
      kind: 'NotFetched',
      reason: 'not fetched yet',
    });
  });

  describe('a recipe the fetch ladder adapted', () => {
    const asked: Recipe = { ...recipe, version: 'adapted-1.0' };
    const adapted: Recipe = {
      ...asked,
      build: { ...asked.build, mavenArgs: ['-Dmaven.compiler.release=8'] },
      notes: 'fetch ladder, release-8-api: why',
    };
    const remedies = [{ id: 'release-8-api', why: 'why', trigger: 'ambiguous' }];

    /** The cache as a fetch of `asked` leaves it, the baseline run with `adapted`. */
    beforeAll(async () => {
      const paths = projectCache(cache, asked);
      await mkdir(paths.pristine, { recursive: true });
      await writeRecordFile(paths.fetchRecord, FetchFile, {
        inputs: { recipeBuildHash: recipeBuildHash(asked) },
        commit: 'beef',
        compiledAt: '2000-01-01T00:00:00.000Z',
        adapted: { recipe: adapted, remedies },
      });
      await writeRecordFile(paths.baseline, BaselineFile, baseline);
      await writeRecordFile(manifestBeside(paths.baseline), BaselineManifestFile, {
        inputs: {
          recipeBuildHash: recipeBuildHash(adapted),
          pristineCommit: 'beef',
          baselineVersion: BaselineFile.version,
        },
      });
    });

    it('is what the recipe asked for finds, with the remedies and the recipe file', async () => {
      expect(await fetchState(cache, asked)).toMatchObject({
        kind: 'Fetched',
        project: {
          recipe: adapted,
          remedies,
          recipeFile: projectCache(cache, asked).recipe,
        },
      });
    });

    it('is found again by the adapted recipe passed back, as a build of its own', async () => {
      const state = await fetchState(cache, { ...adapted, notes: 'kept by the user' });
      expect(state).toMatchObject({ kind: 'Fetched', project: { commit: 'beef', remedies } });
      expect(state.kind === 'Fetched' && state.project.recipe.notes).toBe('kept by the user');
    });

    it('is out of date for another build of the same project', async () => {
      const other = { ...asked, build: { ...asked.build, mavenArgs: ['-Dother'] } };
      expect((await fetchState(cache, other)).kind).toBe('NotFetched');
    });
  });
});

import { stat } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, resolveCacheDir } from '../src/core/cache.js';
import { runProcess } from '../src/core/process.js';
import { silent } from '../src/events/types.js';
import { findRecipe, loadRecipes } from '../src/project/recipe.js';
import { manifestBeside } from '../src/records/manifest.js';
import { fetchCorpusProject } from '../src/stages/0-corpus/fetch.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { cli, editedCopy, fetchCorpus, progressEvents } from './helpers.js';

/*
 * Every corpus recipe is fetched for real (Debian source package, Maven Central), compiled, and
 * its tests run on a sample of test classes: the recipe still builds and its suite still runs.
 * The whole baseline of each (>= 90% of test classes usable) is `npm run bench:corpus-check`,
 * which takes most of an hour on a fresh cache.
 */

/** Test classes each recipe's sampled baseline runs. */
const SAMPLE = 5;

interface FetchJson {
  name: string;
  path: string;
  commit: string;
  baseline: { classes: number; usable: number; usableRatio: number };
}

const recipes = await loadRecipes();

describe('corpus list', () => {
  it('lists at least six projects as JSON', async () => {
    const result = await cli(['corpus', 'list', '--json']);
    expect(result.exitCode).toBe(0);
    const rows = result.json as { name: string; source: string; cache: { kind: string } }[];
    expect(rows.length).toBeGreaterThanOrEqual(6);
    expect(rows.map((row) => row.name)).toContain('json-simple');
    for (const row of rows) expect(['Fetched', 'NotFetched']).toContain(row.cache.kind);
    for (const row of rows) expect(row.source).toMatch(/^debian:[\w.+-]+=[\w.+~-]+$/);
  });

  it('rejects an unknown name with one line and exit code 2', async () => {
    const result = await cli(['corpus', 'fetch', 'not-a-project']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(
      /unknown corpus project 'not-a-project': not a corpus name \(known: /,
    );
  });
});

describe('corpus fetch of a local Maven project', () => {
  it('accepts a path where a corpus name is accepted', async () => {
    const pristine = await fetchCorpus('json-simple');
    const local = await editedCopy(pristine, []);
    const result = await cli(['corpus', 'fetch', local, '--json']);
    expect(result.exitCode, result.stderr).toBe(0);
    const fetched = result.json as FetchJson;
    expect(fetched.name).toBe('project');
    expect(fetched.path).toMatch(/projects\/project@local-[0-9a-f]{8}\/pristine$/);
    expect(fetched.baseline.usable).toBe(8);
  });

  it('reports a project that does not compile as CompileError with exit code 1', async () => {
    const pristine = await fetchCorpus('json-simple');
    const broken = await editedCopy(pristine, [
      {
        file: 'src/main/java/org/json/simple/JsonArray.java',
        from: 'destination.add((T)o);',
        to: 'destination.add((T)o)',
      },
    ]);
    const result = await cli(['corpus', 'fetch', broken]);
    expect(result.exitCode).toBe(1);
    expect(result.stderr.trim().split('\n').pop()).toMatch(
      /^witnessgym: corpus project project does not build: CompileError \(main sources\): .*JsonArray\.java:\d+/,
    );
  });

  it('rejects a directory without a pom.xml', async () => {
    const result = await cli(['corpus', 'fetch', '/tmp']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/\/tmp is not a Maven project \(no pom\.xml\)/);
  });
});

describe.each(recipes.map((recipe) => recipe.name))('corpus fetch %s', (name) => {
  it('builds a pristine one-commit repo whose sampled test classes pass', async () => {
    // A first fetch downloads, compiles and runs some tests: say so, or the run looks stuck.
    console.log(`corpus fetch ${name} into the test cache (minutes when not cached yet)`);
    const recipe = recipes.find((candidate) => candidate.name === name)!;
    const cache = cacheLayout(resolveCacheDir());
    const fetched = await fetchCorpusProject(recipe, cache, {
      toolchain: mavenToolchain,
      events: silent,
      baselineSample: SAMPLE,
    });
    // A whole baseline already in the cache is returned as it is, and holds more than a sample.
    const { classes, usableCount } = fetched.baseline;
    expect(classes.length).toBeGreaterThanOrEqual(Math.min(3, SAMPLE));
    // Five classes cannot measure a 90% ratio: one unusable class (a root-only failure, a test
    // that skips itself) is let through; the bench holds the recipe to the ratio.
    expect(usableCount / classes.length).toBeGreaterThanOrEqual(0.75);

    const log = await runProcess('git', ['log', '--format=%H'], { cwd: fetched.path });
    expect(log.stdout.trim().split('\n')).toEqual([fetched.commit]);
    const status = await runProcess('git', ['status', '--porcelain'], { cwd: fetched.path });
    expect(status.stdout).toBe('');
    expect(path.basename(fetched.path)).toBe('pristine');
  });
});

describe('corpus fetch of a fetched project', () => {
  it('finds everything done and changes nothing', async () => {
    await fetchCorpus('json-simple');
    const paths = projectCache(cacheLayout(resolveCacheDir()), (await findRecipe('json-simple'))!);
    const records = [
      paths.fetchRecord,
      paths.baseline,
      manifestBeside(paths.baseline),
      paths.recipe,
    ];
    const before = await Promise.all(records.map(async (file) => (await stat(file)).mtimeMs));
    const head = await runProcess('git', ['rev-parse', 'HEAD'], { cwd: paths.pristine });

    const again = await cli(['corpus', 'fetch', 'json-simple', '--json']);
    expect(again.exitCode, again.stderr).toBe(0);
    expect((again.json as FetchJson).commit).toBe(head.stdout.trim());
    // No step ran (each says what it does), and no record was written again.
    expect(progressEvents(again)).toEqual([]);
    expect(await Promise.all(records.map(async (file) => (await stat(file)).mtimeMs))).toEqual(
      before,
    );
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, projectCache, resolveCacheDir } from '../src/core/cache.js';
import { copyProjectTree, makeTempDir, removeTree } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { localRecipe, parseRecipe } from '../src/project/recipe.js';
import { cli, progressLines } from './helpers.js';

/*
 * `corpus fetch <path>` on three small projects that do not build on JDK 17 and Maven 3.8 as
 * they are, each for a reason one pom line or flag fixes: the fetch ladder finds it, with no hand
 * edits, and writes the recipe it used; that recipe, a hand-written one and --maven-arg are
 * honoured, and trace finds what the path's fetch built.
 */

const FIXTURES = {
  unpinned: 'ladder-unpinned-compiler',
  release8: 'ladder-release8-tests',
  bundle: 'ladder-release6-bundle',
} as const;
type Fixture = keyof typeof FIXTURES;

const cache = cacheLayout(resolveCacheDir());
const paths = {} as Record<Fixture, string>;
/** Another copy of the release8 fixture, fetched only with flags or a recipe of one's own. */
let flaggedCopy: string;

interface FetchJson {
  path: string;
  recipe: string;
  remedies: Array<{ id: string; why: string; trigger: string }>;
  baseline: { classes: number; usable: number };
}

async function fetch(args: string[]) {
  const result = await cli(['corpus', 'fetch', ...args, '--json']);
  return { ...result, fetched: result.json as FetchJson };
}

beforeAll(async () => {
  // A fresh path each run, so the ladder runs rather than a cached fetch being found.
  const work = await makeTempDir('fetch-ladder');
  for (const [key, fixture] of Object.entries(FIXTURES)) {
    paths[key as Fixture] = path.join(work, fixture);
    await copyProjectTree(
      path.join(packageRoot(), 'test', 'fixtures', fixture),
      paths[key as Fixture],
    );
  }
  flaggedCopy = path.join(await makeTempDir('fetch-ladder'), FIXTURES.release8);
  await copyProjectTree(paths.release8, flaggedCopy);
});

afterAll(async () => {
  for (const project of [...Object.values(paths), flaggedCopy]) {
    await removeTree(projectCache(cache, localRecipe(project)).dir);
    await removeTree(path.dirname(project));
  }
});

describe('fetching a local project that does not build as it is', () => {
  it('fails as it is, with the build’s own first error, under a recipe taken as is', async () => {
    const asIs = path.join(path.dirname(paths.unpinned), 'as-is.yaml');
    await writeFile(asIs, 'notes: no remedies, please\n');
    const expected: Record<Fixture, RegExp> = {
      unpinned: /does not build: InfraError \(build-tool\): Source option 5 is no longer supported/,
      release8:
        /does not build: CompileError \(test sources\): \S+BagTest\.java:24 reference to toArray is ambiguous/,
      bundle:
        /does not build: InfraError \(build-tool\): org\.apache\.maven\.plugins:maven-compiler-plugin:3\.11\.0:compile: Fatal error compiling: error: release version 6 not supported/,
    };
    for (const fixture of Object.keys(FIXTURES) as Fixture[]) {
      const result = await cli(['corpus', 'fetch', paths[fixture], '--recipe', asIs]);
      expect(result.exitCode).toBe(1);
      expect(result.stderr).toMatch(expected[fixture]);
    }
  });

  it('builds each with the remedies it needs, runs the baseline and writes the recipe', async () => {
    const expected: Record<Fixture, string[]> = {
      unpinned: ['pin-compiler-plugin'],
      release8: ['release-8-api'],
      bundle: ['raise-java-level', 'pin-bundle-plugin'],
    };
    for (const fixture of Object.keys(FIXTURES) as Fixture[]) {
      const { exitCode, stderr, fetched } = await fetch([paths[fixture]]);
      expect(stderr).not.toMatch(/witnessgym: /);
      expect(exitCode).toBe(0);
      expect(fetched.remedies.map((remedy) => remedy.id)).toEqual(expected[fixture]);
      expect(fetched.baseline).toMatchObject({ classes: 1, usable: 1 });
      const recipe = parseRecipe(await readFile(fetched.recipe, 'utf8'), fetched.recipe);
      expect(path.dirname(fetched.recipe)).toBe(path.dirname(fetched.path));
      expect(recipe.notes).toContain(`fetch ladder, ${expected[fixture][0]}`);
    }
  });

  it('does not climb the ladder again for a path fetched already, nor for its recipe passed back', async () => {
    const again = await fetch([paths.bundle]);
    expect(progressLines(again).filter((line) => /compiling|remedy/.test(line))).toEqual([]);
    expect(again.fetched.remedies.map((remedy) => remedy.id)).toEqual([
      'raise-java-level',
      'pin-bundle-plugin',
    ]);
    const passedBack = await fetch(['--recipe', again.fetched.recipe]);
    expect(passedBack.exitCode).toBe(0);
    expect(passedBack.fetched.path).toBe(again.fetched.path);
    expect(progressLines(passedBack).filter((line) => /compiling/.test(line))).toEqual([]);
  });

  it('traces the path with the settings its fetch found', async () => {
    const traced = await cli(['trace', paths.bundle, '--json']);
    expect(traced.exitCode).toBe(0);
    expect(traced.json).toMatchObject({ classes: 1, verdictsMatchingBaseline: 1 });
  });

  it('honours --maven-arg, and a hand-written recipe file of the same build', async () => {
    const flag = '--maven-arg=-Dmaven.compiler.release=8';
    const flagged = await fetch([flaggedCopy, flag]);
    expect(flagged.exitCode).toBe(0);
    // The flag is the remedy, so the ladder has nothing to add.
    expect(flagged.fetched.remedies).toEqual([]);
    const recipe = parseRecipe(await readFile(flagged.fetched.recipe, 'utf8'), 'recipe.yaml');
    expect(recipe.build.mavenArgs).toEqual(['-Dmaven.compiler.release=8']);
    const traced = await cli(['trace', flaggedCopy, flag, '--json']);
    expect(traced.exitCode).toBe(0);
    expect(traced.json).toMatchObject({ classes: 1, verdictsMatchingBaseline: 1 });

    const handWritten = path.join(path.dirname(flaggedCopy), 'release8.yaml');
    await writeFile(handWritten, 'build:\n  mavenArgs: [-Dmaven.compiler.release=8]\n');
    const byFile = await fetch([flaggedCopy, '--recipe', handWritten]);
    expect(byFile.exitCode).toBe(0);
    expect(byFile.fetched.path).toBe(flagged.fetched.path);
    expect(progressLines(byFile).filter((line) => /compiling/.test(line))).toEqual([]);
  });

  it('says in one line, exit 2, when a recipe file is missing or malformed', async () => {
    const missing = await cli(['corpus', 'fetch', paths.unpinned, '--recipe', '/no/such.yaml']);
    expect(missing.exitCode).toBe(2);
    expect(missing.stderr).toBe('witnessgym: recipe file /no/such.yaml does not exist\n');
    const bad = path.join(path.dirname(paths.unpinned), 'bad.yaml');
    await writeFile(bad, 'build: [\n');
    const malformed = await cli(['trace', paths.unpinned, '--recipe', bad]);
    expect(malformed.exitCode).toBe(2);
    expect(malformed.stderr).toMatch(
      /^witnessgym: recipe \S+bad\.yaml is not valid YAML: [^\n]+\n$/,
    );
  });
});

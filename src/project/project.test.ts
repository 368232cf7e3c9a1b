import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir } from '../core/fs.js';
import { packageRoot } from '../core/package-root.js';
import { cacheLayout, projectCache } from '../core/cache.js';
import { findRecipe, localRecipe, writeRecipeFile } from './recipe.js';
import { requestedRecipe } from './project.js';

const fixture = path.join(packageRoot(), 'test', 'fixtures', 'ladder-release8-tests');
/** A cache of its own, so the trees inside it are made up for the test. */
const cache = cacheLayout(path.join(packageRoot(), 'test', 'fixtures', 'no-such-cache'));

async function recipeFile(text: string): Promise<string> {
  const file = path.join(await makeTempDir('project-test'), 'recipe.yaml');
  await writeFile(file, text);
  return file;
}

describe('the recipe a project argument asks for', () => {
  it("is a path's own recipe, which the fetch ladder may adapt, with --maven-arg flags", async () => {
    const asked = await requestedRecipe(fixture, { mavenArgs: ['-Dx=1'] }, cache);
    expect(asked.adapt).toBe(true);
    expect(asked.recipe.build.mavenArgs).toEqual(['-Dx=1']);
    expect([asked.recipe.name, asked.recipe.version]).toEqual([
      localRecipe(fixture).name,
      localRecipe(fixture).version,
    ]);
  });

  it('is taken as is from a corpus recipe or a recipe file, flags added after', async () => {
    const borrowed = await requestedRecipe(fixture, { recipe: 'json-simple' }, cache);
    expect(borrowed.adapt).toBe(false);
    const file = await recipeFile('build:\n  mavenArgs: [-Drat.skip=true]\n');
    const fromFile = await requestedRecipe(fixture, { recipe: file, mavenArgs: ['-Dx=1'] }, cache);
    expect(fromFile.adapt).toBe(false);
    expect(fromFile.recipe.build.mavenArgs).toEqual(['-Drat.skip=true', '-Dx=1']);
    expect(fromFile.recipe.source).toEqual({ kind: 'local', path: fixture });
  });

  it('comes from the recipe file alone when no argument names the project', async () => {
    const file = await recipeFile(`source: {kind: local, path: ${fixture}}\n`);
    const { recipe } = await requestedRecipe(undefined, { recipe: file }, cache);
    expect(recipe).toEqual(localRecipe(fixture));
  });

  it('is a user error for a recipe file with a corpus name, or for nothing at all', async () => {
    const file = await recipeFile('notes: x\n');
    await expect(requestedRecipe('json-simple', { recipe: file }, cache)).rejects.toThrow(
      /is a recipe file: give it with a project path/,
    );
    await expect(requestedRecipe(undefined, {}, cache)).rejects.toThrow(UserError);
    await expect(requestedRecipe(fixture, { recipe: 'no-such-recipe' }, cache)).rejects.toThrow(
      /unknown --recipe 'no-such-recipe'/,
    );
  });

  it("is the owner's recipe for a fetched project's own pristine tree in the cache", async () => {
    const own = cacheLayout(await makeTempDir('project-cache'));
    const jsonSimple = (await findRecipe('json-simple'))!;
    const corpusTree = projectCache(own, jsonSimple).pristine;
    await mkdir(corpusTree, { recursive: true });
    await writeFile(path.join(corpusTree, 'pom.xml'), '<project/>');
    expect((await requestedRecipe(corpusTree, {}, own)).recipe).toEqual(jsonSimple);

    const local = { ...localRecipe(fixture), notes: 'adapted' };
    const paths = projectCache(own, local);
    await mkdir(paths.pristine, { recursive: true });
    await writeFile(path.join(paths.pristine, 'pom.xml'), '<project/>');
    await writeRecipeFile(paths.recipe, local);
    const asked = await requestedRecipe(paths.pristine, { mavenArgs: ['-Dx=1'] }, own);
    expect(asked).toMatchObject({ adapt: false, recipe: { name: local.name, notes: 'adapted' } });
    expect(asked.recipe.build.mavenArgs).toEqual(['-Dx=1']);
  });
});

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir } from '../core/fs.js';
import { packageRoot } from '../core/package-root.js';
import { localRecipe } from '../stages/0-corpus/recipe.js';
import { requestedRecipe } from './project.js';

const fixture = path.join(packageRoot(), 'test', 'fixtures', 'ladder-release8-tests');

async function recipeFile(text: string): Promise<string> {
  const file = path.join(await makeTempDir('project-test'), 'recipe.yaml');
  await writeFile(file, text);
  return file;
}

describe('the recipe a project argument asks for', () => {
  it("is a path's own recipe, which the fetch ladder may adapt, with --maven-arg flags", async () => {
    const asked = await requestedRecipe(fixture, { mavenArgs: ['-Dx=1'] });
    expect(asked.adapt).toBe(true);
    expect(asked.recipe.build.mavenArgs).toEqual(['-Dx=1']);
    expect([asked.recipe.name, asked.recipe.version]).toEqual([
      localRecipe(fixture).name,
      localRecipe(fixture).version,
    ]);
  });

  it('is taken as is from a corpus recipe or a recipe file, flags added after', async () => {
    const borrowed = await requestedRecipe(fixture, { recipe: 'json-simple' });
    expect(borrowed.adapt).toBe(false);
    const file = await recipeFile('build:\n  mavenArgs: [-Drat.skip=true]\n');
    const fromFile = await requestedRecipe(fixture, { recipe: file, mavenArgs: ['-Dx=1'] });
    expect(fromFile.adapt).toBe(false);
    expect(fromFile.recipe.build.mavenArgs).toEqual(['-Drat.skip=true', '-Dx=1']);
    expect(fromFile.recipe.source).toEqual({ kind: 'local', path: fixture });
  });

  it('comes from the recipe file alone when no argument names the project', async () => {
    const file = await recipeFile(`source: {kind: local, path: ${fixture}}\n`);
    const { recipe } = await requestedRecipe(undefined, { recipe: file });
    expect(recipe).toEqual(localRecipe(fixture));
  });

  it('is a user error for a recipe file with a corpus name, or for nothing at all', async () => {
    const file = await recipeFile('notes: x\n');
    await expect(requestedRecipe('json-simple', { recipe: file })).rejects.toThrow(
      /is a recipe file: give it with a project path/,
    );
    await expect(requestedRecipe(undefined, {})).rejects.toThrow(UserError);
    await expect(requestedRecipe(fixture, { recipe: 'no-such-recipe' })).rejects.toThrow(
      /unknown --recipe 'no-such-recipe'/,
    );
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir } from '../core/fs.js';
import {
  loadRecipeFile,
  loadRecipes,
  localRecipe,
  parseRecipe,
  recipeBuildHash,
  surefireTestPattern,
  TestSelectionSchema,
  withMavenArgs,
  writeRecipeFile,
} from './recipe.js';

describe('corpus recipes', () => {
  it('ships at least six valid recipes, each pinning a checksum', async () => {
    const recipes = await loadRecipes();
    expect(recipes.length).toBeGreaterThanOrEqual(6);
    for (const recipe of recipes) {
      expect(recipe.source.kind).toBe('debian');
      if (recipe.source.kind === 'debian') expect(recipe.source.sha256).toMatch(/^[0-9a-f]{64}$/);
    }
  });

  it('rejects a malformed recipe with one line naming the field', () => {
    const text =
      'name: x\nversion: "1"\nsummary: s\nsource: {kind: debian, package: p, version: "1", file: f, sha256: nothex, root: r}\n';
    expect(() => parseRecipe(text, 'x.yaml')).toThrow(UserError);
    expect(() => parseRecipe(text, 'x.yaml')).toThrow(/x\.yaml is malformed at source\.sha256/);
    expect(() => parseRecipe('name: [', 'y.yaml')).toThrow(/not valid YAML/);
  });

  it('turns includes and excludes into one -Dtest value', () => {
    const tests = TestSelectionSchema.parse({ include: ['**/*Test'], exclude: ['**/failing/**'] });
    expect(surefireTestPattern(tests)).toBe('**/*Test,!**/failing/**');
    expect(surefireTestPattern(TestSelectionSchema.parse({}))).toBeUndefined();
  });
});

describe('the recipe build hash', () => {
  it('covers what changes the built tree or its build, not names and notes', async () => {
    const [recipe] = await loadRecipes();
    const hash = recipeBuildHash(recipe!);
    expect(recipeBuildHash({ ...recipe!, notes: 'edited', summary: 'edited' })).toBe(hash);
    expect(recipeBuildHash({ ...recipe!, patch: 'x' })).not.toBe(hash);
    expect(recipeBuildHash({ ...recipe!, remove: ['**/Foo.java'] })).not.toBe(hash);
    expect(recipeBuildHash({ ...recipe!, build: { ...recipe!.build, jvmArgs: ['-ea'] } })).not.toBe(
      hash,
    );
    const tests = { ...recipe!.tests, classTimeoutSeconds: 1 };
    expect(recipeBuildHash({ ...recipe!, tests })).not.toBe(hash);
  });
});

describe('local projects', () => {
  it('get a stable name and a version derived from their path', () => {
    const first = localRecipe('/home/me/My Project');
    expect(first.name).toBe('my-project');
    expect(first.version).toMatch(/^local-[0-9a-f]{8}$/);
    expect(localRecipe('/home/me/My Project').version).toBe(first.version);
    expect(localRecipe('/elsewhere/My Project').version).not.toBe(first.version);
    expect(first.source).toEqual({ kind: 'local', path: '/home/me/My Project' });
  });

  describe('a recipe file for a local project', () => {
    async function file(text: string): Promise<string> {
      const recipe = path.join(await makeTempDir('recipe-test'), 'my.yaml');
      await writeFile(recipe, text);
      return recipe;
    }

    it("may leave the project's identity to the path given with it", async () => {
      const recipe = await loadRecipeFile(
        await file('build:\n  mavenArgs: [-Drat.skip=true]\n'),
        '/work/some/project',
      );
      expect(recipe).toEqual({
        ...localRecipe('/work/some/project'),
        build: { ...localRecipe('/work/some/project').build, mavenArgs: ['-Drat.skip=true'] },
      });
    });

    it('names its project by a local source, relative to the file', async () => {
      const recipeFile = await file(
        'name: mine\nversion: "2"\nsummary: s\nsource: {kind: local, path: ../proj}\n',
      );
      const recipe = await loadRecipeFile(recipeFile);
      expect(recipe.source).toEqual({
        kind: 'local',
        path: path.join(path.dirname(path.dirname(recipeFile)), 'proj'),
      });
      expect([recipe.name, recipe.version]).toEqual(['mine', '2']);
    });

    it('is a one-line user error when missing, malformed, sourceless, or for another path', async () => {
      await expect(loadRecipeFile('/no/such/recipe.yaml', '/p')).rejects.toThrow(
        /^recipe file \/no\/such\/recipe\.yaml does not exist$/,
      );
      await expect(loadRecipeFile(await file('build: [\n'), '/p')).rejects.toThrow(
        /my\.yaml is not valid YAML: [^\n]*$/,
      );
      await expect(loadRecipeFile(await file('build: {mavenArg: []}\n'), '/p')).rejects.toThrow(
        /my\.yaml is malformed at build: /,
      );
      await expect(loadRecipeFile(await file('notes: x\n'))).rejects.toThrow(/has no source/);
      await expect(
        loadRecipeFile(await file('source: {kind: local, path: /elsewhere}\n'), '/p'),
      ).rejects.toThrow(UserError);
    });

    it('is written in the corpus format and reads back the same, patch and all', async () => {
      const recipe = {
        ...withMavenArgs(localRecipe('/work/p'), ['-Dmaven.compiler.release=8']),
        patch:
          '--- a/pom.xml\n+++ b/pom.xml\n@@ -1,2 +1,3 @@\n <project>\n+  <build/>\n </project>\n',
        notes: 'fetch ladder, x: why',
      };
      const written = path.join(await makeTempDir('recipe-test'), 'recipe.yaml');
      await writeRecipeFile(written, recipe);
      expect(parseRecipe(await readFile(written, 'utf8'), 'recipe.yaml')).toEqual(recipe);
      expect(await loadRecipeFile(written, '/work/p')).toEqual(recipe);
    });

    it('gets one-off Maven flags as a build of its own', () => {
      const recipe = localRecipe('/work/p');
      const flagged = withMavenArgs(recipe, ['-Dx=1']);
      expect(flagged.build.mavenArgs).toEqual(['-Dx=1']);
      expect(recipeBuildHash(flagged)).not.toBe(recipeBuildHash(recipe));
      expect(withMavenArgs(recipe, [])).toBe(recipe);
    });
  });
});

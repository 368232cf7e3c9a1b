import { describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import {
  loadRecipes,
  localRecipe,
  parseRecipe,
  recipeBuildHash,
  surefireTestPattern,
  TestSelectionSchema,
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
});

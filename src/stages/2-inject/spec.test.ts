import { mkdtemp, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import { injectorFor } from './rules/index.js';
import { loadBugTypeSpecs, parseBugTypeSpec, selectBugTypes } from './spec.js';

describe('bug-type specs', () => {
  it('declares the ten types of the paper, three categories, each with rewrite rules', async () => {
    const specs = await loadBugTypeSpecs();
    expect(specs).toHaveLength(10);
    const byCategory = (category: string) => specs.filter((s) => s.category === category).length;
    expect([byCategory('API Contract'), byCategory('Value Flow'), byCategory('Logic')]).toEqual([
      5, 2, 3,
    ]);
    for (const spec of specs) expect(injectorFor(spec.id).typeId).toBe(spec.id);
  });

  it('reports a malformed spec with the field at fault', () => {
    expect(() => parseBugTypeSpec('id: Bad Id\nname: x\n', 'bad.yaml')).toThrow(UserError);
    expect(() => parseBugTypeSpec('id: x\n', 'bad.yaml')).toThrow(/bad.yaml is malformed: name/);
    expect(() => parseBugTypeSpec('id: [', 'bad.yaml')).toThrow(/not valid YAML/);
  });

  it('requires a file to be named after its id', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'specs-'));
    const [spec] = await loadBugTypeSpecs();
    const { stringify } = await import('yaml');
    await writeFile(path.join(dir, 'other.yaml'), stringify(spec));
    await expect(loadBugTypeSpecs(dir)).rejects.toThrow(/rename one to match/);
  });

  it('selects types by id or all, and names unknown ids', async () => {
    const specs = await loadBugTypeSpecs();
    expect(selectBugTypes(specs, 'all')).toHaveLength(10);
    expect(selectBugTypes(specs, 'api_equals_typo, api_hashcode_typo').map((s) => s.id)).toEqual([
      'api_equals_typo',
      'api_hashcode_typo',
    ]);
    expect(() => selectBugTypes(specs, 'nope')).toThrow(/unknown bug type 'nope'/);
  });
});

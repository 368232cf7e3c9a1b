import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { exists, makeTempDir, removeTree } from '../core/fs.js';
import { baseState, materialise, patchOf, stateFiles, treeReader, withPatch } from './state.js';
import { WorkingCopy } from './working-copy.js';
import { projectLayout } from '../toolchains/layout.js';

const BASE = { name: 'demo', version: '1.0', commit: 'c0ffee', recipeHash: 'r1' };
const FILE = 'src/main/java/p/A.java';
const TEXT = 'package p;\n\nclass A {\n    int size() {\n        return 1;\n    }\n}\n';

let dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs) await removeTree(dir);
  dirs = [];
});

async function tree(files: Record<string, string>): Promise<string> {
  const dir = await makeTempDir('state-test');
  dirs.push(dir);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(dir, file)), { recursive: true });
    await writeFile(path.join(dir, file), text);
  }
  return dir;
}

describe('project states', () => {
  it('derive their id from the base and the ordered patches', () => {
    const first = patchOf([{ file: FILE, before: TEXT, after: TEXT.replace('1', '2') }]);
    const second = patchOf([
      { file: FILE, before: TEXT.replace('1', '2'), after: TEXT.replace('1', '3') },
    ]);
    const base = baseState(BASE);
    expect(withPatch(base, first).id).toBe(withPatch(baseState({ ...BASE }), first).id);
    expect(withPatch(base, first).id).not.toBe(base.id);
    expect(withPatch(withPatch(base, first), second).id).not.toBe(
      withPatch(withPatch(base, second), first).id,
    );
    expect(baseState({ ...BASE, commit: 'other' }).id).not.toBe(base.id);
    expect(first.diff).toContain(`--- a/${FILE}`);
  });

  it('apply their patches in order, adding and removing files', async () => {
    const root = await tree({ [FILE]: TEXT, README: 'old\n' });
    const step1 = patchOf([
      { file: FILE, before: TEXT, after: TEXT.replace('return 1', 'return 2') },
      { file: 'src/main/java/p/B.java', before: '', after: 'package p;\nclass B {}\n' },
    ]);
    const step2 = patchOf([
      {
        file: FILE,
        before: TEXT.replace('return 1', 'return 2'),
        after: TEXT.replace('return 1', 'return 2 + 1'),
      },
      { file: 'README', before: 'old\n', after: '' },
    ]);
    const state = withPatch(withPatch(baseState(BASE), step1), step2);
    const files = await stateFiles(state, treeReader(root));
    expect(files.get(FILE)).toContain('return 2 + 1');
    expect(files.get('src/main/java/p/B.java')).toBe('package p;\nclass B {}\n');
    expect(files.get('README')).toBeNull();

    const out = path.join(await tree({}), 'copy');
    await materialise(state, root, out);
    expect(await readFile(path.join(out, FILE), 'utf8')).toContain('return 2 + 1');
    expect(await exists(path.join(out, 'README'))).toBe(false);
    expect(await readFile(path.join(root, FILE), 'utf8')).toBe(TEXT);
  });

  it('refuse a patch that does not fit the tree', async () => {
    const root = await tree({ [FILE]: TEXT.replace('size', 'length') });
    const state = withPatch(
      baseState(BASE),
      patchOf([{ file: FILE, before: TEXT, after: TEXT.replace('return 1', 'return 2') }]),
    );
    await expect(stateFiles(state, treeReader(root))).rejects.toThrow(/does not apply/);
  });
});

describe('a working copy', () => {
  it('moves between states, putting the base back, and reports what differs from it', async () => {
    const root = await tree({ [FILE]: TEXT, 'src/test/java/p/ATest.java': 'class ATest {}\n' });
    const base = baseState(BASE);
    const copy = await WorkingCopy.create(root, base, projectLayout({}), 'copy-test');
    dirs.push(path.dirname(copy.root));
    const buggy = withPatch(
      base,
      patchOf([{ file: FILE, before: TEXT, after: TEXT.replace('return 1', 'return 0') }]),
    );
    const withTest = withPatch(
      base,
      patchOf([{ file: 'src/test/java/p/BTest.java', before: '', after: 'class BTest {}\n' }]),
    );
    expect(await copy.checkout(buggy)).toEqual([
      { file: FILE, path: path.join(copy.root, FILE), scope: 'main' },
    ]);
    expect(await readFile(path.join(copy.root, FILE), 'utf8')).toContain('return 0');
    const seen = await copy.visit(withTest, async (changed) => {
      expect(await readFile(path.join(copy.root, FILE), 'utf8')).toBe(TEXT);
      return changed.map((file) => [file.file, file.scope]);
    });
    expect(seen).toEqual([['src/test/java/p/BTest.java', 'test']]);
    expect(copy.state.id).toBe(buggy.id);
    expect(await exists(path.join(copy.root, 'src/test/java/p/BTest.java'))).toBe(false);
    expect(await readFile(path.join(copy.root, FILE), 'utf8')).toContain('return 0');
    await copy.checkout(base);
    expect(await readFile(path.join(copy.root, FILE), 'utf8')).toBe(TEXT);
  });
});

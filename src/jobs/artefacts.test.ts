import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTree, sha256Text } from '../core/fs.js';
import { ArtefactStore } from './artefacts.js';

let dir: string | undefined;
afterEach(async () => {
  if (dir) await removeTree(dir);
});

describe('ArtefactStore', () => {
  it('stores a text once under its hash and reads it back', async () => {
    dir = await makeTempDir('artefacts');
    const store = new ArtefactStore(dir);
    const hash = await store.put('transcript');
    expect(hash).toBe(sha256Text('transcript'));
    expect(await store.put('transcript')).toBe(hash);
    expect(await store.get(hash)).toBe('transcript');
    expect(await readdir(path.join(dir, hash.slice(0, 2)))).toEqual([hash]);
  });

  it('refuses a stored file whose bytes no longer match its name', async () => {
    dir = await makeTempDir('artefacts');
    const store = new ArtefactStore(dir);
    const hash = await store.put('submitted test');
    await writeFile(path.join(dir, hash.slice(0, 2), hash), 'rewritten');
    await expect(store.get(hash)).rejects.toThrow(/does not match its hash/);
  });
});

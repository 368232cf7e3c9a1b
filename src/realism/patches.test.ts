import { readFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { makeTempDir, removeTree } from '../core/fs.js';
import { readDefects4JPatches, readInjectedPatches, renderPatch } from './patches.js';
import { mkdir, writeFile } from 'node:fs/promises';

const FIXTURES = path.resolve(import.meta.dirname, '../../test/fixtures/defects4j');

const before =
  Array.from({ length: 40 }, (_, index) => `    int line${index} = ${index};`).join('\n') + '\n';
const after = before
  .replace('int line10 = 10;', 'int line10 = 11;')
  .replace('int line30 = 30;', 'int line30 = 31;');

describe('renderPatch', () => {
  it('writes a git diff and a jsdiff one of the same change alike: no index, paths or function context', async () => {
    const git = await readFile(path.join(FIXTURES, 'Csv-1.src.patch'), 'utf8');
    expect(git).toMatch(/^diff --git/m);
    expect(git).toMatch(/^index /m);
    const jsdiffForm = git
      .replace(/^diff --git .*\n/gm, '')
      .replace(/^index .*\n/gm, '')
      .replace(/^(@@ [^@]+ @@).*$/gm, '$1')
      .replace(/^(---|\+\+\+) ([ab])\/\S*\/([^/\s]+)$/gm, '$1 $2/other/root/$3');
    const rendered = renderPatch(git);
    expect(renderPatch(jsdiffForm)).toBe(rendered);
    expect(rendered).not.toMatch(/^(diff --git|index )/m);
    expect(rendered).toMatch(/^--- a\/ExtendedBufferedReader\.java$/m);
    expect(rendered).toMatch(/^@@ -\d+,\d+ \+\d+,\d+ @@$/m);
  });

  it('cuts wider context to three lines and splits hunks as diff -U3 would', () => {
    const wide = createTwoFilesPatch('a/src/X.java', 'b/src/X.java', before, after, '', '', {
      context: 12,
    });
    const narrow = createTwoFilesPatch('a/X.java', 'b/X.java', before, after, '', '', {
      context: 3,
    });
    expect(renderPatch(wide)).toBe(renderPatch(narrow).replace(/^=+\n/, ''));
    expect(renderPatch(wide).match(/^@@/gm)).toHaveLength(2);
  });

  it('drops CRs at line ends, timestamps and non-Java files', () => {
    const crlf = createTwoFilesPatch(
      'a/X.java',
      'b/X.java',
      before,
      after,
      '2020-01-01',
      '2020-01-02',
    ).replace(/\n/g, '\r\n');
    const plain = createTwoFilesPatch('a/X.java', 'b/X.java', before, after);
    expect(renderPatch(crlf)).toBe(renderPatch(plain));
    expect(renderPatch(crlf)).not.toMatch(/\r|2020/);
    expect(renderPatch(createTwoFilesPatch('a/x.txt', 'b/x.txt', before, after))).toBe('');
  });
});

describe('reading the two sides', () => {
  it('reads Defects4J patches in both layouts and refuses a directory without any', async () => {
    const root = await makeTempDir('realism-d4j');
    try {
      const text = await readFile(path.join(FIXTURES, 'Csv-1.src.patch'), 'utf8');
      await mkdir(path.join(root, 'Csv/patches'), { recursive: true });
      await writeFile(path.join(root, 'Csv/patches/1.src.patch'), text);
      await mkdir(path.join(root, 'Codec/6'), { recursive: true });
      await writeFile(path.join(root, 'Codec/6/src.patch'), text);
      const patches = await readDefects4JPatches(root);
      expect(patches.map((patch) => [patch.key, patch.cluster, patch.side])).toEqual([
        ['defects4j:Codec-6', 'bug:Codec-6', 'real'],
        ['defects4j:Csv-1', 'bug:Csv-1', 'real'],
      ]);
      await expect(
        readDefects4JPatches(path.join(os.tmpdir(), 'no-such-dir-here')),
      ).rejects.toThrow(/pass --defects4j DIR .* or set WITNESSGYM_DEFECTS4J/);
    } finally {
      await removeTree(root);
    }
  });

  it('takes the injection id from the index, else from case.json, so depths of one bug share a cluster', async () => {
    const bench = await makeTempDir('realism-bench');
    try {
      const patch = createTwoFilesPatch('a/src/X.java', 'b/src/X.java', before, after);
      const line = (id: string, depth: number, extra: object) =>
        JSON.stringify({ instance_id: id, project: 'p', type_id: 't', depth, patch, ...extra });
      await mkdir(path.join(bench, 'p@1-b'), { recursive: true });
      await writeFile(
        path.join(bench, 'p@1-b', 'case.json'),
        JSON.stringify({ injection: 'inj1' }),
      );
      await writeFile(
        path.join(bench, 'cases.jsonl'),
        [
          line('p@1-a', 1, { injection_id: 'inj1' }),
          line('p@1-b', 3, {}),
          line('p@1-c', 1, {}),
        ].join('\n') + '\n',
      );
      const patches = await readInjectedPatches([bench]);
      expect(patches.map((one) => [one.key, one.cluster, one.depth])).toEqual([
        ['injected:p@1-a', 'injection:inj1', 1],
        ['injected:p@1-b', 'injection:inj1', 3],
        ['injected:p@1-c', 'injection:p@1-c', 1],
      ]);
      await expect(readInjectedPatches([path.join(bench, 'p@1-b')])).rejects.toThrow(
        /no cases.jsonl/,
      );
    } finally {
      await removeTree(bench);
    }
  });
  it("reads each bug's injection patch once at depth 0 with --bugs-only, however many cases share it", async () => {
    const bench = await makeTempDir('realism-bugs');
    try {
      const whole = createTwoFilesPatch('a/src/X.java', 'b/src/X.java', before, after);
      const bug = createTwoFilesPatch('a/src/Y.java', 'b/src/Y.java', before, after);
      for (const id of ['p@1-a', 'p@1-b']) {
        await mkdir(path.join(bench, id, 'steps'), { recursive: true });
        await writeFile(path.join(bench, id, 'steps', '00-inject.patch'), bug);
        await writeFile(
          path.join(bench, id, 'case.json'),
          JSON.stringify({
            injection: 'inj1',
            state: { patches: [{ file: 'steps/00-inject.patch', id: '7e0bad642de043af' }] },
          }),
        );
      }
      const line = (id: string, depth: number) =>
        JSON.stringify({ instance_id: id, project: 'p', type_id: 't', depth, patch: whole });
      await writeFile(
        path.join(bench, 'cases.jsonl'),
        `${line('p@1-a', 1)}\n${line('p@1-b', 3)}\n`,
      );
      const bugs = await readInjectedPatches([bench], 'bugs');
      expect(bugs.map((one) => [one.key, one.cluster, one.depth])).toEqual([
        ['injected:bug:inj1', 'injection:inj1', 0],
      ]);
      expect(bugs[0]!.text).toContain('Y.java');
      expect(bugs[0]!.text).not.toContain('X.java');
    } finally {
      await removeTree(bench);
    }
  });
});

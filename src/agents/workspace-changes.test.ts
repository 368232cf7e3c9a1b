import { execFileSync } from 'node:child_process';
import { mkdir, rm, symlink, truncate, unlink, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { copyProjectTree, makeTempDir, removeTree } from '../core/fs.js';
import { workspaceChanges } from './workspace-changes.js';

const MiB = 1024 * 1024;
const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
  for (const dir of dirs.splice(0)) await removeTree(dir);
});

async function tree(files: Record<string, string>): Promise<string> {
  const root = await makeTempDir('changes');
  dirs.push(root);
  for (const [file, text] of Object.entries(files)) {
    await mkdir(path.dirname(path.join(root, file)), { recursive: true });
    await writeFile(path.join(root, file), text);
  }
  return root;
}

describe('workspaceChanges', () => {
  it('finds added, edited and deleted files, and leaves build output and git alone', async () => {
    const given = await tree({ 'pom.xml': '<project/>', 'src/A.java': 'class A {}' });
    const workspace = await makeTempDir('changes');
    dirs.push(workspace);
    await rm(workspace, { recursive: true });
    await copyProjectTree(given, workspace);
    await writeFile(path.join(workspace, 'src/A.java'), 'class A { int a; }');
    await writeFile(path.join(workspace, 'src/B.java'), 'class B {}');
    await unlink(path.join(workspace, 'pom.xml'));
    await mkdir(path.join(workspace, 'target'));
    await writeFile(path.join(workspace, 'target/A.class'), 'binary');
    await mkdir(path.join(workspace, '.git'));
    await writeFile(path.join(workspace, '.git/HEAD'), 'ref');
    expect(await workspaceChanges(given, workspace)).toEqual([
      { file: 'pom.xml', before: '<project/>', after: '' },
      { file: 'src/A.java', before: 'class A {}', after: 'class A { int a; }' },
      { file: 'src/B.java', before: '', after: 'class B {}' },
    ]);
  });

  it('records a symbolic link as a link to its target, which it never reads', async () => {
    const outside = await tree({ 'Clean.java': 'class Clean { int fixed; }' });
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    await symlink(path.join(outside, 'Clean.java'), path.join(workspace, 'src/Peek.java'));
    const changes = await workspaceChanges(given, workspace);
    expect(changes).toEqual([
      {
        file: 'src/Peek.java',
        before: '',
        after: `a link to ${path.join(outside, 'Clean.java')}, not followed`,
        finding: { kind: 'Link', target: path.join(outside, 'Clean.java') },
      },
    ]);
    expect(JSON.stringify(changes)).not.toContain('int fixed');
  });

  it('does not walk into a directory through a link', async () => {
    const outside = await tree({ 'org/Clean.java': 'class Clean { int fixed; }' });
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    await symlink(outside, path.join(workspace, 'src/linked'));
    const changes = await workspaceChanges(given, workspace);
    expect(changes.map((change) => [change.file, change.finding?.kind])).toEqual([
      ['src/linked', 'Link'],
    ]);
    expect(JSON.stringify(changes)).not.toContain('int fixed');
  });

  it('does not block on a FIFO in the workspace', { timeout: 1000 }, async () => {
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    execFileSync('mkfifo', [path.join(workspace, 'src/Pipe.java')]);
    expect(await workspaceChanges(given, workspace)).toEqual([
      {
        file: 'src/Pipe.java',
        before: '',
        after: 'a fifo, not opened',
        finding: { kind: 'SpecialFile', type: 'fifo' },
      },
    ]);
  });

  it('does not open a socket in the workspace', async () => {
    const given = await tree({});
    const workspace = await tree({});
    const server = createServer();
    servers.push(server);
    await new Promise<void>((listening) => server.listen(path.join(workspace, 'sock'), listening));
    const [change] = await workspaceChanges(given, workspace);
    expect(change!.finding).toEqual({ kind: 'SpecialFile', type: 'socket' });
  });

  it.skipIf(process.getuid?.() !== 0)('does not open a device in the workspace', async () => {
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({});
    // /dev/zero in place of a given file: a read would never end.
    execFileSync('mknod', [path.join(workspace, 'src'), 'c', '1', '5']);
    expect(await workspaceChanges(given, workspace)).toEqual([
      {
        file: 'src',
        before: '',
        after: 'a device, not opened',
        finding: { kind: 'SpecialFile', type: 'device' },
      },
      { file: 'src/A.java', before: 'class A {}', after: '' },
    ]);
  });

  it('refuses a sparse file of 3 GB at once, without reading it', async () => {
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    await writeFile(path.join(workspace, 'src/A.java'), '');
    await truncate(path.join(workspace, 'src/A.java'), 3 * 1024 ** 3);
    const started = performance.now();
    const changes = await workspaceChanges(given, workspace);
    expect(performance.now() - started).toBeLessThan(1000);
    expect(changes).toEqual([
      {
        file: 'src/A.java',
        before: 'class A {}',
        after: `${3 * 1024 ** 3} bytes, over the limit of ${MiB}, not read`,
        finding: { kind: 'TooLarge', bytes: 3 * 1024 ** 3, limit: MiB },
      },
    ]);
  });

  it('lets a file the agent was given keep a size over the cap for added files', async () => {
    const big = 'x'.repeat(2 * MiB);
    const given = await tree({ 'src/test/resources/data.txt': big });
    const workspace = await tree({ 'src/test/resources/data.txt': big });
    expect(await workspaceChanges(given, workspace)).toEqual([]);
    await writeFile(path.join(workspace, 'src/test/resources/data.txt'), `${big.slice(1)}y`);
    const [change] = await workspaceChanges(given, workspace);
    expect(change).toMatchObject({ file: 'src/test/resources/data.txt' });
    expect(change!.finding).toBeUndefined();
  });

  it('stops at a workspace holding 16 MiB more than it was given, and compares nothing', async () => {
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A { int changed; }' });
    for (let i = 0; i < 17; i++) {
      const file = path.join(workspace, `blob${String(i).padStart(2, '0')}`);
      await writeFile(file, '');
      await truncate(file, MiB);
    }
    const changes = await workspaceChanges(given, workspace);
    expect(changes).toHaveLength(1);
    expect(changes[0]!.finding).toEqual({ kind: 'WorkspaceTooLarge', limit: 10 + 16 * MiB });
  });

  it(
    'stops at a workspace holding 10 000 entries more than it was given',
    { timeout: 20_000 },
    async () => {
      const given = await tree({ 'src/A.java': 'class A {}' });
      const workspace = await tree({ 'src/A.java': 'class A {}' });
      await mkdir(path.join(workspace, 'many'));
      execFileSync('sh', ['-c', 'seq 10001 | xargs touch'], { cwd: path.join(workspace, 'many') });
      const changes = await workspaceChanges(given, workspace);
      expect(changes).toEqual([
        {
          file: 'many',
          before: '',
          after: 'the workspace holds more than 10002 entries; it was not compared',
          finding: { kind: 'TooManyEntries', limit: 10_002 },
        },
      ]);
    },
  );

  it('records a directory it cannot list, and does not call its given files deleted', async () => {
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    // A name that is not UTF-8 cannot be spelled back to the file system: it cannot be listed.
    const rawName = Buffer.concat([Buffer.from(`${workspace}/src/`), Buffer.from([0x66, 0xff])]);
    await mkdir(rawName);
    await writeFile(Buffer.concat([rawName, Buffer.from('/B.java')]), 'class B {}');
    const changes = await workspaceChanges(given, workspace);
    expect(changes).toEqual([
      {
        file: 'src/f\ufffd',
        before: '',
        after: 'not readable: ENOENT',
        finding: { kind: 'Unreadable', reason: 'ENOENT' },
      },
    ]);
  });

  it('does not enter directories nested deeper than the cap', async () => {
    const given = await tree({ 'src/A.java': 'class A {}' });
    const workspace = await tree({ 'src/A.java': 'class A {}' });
    const deep = path.join(workspace, ...Array.from({ length: 70 }, () => 'd'));
    await mkdir(deep, { recursive: true });
    await writeFile(path.join(deep, 'X.java'), 'class X {}');
    const changes = await workspaceChanges(given, workspace);
    expect(changes).toEqual([
      expect.objectContaining({
        file: Array.from({ length: 65 }, () => 'd').join('/'),
        finding: { kind: 'Unreadable', reason: 'nested deeper than 64 directories' },
      }),
    ]);
  });
});

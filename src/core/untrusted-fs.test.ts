import { execFileSync } from 'node:child_process';
import { symlink, truncate, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTree } from './fs.js';
import { readUntrustedFile, untrustedEntryType } from './untrusted-fs.js';

const dirs: string[] = [];
const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
  for (const dir of dirs.splice(0)) await removeTree(dir);
});

async function scratch(): Promise<string> {
  const dir = await makeTempDir('untrusted');
  dirs.push(dir);
  return dir;
}

describe('readUntrustedFile', () => {
  it('reads a regular file up to its limit, and no further', async () => {
    const file = path.join(await scratch(), 'A.java');
    await writeFile(file, '0123456789');
    expect(await readUntrustedFile(file, 10)).toEqual({
      kind: 'Read',
      content: Buffer.from('0123456789'),
    });
    expect(await readUntrustedFile(file, 9)).toEqual({ kind: 'TooLarge', bytes: 10, limit: 9 });
  });

  it('says a file is missing', async () => {
    expect(await readUntrustedFile(path.join(await scratch(), 'gone'), 10)).toEqual({
      kind: 'Missing',
    });
  });

  it('does not block on a FIFO no one writes to', { timeout: 1000 }, async () => {
    const fifo = path.join(await scratch(), 'pipe');
    execFileSync('mkfifo', [fifo]);
    expect(await readUntrustedFile(fifo, 1024)).toEqual({ kind: 'NotRegular', type: 'fifo' });
  });

  it('does not follow a link, and returns nothing of its target', async () => {
    const dir = await scratch();
    await writeFile(path.join(dir, 'secret'), 'the hidden witness');
    await symlink(path.join(dir, 'secret'), path.join(dir, 'peek'));
    const read = await readUntrustedFile(path.join(dir, 'peek'), 1024);
    expect(read).toEqual({ kind: 'NotRegular', type: 'link' });
    expect(JSON.stringify(read)).not.toContain('hidden witness');
  });

  it('refuses a sparse file of 3 GB at once, without reading it', async () => {
    const file = path.join(await scratch(), 'big');
    await writeFile(file, '');
    await truncate(file, 3 * 1024 ** 3);
    const started = performance.now();
    expect(await readUntrustedFile(file, 1024 * 1024)).toEqual({
      kind: 'TooLarge',
      bytes: 3 * 1024 ** 3,
      limit: 1024 * 1024,
    });
    expect(performance.now() - started).toBeLessThan(500);
  });

  it('does not open a socket', async () => {
    const socket = path.join(await scratch(), 'sock');
    const server = createServer();
    servers.push(server);
    await new Promise<void>((listening) => server.listen(socket, listening));
    expect(await readUntrustedFile(socket, 1024)).toEqual({ kind: 'NotRegular', type: 'socket' });
  });

  it.skipIf(process.getuid?.() !== 0)('reads nothing from a device', async () => {
    const device = path.join(await scratch(), 'zero');
    execFileSync('mknod', [device, 'c', '1', '5']); // /dev/zero: a read would never end
    expect(await readUntrustedFile(device, 1024)).toEqual({ kind: 'NotRegular', type: 'device' });
  });
});

describe('untrustedEntryType', () => {
  it('names a link as a link, and a missing path as undefined', async () => {
    const dir = await scratch();
    await symlink(dir, path.join(dir, 'up'));
    expect(await untrustedEntryType(path.join(dir, 'up'))).toBe('link');
    expect(await untrustedEntryType(dir)).toBe('directory');
    expect(await untrustedEntryType(path.join(dir, 'gone'))).toBeUndefined();
  });
});

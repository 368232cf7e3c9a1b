import { spawn, type ChildProcess } from 'node:child_process';
import { readdir, symlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { processAlive, withLock, type LockHolder } from './lock.js';

let dir: string;
let file: string;
let lines: string[];
const children: ChildProcess[] = [];
const log = (line: string) => lines.push(line);

beforeEach(async () => {
  dir = await makeTempDir('lock-test');
  file = path.join(dir, 'project.lock');
  lines = [];
});

afterEach(async () => {
  for (const child of children.splice(0)) child.kill('SIGKILL');
  await removeTree(dir);
});

/** A lock file naming another process as its holder, as that process would have written it. */
async function heldBy(pid: number, purpose = 'inject demo'): Promise<LockHolder> {
  const holder = { pid, host: os.hostname(), since: '2000-01-01T00:00:00.000Z', purpose };
  await writeFile(file, JSON.stringify({ kind: 'cache-lock', v: 1, ...holder }));
  return holder;
}

function sleeper(): ChildProcess {
  const child = spawn('sleep', ['60'], { stdio: 'ignore' });
  children.push(child);
  return child;
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Two paths of the lock file, the second through a symbolic link: the in-process queue keys on
 * the path, so only the file keeps their holders apart, as it does for separate processes.
 */
async function sameFileTwice(): Promise<[string, string]> {
  const alias = path.join(dir, 'alias');
  await symlink(dir, alias);
  return [file, path.join(alias, 'project.lock')];
}

/** A body that counts how many run at once. */
function overlapCounter() {
  let inside = 0;
  let most = 0;
  return {
    body: async () => {
      most = Math.max(most, ++inside);
      await sleep(50);
      inside--;
    },
    most: () => most,
  };
}

describe('cache locks', () => {
  it('are held while the body runs and removed afterwards, also when it throws', async () => {
    const result = await withLock(file, { purpose: 'test', log }, async () => {
      expect(await readdir(dir)).toEqual(['project.lock']);
      return 42;
    });
    expect(result).toBe(42);
    expect(await readdir(dir)).toEqual([]);
    await expect(
      withLock(file, { purpose: 'test', log }, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    expect(await readdir(dir)).toEqual([]);
  });

  it('let callers in one process take turns', async () => {
    const events: string[] = [];
    const body = (name: string) => async () => {
      events.push(`${name} in`);
      await sleep(30);
      events.push(`${name} out`);
    };
    await Promise.all([
      withLock(file, { purpose: 'a', log }, body('a')),
      withLock(file, { purpose: 'b', log }, body('b')),
      withLock(file, { purpose: 'c', log }, body('c')),
    ]);
    expect(events).toEqual(['a in', 'a out', 'b in', 'b out', 'c in', 'c out']);
  });

  it('exclude each other through the file alone, as separate processes do', async () => {
    const { body, most } = overlapCounter();
    const [first, second] = await sameFileTwice();
    await Promise.all([
      withLock(first, { purpose: 'a', log, pollMs: 10 }, body),
      withLock(second, { purpose: 'b', log, pollMs: 10 }, body),
      withLock(first, { purpose: 'c', log, pollMs: 10 }, body),
      withLock(second, { purpose: 'd', log, pollMs: 10 }, body),
    ]);
    expect(most()).toBe(1);
    // Whichever path lost the race waited for the other's holder.
    expect(
      lines.some((line) => /^lock: waiting for .*project\.lock, held by pid /.test(line)),
    ).toBe(true);
  });

  it('wait for a live holder in another process, saying who it is, until it lets go', async () => {
    const holder = sleeper();
    await heldBy(holder.pid!);
    let entered = false;
    const waiting = withLock(file, { purpose: 'test', log, pollMs: 20 }, async () => {
      entered = true;
    });
    await sleep(200);
    expect(entered).toBe(false);
    expect(lines).toEqual([
      `lock: waiting for ${file}, held by pid ${holder.pid} on ${os.hostname()} since 2000-01-01T00:00:00.000Z (inject demo)`,
    ]);
    await removeTree(file); // the holder releases it
    await waiting;
    expect(entered).toBe(true);
  });

  it('give up after the wait limit with one line naming the holder', async () => {
    const holder = sleeper();
    await heldBy(holder.pid!);
    const attempt = withLock(file, { purpose: 'test', log, pollMs: 20, waitLimitMs: 100 }, () =>
      Promise.resolve(),
    );
    await expect(attempt).rejects.toBeInstanceOf(UserError);
    await expect(attempt).rejects.toThrow(
      new RegExp(`^gave up after 0 s waiting for .*project\\.lock, held by pid ${holder.pid} on `),
    );
  });

  it('are taken over from a holder that is no longer running', async () => {
    const holder = sleeper();
    const pid = holder.pid!;
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    expect(processAlive(pid)).toBe(false);
    await heldBy(pid);
    let entered = false;
    await withLock(file, { purpose: 'test', log, pollMs: 20, waitLimitMs: 5000 }, async () => {
      entered = true;
    });
    expect(entered).toBe(true);
    expect(lines).toEqual([
      `lock: taking over ${file} from pid ${pid} on ${os.hostname()} since 2000-01-01T00:00:00.000Z (inject demo): no longer running`,
    ]);
    expect(await readdir(dir)).toEqual([]);
  });

  it('are taken over by one of several that find the same dead holder', async () => {
    const holder = sleeper();
    const exited = new Promise((resolve) => holder.once('exit', resolve));
    holder.kill('SIGKILL');
    await exited;
    await heldBy(holder.pid!);
    const { body, most } = overlapCounter();
    await Promise.all(
      (await sameFileTwice()).map((lock, index) =>
        withLock(lock, { purpose: `taker ${index}`, log, pollMs: 10 }, body),
      ),
    );
    expect(most()).toBe(1);
  });
});

import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { link, mkdir, unlink, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { z } from 'zod';
import { defineRecord, encodeRecord, readRecordFile, RecordError } from './record.js';
import { UserError } from '../core/errors.js';

/*
 * A lock file per shared part of the cache, so two witnessgym processes never write the same
 * files at once. The file appears whole (written aside, then hard-linked into place, which fails
 * if it exists) and names its holder; a holder that died on this host leaves a stale lock, which
 * the next process takes over.
 */

const LockHolderSchema = z.strictObject({
  pid: z.number().int(),
  host: z.string(),
  since: z.string(),
  /** What the holder is doing, for the waiting message. */
  purpose: z.string(),
});
export type LockHolder = z.infer<typeof LockHolderSchema>;

const LockFile = defineRecord({
  kind: 'cache-lock',
  version: 1,
  schema: LockHolderSchema,
});

export interface LockOptions {
  purpose: string;
  log: (line: string) => void;
  /** How long to wait for a live holder before giving up. */
  waitLimitMs?: number;
  pollMs?: number;
}

/** Holders may run a whole fetch (compile and a baseline suite run): hours on a large project. */
const DEFAULT_WAIT_LIMIT_MS = 3 * 3600 * 1000;
const DEFAULT_POLL_MS = 250;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether a process of this host is running (a zombie is not: it holds nothing any more). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2)[0] !== 'Z';
  } catch {
    return true; // no /proc: kill(0) answered
  }
}

/** What is found where a lock was to be created; `Unreadable` is a holder file of another shape. */
type Found = { kind: 'Acquired' } | { kind: 'Gone' } | { kind: 'Unreadable' } | LockHeld;
type LockHeld = { kind: 'Held'; holder: LockHolder };

/** One exclusive creation attempt, or who holds the lock instead. */
async function tryCreate(file: string, self: LockHolder): Promise<Found> {
  const aside = `${file}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  await writeFile(aside, `${JSON.stringify(encodeRecord(self, LockFile))}\n`);
  try {
    await link(aside, file);
    return { kind: 'Acquired' };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    return readHolder(file);
  } finally {
    await unlink(aside);
  }
}

async function readHolder(file: string): Promise<Found> {
  try {
    const holder = await readRecordFile(file, LockFile);
    return holder ? { kind: 'Held', holder } : { kind: 'Gone' };
  } catch (error) {
    if (error instanceof RecordError) return { kind: 'Unreadable' };
    throw error;
  }
}

function isStale(found: Found): found is LockHeld {
  return (
    found.kind === 'Held' && found.holder.host === os.hostname() && !processAlive(found.holder.pid)
  );
}

/** Removes the lock file if it still names `holder` (not whoever took the lock since). */
async function removeIfStill(file: string, holder: LockHolder): Promise<void> {
  const found = await readHolder(file);
  if (found.kind !== 'Held' || JSON.stringify(found.holder) !== JSON.stringify(holder)) return;
  await unlink(file).catch((error: NodeJS.ErrnoException) => {
    if (error.code !== 'ENOENT') throw error;
  });
}

/**
 * Removes a lock whose holder died. Two processes may find the same stale lock: the removal is
 * done under a second lock, and only if the file still names the dead holder, so one never
 * removes the lock another has just taken.
 */
async function takeOver(file: string, stale: LockHolder, self: LockHolder): Promise<void> {
  const guard = `${file}.takeover`;
  const found = await tryCreate(guard, self);
  if (found.kind !== 'Acquired') {
    // A taker-over that died within these few lines would block every later one.
    if (isStale(found)) await removeIfStill(guard, found.holder);
    return;
  }
  try {
    await removeIfStill(file, stale);
  } finally {
    await unlink(guard);
  }
}

function describeHolder(found: LockHeld | { kind: 'Unreadable' }): string {
  if (found.kind === 'Unreadable') return 'a holder whose lock file cannot be read';
  const { pid, host, since, purpose } = found.holder;
  return `pid ${pid} on ${host} since ${since} (${purpose})`;
}

/** Waits in this process for other users of the same lock file; files cannot order them. */
const localQueues = new Map<string, Promise<void>>();

async function acquire(file: string, options: LockOptions): Promise<() => Promise<void>> {
  const self: LockHolder = {
    pid: process.pid,
    host: os.hostname(),
    since: new Date().toISOString(),
    purpose: options.purpose,
  };
  const limit = options.waitLimitMs ?? DEFAULT_WAIT_LIMIT_MS;
  const poll = options.pollMs ?? DEFAULT_POLL_MS;
  const started = Date.now();
  let announced: string | undefined;
  await mkdir(path.dirname(file), { recursive: true });
  for (;;) {
    const found = await tryCreate(file, self);
    if (found.kind === 'Acquired') return () => removeIfStill(file, self);
    if (found.kind === 'Gone') continue;
    if (isStale(found)) {
      options.log(`lock: taking over ${file} from ${describeHolder(found)}: no longer running`);
      await takeOver(file, found.holder, self);
      await sleep(poll);
      continue;
    }
    const holder = describeHolder(found);
    if (Date.now() - started >= limit) {
      throw new UserError(
        `gave up after ${Math.round(limit / 1000)} s waiting for ${file}, held by ${holder}; if that process is gone, remove the file`,
      );
    }
    if (holder !== announced) {
      options.log(`lock: waiting for ${file}, held by ${holder}`);
      announced = holder;
    }
    await sleep(poll);
  }
}

/**
 * Runs `body` holding the lock `file`: exclusive among processes (and among callers in this
 * process). Not reentrant: a body must not take the same lock again.
 */
export async function withLock<T>(
  file: string,
  options: LockOptions,
  body: () => Promise<T>,
): Promise<T> {
  const key = path.resolve(file);
  const previous = localQueues.get(key) ?? Promise.resolve();
  let leave!: () => void;
  const mine = new Promise<void>((resolve) => (leave = resolve));
  const queued = previous.then(() => mine);
  localQueues.set(key, queued);
  await previous;
  try {
    const release = await acquire(file, options);
    try {
      return await body();
    } finally {
      await release();
    }
  } finally {
    leave();
    if (localQueues.get(key) === queued) localQueues.delete(key);
  }
}

import { constants } from 'node:fs';
import { lstat, open } from 'node:fs/promises';

/*
 * Reading what untrusted code wrote (an agent's workspace, a sandboxed run's output, the shim's
 * requests). Such a path may be a link planted to make the harness read or write a host file, a
 * FIFO that blocks a reader for ever, a device, or a sparse file of gigabytes: it is opened
 * without following links and without blocking, checked to be a regular file on the descriptor
 * itself (no race between a check and the open), and read only up to a cap.
 */

export type EntryType = 'file' | 'directory' | 'link' | 'fifo' | 'socket' | 'device' | 'other';

export type UntrustedRead =
  | { kind: 'Read'; content: Buffer }
  | { kind: 'Missing' }
  | { kind: 'NotRegular'; type: EntryType }
  | { kind: 'TooLarge'; bytes: number; limit: number };

interface StatLike {
  isFile(): boolean;
  isDirectory(): boolean;
  isSymbolicLink(): boolean;
  isFIFO(): boolean;
  isSocket(): boolean;
  isBlockDevice(): boolean;
  isCharacterDevice(): boolean;
}

export function entryType(stats: StatLike): EntryType {
  if (stats.isSymbolicLink()) return 'link';
  if (stats.isFile()) return 'file';
  if (stats.isDirectory()) return 'directory';
  if (stats.isFIFO()) return 'fifo';
  if (stats.isSocket()) return 'socket';
  if (stats.isBlockDevice() || stats.isCharacterDevice()) return 'device';
  return 'other';
}

/** What a path is, without following it; undefined when it does not exist. */
export async function untrustedEntryType(file: string): Promise<EntryType | undefined> {
  try {
    return entryType(await lstat(file));
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Reads a regular file an untrusted process may have written, never more than `limit` bytes. */
export async function readUntrustedFile(file: string, limit: number): Promise<UntrustedRead> {
  let handle;
  try {
    handle = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'Missing' };
    // O_NOFOLLOW on a link fails with ELOOP; a socket cannot be opened at all.
    if (code === 'ELOOP' || code === 'ENXIO' || code === 'EOPNOTSUPP') {
      return { kind: 'NotRegular', type: (await untrustedEntryType(file)) ?? 'other' };
    }
    throw error;
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { kind: 'NotRegular', type: entryType(stats) };
    if (stats.size > limit) return { kind: 'TooLarge', bytes: stats.size, limit };
    // The size may grow between stat and read: read at most one byte past the limit to tell.
    const buffer = Buffer.alloc(Math.min(limit + 1, Math.max(stats.size + 1, 1)));
    let filled = 0;
    for (;;) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
      if (filled === buffer.length) break;
    }
    if (filled > limit) return { kind: 'TooLarge', bytes: filled, limit };
    return { kind: 'Read', content: buffer.subarray(0, filled) };
  } finally {
    await handle.close();
  }
}

/** One line saying why an untrusted read gave no content. */
export function describeUntrustedRead(
  file: string,
  read: Exclude<UntrustedRead, { kind: 'Read' }>,
): string {
  switch (read.kind) {
    case 'Missing':
      return `${file} does not exist`;
    case 'NotRegular':
      return `${file} is a ${read.type}, not a regular file`;
    case 'TooLarge':
      return `${file} holds ${read.bytes} bytes, over the limit of ${read.limit}`;
  }
}

import { constants } from 'node:fs';
import { open, opendir, readlink } from 'node:fs/promises';
import { isDeepStrictEqual } from 'node:util';
import type { FileChange } from '../core/file-change.js';
import { entryType, readUntrustedFile, type EntryType } from '../core/untrusted-fs.js';
import { BUILD_OUTPUT } from '../toolchains/layout.js';

/*
 * An agent's workspace is written by untrusted code, and may be read while the agent still runs
 * (the `mvn` shim reads it on every call). So the walk trusts no path: each directory is opened
 * without following links and its entries are reached through that descriptor
 * (`/proc/self/fd/<fd>/<name>`), so a directory swapped for a link mid-walk cannot lead the
 * harness out of the workspace; only regular files are opened, never FIFOs (a reader blocks for
 * ever), sockets or devices; and sizes, entry counts and depth are capped so that a sparse file
 * of gigabytes or a million files cannot stall or exhaust the harness.
 */

/** Build output and version control at the root are not the agent's sources. */
const NOT_SOURCES = [BUILD_OUTPUT, '.git'];

/** A file the agent adds may hold this much; one it was given may also keep its given size. */
const FILE_BYTES = 1024 * 1024;
/** What the workspace may hold beyond the given tree, in bytes and in entries. */
const ADDED_BYTES = 16 * 1024 * 1024;
const ADDED_ENTRIES = 10_000;
/** Directories nested deeper than this (or than the given tree) are not entered. */
const DEPTH = 64;

/** What the harness found at a path instead of a file it could read. */
export type WorkspaceFinding =
  | { kind: 'Link'; target: string }
  | { kind: 'SpecialFile'; type: EntryType }
  | { kind: 'TooLarge'; bytes: number; limit: number }
  | { kind: 'Unreadable'; reason: string }
  /** The walk stopped here: the workspace was not compared. */
  | { kind: 'TooManyEntries'; limit: number }
  /** The walk stopped here: the workspace was not compared. */
  | { kind: 'WorkspaceTooLarge'; limit: number };

/** A change; `finding` says the workspace's side was not read as a file, and why. */
export type WorkspaceChange = FileChange & { finding?: WorkspaceFinding };

type Entry = { kind: 'File'; content: Buffer } | WorkspaceFinding;

interface Limits {
  fileBytes(file: string): number;
  totalBytes: number;
  entries: number;
  depth: number;
}

const UNLIMITED: Limits = {
  fileBytes: () => Infinity,
  totalBytes: Infinity,
  entries: Infinity,
  depth: Infinity,
};

interface Tree {
  entries: Map<string, Entry>;
  count: number;
  bytes: number;
  depth: number;
  /** Where a cap on entries or bytes stopped the walk. */
  abandoned?: { file: string; finding: WorkspaceFinding };
}

/** The text a change holds for an entry that was not read as a file: what it was, in a line. */
export function describeFinding(finding: WorkspaceFinding): string {
  switch (finding.kind) {
    case 'Link':
      return `a link to ${finding.target}, not followed`;
    case 'SpecialFile':
      return `a ${finding.type}, not opened`;
    case 'TooLarge':
      return `${finding.bytes} bytes, over the limit of ${finding.limit}, not read`;
    case 'Unreadable':
      return `not readable: ${finding.reason}`;
    case 'TooManyEntries':
      return `the workspace holds more than ${finding.limit} entries; it was not compared`;
    case 'WorkspaceTooLarge':
      return `the workspace holds more than ${finding.limit} bytes; it was not compared`;
  }
}

function reasonOf(error: unknown): string {
  return (error as NodeJS.ErrnoException).code ?? String(error);
}

const DIRECTORY = constants.O_RDONLY | constants.O_DIRECTORY;

/** Every entry of a tree but the directories it listed, by `/`-separated relative path. */
async function readTree(root: string, skipped: ReadonlySet<string>, limits: Limits): Promise<Tree> {
  const entries = new Map<string, Entry>();
  let count = 0;
  let bytes = 0;
  let deepest = 0;
  let abandoned: { file: string; finding: WorkspaceFinding } | undefined;

  const readEntry = async (
    full: string,
    file: string,
    type: EntryType,
    depth: number,
  ): Promise<Entry | undefined> => {
    switch (type) {
      case 'directory':
        if (depth + 1 > limits.depth) {
          return { kind: 'Unreadable', reason: `nested deeper than ${limits.depth} directories` };
        }
        return visit(full, file, depth + 1);
      case 'link':
        return { kind: 'Link', target: await readlink(full) };
      case 'file':
        break;
      default:
        return { kind: 'SpecialFile', type };
    }
    const fileLimit = limits.fileBytes(file);
    const read = await readUntrustedFile(full, Math.min(fileLimit, limits.totalBytes - bytes));
    switch (read.kind) {
      case 'Read':
        bytes += read.content.length;
        return { kind: 'File', content: read.content };
      case 'TooLarge':
        if (read.bytes > fileLimit)
          return { kind: 'TooLarge', bytes: read.bytes, limit: fileLimit };
        abandoned = { file, finding: { kind: 'WorkspaceTooLarge', limit: limits.totalBytes } };
        return undefined;
      case 'NotRegular':
        return { kind: 'Unreadable', reason: `became a ${read.type} while read` };
      case 'Missing':
        return { kind: 'Unreadable', reason: 'not found by its listed name' };
    }
  };

  /** Reads a directory's entries into `entries`; what it could not list, as its own entry. */
  const visit = async (
    dir: string,
    relative: string,
    depth: number,
  ): Promise<Entry | undefined> => {
    deepest = Math.max(deepest, depth);
    let handle;
    try {
      // The root is the harness's own path; below it, a link is never entered.
      handle = await open(dir, depth === 0 ? DIRECTORY : DIRECTORY | constants.O_NOFOLLOW);
    } catch (error) {
      if (depth === 0) throw error;
      return { kind: 'Unreadable', reason: reasonOf(error) };
    }
    try {
      const here = `/proc/self/fd/${handle.fd}`;
      // An entry's type is the entry's own, as lstat would say: a link is a link.
      for await (const dirent of await opendir(here)) {
        const { name } = dirent;
        const file = relative === '' ? name : `${relative}/${name}`;
        if (skipped.has(file)) continue;
        if (abandoned) break;
        if (++count > limits.entries) {
          abandoned = {
            file: relative === '' ? '.' : relative,
            finding: { kind: 'TooManyEntries', limit: limits.entries },
          };
          break;
        }
        let entry: Entry | undefined;
        try {
          entry = await readEntry(`${here}/${name}`, file, entryType(dirent), depth);
        } catch (error) {
          entry = { kind: 'Unreadable', reason: reasonOf(error) };
        }
        if (entry) entries.set(file, entry);
      }
      return undefined;
    } catch (error) {
      return { kind: 'Unreadable', reason: reasonOf(error) };
    } finally {
      await handle.close();
    }
  };

  const rootEntry = await visit(root, '', 0);
  if (rootEntry) entries.set('.', rootEntry);
  return { entries, count, bytes, depth: deepest, ...(abandoned ? { abandoned } : {}) };
}

/** Caps for the workspace, from the given tree: an agent may add only so much to it. */
function workspaceLimits(given: Tree): Limits {
  return {
    fileBytes: (file) => {
      const entry = given.entries.get(file);
      return Math.max(FILE_BYTES, entry?.kind === 'File' ? entry.content.length : 0);
    },
    totalBytes: given.bytes + ADDED_BYTES,
    entries: given.count + ADDED_ENTRIES,
    depth: Math.max(DEPTH, given.depth),
  };
}

function textOf(entry: Entry | undefined): string {
  if (!entry) return '';
  return entry.kind === 'File' ? entry.content.toString('utf8') : describeFinding(entry);
}

/** An empty file and no file are alike: a change cannot tell them apart. */
function sameEntry(a: Entry | undefined, b: Entry | undefined): boolean {
  const bytes = (entry: Entry | undefined) =>
    entry === undefined ? Buffer.alloc(0) : entry.kind === 'File' ? entry.content : undefined;
  const [x, y] = [bytes(a), bytes(b)];
  if (x && y) return x.equals(y);
  return !x && !y && isDeepStrictEqual(a, b);
}

/**
 * What an agent changed, found by comparing its workspace with the tree it was given (not by
 * asking the agent or its git): added, edited and deleted files alike. Whatever was not read as
 * a file (a link, whose target is never read; a FIFO, socket or device; a file over its cap; a
 * directory that could not be listed) is a change of its own, with a `finding` and a line
 * describing it as its text. Past the cap on entries or bytes, the one change is that finding.
 * `skipped` paths (relative, `/`-separated) are walked on neither side.
 */
export async function workspaceChanges(
  given: string,
  workspace: string,
  skipped: readonly string[] = [],
): Promise<WorkspaceChange[]> {
  const notWalked = new Set([...NOT_SOURCES, ...skipped]);
  const before = await readTree(given, notWalked, UNLIMITED);
  const after = await readTree(workspace, notWalked, workspaceLimits(before));
  if (after.abandoned) {
    const { file, finding } = after.abandoned;
    return [{ file, before: '', after: describeFinding(finding), finding }];
  }
  // Under a directory that could not be listed, the given files are unknown, not deleted.
  const unlisted = [...after.entries]
    .filter(([file, entry]) => entry.kind === 'Unreadable' && !before.entries.has(file))
    .map(([file]) => (file === '.' ? '' : `${file}/`));
  const changes: WorkspaceChange[] = [];
  for (const file of [...new Set([...before.entries.keys(), ...after.entries.keys()])].sort()) {
    const old = before.entries.get(file);
    const now = after.entries.get(file);
    if (!now && unlisted.some((dir) => file.startsWith(dir))) continue;
    if (sameEntry(old, now)) continue;
    changes.push({
      file,
      before: textOf(old),
      after: textOf(now),
      ...(now && now.kind !== 'File' ? { finding: now } : {}),
    });
  }
  return changes;
}

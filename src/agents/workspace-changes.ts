import { lstat, readdir, readFile, readlink } from 'node:fs/promises';
import path from 'node:path';
import type { FileChange } from '../core/file-change.js';
import { BUILD_OUTPUT } from '../toolchains/layout.js';

/** Build output and version control are not the agent's sources. */
const NOT_SOURCES = new Set([BUILD_OUTPUT, '.git']);

/** The entries of a tree that are not directories, by `/`-separated relative path. */
async function listEntries(root: string): Promise<Set<string>> {
  const files = new Set<string>();
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (NOT_SOURCES.has(entry.name) && dir === root) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else files.add(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  await walk(root);
  return files;
}

/** What a workspace entry holds: a file's text, or a link's target, which is never followed. */
async function contentOf(root: string, file: string): Promise<{ text: string; link: boolean }> {
  const full = path.join(root, file);
  if ((await lstat(full)).isSymbolicLink()) return { text: await readlink(full), link: true };
  return { text: await readFile(full, 'utf8'), link: false };
}

/**
 * What an agent changed, found by comparing its workspace with the tree it was given (not by
 * asking the agent or its git): added, edited and deleted files alike. A symbolic link is a
 * change of its own (`link`), its target unread: a link could reach outside the workspace.
 */
export async function workspaceChanges(
  given: string,
  workspace: string,
): Promise<(FileChange & { link?: true })[]> {
  const [before, after] = await Promise.all([listEntries(given), listEntries(workspace)]);
  const changes: (FileChange & { link?: true })[] = [];
  for (const file of [...new Set([...before, ...after])].sort()) {
    const old = before.has(file) ? await contentOf(given, file) : { text: '', link: false };
    const now = after.has(file) ? await contentOf(workspace, file) : { text: '', link: false };
    if (old.text === now.text && old.link === now.link) continue;
    changes.push({
      file,
      before: old.text,
      after: now.text,
      ...(now.link ? { link: true as const } : {}),
    });
  }
  return changes;
}

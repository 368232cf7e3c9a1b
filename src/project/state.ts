import { sidePath } from '../core/diff-stats.js';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch, createTwoFilesPatch, parsePatch } from 'diff';
import { z } from 'zod';
import type { FileChange } from '../core/file-change.js';
import { copyProjectTree, sha256Text } from '../core/fs.js';

/**
 * What every state of a project starts from: the pristine tree of a recipe, identified by its
 * git commit (fixed identity and date, so one recipe always gives one commit) and by the hash
 * of the recipe settings that shaped the tree and its build.
 */
export const ProjectBaseSchema = z.strictObject({
  name: z.string().min(1),
  version: z.string().min(1),
  commit: z.string().min(1),
  recipeHash: z.string().min(1),
});
export type ProjectBase = z.infer<typeof ProjectBaseSchema>;

/** A unified diff (git's a/ b/ form; /dev/null for added and removed files) and its hash. */
export const PatchSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  diff: z.string(),
});
export type Patch = z.infer<typeof PatchSchema>;

/**
 * A state of a project: its base plus an ordered list of patches (a bug, then transformation
 * steps, say). The id is derived from both, so equal states have equal ids wherever they arise.
 */
export const ProjectStateSchema = z.strictObject({
  id: z.string().regex(/^[0-9a-f]{16}$/),
  base: ProjectBaseSchema,
  patches: z.array(PatchSchema),
});
export type ProjectState = z.infer<typeof ProjectStateSchema>;

function stateId(base: ProjectBase, patches: readonly Patch[]): string {
  const key = [base.name, base.version, base.commit, base.recipeHash, ...patches.map((p) => p.id)];
  return sha256Text(JSON.stringify(key)).slice(0, 16);
}

/** Whether two bases are one (what their states' ids are derived from), without hashing. */
export function sameBase(a: ProjectBase, b: ProjectBase): boolean {
  return (
    a.name === b.name &&
    a.version === b.version &&
    a.commit === b.commit &&
    a.recipeHash === b.recipeHash
  );
}

export function baseState(base: ProjectBase): ProjectState {
  return { id: stateId(base, []), base, patches: [] };
}

/** The state after one more patch. */
export function withPatch(state: ProjectState, patch: Patch): ProjectState {
  const patches = [...state.patches, patch];
  return { id: stateId(state.base, patches), base: state.base, patches };
}

const ABSENT = '/dev/null';

/** The patch of a change, with a/ and b/ prefixes as git writes them. */
export function patchOf(changes: readonly FileChange[]): Patch {
  const diff = changes
    .map((change) =>
      createTwoFilesPatch(
        change.before === '' ? ABSENT : `a/${change.file}`,
        change.after === '' ? ABSENT : `b/${change.file}`,
        change.before,
        change.after,
        '',
        '',
        { context: 3 },
      ).replace(/^=+\n/, ''),
    )
    .join('');
  return { id: sha256Text(diff).slice(0, 16), diff };
}

/**
 * The files a state changes relative to its base, with their text in that state (null: the
 * state removes the file). `readBase` reads a file of the base ('' when it has none).
 */
export async function stateFiles(
  state: ProjectState,
  readBase: (file: string) => Promise<string>,
): Promise<Map<string, string | null>> {
  const files = new Map<string, string | null>();
  for (const patch of state.patches) {
    for (const filePatch of parsePatch(patch.diff)) {
      const oldPath = sidePath(filePatch.oldFileName);
      const newPath = sidePath(filePatch.newFileName);
      const file = (newPath ?? oldPath)!;
      const current = files.has(file) ? (files.get(file) ?? '') : await readBase(file);
      const next = applyPatch(current, filePatch);
      if (next === false) {
        throw new Error(`patch ${patch.id} does not apply to ${file} in state ${state.id}`);
      }
      files.set(file, newPath === null ? null : next);
    }
  }
  return files;
}

/** Reads a file of a tree, '' when it does not exist. */
export function treeReader(root: string): (file: string) => Promise<string> {
  return async (file) => {
    try {
      return await readFile(path.join(root, file), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return '';
      throw error;
    }
  };
}

/** Writes a state into `destination`: a copy of the base tree with the state's patches applied. */
export async function materialise(
  state: ProjectState,
  baseRoot: string,
  destination: string,
): Promise<void> {
  const files = await stateFiles(state, treeReader(baseRoot));
  await copyProjectTree(baseRoot, destination);
  for (const [file, text] of files) {
    const target = path.join(destination, file);
    if (text === null) {
      await rm(target, { force: true });
    } else {
      await mkdir(path.dirname(target), { recursive: true });
      await writeFile(target, text);
    }
  }
}

/**
 * The patches from the base to each prefix of a state: base → after its first patch, …, base →
 * the state itself (so the last is the state's whole change, as one patch).
 */
export async function cumulativePatches(
  state: ProjectState,
  readBase: (file: string) => Promise<string>,
): Promise<string[]> {
  const patches: string[] = [];
  for (let count = 1; count <= state.patches.length; count++) {
    const prefix = { ...state, patches: state.patches.slice(0, count) };
    const changes: FileChange[] = [];
    for (const [file, text] of await stateFiles(prefix, readBase)) {
      changes.push({ file, before: await readBase(file), after: text ?? '' });
    }
    patches.push(patchOf(changes).diff);
  }
  return patches;
}

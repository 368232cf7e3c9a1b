import { mkdir, rm, utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { copyProjectTree, makeTempDir, removeTree } from '../core/fs.js';
import type { ChangedSource } from '../toolchains/jvm/runner.js';
import { sourceScope, type ProjectLayout } from '../toolchains/layout.js';
import { stateFiles, treeReader, type ProjectState } from './state.js';

/** What a runner compiles of a state's changes: the Java sources under the source roots. */
export function compiledSources(changed: readonly ChangedFile[]): ChangedSource[] {
  return changed.flatMap((file) =>
    file.scope === 'other' ? [] : [{ path: file.path, scope: file.scope }],
  );
}

/** A file the current state changes relative to the compiled base. */
export interface ChangedFile {
  /** Relative to the project root. */
  file: string;
  /** Absolute path inside the working copy. */
  path: string;
  scope: 'main' | 'test' | 'other';
}

/** Older than any build, so neither Maven nor a stale-source scan sees a restored file as changed. */
const RESTORED_TIME = new Date('2000-01-01T00:00:00Z');

/**
 * A harness-owned, compiled copy of a project's base tree that can be moved to any state of the
 * project: a checkout writes the files the state changes and puts back the base version of the
 * files the previous state changed, so one compiled copy serves any number of states.
 */
export class WorkingCopy {
  /** Files written for the current state, relative to the root. */
  private written = new Set<string>();
  private current: ProjectState;
  private changed: ChangedFile[] = [];

  private constructor(
    private readonly dir: string,
    readonly root: string,
    private readonly baseRoot: string,
    private readonly layout: ProjectLayout,
    base: ProjectState,
  ) {
    this.current = base;
  }

  /** Copies the compiled base tree (`baseRoot`, holding `base`) into a temporary directory. */
  static async create(
    baseRoot: string,
    base: ProjectState,
    layout: ProjectLayout,
    prefix: string,
  ): Promise<WorkingCopy> {
    if (base.patches.length > 0) throw new Error('a working copy starts from a base state');
    const dir = await makeTempDir(prefix);
    const root = path.join(dir, 'project');
    await copyProjectTree(baseRoot, root);
    return new WorkingCopy(dir, root, baseRoot, layout, base);
  }

  get state(): ProjectState {
    return this.current;
  }

  /** Runs `use` with the copy at `state`, then moves it back to the state it held. */
  async visit<T>(state: ProjectState, use: (changed: ChangedFile[]) => Promise<T>): Promise<T> {
    const previous = this.current;
    const changed = await this.checkout(state);
    try {
      return await use(changed);
    } finally {
      await this.checkout(previous);
    }
  }

  /** Moves the copy to `state` (a no-op when it holds it); returns what differs from the base. */
  async checkout(state: ProjectState): Promise<ChangedFile[]> {
    if (state.id === this.current.id) return this.changed;
    const readBase = treeReader(this.baseRoot);
    const files = await stateFiles(state, readBase);
    for (const file of this.written) {
      if (files.has(file)) continue;
      const target = path.join(this.root, file);
      const original = await readBase(file);
      if (original === '') {
        await rm(target, { force: true });
      } else {
        await writeFile(target, original);
        await utimes(target, RESTORED_TIME, RESTORED_TIME);
      }
    }
    for (const [file, text] of files) {
      const target = path.join(this.root, file);
      if (text === null) {
        await rm(target, { force: true });
      } else {
        await mkdir(path.dirname(target), { recursive: true });
        await writeFile(target, text);
      }
    }
    this.written = new Set(files.keys());
    this.current = state;
    this.changed = [...files]
      .filter(([, text]) => text !== null)
      .map(([file]) => file)
      .sort()
      .map((file) => ({
        file,
        path: path.join(this.root, file),
        scope: sourceScope(this.layout, file),
      }));
    return this.changed;
  }

  async close(): Promise<void> {
    await removeTree(this.dir);
  }
}

import { readdir, rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { projectCache, type CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { exists, removeTree } from '../../core/fs.js';
import { git } from '../../core/git.js';
import {
  resolveFetchedProject,
  type FetchedProjectRef,
  type ProjectRef,
} from '../../project/project.js';
import { baseState, materialise, sameBase } from '../../project/state.js';
import { BUILD_OUTPUT } from '../../toolchains/layout.js';
import { loadCaseState } from './archive.js';
import type { CaseRecord } from './case.js';

/**
 * The project a case was built from, as fetched into the cache (a corpus project or a local one
 * alike: both keep their pristine tree under the cache's projects), with the tree it was built
 * from, else a one-line user error.
 */
export async function caseProject(
  record: CaseRecord,
  cache: CacheLayout,
): Promise<FetchedProjectRef> {
  const label = `${record.project.name}@${record.project.version}`;
  const pristine = projectCache(cache, record.project).pristine;
  if (!(await exists(pristine))) {
    throw new UserError(
      `case ${record.id} is of ${label}, which is not fetched into ${cache.root}: fetch it with 'witnessgym corpus fetch'`,
    );
  }
  const changed = await pristineChanges(pristine);
  if (changed.length > 0) {
    throw new UserError(
      `the cached tree of ${label} was changed since it was fetched (${changed.slice(0, 3).join(', ')}${changed.length > 3 ? ', …' : ''}): fetch it again with 'witnessgym corpus fetch ${record.project.name} --force'`,
    );
  }
  const project = await resolveFetchedProject(pristine, cache);
  if (!sameBase(project.base, record.project)) {
    throw new UserError(
      `case ${record.id} was built from another tree of ${label} (commit ${record.project.commit}, recipe ${record.project.recipeHash}; the cache holds ${project.base.commit}, ${project.base.recipeHash})`,
    );
  }
  return project;
}

/**
 * Files of a pristine tree that differ from its one commit (build output is ignored): every case
 * is written from that tree, so a file changed there would be in both sides of every case.
 */
async function pristineChanges(pristine: string): Promise<string[]> {
  const out = await git(pristine, ['status', '--porcelain']);
  // `XY path` lines; the output comes trimmed, so the first may have lost its leading space.
  return out === '' ? [] : out.split('\n').map((line) => line.trim().replace(/^\S+\s+/, ''));
}

export type CaseSide = 'buggy' | 'clean';

export interface MaterialiseCaseOptions {
  side: CaseSide;
  /** Leave the witness's file and the co-witnesses' out (an evaluation workspace). */
  hideWitness: boolean;
  /**
   * Leave out the test resources only those tests name too: what the agent is shown. The trees
   * the verifier builds keep them, so the hidden witness still runs there as it was written.
   */
  hideFixtures?: boolean;
}

export type MaterialiseOutcome =
  | {
      kind: 'Materialised';
      dir: string;
      side: CaseSide;
      /** The state written: the case's buggy state or the project's base. */
      state: string;
      witnessHidden: boolean;
      /** The other files left out: co-witnesses, and with `hideFixtures`, their resources. */
      alsoHidden: string[];
    }
  | { kind: 'Corrupt'; reason: string };

async function isEmptyOrMissing(dir: string): Promise<boolean> {
  try {
    return (await readdir(dir)).length === 0;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return true;
    throw error;
  }
}

/**
 * Writes a case's buggy (or clean) tree into `destination` (missing or empty): the pristine tree
 * with the case's patches applied, without version control or build output (no clean classes
 * come along), and without the witness's file when asked. Written beside and renamed into place.
 */
export async function materialiseCase(
  caseDir: string,
  record: CaseRecord,
  project: ProjectRef,
  destination: string,
  options: MaterialiseCaseOptions,
): Promise<MaterialiseOutcome> {
  const target = path.resolve(destination);
  if (!(await isEmptyOrMissing(target))) {
    throw new UserError(`${target} is not empty: materialise into a new or empty directory`);
  }
  let state = baseState(record.project);
  if (options.side === 'buggy') {
    const loaded = await loadCaseState(caseDir, record);
    if (loaded.kind === 'Corrupt') return loaded;
    state = loaded.state;
  }
  const temporary = `${target}.tmp-${state.id}`;
  await removeTree(temporary);
  await materialise(state, project.root, temporary);
  const outputs = new Set([BUILD_OUTPUT, path.join(project.layout.module, BUILD_OUTPUT)]);
  for (const output of outputs) await removeTree(path.join(temporary, output));
  const alsoHidden = options.hideWitness
    ? [
        ...record.coWitnesses.map((entry) => entry.path),
        ...(options.hideFixtures ? record.hiddenResources : []),
      ]
    : [];
  if (options.hideWitness) {
    for (const file of [record.officialTest.path, ...alsoHidden]) {
      await rm(path.join(temporary, file), { force: true });
    }
  }
  await rm(target, { recursive: true, force: true });
  await rename(temporary, target);
  return {
    kind: 'Materialised',
    dir: target,
    side: options.side,
    state: state.id,
    witnessHidden: options.hideWitness,
    alsoHidden,
  };
}

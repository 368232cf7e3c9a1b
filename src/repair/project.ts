import { rename, rm } from 'node:fs/promises';
import path from 'node:path';
import { projectCache, type CacheLayout } from '../core/cache.js';
import { exists, removeTree, sha256Text } from '../core/fs.js';
import { resolveFetchedProject, resolveProject, type ProjectRef } from '../project/project.js';
import {
  baseState,
  materialise,
  sameBase,
  withPatch,
  type Patch,
  type ProjectState,
} from '../project/state.js';
import { BUILD_OUTPUT, projectLayout } from '../toolchains/layout.js';
import type { RepairInstance } from './instance.js';
import { resolveSnapshot, unpackSnapshot } from './read.js';

/*
 * A repair instance as project states: the tree it starts from, gold on top of it, and either with
 * the test patch. Every run of an instance (validation, evaluation, strengthening) works on these
 * states, so their builds are shared wherever the same state recurs.
 */

export function patchFromDiff(diff: string): Patch {
  return { id: sha256Text(diff).slice(0, 16), diff };
}

export interface RepairSubject {
  instance: RepairInstance;
  project: ProjectRef;
  base: ProjectState;
  gold: ProjectState;
  /** The test patch, or null when the base tree already holds the tests (Defects4J). */
  testPatch: Patch | null;
}

/** A state with the instance's tests added. */
export function withTests(subject: RepairSubject, state: ProjectState): ProjectState {
  return subject.testPatch ? withPatch(state, subject.testPatch) : state;
}

/** The fetched project a witnessgym case was built on, when the cache holds that very tree. */
async function cachedCaseProject(
  origin: Extract<RepairInstance['origin'], { kind: 'witnessgym-case' }>,
  cache: CacheLayout,
): Promise<ProjectRef | undefined> {
  const pristine = projectCache(cache, origin.project).pristine;
  if (!(await exists(pristine))) return undefined;
  const project = await resolveFetchedProject(pristine, cache).catch(() => undefined);
  return project && sameBase(project.base, origin.project) ? project : undefined;
}

/**
 * The project states of an instance. A witnessgym case whose project the cache holds starts from
 * that project (pristine plus `origin.base_patch`); any other instance starts from its snapshot,
 * unpacked into the cache when it is a tarball, used in place when it is a directory.
 */
export async function resolveInstance(
  instance: RepairInstance,
  instanceFileDir: string,
  cache: CacheLayout,
): Promise<RepairSubject> {
  let project: ProjectRef | undefined;
  let base: ProjectState | undefined;
  if (instance.origin.kind === 'witnessgym-case') {
    project = await cachedCaseProject(instance.origin, cache);
    if (project)
      base = withPatch(baseState(project.base), patchFromDiff(instance.origin.base_patch));
  }
  if (!project || !base) {
    const snapshot = await resolveSnapshot(instance, instanceFileDir);
    let root = snapshot.path;
    if (snapshot.kind === 'Tarball') {
      root = path.join(cache.root, 'snapshots', sha256Text(snapshot.path).slice(0, 16));
      if (!(await exists(root))) await unpackSnapshot(snapshot, root);
    }
    const plain = await resolveProject(root, cache);
    const build = {
      ...plain.build,
      mavenArgs: [...plain.build.mavenArgs, ...instance.maven_flags],
      ...(instance.module === '.' ? {} : { module: instance.module }),
    };
    project = { ...plain, build, layout: projectLayout(build) };
    base = baseState(project.base);
  }
  return {
    instance,
    project,
    base,
    gold: withPatch(base, patchFromDiff(instance.patch)),
    testPatch: instance.test_patch.trim() === '' ? null : patchFromDiff(instance.test_patch),
  };
}

/**
 * Writes a state of a project into `destination` without build output, beside and renamed into
 * place, so a directory that exists is complete.
 */
export async function materialiseTree(
  state: ProjectState,
  project: ProjectRef,
  destination: string,
): Promise<void> {
  const target = path.resolve(destination);
  const temporary = `${target}.tmp-${state.id}`;
  await removeTree(temporary);
  await materialise(state, project.root, temporary);
  for (const output of new Set([BUILD_OUTPUT, path.join(project.layout.module, BUILD_OUTPUT)])) {
    await removeTree(path.join(temporary, output));
  }
  await rm(target, { recursive: true, force: true });
  await rename(temporary, target);
}

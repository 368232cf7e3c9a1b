import os from 'node:os';
import path from 'node:path';

/*
 * Every path inside the cache is computed here, so the layout is in one place.
 */

/** Where fetched projects, downloads and the Maven repository live: flag, env, then XDG. */
export function resolveCacheDir(flag?: string): string {
  if (flag) return path.resolve(flag);
  const fromEnv = process.env.WITNESSGYM_CACHE;
  if (fromEnv) return path.resolve(fromEnv);
  const xdg = process.env.XDG_CACHE_HOME || path.join(os.homedir(), '.cache');
  return path.join(xdg, 'witnessgym');
}

export interface CacheLayout {
  root: string;
  /** Private apt state for Debian source downloads. */
  apt: string;
  downloads: string;
  mavenRepo: string;
  projects: string;
  /** The warm JVM runner's compiled classes and per-project runtimes. */
  jvmRunner: string;
  locks: string;
}

export function cacheLayout(root: string): CacheLayout {
  return {
    root,
    apt: path.join(root, 'apt'),
    downloads: path.join(root, 'downloads'),
    mavenRepo: path.join(root, 'maven-repo'),
    projects: path.join(root, 'projects'),
    jvmRunner: path.join(root, 'jvm-runner'),
    locks: path.join(root, 'locks'),
  };
}

/** The cached files of one project (a corpus recipe, or a local project fetched by path). */
export interface ProjectCache {
  dir: string;
  /** The pristine tree: a git repo with one commit, compiled, never modified afterwards. */
  pristine: string;
  /** What the pristine tree was built from, its commit and whether it compiled. */
  fetchRecord: string;
  baseline: string;
  /** The recipe the pristine tree was built with (YAML, corpus format), for `--recipe`. */
  recipe: string;
  /** The execution-context map (JSON lines). */
  contextMap: string;
  /** Held while writing any of the above. */
  lock: string;
}

export function projectCache(
  cache: CacheLayout,
  project: { name: string; version: string },
): ProjectCache {
  const id = `${project.name}@${project.version}`;
  const dir = path.join(cache.projects, id);
  return {
    dir,
    pristine: path.join(dir, 'pristine'),
    fetchRecord: path.join(dir, 'fetch.json'),
    baseline: path.join(dir, 'baseline.json'),
    recipe: path.join(dir, 'recipe.yaml'),
    contextMap: path.join(dir, 'execution-contexts.jsonl'),
    // Outside the project directory, which `fetch --force` removes while holding it.
    lock: path.join(cache.locks, `project-${id}.lock`),
  };
}

/** The warm JVM runner's part of the cache, shared by every project. */
export interface RunnerCache {
  /** The runner's own dependencies (ASM), resolved by Maven. */
  dependencies: string;
  /** Where sources are compiled into directories named by their content. */
  classes: string;
  /** Per pom and build flags: the project's test class path. */
  projectRuntime: (key: string) => string;
  /** Per set of JUnit Platform coordinates: the platform jars and the bridge built on them. */
  platform: (key: string) => string;
  /** Held while building any of the above. */
  lock: string;
}

export function runnerCache(cache: CacheLayout): RunnerCache {
  return {
    dependencies: path.join(cache.jvmRunner, 'runner-deps'),
    classes: cache.jvmRunner,
    projectRuntime: (key) => path.join(cache.jvmRunner, 'projects', key),
    platform: (key) => path.join(cache.jvmRunner, 'platforms', key),
    lock: path.join(cache.locks, 'jvm-runner.lock'),
  };
}

/** Held while downloading into `downloads/` or updating the private apt state. */
export function downloadsLock(cache: CacheLayout): string {
  return path.join(cache.locks, 'downloads.lock');
}

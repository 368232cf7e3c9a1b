import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import {
  copyProjectTree,
  exists,
  makeTempDir,
  readJsonIfExists,
  removeTree,
  sha256Text,
  writeJsonAtomic,
} from '../../core/fs.js';
import { globToRegExp } from '../../core/glob.js';
import { runProcess } from '../../core/process.js';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import type { Toolchain } from '../../toolchains/types.js';
import { runBaseline, type Baseline } from './baseline.js';
import { downloadDebianSource } from './debian.js';
import type { Recipe } from './recipe.js';

/** What `fetch.json` records once the pristine tree exists and compiles. */
export interface FetchRecord {
  recipeHash: string;
  commit: string;
  compiledAt: string | null;
}

export interface FetchedProject {
  name: string;
  version: string;
  /** The pristine project: a git repo with one commit, compiled, never modified afterwards. */
  path: string;
  commit: string;
  baseline: Baseline;
}

export interface ProjectPaths {
  dir: string;
  pristine: string;
  record: string;
  baseline: string;
}

export function projectPaths(cache: CacheLayout, recipe: Recipe): ProjectPaths {
  const dir = path.join(cache.projects, `${recipe.name}@${recipe.version}`);
  return {
    dir,
    pristine: path.join(dir, 'pristine'),
    record: path.join(dir, 'fetch.json'),
    baseline: path.join(dir, 'baseline.json'),
  };
}

export async function readFetchRecord(file: string): Promise<FetchRecord | undefined> {
  return readJsonIfExists<FetchRecord>(file);
}

export function recipeHash(recipe: Recipe): string {
  return sha256Text(JSON.stringify(recipe)).slice(0, 16);
}

/** Fixed identity and date, so the same recipe always yields the same commit id. */
const GIT_ENV = {
  GIT_AUTHOR_NAME: 'witnessgym',
  GIT_AUTHOR_EMAIL: 'witnessgym@localhost',
  GIT_COMMITTER_NAME: 'witnessgym',
  GIT_COMMITTER_EMAIL: 'witnessgym@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
};

async function git(cwd: string, args: string[]): Promise<string> {
  const run = await runProcess('git', args, {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    timeoutMs: 300_000,
  });
  if (run.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${run.stderr.trim()}`);
  return run.stdout.trim();
}

async function removeMatching(root: string, globs: string[]): Promise<void> {
  if (globs.length === 0) return;
  const patterns = globs.map(globToRegExp);
  async function walk(dir: string, relative: string): Promise<void> {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      const full = path.join(dir, entry.name);
      if (patterns.some((pattern) => pattern.test(rel))) await rm(full, { recursive: true });
      else if (entry.isDirectory()) await walk(full, rel);
    }
  }
  await walk(root, '');
}

async function applyPatch(root: string, patch: string): Promise<void> {
  if (patch.trim() === '') return;
  const patchFile = path.join(root, '..', 'corpus.patch');
  await writeFile(patchFile, patch.endsWith('\n') ? patch : `${patch}\n`);
  const run = await runProcess('git', ['apply', '--whitespace=nowarn', patchFile], {
    cwd: root,
    timeoutMs: 60_000,
  });
  if (run.exitCode !== 0) throw new Error(`corpus patch does not apply: ${run.stderr.trim()}`);
}

/** Puts the project's source tree into `staging` and returns its root there. */
async function materializeSource(
  recipe: Recipe,
  cache: CacheLayout,
  staging: string,
  log: (line: string) => void,
): Promise<string> {
  const { source } = recipe;
  if (source.kind === 'local') {
    const root = path.join(staging, 'project');
    log(`fetch: copying ${source.path}`);
    // Build output is left behind: the pristine tree is compiled afresh.
    await copyProjectTree(source.path, root, ['.git', 'target']);
    return root;
  }
  log(`fetch: downloading ${source.file} (${source.package}=${source.version})`);
  const tarball = await downloadDebianSource(source, cache.apt, cache.downloads);
  const untar = await runProcess('tar', ['-xf', tarball, '-C', staging], { timeoutMs: 600_000 });
  if (untar.exitCode !== 0) throw new Error(`cannot unpack ${tarball}: ${untar.stderr.trim()}`);
  return path.join(staging, source.root);
}

/** Unpacks (or copies), trims and patches the tree, then commits it as the only commit. */
async function buildPristineTree(
  recipe: Recipe,
  cache: CacheLayout,
  target: string,
  log: (line: string) => void,
): Promise<string> {
  const staging = await makeTempDir('unpack');
  try {
    const root = await materializeSource(recipe, cache, staging, log);
    if (!(await exists(path.join(root, 'pom.xml')))) {
      throw new UserError(
        recipe.source.kind === 'local'
          ? `${recipe.source.path} is not a Maven project (no pom.xml)`
          : `recipe ${recipe.name}: ${recipe.source.root}/pom.xml is not in ${recipe.source.file}; fix source.root`,
      );
    }
    await removeMatching(root, recipe.remove);
    await applyPatch(root, recipe.patch);
    await git(root, ['init', '-q', '-b', 'main']);
    await writeFile(path.join(root, '.git', 'info', 'exclude'), 'target/\n');
    await git(root, ['add', '-A']);
    await git(root, [
      'commit',
      '-q',
      '--no-gpg-sign',
      '-m',
      `${recipe.name} ${recipe.version} (pristine)`,
    ]);
    const commit = await git(root, ['rev-parse', 'HEAD']);
    log(`fetch: pristine tree at ${target}`);
    await removeTree(target);
    await mkdir(path.dirname(target), { recursive: true });
    await rename(root, target).catch(async () => {
      // Temporary directory on another file system: copy with the cp command, keeping modes.
      const copy = await runProcess('cp', ['-a', root, target], { timeoutMs: 600_000 });
      if (copy.exitCode !== 0) {
        throw new Error(`cannot move the project into the cache: ${copy.stderr}`);
      }
    });
    return commit;
  } finally {
    await removeTree(staging);
  }
}

export class CorpusBuildError extends Error {
  constructor(
    readonly recipe: string,
    readonly verdict: SingleVerdict,
  ) {
    super(`corpus project ${recipe} does not build: ${describeVerdict(verdict)}`);
  }
}

export interface FetchOptions {
  toolchain: Toolchain;
  force?: boolean;
  log: (line: string) => void;
}

/**
 * Brings a corpus project into the cache: download and verify, unpack into a pristine git repo,
 * resolve dependencies and compile, then record a baseline of every test class. Each step is
 * skipped when already done for the same recipe, so an interrupted fetch resumes.
 */
export async function fetchCorpusProject(
  recipe: Recipe,
  cache: CacheLayout,
  options: FetchOptions,
): Promise<FetchedProject> {
  const paths = projectPaths(cache, recipe);
  const hash = recipeHash(recipe);
  if (options.force) await removeTree(paths.dir);
  let record = await readJsonIfExists<FetchRecord>(paths.record);
  if (!record || record.recipeHash !== hash || !(await exists(paths.pristine))) {
    await rm(paths.baseline, { force: true });
    const commit = await buildPristineTree(recipe, cache, paths.pristine, options.log);
    record = { recipeHash: hash, commit, compiledAt: null };
    await writeJsonAtomic(paths.record, record);
  }

  if (!record.compiledAt) {
    options.log('fetch: resolving dependencies and compiling');
    const compiled = await options.toolchain.compile(
      paths.pristine,
      recipe.build,
      { repository: cache.mavenRepo, offline: false },
      3_600_000,
    );
    if (compiled.kind === 'Failed') {
      const { verdict } = compiled;
      if (verdict.kind === 'InfraError' && verdict.cause === 'dependency-resolution') {
        throw new UserError(
          `cannot resolve the dependencies of ${recipe.name}: ${verdict.reason}; check the pom's dependencies and that Maven Central is reachable`,
        );
      }
      throw new CorpusBuildError(recipe.name, verdict);
    }
    record = { ...record, compiledAt: new Date().toISOString() };
    await writeJsonAtomic(paths.record, record);
  }

  let baseline = await readJsonIfExists<Baseline>(paths.baseline);
  if (!baseline) {
    baseline = await runBaseline(paths.pristine, {
      toolchain: options.toolchain,
      // Online once more: Surefire's providers are only downloaded by the first test run.
      context: { repository: cache.mavenRepo, offline: false },
      build: recipe.build,
      tests: recipe.tests,
      log: options.log,
    });
    await writeJsonAtomic(paths.baseline, baseline);
  }
  return {
    name: recipe.name,
    version: recipe.version,
    path: paths.pristine,
    commit: record.commit,
    baseline,
  };
}

import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { BUILD_OUTPUT } from '../../toolchains/layout.js';
import path from 'node:path';
import { projectCache, type CacheLayout, type ProjectCache } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../../core/fs.js';
import { globToRegExp } from '../../core/glob.js';
import { withLock } from '../../records/lock.js';
import { git } from '../../core/git.js';
import { runProcess } from '../../core/process.js';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import { manifestBeside, readIfBuiltFrom } from '../../records/manifest.js';
import { readRecordFile, writeRecordFile } from '../../records/record.js';
import { note, type EventSink } from '../../events/types.js';
import { BaselineFile } from '../../project/baseline.js';
import {
  baselineInputs,
  BaselineManifestFile,
  fetchedProject,
  FetchFile,
  type FetchRecord,
  fetchState,
  readFetchRecord,
  type AppliedRemedy,
  type FetchedProject,
} from '../../project/fetched.js';
import { recipeBuildHash, writeRecipeFile, type Recipe } from '../../project/recipe.js';
import type { Toolchain } from '../../toolchains/types.js';
import { runBaseline } from './baseline.js';
import { downloadDebianSource } from './debian.js';
import { adaptRecipe } from './ladder.js';

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
async function materialiseSource(
  recipe: Recipe,
  cache: CacheLayout,
  staging: string,
  log: (line: string) => void,
): Promise<string> {
  const { source } = recipe;
  if (source.kind === 'local') {
    const root = path.join(staging, 'project');
    log(`copying ${source.path}`);
    // Build output is left behind: the pristine tree is compiled afresh.
    await copyProjectTree(source.path, root, ['.git', BUILD_OUTPUT]);
    return root;
  }
  log(`downloading ${source.file} (${source.package}=${source.version})`);
  const tarball = await downloadDebianSource(source, cache, log);
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
    const root = await materialiseSource(recipe, cache, staging, log);
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
    log(`pristine tree at ${target}`);
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
    readonly remedies: AppliedRemedy[] = [],
    /** What the user can do about it, when there is something. */
    hint?: string,
  ) {
    const tried =
      remedies.length > 0 ? ` (after ${remedies.map((remedy) => remedy.id).join(', ')})` : '';
    super(
      `corpus project ${recipe} does not build${tried}: ${describeVerdict(verdict)}${hint ? `; ${hint}` : ''}`,
    );
  }
}

export interface FetchOptions {
  toolchain: Toolchain;
  force?: boolean;
  /**
   * Run the adaptation ladder: on a build failure with a known remedy, adapt the recipe and build
   * again. For a project without a recipe of its own; a recipe someone wrote is taken as is.
   */
  adapt?: boolean;
  events: EventSink;
  /**
   * When the cache has no baseline: run one on this many test classes only and return it without
   * recording it, so the project stays unfetched for everyone else. A check that a recipe
   * fetches, builds and runs its tests, minutes cheaper than a whole suite.
   */
  baselineSample?: number;
}

/**
 * Brings a corpus project into the cache: download and verify, unpack into a pristine git repo,
 * resolve dependencies and compile, then record a baseline of every test class. Each step is
 * skipped when already done from the same recipe, so an interrupted fetch resumes; the project's
 * lock is held while anything is written.
 */
export async function fetchCorpusProject(
  recipe: Recipe,
  cache: CacheLayout,
  options: FetchOptions,
): Promise<FetchedProject> {
  if (!options.force) {
    const state = await fetchState(cache, recipe);
    if (state.kind === 'Fetched') return state.project;
  }
  const paths = projectCache(cache, recipe);
  const log = (line: string) => note(options.events, 'fetch', line);
  return withLock(paths.lock, { purpose: `fetch ${recipe.name}@${recipe.version}`, log }, () =>
    fetchLocked(recipe, cache, paths, options, log),
  );
}

async function fetchLocked(
  recipe: Recipe,
  cache: CacheLayout,
  paths: ProjectCache,
  options: FetchOptions,
  log: (line: string) => void,
): Promise<FetchedProject> {
  if (options.force) await removeTree(paths.dir);
  const found = await readFetchRecord(paths.fetchRecord, recipe);
  let record: FetchRecord;
  let built: Recipe;
  if (found.kind === 'Current' && (await exists(paths.pristine))) {
    ({ record, built } = found);
  } else {
    if (found.kind === 'Stale') {
      log(`building the pristine tree again: ${found.reason}`);
    }
    const commit = await buildPristineTree(recipe, cache, paths.pristine, log);
    record = { inputs: { recipeBuildHash: recipeBuildHash(recipe) }, commit, compiledAt: null };
    built = recipe;
    await writeRecordFile(paths.fetchRecord, FetchFile, record);
  }

  // The ladder: compile; on a failure with a known remedy, adapt the recipe and compile again.
  while (!record.compiledAt) {
    log('resolving dependencies and compiling');
    const compiled = await options.toolchain.compile(
      paths.pristine,
      built.build,
      { repository: cache.mavenRepo, offline: false },
      3_600_000,
    );
    if (compiled.kind === 'Compiled') {
      record = { ...record, compiledAt: new Date().toISOString() };
      await writeRecordFile(paths.fetchRecord, FetchFile, record);
      break;
    }
    const { verdict } = compiled;
    const applied = record.adapted?.remedies ?? [];
    // Before a resolution failure is the user's: a build plugin's missing artifact is a rung.
    const adapted =
      options.adapt && built.source.kind === 'local'
        ? await adaptRecipe(built, compiled.log, applied, built.source.path, paths.pristine)
        : undefined;
    if (!adapted) {
      if (verdict.kind === 'InfraError' && verdict.cause === 'dependency-resolution') {
        throw new UserError(
          `cannot resolve the dependencies of ${recipe.name}: ${verdict.reason}; check the pom's dependencies and that Maven Central is reachable`,
        );
      }
      if (options.adapt) await writeRecipeFile(paths.recipe, built);
      throw new CorpusBuildError(
        recipe.name,
        verdict,
        applied,
        built.source.kind !== 'local'
          ? undefined
          : options.adapt
            ? `no known remedy applies: edit the recipe tried, ${paths.recipe}, and pass it with --recipe, or add flags with --maven-arg`
            : 'a --recipe is taken as is: edit it, or leave it out to let the fetch ladder try known remedies',
      );
    }
    const remedies = [...applied, adapted.remedy];
    log(
      `remedy ${adapted.remedy.id}: ${adapted.remedy.why} (the build said: ${adapted.remedy.trigger})`,
    );
    let commit = record.commit;
    if (adapted.recipe.patch !== built.patch) {
      commit = await buildPristineTree(adapted.recipe, cache, paths.pristine, log);
    } else {
      // A compile that failed half-way leaves classes of the old flags behind.
      await git(paths.pristine, ['clean', '-fdxq']);
    }
    built = adapted.recipe;
    record = {
      inputs: record.inputs,
      commit,
      compiledAt: null,
      adapted: { recipe: built, remedies },
    };
    await writeRecordFile(paths.fetchRecord, FetchFile, record);
  }
  await writeRecipeFile(paths.recipe, built);

  const manifestFile = manifestBeside(paths.baseline);
  const inputs = baselineInputs(built, record.commit);
  const manifest = await readIfBuiltFrom(manifestFile, BaselineManifestFile, inputs);
  if (manifest.kind === 'Stale') {
    log(`running the baseline again: ${manifest.reason}`);
  }
  let baseline =
    manifest.kind === 'Current' ? await readRecordFile(paths.baseline, BaselineFile) : undefined;
  if (!baseline && options.baselineSample !== undefined) {
    const sample = await runBaseline(paths.pristine, {
      toolchain: options.toolchain,
      context: { repository: cache.mavenRepo, offline: false },
      build: built.build,
      tests: built.tests,
      events: options.events,
      sample: options.baselineSample,
    });
    return fetchedProject(recipe, built, record, paths, sample);
  }
  if (!baseline) {
    // The manifest goes last: a baseline without one is never taken for finished.
    await rm(manifestFile, { force: true });
    baseline = await runBaseline(paths.pristine, {
      toolchain: options.toolchain,
      // Online once more: Surefire's providers are only downloaded by the first test run.
      context: { repository: cache.mavenRepo, offline: false },
      build: built.build,
      tests: built.tests,
      events: options.events,
    });
    await writeRecordFile(paths.baseline, BaselineFile, baseline);
    await writeRecordFile(manifestFile, BaselineManifestFile, { inputs });
  }
  return fetchedProject(recipe, built, record, paths, baseline);
}

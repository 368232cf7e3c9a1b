import { mkdir, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { BUILD_OUTPUT } from '../../toolchains/layout.js';
import path from 'node:path';
import { z } from 'zod';
import { projectCache, type CacheLayout, type ProjectCache } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../../core/fs.js';
import { globToRegExp } from '../../core/glob.js';
import { withLock } from '../../records/lock.js';
import { git } from '../../core/git.js';
import { runProcess } from '../../core/process.js';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import { defineManifest, manifestBeside, readIfBuiltFrom } from '../../records/manifest.js';
import {
  defineRecord,
  readRecordFile,
  writeRecordFile,
  type RecordOf,
} from '../../records/record.js';
import { note, type EventSink } from '../../events/types.js';
import type { Toolchain } from '../../toolchains/types.js';
import { BaselineRecord, runBaseline, type Baseline } from './baseline.js';
import { downloadDebianSource } from './debian.js';
import { adaptRecipe, AppliedRemedySchema, type AppliedRemedy } from './ladder.js';
import { RecipeSchema, recipeBuildHash, writeRecipeFile, type Recipe } from './recipe.js';

/**
 * `fetch.json`: the recipe asked for, its commit, when it compiled, and, when the fetch ladder
 * had to adapt the recipe, the recipe the tree was built with and the remedies that made it.
 */
export const FetchRecord = defineRecord({
  kind: 'fetch',
  version: 1,
  schema: z.strictObject({
    inputs: z.strictObject({ recipeBuildHash: z.string() }),
    commit: z.string(),
    compiledAt: z.string().nullable(),
    // Optional, so records written before the ladder read as they are: built from `inputs`.
    adapted: z
      .strictObject({ recipe: RecipeSchema, remedies: z.array(AppliedRemedySchema) })
      .optional(),
  }),
});
type FetchRecord = RecordOf<typeof FetchRecord>;

/** Beside `baseline.json`: the tree and recipe it was run on. */
export const BaselineManifest = defineManifest(
  'baseline-manifest',
  z.strictObject({
    recipeBuildHash: z.string(),
    pristineCommit: z.string(),
    /** A baseline of another shape (an older witnessgym's) is run again, not misread. */
    baselineVersion: z.number().int(),
  }),
);

export interface FetchedProject {
  name: string;
  version: string;
  /** The pristine project: a git repo with one commit, compiled, never modified afterwards. */
  path: string;
  commit: string;
  baseline: Baseline;
  /** The recipe it was built with: the one asked for, or the ladder's adaptation of it. */
  recipe: Recipe;
  /** What the ladder changed to make it build, in order (none for a recipe taken as is). */
  remedies: AppliedRemedy[];
  /** `recipe` as a YAML file in the corpus format, for `--recipe`. */
  recipeFile: string;
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
}

export type FetchState =
  | { kind: 'fetched'; project: FetchedProject }
  /** `reason` completes "the project is …", e.g. `not fetched yet`. */
  | { kind: 'not-fetched'; reason: string };

/** What a baseline is run from: the recipe, the pristine tree, and the shape it is written in. */
function baselineInputs(recipe: Recipe, pristineCommit: string) {
  return {
    recipeBuildHash: recipeBuildHash(recipe),
    pristineCommit,
    baselineVersion: BaselineRecord.version,
  };
}

/**
 * The fetch record of a recipe's cache entry, if built from it: asked for as this recipe (and
 * perhaps adapted), or adapted into a recipe of the same build (the adapted recipe passed back
 * with --recipe). `built` is the recipe the tree holds.
 */
async function readFetchRecord(
  file: string,
  recipe: Recipe,
): Promise<
  | { kind: 'missing' }
  | { kind: 'stale'; reason: string }
  | { kind: 'current'; record: FetchRecord; built: Recipe }
> {
  const found = await readIfBuiltFrom(file, FetchRecord, {});
  if (found.kind !== 'current') return found;
  const { record } = found;
  const wanted = recipeBuildHash(recipe);
  if (record.inputs.recipeBuildHash === wanted) {
    return { kind: 'current', record, built: record.adapted?.recipe ?? recipe };
  }
  if (record.adapted && recipeBuildHash(record.adapted.recipe) === wanted) {
    return { kind: 'current', record, built: recipe };
  }
  return {
    kind: 'stale',
    reason: `${path.basename(file)} records other inputs: recipeBuildHash ${record.inputs.recipeBuildHash} → ${wanted}`,
  };
}

/**
 * What the cache holds for a recipe, without the lock (finished files are written atomically):
 * the fetched project if every step is done and built from this recipe, else why not.
 */
export async function fetchState(cache: CacheLayout, recipe: Recipe): Promise<FetchState> {
  const paths = projectCache(cache, recipe);
  const fetch = await readFetchRecord(paths.fetchRecord, recipe);
  if (fetch.kind === 'missing') return { kind: 'not-fetched', reason: 'not fetched yet' };
  if (fetch.kind === 'stale')
    return { kind: 'not-fetched', reason: `out of date (${fetch.reason})` };
  const { record, built } = fetch;
  if (record.compiledAt === null || !(await exists(paths.pristine))) {
    return { kind: 'not-fetched', reason: 'only partly fetched' };
  }
  const manifest = await readIfBuiltFrom(
    manifestBeside(paths.baseline),
    BaselineManifest,
    baselineInputs(built, record.commit),
  );
  if (manifest.kind === 'stale') {
    return { kind: 'not-fetched', reason: `out of date (${manifest.reason})` };
  }
  const baseline =
    manifest.kind === 'current' ? await readRecordFile(paths.baseline, BaselineRecord) : undefined;
  if (!baseline) return { kind: 'not-fetched', reason: 'only partly fetched' };
  return { kind: 'fetched', project: fetchedProject(recipe, built, record, paths, baseline) };
}

function fetchedProject(
  asked: Recipe,
  built: Recipe,
  record: FetchRecord,
  paths: ProjectCache,
  baseline: Baseline,
): FetchedProject {
  return {
    name: asked.name,
    version: asked.version,
    path: paths.pristine,
    commit: record.commit,
    baseline,
    recipe: built,
    remedies: record.adapted?.remedies ?? [],
    recipeFile: paths.recipe,
  };
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
    if (state.kind === 'fetched') return state.project;
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
  if (found.kind === 'current' && (await exists(paths.pristine))) {
    ({ record, built } = found);
  } else {
    if (found.kind === 'stale') {
      log(`building the pristine tree again: ${found.reason}`);
    }
    const commit = await buildPristineTree(recipe, cache, paths.pristine, log);
    record = { inputs: { recipeBuildHash: recipeBuildHash(recipe) }, commit, compiledAt: null };
    built = recipe;
    await writeRecordFile(paths.fetchRecord, FetchRecord, record);
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
      await writeRecordFile(paths.fetchRecord, FetchRecord, record);
      break;
    }
    const { verdict } = compiled;
    if (verdict.kind === 'InfraError' && verdict.cause === 'dependency-resolution') {
      throw new UserError(
        `cannot resolve the dependencies of ${recipe.name}: ${verdict.reason}; check the pom's dependencies and that Maven Central is reachable`,
      );
    }
    const applied = record.adapted?.remedies ?? [];
    const adapted =
      options.adapt && built.source.kind === 'local'
        ? await adaptRecipe(built, compiled.log, applied, built.source.path, paths.pristine)
        : undefined;
    if (!adapted) {
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
    await writeRecordFile(paths.fetchRecord, FetchRecord, record);
  }
  await writeRecipeFile(paths.recipe, built);

  const manifestFile = manifestBeside(paths.baseline);
  const inputs = baselineInputs(built, record.commit);
  const manifest = await readIfBuiltFrom(manifestFile, BaselineManifest, inputs);
  if (manifest.kind === 'stale') {
    log(`running the baseline again: ${manifest.reason}`);
  }
  let baseline =
    manifest.kind === 'current' ? await readRecordFile(paths.baseline, BaselineRecord) : undefined;
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
    await writeRecordFile(paths.baseline, BaselineRecord, baseline);
    await writeRecordFile(manifestFile, BaselineManifest, { inputs });
  }
  return fetchedProject(recipe, built, record, paths, baseline);
}

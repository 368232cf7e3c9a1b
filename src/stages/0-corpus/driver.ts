import type { CacheLayout } from '../../core/cache.js';
import type { EventSink } from '../../events/types.js';
import type { Baseline } from '../../project/baseline.js';
import type { AppliedRemedy } from '../../project/fetched.js';
import { fetchState } from '../../project/fetched.js';
import { requestedRecipe, resolveProject, type RecipeRequest } from '../../project/project.js';
import { describeSource, loadRecipes } from '../../project/recipe.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { fetchCorpusProject } from './fetch.js';
import { replayTestClass, type ReplayOptions, type ReplayResult } from './replay.js';

/** A baseline in a few numbers, as `corpus list` and `corpus fetch` show it. */
export interface BaselineSummary {
  classes: number;
  usable: number;
  usableRatio: number;
  suiteStatus: Baseline['suite']['status'];
  suiteDurationMs: number;
}

export function baselineSummary(baseline: Baseline): BaselineSummary {
  const total = baseline.classes.length;
  return {
    classes: total,
    usable: baseline.usableCount,
    usableRatio: total === 0 ? 0 : Number((baseline.usableCount / total).toFixed(4)),
    suiteStatus: baseline.suite.status,
    suiteDurationMs: baseline.suite.durationMs,
  };
}

/** A corpus project and whether the cache holds it fetched. */
export interface CorpusRow {
  name: string;
  version: string;
  summary: string;
  source: string;
  cache:
    | { kind: 'Fetched'; path: string; baseline: BaselineSummary }
    | { kind: 'NotFetched'; reason: string };
}

/** `corpus list`: every corpus recipe, in order, with its state in the cache. */
export async function listCorpus(cache: CacheLayout): Promise<CorpusRow[]> {
  const rows: CorpusRow[] = [];
  for (const recipe of await loadRecipes()) {
    const state = await fetchState(cache, recipe);
    rows.push({
      name: recipe.name,
      version: recipe.version,
      summary: recipe.summary,
      source: describeSource(recipe.source),
      cache:
        state.kind === 'Fetched'
          ? {
              kind: 'Fetched',
              path: state.project.path,
              baseline: baselineSummary(state.project.baseline),
            }
          : { kind: 'NotFetched', reason: state.reason },
    });
  }
  return rows;
}

export interface CorpusFetchOptions extends RecipeRequest {
  /** Discard what is cached for the project and fetch again. */
  force: boolean;
}

/** What `corpus fetch` made: the pristine tree, how it was built, and its baseline. */
export interface CorpusFetchResult {
  name: string;
  version: string;
  path: string;
  commit: string;
  recipe: string;
  remedies: AppliedRemedy[];
  baseline: BaselineSummary;
  unusable: { testClass: string; reason: string }[];
}

/** `corpus fetch`: a corpus project, or a local one (adapted by the ladder), fetched and baselined. */
export async function fetchCorpus(
  argument: string | undefined,
  options: CorpusFetchOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<CorpusFetchResult> {
  const { recipe, adapt } = await requestedRecipe(argument, options, cache);
  const fetched = await fetchCorpusProject(recipe, cache, {
    toolchain: mavenToolchain,
    force: options.force,
    adapt,
    events,
  });
  return {
    name: fetched.name,
    version: fetched.version,
    path: fetched.path,
    commit: fetched.commit,
    recipe: fetched.recipeFile,
    remedies: fetched.remedies,
    baseline: baselineSummary(fetched.baseline),
    unusable: fetched.baseline.classes.flatMap((entry) =>
      entry.usability.kind === 'Unusable'
        ? [{ testClass: entry.testClass, reason: entry.usability.reason }]
        : [],
    ),
  };
}

/** `replay`: one test class of a corpus project or a local Maven project, in a disposable copy. */
export async function replayProjectClass(
  argument: string,
  options: Omit<ReplayOptions, 'toolchain' | 'cache'> & { recipe?: string },
  cache: CacheLayout,
): Promise<ReplayResult> {
  const { recipe, ...replay } = options;
  const project = await resolveProject(argument, cache, recipe);
  return replayTestClass(project, { ...replay, toolchain: mavenToolchain, cache });
}

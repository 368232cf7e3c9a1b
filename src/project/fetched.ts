import path from 'node:path';
import { z } from 'zod';
import { projectCache, type CacheLayout, type ProjectCache } from '../core/cache.js';
import { exists } from '../core/fs.js';
import { defineManifest, manifestBeside, readIfBuiltFrom } from '../records/manifest.js';
import { defineRecord, readRecordFile, type RecordOf } from '../records/record.js';
import { BaselineFile, type Baseline } from './baseline.js';
import { RecipeSchema, recipeBuildHash, type Recipe } from './recipe.js';

/*
 * What the cache holds for a recipe: the records `corpus fetch` writes (stages/0-corpus) and the
 * fetched project they make, read by every stage that works on one.
 */

/** A remedy the ladder applied: which, why, and the line of the build output that called for it. */
export const AppliedRemedySchema = z.strictObject({
  id: z.string(),
  why: z.string(),
  trigger: z.string(),
});
export type AppliedRemedy = z.infer<typeof AppliedRemedySchema>;

/**
 * `fetch.json`: the recipe asked for, its commit, when it compiled, and, when the fetch ladder
 * had to adapt the recipe, the recipe the tree was built with and the remedies that made it.
 */
export const FetchFile = defineRecord({
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
export type FetchRecord = RecordOf<typeof FetchFile>;

/** Beside `baseline.json`: the tree and recipe it was run on. */
export const BaselineManifestFile = defineManifest(
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

export type FetchState =
  | { kind: 'Fetched'; project: FetchedProject }
  /** `reason` completes "the project is …", e.g. `not fetched yet`. */
  | { kind: 'NotFetched'; reason: string };

/** What a baseline is run from: the recipe, the pristine tree, and the shape it is written in. */
export function baselineInputs(recipe: Recipe, pristineCommit: string) {
  return {
    recipeBuildHash: recipeBuildHash(recipe),
    pristineCommit,
    baselineVersion: BaselineFile.version,
  };
}

/**
 * The fetch record of a recipe's cache entry, if built from it: asked for as this recipe (and
 * perhaps adapted), or adapted into a recipe of the same build (the adapted recipe passed back
 * with --recipe). `built` is the recipe the tree holds.
 */
export async function readFetchRecord(
  file: string,
  recipe: Recipe,
): Promise<
  | { kind: 'Missing' }
  | { kind: 'Stale'; reason: string }
  | { kind: 'Current'; record: FetchRecord; built: Recipe }
> {
  const found = await readIfBuiltFrom(file, FetchFile, {});
  if (found.kind !== 'Current') return found;
  const { record } = found;
  const wanted = recipeBuildHash(recipe);
  if (record.inputs.recipeBuildHash === wanted) {
    return { kind: 'Current', record, built: record.adapted?.recipe ?? recipe };
  }
  if (record.adapted && recipeBuildHash(record.adapted.recipe) === wanted) {
    return { kind: 'Current', record, built: recipe };
  }
  return {
    kind: 'Stale',
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
  if (fetch.kind === 'Missing') return { kind: 'NotFetched', reason: 'not fetched yet' };
  if (fetch.kind === 'Stale')
    return { kind: 'NotFetched', reason: `out of date (${fetch.reason})` };
  const { record, built } = fetch;
  if (record.compiledAt === null || !(await exists(paths.pristine))) {
    return { kind: 'NotFetched', reason: 'only partly fetched' };
  }
  const manifest = await readIfBuiltFrom(
    manifestBeside(paths.baseline),
    BaselineManifestFile,
    baselineInputs(built, record.commit),
  );
  if (manifest.kind === 'Stale') {
    return { kind: 'NotFetched', reason: `out of date (${manifest.reason})` };
  }
  const baseline =
    manifest.kind === 'Current' ? await readRecordFile(paths.baseline, BaselineFile) : undefined;
  if (!baseline) return { kind: 'NotFetched', reason: 'only partly fetched' };
  return { kind: 'Fetched', project: fetchedProject(recipe, built, record, paths, baseline) };
}

export function fetchedProject(
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

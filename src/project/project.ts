import { createHash } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { projectCache, type CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { exists, sha256Text } from '../core/fs.js';
import {
  DEFAULT_TESTS,
  findRecipe,
  isRecipeFile,
  loadRecipeFile,
  loadRecipes,
  localRecipe,
  recipeBuildHash,
  withMavenArgs,
  type Recipe,
  type TestSelection,
} from './recipe.js';
import { DEFAULT_BUILD, type BuildSettings } from '../toolchains/build-settings.js';
import { BUILD_OUTPUT, projectLayout, type ProjectLayout } from '../toolchains/layout.js';
import type { Baseline } from './baseline.js';
import { fetchState } from './fetched.js';
import { baseState, type ProjectBase, type ProjectState } from './state.js';

/** A project ready to be copied and run: a fetched corpus project or any local Maven project. */
export interface ProjectRef {
  /** Corpus name and version, or the directory name for a local project. */
  label: string;
  /** The tree every state of this project starts from (`root` holds it, compiled). */
  base: ProjectBase;
  root: string;
  build: BuildSettings;
  layout: ProjectLayout;
  tests: TestSelection;
  recipe?: Recipe;
  baseline?: Baseline;
}

/** A project `corpus fetch` brought into the cache: built from a recipe, with a baseline. */
export interface FetchedProjectRef extends ProjectRef {
  recipe: Recipe;
  baseline: Baseline;
}

/** Whether a `<project>` argument names a directory rather than a corpus project. */
export async function isPathArgument(argument: string): Promise<boolean> {
  return argument.includes('/') || argument.startsWith('.') || (await exists(argument));
}

/** The absolute path of a Maven project directory, or a one-line user error. */
export async function requireMavenProject(directory: string): Promise<string> {
  const root = path.resolve(directory);
  if (!(await exists(root))) throw new UserError(`project directory ${root} does not exist`);
  if (!(await exists(path.join(root, 'pom.xml')))) {
    throw new UserError(
      `${root} is not a Maven project (no pom.xml): pass a directory with a pom.xml or a corpus name from 'witnessgym corpus list'`,
    );
  }
  return root;
}

/**
 * Resolves the `<project>` argument of a command: a corpus name (which must have been fetched)
 * or a path to a Maven project. `recipeName` applies a corpus recipe's build settings to a
 * local copy, e.g. an edited copy of a fetched project.
 */
export async function resolveProject(
  argument: string,
  cache: CacheLayout,
  recipeName?: string,
): Promise<ProjectRef> {
  let recipe: Recipe | undefined;
  if (recipeName) {
    recipe = await findRecipe(recipeName);
    if (!recipe) throw await unknownCorpusName(recipeName, '--recipe');
  }
  if (await isPathArgument(argument)) {
    const root = await requireMavenProject(argument);
    const build = recipe?.build ?? DEFAULT_BUILD;
    const tests = recipe?.tests ?? DEFAULT_TESTS;
    return {
      label: path.basename(root),
      base: {
        name: path.basename(root),
        version: 'local',
        commit: await treeHash(root),
        recipeHash: sha256Text(JSON.stringify([build, tests])).slice(0, 16),
      },
      root,
      build,
      layout: projectLayout(build),
      tests,
      ...(recipe ? { recipe } : {}),
    };
  }
  const corpusRecipe = recipe ?? (await findRecipe(argument));
  if (!corpusRecipe || (recipe && recipe.name !== argument)) {
    throw await unknownCorpusName(argument, 'project');
  }
  return fetchedProject(
    corpusRecipe,
    cache,
    `corpus project ${argument}`,
    fetchCommand(argument, {}),
  );
}

/** How a command's `<project>` is to be built: `--recipe` (a corpus name or a file), `--maven-arg`. */
export interface RecipeRequest {
  recipe?: string;
  mavenArgs?: string[];
}

/**
 * The recipe a `<project>` argument asks for, and whether the fetch ladder may adapt it (only a
 * path's own recipe: one someone wrote is taken as is). A corpus name gives its recipe; a path
 * its own recipe, or a corpus recipe's settings, or a recipe file's; with no argument, a recipe
 * file names its project. `--maven-arg` flags are added last, so they change the build's id.
 */
export async function requestedRecipe(
  argument: string | undefined,
  request: RecipeRequest,
  cache: CacheLayout,
): Promise<{ recipe: Recipe; adapt: boolean }> {
  const cached =
    argument !== undefined && !request.recipe ? await cachedTreeRecipe(argument, cache) : undefined;
  const asked = cached
    ? { recipe: cached, adapt: false }
    : await requestedBaseRecipe(argument, request.recipe);
  return { ...asked, recipe: withMavenArgs(asked.recipe, request.mavenArgs ?? []) };
}

/**
 * The recipe a fetched project's own pristine tree was built with, when `argument` is that tree:
 * a stage pointed at the cache's copy works on the project it belongs to, not on a new one.
 */
async function cachedTreeRecipe(argument: string, cache: CacheLayout): Promise<Recipe | undefined> {
  const root = path.resolve(argument);
  if (path.dirname(path.dirname(root)) !== path.resolve(cache.projects)) return undefined;
  for (const recipe of await loadRecipes()) {
    if (projectCache(cache, recipe).pristine === root) return recipe;
  }
  const owner = path.dirname(root);
  const written = path.join(owner, 'recipe.yaml');
  if (path.basename(root) !== 'pristine' || !(await exists(written))) return undefined;
  return loadRecipeFile(written);
}

async function requestedBaseRecipe(
  argument: string | undefined,
  recipeOption: string | undefined,
): Promise<{ recipe: Recipe; adapt: boolean }> {
  const isPath = argument !== undefined && (await isPathArgument(argument));
  if (recipeOption && isRecipeFile(recipeOption)) {
    if (argument !== undefined && !isPath) {
      throw new UserError(
        `--recipe ${recipeOption} is a recipe file: give it with a project path, not the corpus name '${argument}'`,
      );
    }
    const recipe = await loadRecipeFile(
      recipeOption,
      argument !== undefined ? await requireMavenProject(argument) : undefined,
    );
    if (recipe.source.kind === 'local') await requireMavenProject(recipe.source.path);
    return { recipe, adapt: false };
  }
  if (argument === undefined) {
    throw new UserError('name a corpus project or a project path, or give --recipe <file.yaml>');
  }
  const base = recipeOption ? await findRecipe(recipeOption) : undefined;
  if (recipeOption && !base) throw await unknownCorpusName(recipeOption, '--recipe');
  if (isPath) {
    return { recipe: localRecipe(await requireMavenProject(argument), base), adapt: !base };
  }
  const recipe = await findRecipe(argument);
  if (!recipe || (base && base.name !== argument)) {
    throw await unknownCorpusName(argument, 'corpus project');
  }
  return { recipe, adapt: false };
}

/** The command line that fetches what a stage's `<project>` and its options ask for. */
function fetchCommand(argument: string, request: RecipeRequest): string {
  const options = [
    ...(request.recipe ? [`--recipe ${request.recipe}`] : []),
    ...(request.mavenArgs ?? []).map((arg) => `--maven-arg=${arg}`),
  ];
  return ['witnessgym corpus fetch', argument, ...options].join(' ');
}

/**
 * Resolves the `<project>` of a stage, which works on a fetched project: a corpus name, or a
 * path fetched with `corpus fetch <path>` (with the same `--recipe` and `--maven-arg`), found by
 * the recipe that fetch asked for; so a path gives the same pristine copy, baseline and map as a
 * name, and the build settings the fetch ladder found.
 */
export async function resolveFetchedProject(
  argument: string,
  cache: CacheLayout,
  request: RecipeRequest = {},
): Promise<FetchedProjectRef> {
  const { recipe } = await requestedRecipe(argument, request, cache);
  const what =
    recipe.source.kind === 'local' && (await isPathArgument(argument))
      ? recipe.source.path
      : `corpus project ${argument}`;
  return fetchedProject(recipe, cache, what, fetchCommand(argument, request));
}

/** The fetched copy of a recipe's project in this cache, or a one-line error saying so. */
export async function projectOfRecipe(
  recipe: Recipe,
  cache: CacheLayout,
): Promise<FetchedProjectRef> {
  return fetchedProject(
    recipe,
    cache,
    `project ${recipe.name}@${recipe.version}`,
    `witnessgym corpus fetch ${recipe.name}`,
  );
}

/** The fetched copy of a recipe's project, or a one-line error saying how to fetch it. */
async function fetchedProject(
  recipe: Recipe,
  cache: CacheLayout,
  what: string,
  fetch: string,
): Promise<FetchedProjectRef> {
  const state = await fetchState(cache, recipe);
  if (state.kind !== 'Fetched') {
    throw new UserError(`${what} is ${state.reason}: run '${fetch}' first`);
  }
  const built = state.project.recipe;
  return {
    label: `${recipe.name}@${recipe.version}`,
    base: {
      name: recipe.name,
      version: recipe.version,
      commit: state.project.commit,
      recipeHash: recipeBuildHash(built),
    },
    root: state.project.path,
    build: built.build,
    layout: projectLayout(built.build),
    tests: built.tests,
    recipe: built,
    baseline: state.project.baseline,
  };
}

export async function unknownCorpusName(name: string, what: string): Promise<UserError> {
  const known = (await loadRecipes()).map((recipe) => recipe.name).join(', ');
  return new UserError(
    `unknown ${what} '${name}': not a corpus name (known: ${known}) nor a directory with a pom.xml`,
  );
}

/** The state a project's root holds: its base, unpatched. */
export function pristineState(project: ProjectRef): ProjectState {
  return baseState(project.base);
}

/** Build output and version control are not part of a tree's identity. */
const NOT_TREE = new Set([BUILD_OUTPUT, '.git']);

/** A content hash of a local project's files, standing in for a pristine commit. */
async function treeHash(root: string): Promise<string> {
  const hash = createHash('sha256');
  const walk = async (dir: string, relative: string): Promise<void> => {
    const entries = (await readdir(dir, { withFileTypes: true })).sort((a, b) =>
      a.name < b.name ? -1 : 1,
    );
    for (const entry of entries) {
      if (NOT_TREE.has(entry.name)) continue;
      const rel = relative ? `${relative}/${entry.name}` : entry.name;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full, rel);
      else if (entry.isFile())
        hash
          .update(`${rel}\0`)
          .update(await readFile(full))
          .update('\0');
    }
  };
  await walk(root, '');
  return `tree-${hash.digest('hex').slice(0, 24)}`;
}

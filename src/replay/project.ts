import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { exists } from '../core/fs.js';
import type { Baseline } from '../stages/0-corpus/baseline.js';
import { fetchState } from '../stages/0-corpus/fetch.js';
import {
  DEFAULT_BUILD,
  DEFAULT_TESTS,
  findRecipe,
  loadRecipes,
  type BuildSettings,
  type Recipe,
  type TestSelection,
} from '../stages/0-corpus/recipe.js';

/** A project ready to be copied and run: a fetched corpus project or any local Maven project. */
export interface ProjectRef {
  /** Corpus name and version, or the directory name for a local project. */
  label: string;
  root: string;
  build: BuildSettings;
  tests: TestSelection;
  recipe?: Recipe;
  baseline?: Baseline;
  /** The pristine tree's commit, for a fetched corpus project. */
  commit?: string;
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
    return {
      label: path.basename(root),
      root,
      build: recipe?.build ?? DEFAULT_BUILD,
      tests: recipe?.tests ?? DEFAULT_TESTS,
      ...(recipe ? { recipe } : {}),
    };
  }
  const corpusRecipe = recipe ?? (await findRecipe(argument));
  if (!corpusRecipe || (recipe && recipe.name !== argument)) {
    throw await unknownCorpusName(argument, 'project');
  }
  const state = await fetchState(cache, corpusRecipe);
  if (state.kind !== 'fetched') {
    throw new UserError(
      `corpus project ${argument} is ${state.reason}: run 'witnessgym corpus fetch ${argument}' first`,
    );
  }
  return {
    label: `${corpusRecipe.name}@${corpusRecipe.version}`,
    root: state.project.path,
    build: corpusRecipe.build,
    tests: corpusRecipe.tests,
    recipe: corpusRecipe,
    baseline: state.project.baseline,
    commit: state.project.commit,
  };
}

export async function unknownCorpusName(name: string, what: string): Promise<UserError> {
  const known = (await loadRecipes()).map((recipe) => recipe.name).join(', ');
  return new UserError(
    `unknown ${what} '${name}': not a corpus name (known: ${known}) nor a directory with a pom.xml`,
  );
}

import type { CacheLayout } from '../../core/cache.js';
import { silent } from '../../events/types.js';
import { UnitRefused } from '../../jobs/kind.js';
import { projectOfRecipe, type FetchedProjectRef } from '../../project/project.js';
import type { Recipe } from '../../project/recipe.js';
import type { ProjectBase } from '../../project/state.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { fetchCorpusProject } from './fetch.js';

/**
 * A project as a queue's worker has it: fetched into the worker's own cache from the recipe the
 * coordinator pinned (the first unit of a project on a host fetches it, later ones find it), and
 * refused when this host's tree came out otherwise than the coordinator's.
 */
export async function projectOnHost(
  recipe: Recipe,
  expected: ProjectBase,
  cache: CacheLayout,
): Promise<FetchedProjectRef> {
  await fetchCorpusProject(recipe, cache, { toolchain: mavenToolchain, events: silent });
  const project = await projectOfRecipe(recipe, cache);
  if (project.base.commit !== expected.commit || project.base.recipeHash !== expected.recipeHash) {
    throw new UnitRefused(
      `${project.label} on this host is commit ${project.base.commit} of recipe ${project.base.recipeHash}, the coordinator's ${expected.commit} of ${expected.recipeHash}`,
    );
  }
  return project;
}

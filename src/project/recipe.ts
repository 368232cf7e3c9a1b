import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml, stringify as stringifyYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { readTextIfExists, sha256Text, writeFileAtomic } from '../core/fs.js';
import { packageRoot } from '../core/package-root.js';
import { BuildSettingsSchema } from '../toolchains/build-settings.js';

export const TestSelectionSchema = z.strictObject({
  /** Surefire `-Dtest` patterns selecting the suite; empty keeps the pom's own selection. */
  include: z.array(z.string()).default([]),
  /** Patterns removed from the suite (become `!pattern`). */
  exclude: z.array(z.string()).default([]),
  classTimeoutSeconds: z.number().int().positive().default(300),
  suiteTimeoutSeconds: z.number().int().positive().default(3600),
});
export type TestSelection = z.infer<typeof TestSelectionSchema>;

const DebianSourceSchema = z.strictObject({
  kind: z.literal('debian'),
  /** Debian source package name, e.g. `libcommons-codec-java`. */
  package: z.string().min(1),
  /** Exact Debian version, e.g. `1.15-1`. */
  version: z.string().min(1),
  /** The upstream tarball inside the source package. */
  file: z.string().min(1),
  sha256: z.string().regex(/^[0-9a-f]{64}$/, 'sha256 must be 64 lowercase hex digits'),
  /** Top-level directory inside the tarball. */
  root: z.string().min(1),
});

/** Any Maven project on disk, copied (without .git and target/) rather than downloaded. */
const LocalSourceSchema = z.strictObject({
  kind: z.literal('local'),
  path: z.string().min(1),
});

export const RecipeSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9.-]*$/, 'name: lowercase letters, digits, dots, dashes'),
  version: z.string().min(1),
  summary: z.string().min(1),
  source: z.discriminatedUnion('kind', [DebianSourceSchema, LocalSourceSchema]),
  build: BuildSettingsSchema.default(BuildSettingsSchema.parse({})),
  tests: TestSelectionSchema.default(TestSelectionSchema.parse({})),
  /** Globs (relative to the project root) deleted after unpacking, e.g. known-failing tests. */
  remove: z.array(z.string()).default([]),
  /** Minimal unified diff applied after unpacking, where upstream does not build on JDK 17. */
  patch: z.string().default(''),
  notes: z.string().default(''),
});
export type Recipe = z.infer<typeof RecipeSchema>;

/**
 * A recipe for a local Maven project: named after its directory, versioned by its absolute path,
 * with the build settings of `base` when given (a corpus recipe borrowed for an edited copy).
 */
export function localRecipe(directory: string, base?: Recipe): Recipe {
  const absolute = path.resolve(directory);
  const name =
    path
      .basename(absolute)
      .toLowerCase()
      .replace(/[^a-z0-9.-]+/g, '-')
      .replace(/^[^a-z0-9]+/, '') || 'project';
  return RecipeSchema.parse({
    name,
    version: `local-${sha256Text(absolute).slice(0, 8)}`,
    summary: `local Maven project at ${absolute}`,
    source: { kind: 'local', path: absolute },
    ...(base ? { build: base.build, tests: base.tests } : {}),
  });
}

/**
 * Id of what a recipe builds: the tree (source, removals, patch), how it is built and which tests
 * make its baseline. Name, summary and notes are left out, so editing them rebuilds nothing.
 */
export function recipeBuildHash(recipe: Recipe): string {
  const { source, remove, patch, build, tests } = recipe;
  return sha256Text(JSON.stringify({ source, remove, patch, build, tests })).slice(0, 16);
}

export function describeSource(source: Recipe['source']): string {
  return source.kind === 'debian'
    ? `debian:${source.package}=${source.version}`
    : `local:${source.path}`;
}

export const DEFAULT_TESTS: TestSelection = TestSelectionSchema.parse({});

export function recipesDir(): string {
  return path.join(packageRoot(), 'corpus', 'recipes');
}

function parseWith<T>(schema: z.ZodType<T>, text: string, origin: string): T {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new UserError(
      `recipe ${origin} is not valid YAML: ${(error as Error).message.split('\n')[0]}`,
    );
  }
  const result = schema.safeParse(data);
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new UserError(
      `recipe ${origin} is malformed at ${issue.path.join('.') || '(top)'}: ${issue.message}`,
    );
  }
  return result.data;
}

export function parseRecipe(text: string, origin: string): Recipe {
  return parseWith(RecipeSchema, text, origin);
}

/** A recipe someone wrote for a local project may leave its identity to the project's path. */
const UserRecipeSchema = RecipeSchema.partial({
  name: true,
  version: true,
  summary: true,
  source: true,
});

/** Whether a `--recipe` value names a recipe file rather than a corpus recipe. */
export function isRecipeFile(value: string): boolean {
  return /\.ya?ml$/i.test(value) || value.includes('/');
}

/**
 * A recipe file in the corpus format, for a local project. With `projectDir` (the path given on
 * the command line) name, version, summary and source may be left out and default to those of
 * the path's own recipe; a source the file gives must be that path. Without it, the file's source
 * says what to fetch; a local source path is relative to the file.
 */
export async function loadRecipeFile(file: string, projectDir?: string): Promise<Recipe> {
  const text = await readTextIfExists(path.resolve(file));
  if (text === undefined) throw new UserError(`recipe file ${path.resolve(file)} does not exist`);
  const data = parseWith(UserRecipeSchema, text, file);
  const source =
    data.source?.kind === 'local'
      ? { ...data.source, path: path.resolve(path.dirname(file), data.source.path) }
      : data.source;
  if (projectDir) {
    const root = path.resolve(projectDir);
    if (source && !(source.kind === 'local' && source.path === root)) {
      throw new UserError(
        `recipe ${file} is for ${describeSource(source)}, not ${root}: leave out the path or the recipe's source`,
      );
    }
    return RecipeSchema.parse({
      ...localRecipe(root),
      ...data,
      source: { kind: 'local', path: root },
    });
  }
  if (!source) {
    throw new UserError(
      `recipe ${file} has no source: give the project's path too, or set source (kind: local, path)`,
    );
  }
  const defaults = source.kind === 'local' ? localRecipe(source.path) : {};
  const result = RecipeSchema.safeParse({ ...defaults, ...data, source });
  if (!result.success) {
    const issue = result.error.issues[0]!;
    throw new UserError(`recipe ${file} is malformed at ${issue.path.join('.')}: ${issue.message}`);
  }
  return result.data;
}

/** A recipe as a YAML file in the corpus format, as `--recipe` reads it back. */
export async function writeRecipeFile(file: string, recipe: Recipe): Promise<void> {
  const header = '# The recipe witnessgym built this project with; pass it back with --recipe.\n';
  await writeFileAtomic(file, header + stringifyYaml(recipe, { lineWidth: 0 }));
}

/** `recipe` with one-off Maven flags added to its build (so a build of another recipe hash). */
export function withMavenArgs(recipe: Recipe, args: readonly string[]): Recipe {
  if (args.length === 0) return recipe;
  return { ...recipe, build: { ...recipe.build, mavenArgs: [...recipe.build.mavenArgs, ...args] } };
}

export async function loadRecipes(dir = recipesDir()): Promise<Recipe[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
  const recipes: Recipe[] = [];
  for (const name of names) {
    const recipe = parseRecipe(await readFile(path.join(dir, name), 'utf8'), name);
    if (`${recipe.name}.yaml` !== name) {
      throw new UserError(`recipe ${name} declares name '${recipe.name}': rename one to match`);
    }
    recipes.push(recipe);
  }
  return recipes;
}

export async function findRecipe(name: string): Promise<Recipe | undefined> {
  return (await loadRecipes()).find((recipe) => recipe.name === name);
}

/** `-Dtest` value for a selection, or undefined to keep the pom's own includes and excludes. */
export function surefireTestPattern(tests: TestSelection): string | undefined {
  if (tests.include.length === 0 && tests.exclude.length === 0) return undefined;
  const include =
    tests.include.length > 0
      ? tests.include
      : ['**/*Test', '**/Test*', '**/*Tests', '**/*TestCase'];
  return [...include, ...tests.exclude.map((pattern) => `!${pattern}`)].join(',');
}

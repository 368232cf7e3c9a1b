import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { makeTempDir, readTextIfExists, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import { BUILD_OUTPUT } from '../../toolchains/layout.js';
import { failedGoal } from '../../toolchains/maven/output.js';
import {
  applyPomEdit,
  javaLevelAsWritten,
  type PomEdit,
  type PomFile,
} from '../../toolchains/maven/pom-edit.js';
import type { AppliedRemedy } from '../../project/fetched.js';
import { recipeBuildHash, type Recipe } from '../../project/recipe.js';
import { matchingRemedies, type Remedy } from './remedies.js';

/*
 * The fetch ladder's step: from a failed build's output to the recipe with the next remedy.
 */

/** The pom.xml files of a project tree, relative to its root; build output and VCS left out. */
async function readPoms(root: string): Promise<PomFile[]> {
  const entries = await readdir(root, { withFileTypes: true, recursive: true });
  const poms: PomFile[] = [];
  for (const entry of entries) {
    if (!entry.isFile() || entry.name !== 'pom.xml') continue;
    const relative = path.relative(root, path.join(entry.parentPath, entry.name));
    const parts = relative.split(path.sep);
    if (parts.some((part) => part === BUILD_OUTPUT || part === '.git')) continue;
    const text = await readTextIfExists(path.join(root, relative));
    if (text !== undefined) poms.push({ path: parts.join('/'), text });
  }
  return poms.sort((a, b) => a.path.localeCompare(b.path));
}

/** A unified diff of the poms that differ, with `a/` and `b/` paths as `git apply` reads them. */
async function pomDiff(original: PomFile[], edited: PomFile[]): Promise<string> {
  const dir = await makeTempDir('pom-diff');
  try {
    let patch = '';
    for (const pom of edited) {
      const before = original.find((candidate) => candidate.path === pom.path)?.text ?? '';
      if (before === pom.text) continue;
      const [from, to] = [path.join(dir, 'before.xml'), path.join(dir, 'after.xml')];
      await writeFile(from, before);
      await writeFile(to, pom.text);
      const diff = await runProcess(
        'diff',
        ['-u', '--label', `a/${pom.path}`, '--label', `b/${pom.path}`, from, to],
        { timeoutMs: 60_000 },
      );
      // diff exits 1 when the files differ, 2 on trouble.
      if (diff.exitCode !== 1) throw new Error(`diff of ${pom.path} failed: ${diff.stderr}`);
      patch += diff.stdout;
    }
    return patch;
  } finally {
    await removeTree(dir);
  }
}

/** The execution whose goal failed, as an edit that unbinds it. */
function failedExecution(buildOutput: string): PomEdit | undefined {
  const failed = failedGoal(buildOutput);
  const [groupId, artifactId] = failed?.goal.split(':') ?? [];
  if (!failed?.execution || !groupId || !artifactId) return undefined;
  return { kind: 'disable-execution', groupId, artifactId, executionId: failed.execution };
}

/**
 * `recipe` with one remedy added: Maven flags appended (once each) to its build, pom edits made
 * to the tree's poms as they stand in `tree` and recorded, as a diff from `sourceRoot`, in its
 * patch (the recipe's patch holds pom edits only: the ladder adapts recipes made for a path).
 */
async function withRemedy(
  recipe: Recipe,
  remedy: Remedy,
  buildOutput: string,
  sourceRoot: string,
  tree: string,
): Promise<Recipe> {
  const mavenArgs = [...recipe.build.mavenArgs];
  let poms: PomFile[] | undefined;
  const addArgs = (args: string[]) => {
    for (const arg of args) if (!mavenArgs.includes(arg)) mavenArgs.push(arg);
  };
  for (const action of remedy.adds) {
    if (action.kind === 'maven-args') {
      addArgs(action.args);
      continue;
    }
    if (action.kind === 'java-level-args') {
      // Spelled from the poms as they stand, before this remedy's edits raise their levels.
      const level = javaLevelAsWritten(await readPoms(tree), action.level);
      addArgs([`-Dmaven.compiler.source=${level}`, `-Dmaven.compiler.target=${level}`]);
      continue;
    }
    const edit = action.kind === 'pom-edit' ? action.edit : failedExecution(buildOutput);
    if (!edit) continue;
    poms ??= await readPoms(tree);
    for (const changed of applyPomEdit(poms, 'pom.xml', edit)) {
      poms = poms.map((pom) => (pom.path === changed.path ? changed : pom));
    }
  }
  const patch = poms ? await pomDiff(await readPoms(sourceRoot), poms) : recipe.patch;
  const note = `fetch ladder, ${remedy.id}: ${remedy.why}`;
  return {
    ...recipe,
    build: { ...recipe.build, mavenArgs },
    patch,
    notes: recipe.notes ? `${recipe.notes}\n${note}` : note,
  };
}

/**
 * The next step of the ladder after a failed build: the recipe with the first remedy whose
 * signature `buildOutput` shows, that is not applied yet and changes the build; undefined when
 * none does. `tree` is the project as built (the recipe's patch applied), `sourceRoot` the
 * original it was copied from.
 */
export async function adaptRecipe(
  recipe: Recipe,
  buildOutput: string,
  applied: readonly AppliedRemedy[],
  sourceRoot: string,
  tree: string,
): Promise<{ recipe: Recipe; remedy: AppliedRemedy } | undefined> {
  for (const { remedy, trigger } of matchingRemedies(buildOutput)) {
    if (applied.some((done) => done.id === remedy.id)) continue;
    const adapted = await withRemedy(recipe, remedy, buildOutput, sourceRoot, tree);
    if (recipeBuildHash(adapted) === recipeBuildHash(recipe)) continue;
    return { recipe: adapted, remedy: { id: remedy.id, why: remedy.why, trigger } };
  }
  return undefined;
}

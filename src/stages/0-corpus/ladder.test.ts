import { readFileSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { copyProjectTree, makeTempDir } from '../../core/fs.js';
import { packageRoot } from '../../core/package-root.js';
import { runProcess } from '../../core/process.js';
import { adaptRecipe } from './ladder.js';
import { localRecipe, withMavenArgs, type Recipe } from '../../project/recipe.js';

const load = (name: string) =>
  readFileSync(path.join(packageRoot(), 'test', 'fixtures', 'maven-output', name), 'utf8');

/** A fixture project as the ladder sees it: its source, and a tree to build (a copy). */
async function project(fixture: string): Promise<{ source: string; tree: string }> {
  const dir = await makeTempDir('ladder-test');
  const source = path.join(dir, 'source');
  const tree = path.join(dir, 'tree');
  await copyProjectTree(path.join(packageRoot(), 'test', 'fixtures', fixture), source);
  await copyProjectTree(source, tree);
  return { source, tree };
}

/** A fresh copy of `source` with the recipe's patch applied as fetch applies it. */
async function patched(source: string, recipe: Recipe): Promise<string> {
  const copy = path.join(await makeTempDir('ladder-test'), 'tree');
  await copyProjectTree(source, copy);
  await writeFile(path.join(copy, '..', 'p.patch'), recipe.patch);
  const run = await runProcess('git', ['apply', '../p.patch'], { cwd: copy, timeoutMs: 60_000 });
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
  return copy;
}

/** A project of one pom, as the ladder sees it (source and tree the same). */
async function onePom(text: string): Promise<string> {
  const dir = path.join(await makeTempDir('ladder-test'), 'project');
  await mkdir(dir);
  await writeFile(path.join(dir, 'pom.xml'), text);
  return dir;
}

/** commons-cli 1.4's own levels, inherited by commons-parent 42's animal-sniffer signature. */
const COMMONS_CLI_POM = `<project>
  <parent><groupId>org.apache.commons</groupId><artifactId>commons-parent</artifactId><version>42</version></parent>
  <artifactId>commons-cli</artifactId>
  <properties>
    <maven.compiler.source>1.5</maven.compiler.source>
    <maven.compiler.target>1.5</maven.compiler.target>
  </properties>
</project>
`;

describe('the fetch ladder, one step', () => {
  it('raises a level written 1.5 to 1.8, in the pom and the flags, so a parent reading its digits finds java18', async () => {
    const source = await onePom(COMMONS_CLI_POM);
    const step = await adaptRecipe(
      localRecipe(source),
      load('ladder-unpinned-compiler-3.1.txt'),
      [{ id: 'pin-compiler-plugin', why: '', trigger: '' }],
      source,
      source,
    );
    expect(step?.remedy.id).toBe('raise-java-level');
    expect(step!.recipe.build.mavenArgs).toEqual([
      '-Dmaven.compiler.source=1.8',
      '-Dmaven.compiler.target=1.8',
    ]);
    const pom = await readFile(path.join(await patched(source, step!.recipe), 'pom.xml'), 'utf8');
    expect(pom).toContain('<maven.compiler.target>1.8</maven.compiler.target>');
  });

  it('unbinds the execution of a plugin whose own artifact Central lacks, in the root pom', async () => {
    const source = await onePom(COMMONS_CLI_POM);
    // The real failure, of a plugin without a skip flag the table knows.
    const output = load('animal-sniffer-java80-signature.txt').replaceAll(
      'org.codehaus.mojo:animal-sniffer-maven-plugin',
      'org.example:signature-maven-plugin',
    );
    const step = await adaptRecipe(localRecipe(source), output, [], source, source);
    expect(step?.remedy.id).toBe('skip-unresolvable-plugin');
    expect(step!.remedy.trigger).toMatch(/^org\.example:signature-maven-plugin:1\.15:check: /);
    expect(step!.recipe.notes).toMatch(/^fetch ladder, skip-unresolvable-plugin: /);
    const pom = await readFile(path.join(await patched(source, step!.recipe), 'pom.xml'), 'utf8');
    expect(pom).toMatch(
      /<artifactId>signature-maven-plugin<\/artifactId>\s*<executions>\s*<execution>\s*<id>checkAPIcompatibility<\/id>\s*<phase>none<\/phase>/,
    );
  });

  it('pins the compiler plugin by a pom patch that applies to the source', async () => {
    const { source, tree } = await project('ladder-unpinned-compiler');
    const recipe = localRecipe(source);
    const step = await adaptRecipe(
      recipe,
      load('ladder-unpinned-compiler-3.1.txt'),
      [],
      source,
      tree,
    );
    expect(step?.remedy).toMatchObject({
      id: 'pin-compiler-plugin',
      trigger: 'Source option 5 is no longer supported. Use 7 or later.',
    });
    expect(step!.recipe.build.mavenArgs).toEqual([]);
    expect(step!.recipe.notes).toMatch(/^fetch ladder, pin-compiler-plugin: /);
    const pom = await readFile(path.join(await patched(source, step!.recipe), 'pom.xml'), 'utf8');
    expect(pom).toMatch(/<artifactId>maven-compiler-plugin<\/artifactId>\s*<version>3\.11\.0</);
  });

  it('records every pom edit so far in one patch, from the source', async () => {
    const { source } = await project('ladder-release6-bundle');
    const first = await adaptRecipe(
      localRecipe(source),
      load('ladder-release-6.txt'),
      [],
      source,
      source,
    );
    expect(first?.remedy.id).toBe('raise-java-level');
    expect(first!.recipe.build.mavenArgs).toEqual([
      '-Dmaven.compiler.source=8',
      '-Dmaven.compiler.target=8',
    ]);
    const tree = await patched(source, first!.recipe);
    const second = await adaptRecipe(
      first!.recipe,
      load('ladder-bundle-manifest-jdk17.txt'),
      [first!.remedy],
      source,
      tree,
    );
    expect(second?.remedy.id).toBe('pin-bundle-plugin');
    const parent = await readFile(
      path.join(await patched(source, second!.recipe), 'parent', 'pom.xml'),
      'utf8',
    );
    expect(parent).toContain('<release>8</release>');
    expect(parent).toContain('<version>5.1.8</version>');
    expect(second!.recipe.notes.split('\n')).toHaveLength(2);
  });

  it('passes over remedies applied already or changing nothing, and then has none', async () => {
    const { source, tree } = await project('ladder-release8-tests');
    const log = load('ladder-toarray-ambiguous.txt');
    const step = await adaptRecipe(localRecipe(source), log, [], source, tree);
    expect(step?.remedy.id).toBe('release-8-api');
    expect(step!.recipe.build.mavenArgs).toEqual(['-Dmaven.compiler.release=8']);
    expect(await adaptRecipe(step!.recipe, log, [step!.remedy], source, tree)).toBeUndefined();
    const flagged = withMavenArgs(localRecipe(source), ['-Dmaven.compiler.release=8']);
    expect(await adaptRecipe(flagged, log, [], source, tree)).toBeUndefined();
    expect(
      await adaptRecipe(flagged, load('compile-error-compiler-2.3.2.txt'), [], source, tree),
    ).toBeUndefined();
  });
});

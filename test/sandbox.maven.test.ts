import { existsSync } from 'node:fs';
import { readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { copyProjectTree, makeTempDir, removeTree } from '../src/core/fs.js';
import { runProcess } from '../src/core/process.js';
import { createSandbox, MAVEN_REPO_IN_SANDBOX, type Sandbox } from '../src/sandbox/bwrap.js';
import { findRecipe } from '../src/stages/0-corpus/recipe.js';
import { testJvmArgs } from '../src/toolchains/build.js';
import { fetchCorpus } from './helpers.js';

/** commons-csv's own artifact: never installed into the repository, but masked all the same. */
const OWN_ARTIFACT = 'org/apache/commons/commons-csv/1.9.0';
/**
 * A directory that is in the repository (json-simple's tests need it) and that commons-csv's
 * build does not: the stand-in that shows masking on the real repository.
 */
const PRESENT_ARTIFACT = 'junit/junit/4.12';

describe('an agent sandbox running real Maven', () => {
  let root: string;
  let workspace: string;
  let sandbox: Sandbox;

  beforeAll(async () => {
    const pristine = await fetchCorpus('commons-csv');
    await fetchCorpus('json-simple'); // puts PRESENT_ARTIFACT into the repository
    const repo = cacheLayout(resolveCacheDir()).mavenRepo;
    expect(existsSync(path.join(repo, PRESENT_ARTIFACT, 'junit-4.12.jar'))).toBe(true);
    root = await makeTempDir('sandbox-maven');
    workspace = path.join(root, 'commons-csv');
    await copyProjectTree(pristine, workspace);
    // The pristine tree carries the baseline's reports: a pass must come from this run.
    await rm(path.join(workspace, 'target', 'surefire-reports'), { recursive: true, force: true });
    sandbox = await createSandbox({
      workspace,
      mavenRepo: { dir: repo, masked: [OWN_ARTIFACT, PRESENT_ARTIFACT] },
      network: false,
    });
  });

  afterAll(async () => {
    await sandbox?.dispose();
    if (root) await removeTree(root);
  });

  it('runs a test class offline from the read-only repository, the masked jars out of sight', async () => {
    const build = (await findRecipe('commons-csv'))!.build;
    // No -o and no -Dmaven.repo.local: the sandbox's settings.xml must supply both. Surefire by
    // coordinates as the harness runs it: the pom's own version is not in the repository.
    const mvn = [
      '-B',
      '-q',
      ...build.mavenArgs,
      'test-compile',
      `org.apache.maven.plugins:maven-surefire-plugin:${build.surefireVersion}:test`,
      '-Dtest=CSVFormatTest',
      `-DargLine=${testJvmArgs(build).join(' ')}`,
    ];
    const wrapped = sandbox.wrap('mvn', mvn, workspace);
    const run = await runProcess(wrapped.file, wrapped.args, {
      cwd: wrapped.cwd,
      env: sandbox.env(),
      timeoutMs: 150_000,
    });
    expect(run.exitCode, run.stdout + run.stderr).toBe(0);
    const report = await readFile(
      path.join(workspace, 'target/surefire-reports/TEST-org.apache.commons.csv.CSVFormatTest.xml'),
      'utf8',
    );
    expect(report).toMatch(/tests="[1-9]\d*"/);
    expect(report).toMatch(/failures="0"/);

    const shell = async (script: string) => {
      const wrapped = sandbox.wrap('/bin/sh', ['-c', script], workspace);
      return (
        await runProcess(wrapped.file, wrapped.args, { cwd: wrapped.cwd, env: sandbox.env() })
      ).stdout;
    };
    expect(
      await shell(
        `find / \\( -name 'commons-csv-1.9.0*.jar' -o -name 'junit-4.12*' \\) 2>/dev/null`,
      ),
    ).toBe('');
    expect(await shell(`ls -A ${MAVEN_REPO_IN_SANDBOX}/${PRESENT_ARTIFACT}`)).toBe('');
    // The rest of the repository is there: the parent POM the build read, for one.
    expect(await shell(`ls ${MAVEN_REPO_IN_SANDBOX}/org/apache/commons/commons-parent/52`)).toMatch(
      /^commons-parent-52\.pom$/m,
    );
  });
});

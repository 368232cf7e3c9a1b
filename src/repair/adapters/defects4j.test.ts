import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { cp, readFile, rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import { copyProjectTree, makeTempDir, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import { reversePatch } from '../patch.js';
import { fromDefects4j, triggerTests } from './defects4j.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../../test/fixtures/repair/defects4j');
const CSV_LIKE = path.join(FIXTURE, 'Csv-like');
const SHARED_DEFECTS4J = path.resolve(import.meta.dirname, '../../../../shared/data/defects4j');
const READER = 'src/main/java/org/apache/commons/csv/ExtendedBufferedReader.java';

let work: string;
beforeEach(async () => {
  work = await makeTempDir('defects4j');
});
afterEach(async () => {
  await removeTree(work);
});

async function gitApply(tree: string, patch: string, ...flags: string[]): Promise<void> {
  const file = path.join(work, 'change.patch');
  await writeFile(file, patch);
  const run = await runProcess('git', ['apply', ...flags, file], { cwd: tree, timeoutMs: 60_000 });
  expect(run.exitCode, run.stderr).toBe(0);
}

/** A copy of the fixture's project folder, to change for one test. */
async function projectCopy(name = 'Csv-like'): Promise<string> {
  const dir = path.join(work, name);
  await cp(CSV_LIKE, dir, { recursive: true });
  return dir;
}

async function refusal(bug: Parameters<typeof fromDefects4j>[0]): Promise<string> {
  const error = await fromDefects4j(bug).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UserError);
  return (error as Error).message;
}

describe('fromDefects4j', () => {
  it('reads the fixture bug into an instance whose gold patch fixes its buggy snapshot', async () => {
    const instance = await fromDefects4j({
      metadataDir: CSV_LIKE,
      bug: 1,
      snapshot: 'Csv-like-1b',
    });
    const stored = readFileSync(path.join(CSV_LIKE, 'patches/1.src.patch'), 'utf8');
    expect(instance).toEqual({
      instance_id: 'Csv-like-1',
      repo: 'Csv-like',
      base_commit: '0833f45bffd40f44ba6f294d84e9bac8a9ba0a37',
      snapshot: 'Csv-like-1b',
      patch: reversePatch(stored),
      test_patch: '',
      FAIL_TO_PASS: ['org.apache.commons.csv.CSVParserTest#testGetLineNumberWithCR'],
      PASS_TO_PASS: [],
      problem_statement: 'CSV-75: https://issues.apache.org/jira/browse/CSV-75',
      module: '.',
      maven_flags: [],
      origin: { kind: 'defects4j', project: 'Csv-like', bug: 1 },
    });

    const tree = path.join(work, 'tree');
    await copyProjectTree(path.join(FIXTURE, 'snapshots/Csv-like-1b'), tree);
    await gitApply(tree, instance.patch);
    const fixed = await readFile(path.join(tree, READER), 'utf8');
    expect(fixed).toContain("if (current == '\\r' || (current == '\\n' && lastChar != '\\r')) {");
    // The stored patch, fixed → buggy, applies to what the gold patch made.
    await gitApply(tree, stored, '--check');
  });

  it('takes the repository from a GitHub report and the module from the paths the patch changes', async () => {
    const dir = await projectCopy('Gson');
    await writeFile(
      path.join(dir, 'active-bugs.csv'),
      'bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n' +
        '1,4413c29,c6a4f55,40,https://github.com/google/gson/issues/40\n',
    );
    const stored = readFileSync(path.join(dir, 'patches/1.src.patch'), 'utf8');
    await writeFile(
      path.join(dir, 'patches/1.src.patch'),
      stored.replace(/ ([ab])\/src\//g, ' $1/gson/src/'),
    );
    const instance = await fromDefects4j({ metadataDir: dir, bug: 1, snapshot: 's' });
    expect(instance.repo).toBe('google/gson');
    expect(instance.module).toBe('gson');
    expect(instance.problem_statement).toBe('40: https://github.com/google/gson/issues/40');
    expect(instance.patch).toContain(
      '+++ b/gson/src/main/java/org/apache/commons/csv/ExtendedBufferedReader.java',
    );
  });

  it('leaves the problem statement empty for a bug without a report', async () => {
    const dir = await projectCopy('Chart');
    await writeFile(
      path.join(dir, 'active-bugs.csv'),
      'bug.id,revision.id.buggy,revision.id.fixed,report.id,report.url\n1,2225,2227,UNKNOWN,UNKNOWN\n',
    );
    const instance = await fromDefects4j({ metadataDir: dir, bug: 1, snapshot: 's' });
    expect(instance.problem_statement).toBe('');
    expect(instance.base_commit).toBe('2225');
  });

  it('refuses a bug it cannot read, naming what is missing', async () => {
    expect(await refusal({ metadataDir: CSV_LIKE, bug: 2, snapshot: 's' })).toBe(
      `bug 2 is not among Csv-like's active bugs (${CSV_LIKE}/active-bugs.csv)`,
    );
    expect(await refusal({ metadataDir: CSV_LIKE, bug: 0, snapshot: 's' })).toMatch(
      /positive integers/,
    );
    expect(await refusal({ metadataDir: work, bug: 1, snapshot: 's' })).toBe(
      `${work} is not a Defects4J project folder: it has no active-bugs.csv`,
    );
    const dir = await projectCopy();
    await rm(path.join(dir, 'trigger_tests/1'));
    expect(await refusal({ metadataDir: dir, bug: 1, snapshot: 's' })).toBe(
      `Csv-like bug 1 has no ${dir}/trigger_tests/1`,
    );
    await rm(path.join(dir, 'patches/1.src.patch'));
    expect(await refusal({ metadataDir: dir, bug: 1, snapshot: 's' })).toBe(
      `Csv-like bug 1 has no ${dir}/patches/1.src.patch`,
    );
  });

  it('refuses a patch it cannot reverse, naming the file', async () => {
    const dir = await projectCopy();
    await writeFile(
      path.join(dir, 'patches/1.src.patch'),
      '--- a/A.java\n+++ b/A.java\n@@ -1,3 +1,3 @@\n x\n',
    );
    expect(await refusal({ metadataDir: dir, bug: 1, snapshot: 's' })).toBe(
      `${dir}/patches/1.src.patch: the hunk at line 3 ends early`,
    );
  });

  // Every bug of the shared Defects4J data, when it is next to this checkout.
  it.runIf(existsSync(SHARED_DEFECTS4J))(
    'reads every bug of the shared Defects4J data',
    async () => {
      let bugs = 0;
      for (const project of readdirSync(SHARED_DEFECTS4J)) {
        const dir = path.join(SHARED_DEFECTS4J, project);
        if (!existsSync(path.join(dir, 'active-bugs.csv'))) continue;
        for (const line of readFileSync(path.join(dir, 'active-bugs.csv'), 'utf8')
          .split('\n')
          .slice(1)) {
          if (line.trim() === '') continue;
          const bug = Number(line.split(',')[0]);
          const instance = await fromDefects4j({ metadataDir: dir, bug, snapshot: 's' });
          expect(instance.FAIL_TO_PASS.length, `${project}-${bug}`).toBeGreaterThan(0);
          expect(instance.patch, `${project}-${bug}`).toMatch(/^--- a\//m);
          bugs++;
        }
      }
      expect(bugs).toBeGreaterThan(800);
      const gson = await fromDefects4j({
        metadataDir: path.join(SHARED_DEFECTS4J, 'Gson'),
        bug: 1,
        snapshot: 's',
      });
      expect([gson.repo, gson.module]).toEqual(['google/gson', 'gson']);
    },
  );
});

describe('triggerTests', () => {
  it('reads the --- lines of a trigger_tests file, CRLF or not, once each', () => {
    const text =
      '--- org.jfree.chart.junit.AxisTests::testEquals\r\n' +
      'junit.framework.AssertionFailedError\r\n' +
      '\tat org.jfree.chart.junit.AxisTests.testEquals(AxisTests.java:70)\r\n' +
      '--- org.jfree.chart.junit.AxisTests::testHashCode\r\n' +
      '--- org.jfree.chart.junit.AxisTests::testEquals\r\n';
    expect(triggerTests(text, 'trigger_tests/3')).toEqual([
      'org.jfree.chart.junit.AxisTests#testEquals',
      'org.jfree.chart.junit.AxisTests#testHashCode',
    ]);
  });

  it('refuses a file without tests, and a test name it cannot read', () => {
    expect(() => triggerTests('java.lang.AssertionError\n', 'trigger_tests/4')).toThrow(
      'trigger_tests/4: no "--- pkg.Class::method" line',
    );
    expect(() => triggerTests('--- a.B::c\n--- testSomething\n', 'trigger_tests/5')).toThrow(
      'trigger_tests/5:2: "testSomething" is not pkg.Class::method',
    );
  });
});

import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import { copyProjectTree, makeTempDir, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import { readInstanceFile, writeInstanceFile } from '../read.js';
import { fromMultiSweBench, testSourcesIn } from './multi-swe-bench.js';

const FIXTURE = path.resolve(import.meta.dirname, '../../../test/fixtures/repair/multi-swe-bench');

/** The fixture's one record, as their dataset's JSONL holds it. */
function record(): Record<string, unknown> {
  const [first] = readFileSync(
    path.join(FIXTURE, 'fasterxml__jackson-core_dataset.jsonl'),
    'utf8',
  ).split('\n');
  return JSON.parse(first!) as Record<string, unknown>;
}

let work: string;
beforeEach(async () => {
  work = await makeTempDir('multi-swe-bench');
});
afterEach(async () => {
  await removeTree(work);
});

/** A copy of the fixture's snapshot with the patches applied by git (which must accept them). */
async function snapshotWith(...patches: string[]): Promise<string> {
  const tree = path.join(work, `tree-${patches.length}-${Math.random().toString(36).slice(2)}`);
  await copyProjectTree(path.join(FIXTURE, 'snapshot'), tree);
  for (const [index, patch] of patches.entries()) {
    const file = path.join(work, `${index}.patch`);
    await writeFile(file, patch);
    const applied = await runProcess('git', ['apply', file], { cwd: tree, timeoutMs: 60_000 });
    expect(applied.exitCode, applied.stderr).toBe(0);
  }
  return tree;
}

async function refusal(fields: Record<string, unknown>, withSources = true): Promise<string> {
  const tree = await snapshotWith(record().test_patch as string);
  const options = withSources
    ? { snapshot: 'snapshot', testSources: testSourcesIn(tree) }
    : { snapshot: 'snapshot' };
  const error = await fromMultiSweBench({ ...record(), ...fields }, options).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(UserError);
  return (error as Error).message;
}

describe('fromMultiSweBench', () => {
  it('reads the fixture record into an instance whose patches apply to its snapshot', async () => {
    const raw = record();
    const withTests = await snapshotWith(raw.test_patch as string);
    const instance = await fromMultiSweBench(
      { ...raw, some_field_of_theirs: { ignored: true } },
      { snapshot: 'snapshot', testSources: testSourcesIn(withTests) },
    );
    expect(instance).toEqual({
      instance_id: 'fasterxml__jackson-core-1016',
      repo: 'fasterxml/jackson-core',
      base_commit: (raw.base as { sha: string }).sha,
      snapshot: 'snapshot',
      patch: raw.fix_patch,
      test_patch: raw.test_patch,
      // The class-level fail-to-pass name stands for the method the test patch adds to the
      // class, not for its other methods, which pass before the fix too (S0 measured it).
      FAIL_TO_PASS: [
        'com.fasterxml.jackson.core.io.NumberInputTest#parsesIntWithPlusSign',
        'com.fasterxml.jackson.core.read.LeadingPlusSignTest#readsIntWithLeadingPlus',
      ],
      // A TestCase's test* methods; a dotted method name read as one.
      PASS_TO_PASS: [
        'com.fasterxml.jackson.core.io.NumberInputLegacyTest#testParseLarge',
        'com.fasterxml.jackson.core.io.NumberInputLegacyTest#testParseZero',
        'com.fasterxml.jackson.core.read.LeadingPlusSignTest#readsNegativeIntAsBefore',
      ],
      problem_statement: expect.stringMatching(
        /^`NumberInput\.parseInt\(\)` rejects a leading plus sign\nParsing `"\+42"`/,
      ),
      module: '.',
      maven_flags: [],
      origin: { kind: 'multi-swe-bench', org: 'fasterxml', number: 1016 },
    });
    // The gold patch applies on top of the test patch, and the instance file takes the instance.
    await snapshotWith(instance.test_patch, instance.patch);
    await snapshotWith(instance.patch);
    await writeInstanceFile(path.join(work, 'instances.jsonl'), [instance]);
    expect(await readInstanceFile(path.join(work, 'instances.jsonl'))).toEqual([instance]);
  });

  it('derives the id when the record has none, and the statement from the PR without issues', async () => {
    const tree = await snapshotWith(record().test_patch as string);
    const raw = { ...record(), instance_id: undefined, resolved_issues: [], body: null };
    const instance = await fromMultiSweBench(raw, {
      snapshot: 's.tgz',
      testSources: testSourcesIn(tree),
    });
    expect(instance.instance_id).toBe('fasterxml__jackson-core-1016');
    expect(instance.problem_statement).toBe(
      'Accept a leading plus sign in `NumberInput.parseInt()` (fix #1015)',
    );
    expect(instance.snapshot).toBe('s.tgz');
  });

  it('reads method names in other spellings without sources', async () => {
    const pass = { run: 'PASS', test: 'PASS', fix: 'PASS' };
    const fixed = { run: 'PASS', test: 'FAIL', fix: 'PASS' };
    const instance = await fromMultiSweBench(
      {
        ...record(),
        f2p_tests: {
          'parsesIntWithPlusSign(com.fasterxml.jackson.core.io.NumberInputTest)': fixed,
        },
        s2p_tests: {
          'com.fasterxml.jackson.core.read.LeadingPlusSignTest > readsIntWithLeadingPlus()': {
            ...fixed,
            test: 'SKIP',
          },
        },
        n2p_tests: {
          'com.fasterxml.jackson.core.io.NumberInputTest.parsesPlainInt()': {
            ...fixed,
            test: 'NONE',
          },
        },
        p2p_tests: { 'com.fasterxml.jackson.core.io.NumberInputTest#rejectsLetters': pass },
      },
      { snapshot: 'snapshot' },
    );
    expect(instance.FAIL_TO_PASS).toEqual([
      'com.fasterxml.jackson.core.io.NumberInputTest#parsesIntWithPlusSign',
      'com.fasterxml.jackson.core.io.NumberInputTest#parsesPlainInt',
      'com.fasterxml.jackson.core.read.LeadingPlusSignTest#readsIntWithLeadingPlus',
    ]);
    expect(instance.PASS_TO_PASS).toEqual([
      'com.fasterxml.jackson.core.io.NumberInputTest#rejectsLetters',
    ]);
  });

  it('refuses a class-level name it cannot expand, naming it', async () => {
    expect(await refusal({}, false)).toBe(
      'fasterxml__jackson-core-1016: test "com.fasterxml.jackson.core.io.NumberInputTest" names a test class; expanding it to its methods needs the test sources (testSources)',
    );
    const missing = {
      'com.fasterxml.jackson.core.io.GoneTest': { run: 'PASS', test: 'PASS', fix: 'PASS' },
    };
    expect(await refusal({ p2p_tests: missing })).toBe(
      'fasterxml__jackson-core-1016: test "com.fasterxml.jackson.core.io.GoneTest" names no test class among the test sources, and no method of one',
    );
  });

  it('refuses a nested class its source does not declare, and a name that is no test at all', async () => {
    const pass = { run: 'PASS', test: 'PASS', fix: 'PASS' };
    expect(
      await refusal({ p2p_tests: { 'com.fasterxml.jackson.core.io.NumberInputTest$Nope': pass } }),
    ).toMatch(
      /test "com\.fasterxml\.jackson\.core\.io\.NumberInputTest\$Nope" names no test class/,
    );
    expect(await refusal({ p2p_tests: { ':jackson-core:compileTestJava': pass } })).toMatch(
      /test ":jackson-core:compileTestJava" is neither a test method .* nor a test class/,
    );
  });

  it('refuses a test class whose source declares no test method', async () => {
    const tree = await snapshotWith(record().test_patch as string);
    const sources = testSourcesIn(tree);
    const helper = 'package com.fasterxml.jackson.core.io;\nclass Helper { void check() {} }\n';
    const error = await fromMultiSweBench(
      {
        ...record(),
        p2p_tests: {
          'com.fasterxml.jackson.core.io.Helper': { run: 'PASS', test: 'PASS', fix: 'PASS' },
        },
      },
      {
        snapshot: 'snapshot',
        testSources: async (name) => (name.endsWith('.Helper') ? helper : sources(name)),
      },
    ).catch((thrown: unknown) => thrown);
    expect((error as Error).message).toMatch(
      /test class com\.fasterxml\.jackson\.core\.io\.Helper declares no test method/,
    );
  });

  it('refuses a map whose statuses are not its transition', async () => {
    const passedThenFailed = { run: 'PASS', test: 'PASS', fix: 'FAIL' };
    expect(await refusal({ f2p_tests: { 'a.B#c': passedThenFailed } })).toBe(
      'fasterxml__jackson-core-1016: f2p_tests lists "a.B#c" with test PASS and fix FAIL, not FAIL and PASS',
    );
  });

  it('refuses a record without the fields it needs, naming the field', async () => {
    expect(await refusal({ base: { label: 'FasterXML:2.16', ref: '2.16' } })).toBe(
      'Multi-SWE-bench record: base.sha is missing',
    );
    expect(await refusal({ f2p_tests: {}, s2p_tests: {}, n2p_tests: {} })).toMatch(
      /^fasterxml__jackson-core-1016: FAIL_TO_PASS is empty/,
    );
  });
});

describe('testSourcesIn', () => {
  it("finds a test class's source in any module's src/test/java, and nothing else", async () => {
    const tree = await snapshotWith(record().test_patch as string);
    const sources = testSourcesIn(tree);
    expect(await sources('com.fasterxml.jackson.core.read.LeadingPlusSignTest')).toContain(
      'public class LeadingPlusSignTest',
    );
    expect(await sources('com.fasterxml.jackson.core.io.NumberInput')).toBeUndefined();
    expect(await sources('com.fasterxml.jackson.core.io.Missing')).toBeUndefined();
  });
});

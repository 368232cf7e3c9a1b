import { existsSync } from 'node:fs';
import { mkdir, readFile, readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import type { RepairInstance } from './instance.js';
import {
  parseInstances,
  readInstanceFile,
  resolveSnapshot,
  unpackSnapshot,
  writeInstanceFile,
} from './read.js';

const PATCH = 'diff --git a/A.java b/A.java\n--- a/A.java\n+++ b/A.java\n@@ -1 +1 @@\n-a\n+b\n';

/** The fields an instance line must have; everything else has a default. */
const MINIMAL = {
  instance_id: 'acme__widgets-12',
  repo: 'acme/widgets',
  base_commit: '0123456789abcdef0123456789abcdef01234567',
  snapshot: 'snapshots/acme__widgets-12',
  patch: PATCH,
  FAIL_TO_PASS: ['com.acme.WidgetTest#spins'],
  PASS_TO_PASS: ['com.acme.WidgetTest#stops'],
};

const line = (fields: Record<string, unknown>) => JSON.stringify(fields);
const file = (...lines: string[]) => lines.map((text) => `${text}\n`).join('');
const withoutField = (name: string) =>
  Object.fromEntries(Object.entries(MINIMAL).filter(([key]) => key !== name));

function problem(text: string): string {
  try {
    parseInstances(text, 'instances.jsonl');
  } catch (error) {
    expect(error).toBeInstanceOf(UserError);
    return (error as Error).message;
  }
  throw new Error('the text was read without a problem');
}

describe('parseInstances', () => {
  it('reads a minimal line, defaulting the optional fields', () => {
    expect(parseInstances(file(line(MINIMAL)), 'instances.jsonl')).toEqual([
      {
        ...MINIMAL,
        test_patch: '',
        problem_statement: '',
        module: '.',
        maven_flags: [],
        origin: { kind: 'swe-bench' },
      },
    ]);
  });

  it("reads SWE-bench's own line: test lists as JSON strings, its extra fields dropped", () => {
    const sweBench = {
      ...MINIMAL,
      FAIL_TO_PASS: JSON.stringify(MINIMAL.FAIL_TO_PASS),
      PASS_TO_PASS: '[]',
      version: '1.2',
      created_at: '2023-01-01T00:00:00Z',
      hints_text: 'see the issue',
      environment_setup_commit: 'fedcba9876543210fedcba9876543210fedcba98',
    };
    const [instance] = parseInstances(file(line(sweBench)), 'instances.jsonl');
    expect(instance!.FAIL_TO_PASS).toEqual(['com.acme.WidgetTest#spins']);
    expect(instance!.PASS_TO_PASS).toEqual([]);
    expect(Object.keys(instance!)).not.toContain('version');
    expect(Object.keys(instance!)).not.toContain('hints_text');
  });

  it("reads JUnit's pkg.Class::method as pkg.Class#method", () => {
    const junit = { ...MINIMAL, FAIL_TO_PASS: ['org.apache.commons.csv.CSVParserTest::testX'] };
    const [instance] = parseInstances(file(line(junit)), 'instances.jsonl');
    expect(instance!.FAIL_TO_PASS).toEqual(['org.apache.commons.csv.CSVParserTest#testX']);
  });

  it('names file, line, field and value of a test that is not pkg.Class#method', () => {
    const bad = { ...MINIMAL, instance_id: 'c', FAIL_TO_PASS: ['foo'] };
    expect(problem(file(line(MINIMAL), line({ ...MINIMAL, instance_id: 'b' }), line(bad)))).toBe(
      'instances.jsonl:3: FAIL_TO_PASS[0] "foo" is not pkg.Class#method',
    );
  });

  it('refuses the ambiguous pkg.Class.method', () => {
    const dotted = { ...MINIMAL, PASS_TO_PASS: ['com.acme.WidgetTest#a', 'com.acme.WidgetTest.b'] };
    expect(problem(file(line(dotted)))).toBe(
      'instances.jsonl:1: PASS_TO_PASS[1] "com.acme.WidgetTest.b" is not pkg.Class#method',
    );
  });

  it('names an unknown field, before what its misspelling leaves missing', () => {
    expect(problem(file(line({ ...MINIMAL, flavour: 'mint' })))).toBe(
      'instances.jsonl:1: unknown field "flavour"',
    );
    const misspelt = { ...withoutField('FAIL_TO_PASS'), FAIL_TO_PAS: ['a.B#c'] };
    expect(problem(file(line(misspelt)))).toBe('instances.jsonl:1: unknown field "FAIL_TO_PAS"');
  });

  it('names a missing field, an empty one, and one of the wrong type', () => {
    expect(problem(file(line(withoutField('base_commit'))))).toBe(
      'instances.jsonl:1: base_commit is missing',
    );
    expect(problem(file(line({ ...MINIMAL, patch: '' })))).toBe(
      'instances.jsonl:1: patch is empty',
    );
    expect(problem(file(line({ ...MINIMAL, FAIL_TO_PASS: [] })))).toMatch(
      /^instances\.jsonl:1: FAIL_TO_PASS is empty/,
    );
    expect(problem(file(line({ ...MINIMAL, maven_flags: '-DskipITs' })))).toMatch(
      /^instances\.jsonl:1: maven_flags: .*expected array/,
    );
    expect(problem(file(line({ ...MINIMAL, origin: { kind: 'defects4j' } })))).toMatch(
      /^instances\.jsonl:1: origin\.project is missing/,
    );
  });

  it('refuses a test list string that is not a JSON list', () => {
    expect(problem(file(line({ ...MINIMAL, FAIL_TO_PASS: 'a.B#c' })))).toBe(
      'instances.jsonl:1: FAIL_TO_PASS is a string but not a JSON-encoded list',
    );
  });

  it('refuses a line that is not a JSON object, and a blank line', () => {
    expect(problem(file(line(MINIMAL), '{"instance_id": '))).toMatch(
      /^instances\.jsonl:2: not JSON/,
    );
    expect(problem(file('[1, 2]'))).toBe(
      'instances.jsonl:1: not a JSON object; each line is one instance',
    );
    expect(problem(file(line(MINIMAL), '', line({ ...MINIMAL, instance_id: 'b' })))).toMatch(
      /^instances\.jsonl:2: blank line/,
    );
  });

  it('refuses a repeated instance id, naming both lines', () => {
    expect(
      problem(file(line(MINIMAL), line({ ...MINIMAL, instance_id: 'b' }), line(MINIMAL))),
    ).toBe('instances.jsonl:3: instance id "acme__widgets-12" is already on line 1');
  });

  it('refuses a file without instances', () => {
    expect(problem('')).toBe('instances.jsonl: no instances');
  });
});

describe('instance files', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir('instances');
  });
  afterEach(async () => {
    await removeTree(dir);
  });

  const instance = (id: string): RepairInstance => ({
    ...MINIMAL,
    instance_id: id,
    test_patch: '',
    problem_statement: `Widget ${id} does not spin`,
    module: '.',
    maven_flags: ['-Drat.skip'],
    origin: { kind: 'multi-swe-bench', org: 'acme', number: 12 },
  });

  /** The same instance, its keys (the origin's too) in the reverse order. */
  const reordered = (given: RepairInstance) =>
    Object.fromEntries(
      Object.entries({
        ...given,
        origin: Object.fromEntries(Object.entries(given.origin).reverse()),
      }).reverse(),
    ) as RepairInstance;

  it('writes byte-identical files for equal instances given in any order, sorted by id', async () => {
    const [a, b, c] = ['acme__widgets-3', 'acme__widgets-12', 'acme__gears-7'].map(instance);
    await writeInstanceFile(path.join(dir, 'one.jsonl'), [a!, b!, c!]);
    await writeInstanceFile(path.join(dir, 'two.jsonl'), [reordered(c!), a!, reordered(b!)]);
    const one = await readFile(path.join(dir, 'one.jsonl'));
    expect(one.equals(await readFile(path.join(dir, 'two.jsonl')))).toBe(true);
    const lines = one.toString('utf8').trimEnd().split('\n');
    expect(lines.map((text) => JSON.parse(text).instance_id)).toEqual([
      'acme__gears-7',
      'acme__widgets-12',
      'acme__widgets-3',
    ]);
    expect(Object.keys(JSON.parse(lines[0]!))).toEqual([
      'instance_id',
      'repo',
      'base_commit',
      'snapshot',
      'patch',
      'test_patch',
      'FAIL_TO_PASS',
      'PASS_TO_PASS',
      'problem_statement',
      'module',
      'maven_flags',
      'origin',
    ]);
    expect(lines[0]).toContain('"origin":{"kind":"multi-swe-bench","org":"acme","number":12}');
    expect(await readInstanceFile(path.join(dir, 'two.jsonl'))).toEqual([c, b, a]);
  });

  it('refuses to write an invalid instance or one id twice', async () => {
    const target = path.join(dir, 'bad.jsonl');
    await expect(
      writeInstanceFile(target, [{ ...instance('x'), FAIL_TO_PASS: ['nope'] }]),
    ).rejects.toThrow(/FAIL_TO_PASS\[0\] "nope" is not pkg.Class#method/);
    await expect(writeInstanceFile(target, [instance('x'), instance('x')])).rejects.toThrow(
      /twice/,
    );
    expect(existsSync(target)).toBe(false);
  });

  it('says a missing instance file does not exist', async () => {
    await expect(readInstanceFile(path.join(dir, 'none.jsonl'))).rejects.toThrow(
      /instance file .*none\.jsonl does not exist/,
    );
  });
});

describe('snapshots', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await makeTempDir('snapshots');
    await mkdir(path.join(dir, 'tree/src/main/java'), { recursive: true });
    await writeFile(path.join(dir, 'tree/pom.xml'), '<project/>\n');
    await writeFile(path.join(dir, 'tree/src/main/java/A.java'), 'class A {}\n');
  });
  afterEach(async () => {
    await removeTree(dir);
  });

  const at = (snapshot: string): RepairInstance => ({
    ...parseInstances(file(line(MINIMAL)), 'x')[0]!,
    snapshot,
  });

  async function tar(args: string[]): Promise<void> {
    const run = await runProcess('tar', args, { cwd: dir, timeoutMs: 60_000 });
    expect(run.exitCode, run.stderr).toBe(0);
  }

  async function files(root: string): Promise<string[]> {
    const entries = await readdir(root, { recursive: true, withFileTypes: true });
    return entries
      .filter((entry) => entry.isFile())
      .map((entry) => path.relative(root, path.join(entry.parentPath, entry.name)))
      .sort();
  }

  it('resolves a directory or a tarball relative to the instance file', async () => {
    await tar(['-czf', 'tree.tar.gz', '-C', 'tree', '.']);
    expect(await resolveSnapshot(at('tree'), dir)).toEqual({
      kind: 'Directory',
      path: path.join(dir, 'tree'),
    });
    expect(await resolveSnapshot(at('tree.tar.gz'), dir)).toEqual({
      kind: 'Tarball',
      path: path.join(dir, 'tree.tar.gz'),
    });
  });

  it('refuses a missing snapshot and a file that is no tarball', async () => {
    await expect(resolveSnapshot(at('gone'), dir)).rejects.toThrow(
      /acme__widgets-12: its snapshot .*gone does not exist/,
    );
    await expect(resolveSnapshot(at('tree/pom.xml'), dir)).rejects.toThrow(
      /is neither a directory nor a \.tar, \.tar\.gz, \.tgz, \.tar\.xz file/,
    );
  });

  it('copies a directory and extracts tarballs, a single top directory taken as the tree', async () => {
    await tar(['-cJf', 'flat.tar.xz', '-C', 'tree', '.']);
    await tar(['-czf', 'wrapped.tgz', 'tree']);
    await tar(['-cf', 'dotted.tar', './tree']);
    const expected = ['pom.xml', 'src/main/java/A.java'];
    await unpackSnapshot({ kind: 'Directory', path: path.join(dir, 'tree') }, path.join(dir, 'd'));
    expect(await files(path.join(dir, 'd'))).toEqual(expected);
    await unpackSnapshot(
      { kind: 'Tarball', path: path.join(dir, 'flat.tar.xz') },
      path.join(dir, 'f'),
    );
    expect(await files(path.join(dir, 'f'))).toEqual(expected);
    await unpackSnapshot(
      { kind: 'Tarball', path: path.join(dir, 'wrapped.tgz') },
      path.join(dir, 'w'),
    );
    expect(await files(path.join(dir, 'w'))).toEqual(expected);
    await unpackSnapshot(
      { kind: 'Tarball', path: path.join(dir, 'dotted.tar') },
      path.join(dir, 't'),
    );
    expect(await files(path.join(dir, 't'))).toEqual(expected);
  });

  it('refuses a tarball with a member outside its tree, before extracting anything', async () => {
    await mkdir(path.join(dir, 'inner'));
    await writeFile(path.join(dir, 'outside.txt'), 'x\n');
    const run = await runProcess('tar', ['-cPf', '../evil.tar', '../outside.txt'], {
      cwd: path.join(dir, 'inner'),
      timeoutMs: 60_000,
    });
    expect(run.exitCode, run.stderr).toBe(0);
    await tar(['-cPf', 'absolute.tar', path.join(dir, 'outside.txt')]);
    for (const name of ['evil.tar', 'absolute.tar']) {
      const destination = path.join(dir, `out-${name}`);
      await expect(
        unpackSnapshot({ kind: 'Tarball', path: path.join(dir, name) }, destination),
      ).rejects.toThrow(/has a member outside its tree/);
      expect(existsSync(destination)).toBe(false);
    }
  });

  it('refuses to unpack into a directory that exists', async () => {
    await mkdir(path.join(dir, 'taken'));
    await expect(
      unpackSnapshot({ kind: 'Directory', path: path.join(dir, 'tree') }, path.join(dir, 'taken')),
    ).rejects.toThrow(/it exists/);
    expect(await readdir(dir)).not.toContainEqual(expect.stringMatching(/\.tmp-/));
  });
});

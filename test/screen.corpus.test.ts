import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../src/lang/java/syntax.js';
import { screenSubmission } from '../src/sandbox/screen.js';
import { fetchCorpus } from './helpers.js';

/*
 * The screen against the positive control: every upstream test source of json-simple and
 * commons-csv, each submitted on its own as the witness agent submits one, passes it. Among
 * them are tests that read test resources by path and through the class loader, list a
 * production class's methods to call each one, and read `java.io.tmpdir`.
 */

beforeAll(async () => {
  await loadJavaGrammar();
});

async function javaFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.java'))
    .map((entry) => path.join(entry.parentPath, entry.name));
}

describe.each(['json-simple', 'commons-csv'])('the screen on %s', (name) => {
  it('flags none of the upstream tests', async () => {
    const pristine = await fetchCorpus(name);
    const mainRoot = path.join(pristine, 'src', 'main', 'java');
    const productionClasses = (await javaFiles(mainRoot)).map((file) =>
      path
        .relative(mainRoot, file)
        .replace(/\.java$/, '')
        .split(path.sep)
        .join('.'),
    );
    const tests = await javaFiles(path.join(pristine, 'src', 'test', 'java'));
    expect(tests.length).toBeGreaterThan(0);
    const findings = [];
    for (const file of tests) {
      const test = { file: path.relative(pristine, file), content: await readFile(file, 'utf8') };
      findings.push(...screenSubmission([test], { productionClasses }));
    }
    expect(findings).toEqual([]);
  });
});

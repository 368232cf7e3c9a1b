import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import {
  coverageOfLines,
  ensureJacoco,
  jacocoAgentArg,
  readLineCoverage,
} from '../src/coverage/jacoco.js';
import { mavenTestRunner } from '../src/runners/maven.js';
import { findRecipe } from '../src/project/recipe.js';
import { projectLayout } from '../src/toolchains/layout.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { fetchCorpus } from './helpers.js';

/*
 * The coverage agent given as a request's JVM flag reaches Surefire's forked test JVM on
 * commons-csv: the method the test class calls is covered, one it never calls is missed.
 */

const TEST = 'org.apache.commons.csv.CSVFormatPredefinedTest';
const CSV_FORMAT = 'org/apache/commons/csv/CSVFormat.java';

const cache = cacheLayout(resolveCacheDir());
const runner = mavenTestRunner(mavenToolchain, cache);
let pristine: string;
let work: string;

beforeAll(async () => {
  pristine = await fetchCorpus('commons-csv');
  work = await makeTempDir('coverage-test');
});

afterAll(async () => {
  await runner.close();
  await removeTree(work);
});

/** 1-based number of the line after the one that holds `text` (a method's first statement). */
function lineAfter(source: string[], text: string): number {
  const index = source.findIndex((line) => line.includes(text));
  if (index < 0) throw new Error(`no line holds ${text}`);
  return index + 2;
}

describe('JaCoCo coverage of a Maven test run', () => {
  it('covers the lines of a method the test class calls and only those', async () => {
    const build = (await findRecipe('commons-csv'))!.build;
    const layout = projectLayout(build);
    const jacoco = await ensureJacoco(cache);
    const target = await runner.targetOf(pristine, build);
    const compiled = await runner.compile(target, 600_000);
    if (compiled.kind !== 'Compiled') throw new Error(`no build: ${JSON.stringify(compiled)}`);

    const execFile = path.join(work, 'run.exec');
    const run = await runner.run({
      target,
      testClass: TEST,
      timeoutMs: 120_000,
      jvmArgs: [jacocoAgentArg(jacoco.agentJar, execFile, ['org.apache.commons.csv.*'])],
    });
    expect(run.verdict.kind).toBe('Passed');

    const coverage = await readLineCoverage({
      cliJar: jacoco.cliJar,
      execFile,
      classDirs: [path.join(compiled.workDir, layout.mainClasses)],
      timeoutMs: 60_000,
    });
    if (coverage.kind !== 'Measured') throw new Error(`no coverage: ${JSON.stringify(coverage)}`);
    const source = (
      await readFile(path.join(pristine, layout.mainSources, CSV_FORMAT), 'utf8')
    ).split('\n');
    const calledLine = lineAfter(source, 'public static CSVFormat valueOf(final String format)');
    const uncalledLine = lineAfter(source, 'public CSVPrinter print(final Appendable out)');
    expect(coverageOfLines(coverage, CSV_FORMAT, [calledLine])).toEqual({ lines: 1, covered: 1 });
    expect(coverageOfLines(coverage, CSV_FORMAT, [uncalledLine])).toEqual({
      lines: 1,
      covered: 0,
    });
  });
});

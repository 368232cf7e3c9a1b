import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { DEFAULT_BUILD } from '../src/toolchains/build-settings.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { builtFixture } from './helpers.js';

/*
 * mockito-inline in the warm JVM, on a fixture whose tests mock a final class and a static
 * method: its mock maker needs a Java agent attached to the running JVM, which must work with the
 * runner's own system class loader. Each class must pass or fail the same methods as under Maven,
 * and one request's mocks and Mockito state must not reach the next request's tests.
 */

const cache = cacheLayout(resolveCacheDir());
const runner = new JvmRunner(cache);
const PRICES = 'src/main/java/mocks/Prices.java';
const PRICES_TEST = 'mocks.PricesTest';
const REAL_RATES_TEST = 'mocks.RealRatesTest';
let project: string;
let pristine: string;

beforeAll(async () => {
  project = await builtFixture('mockito-inline', cache);
  pristine = await readFile(path.join(project, PRICES), 'utf8');
});

afterAll(async () => {
  await runner.close();
});

type Outcomes = Record<string, string>;

const mavenContext = { repository: cache.mavenRepo, offline: true };

async function compileWithMaven(): Promise<void> {
  expect((await mavenToolchain.compile(project, DEFAULT_BUILD, mavenContext, 600_000)).kind).toBe(
    'Compiled',
  );
}

/** Each method's outcome under Maven (Surefire), by method name. */
async function underMaven(testClass: string): Promise<Outcomes> {
  const run = await mavenToolchain.runTests(project, DEFAULT_BUILD, mavenContext, {
    selection: mavenToolchain.selectClass(testClass),
    timeoutMs: 300_000,
  });
  const outcomes: Outcomes = {};
  for (const report of run.reports)
    for (const testCase of report.cases) outcomes[testCase.testMethod] = testCase.outcome;
  return outcomes;
}

/** Each method's outcome in the warm JVM, and whether the run started a new runner JVM. */
async function inJvm(testClass: string, options: { changed?: boolean; trace?: boolean } = {}) {
  const result = await runner.run({
    projectDir: project,
    build: DEFAULT_BUILD,
    testClass,
    sources: options.changed ? [{ path: path.join(project, PRICES), scope: 'main' }] : [],
    timeoutMs: 60_000,
    ...(options.trace ? { trace: true } : {}),
  });
  const outcomes: Outcomes = {};
  const surefireWords = {
    Passed: 'passed',
    Failed: 'failure',
    Errored: 'error',
    Skipped: 'skipped',
  };
  for (const test of result.tests ?? []) outcomes[test.testMethod] = surefireWords[test.outcome];
  return { outcomes, result };
}

describe('mockito-inline in the jvm runner', () => {
  it('passes a final-class mock and a static mock as Maven does, in a JVM it keeps', async () => {
    const maven = await underMaven(PRICES_TEST);
    expect(maven).toEqual({
      addsTheRateOfAMockedFinalClass: 'passed',
      addsAMockedStaticStandardRate: 'passed',
      addsTheRealRate: 'passed',
    });
    const first = await inJvm(PRICES_TEST);
    expect(first.result.verdict.kind, JSON.stringify(first.result.verdict)).toBe('Passed');
    expect(first.outcomes).toEqual(maven);
    // The agent stays attached: the next run neither restarts the JVM nor fails to mock.
    const second = await inJvm(PRICES_TEST, { trace: true });
    expect(second.result.started).toBe(false);
    expect(second.outcomes).toEqual(maven);
    const traced = Object.values(second.result.trace?.methods ?? {}).map(
      (method) => `${method.owner}.${method.name}`,
    );
    expect(traced).toEqual(expect.arrayContaining(['mocks/Prices.withTax', 'mocks/Rates.<init>']));
  });

  it('fails the same methods as Maven when the code under test is broken', async () => {
    const file = path.join(project, PRICES);
    await writeFile(file, pristine.replace('/ 100;', '/ 10;'));
    try {
      await compileWithMaven();
      const maven = await underMaven(PRICES_TEST);
      expect(maven).toEqual({
        addsTheRateOfAMockedFinalClass: 'failure',
        addsAMockedStaticStandardRate: 'passed',
        addsTheRealRate: 'failure',
      });
      const jvm = await inJvm(PRICES_TEST, { changed: true });
      expect(jvm.result.verdict.kind).toBe('TestFailed');
      expect(jvm.outcomes).toEqual(maven);
    } finally {
      await writeFile(file, pristine);
      // The broken class was compiled into target/: put the pristine one back.
      await compileWithMaven();
    }
  });

  it.each(['mocks.OpenStaticMockTest', 'mocks.UnfinishedStubbingTest'])(
    'keeps what %s leaves behind out of the next request, as a fresh Maven fork does',
    async (leaky) => {
      expect(Object.values(await underMaven(leaky))).toEqual(['passed']);
      expect((await inJvm(leaky)).result.verdict.kind).toBe('Passed');
      for (const testClass of [REAL_RATES_TEST, PRICES_TEST]) {
        const next = await inJvm(testClass);
        expect(next.result.verdict.kind, JSON.stringify(next.result.verdict)).toBe('Passed');
        expect(next.result.started).toBe(false);
      }
    },
  );
});

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import type { SingleVerdict } from '../src/core/verdict.js';
import { DEFAULT_BUILD, type BuildSettings } from '../src/toolchains/build-settings.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { builtFixture } from './helpers.js';

/*
 * Build steps in the warm JVM, on a fixture whose step (steps.Generate) writes a table from the
 * project's own Squares, as joda-time's time-zone compiler does: a candidate that changes what the
 * step executes must see the step's new output, one that does not must not pay for a rerun.
 */

const cache = cacheLayout(resolveCacheDir());
const runner = new JvmRunner(cache);
const SQUARES = 'src/main/java/steps/Squares.java';
const build: BuildSettings = {
  ...DEFAULT_BUILD,
  generators: [{ mainClass: 'steps.Generate', args: ['{outputDir}'], systemProperties: {} }],
};
let project: string;
let pristine: string;

beforeAll(async () => {
  project = await builtFixture('build-steps', cache);
  pristine = await readFile(path.join(project, SQUARES), 'utf8');
});

afterAll(async () => {
  await runner.close();
});

function edited(from: string, to: string): string {
  expect(pristine.split(from)).toHaveLength(2);
  return pristine.replace(from, to);
}

/** Runs a test class with Squares.java as given (null: unchanged), then puts the file back. */
async function run(squares: string | null, testClass = 'steps.SquaresTest') {
  const file = path.join(project, SQUARES);
  if (squares !== null) await writeFile(file, squares);
  try {
    return await runner.run({
      projectDir: project,
      build,
      testClass,
      sources: squares === null ? [] : [{ path: file, scope: 'main' }],
      timeoutMs: 30_000,
    });
  } finally {
    await writeFile(file, pristine);
  }
}

function failedMethods(verdict: SingleVerdict): string[] {
  return verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored'
    ? verdict.failures.map((failure) => `${failure.testMethod}: ${failure.message}`)
    : [];
}

describe('build steps in the jvm runner', () => {
  it('reruns a step that executes the changed method, and the tests read what it wrote', async () => {
    const result = await run(edited('return i * i;', 'return i * i + 1;'));
    expect(result.buildSteps.rerun).toBe(1);
    expect(result.buildSteps.learningMs).toBeGreaterThan(0);
    expect(result.verdict.kind).toBe('TestFailed');
    expect(failedMethods(result.verdict)).toEqual([
      expect.stringMatching(/^generatedTableHoldsTheFirstSquares: .*1 2 5 10/),
    ]);
  });

  it('does not rerun it for a method it never executes, though javac adds an accessor to its class', async () => {
    const result = await run(edited('return 2 * i * scale;', 'return 2 * i * scale + offset;'));
    expect(result.buildSteps).toMatchObject({ rerun: 0, rerunMs: 0, learningMs: 0 });
    expect(result.verdict.kind).toBe('Passed');
  });

  it('gives a harness fault, not a verdict, when the step throws with the candidate', async () => {
    const result = await run(
      edited(
        'return i * i;',
        'if (i > 2) throw new IllegalStateException("no squares"); return i * i;',
      ),
    );
    expect(result.verdict).toEqual({
      kind: 'InfraError',
      cause: 'build-tool',
      reason: 'build step failed: steps.Generate: java.lang.IllegalStateException: no squares',
    });
    expect(result.buildSteps.rerun).toBe(1);
  });

  it('gives what one JVM learnt to the JVM that replaces it', async () => {
    const exited = await run(null, 'steps.ExitingTest');
    expect(exited.verdict.kind).toBe('Crashed');
    const result = await run(edited('return i * i;', 'return i * i + 2;'));
    expect(result.started).toBe(true);
    expect(result.buildSteps).toMatchObject({ rerun: 1, learningMs: 0 });
    expect(failedMethods(result.verdict)).toEqual([
      expect.stringMatching(/^generatedTableHoldsTheFirstSquares: .*2 3 6 11/),
    ]);
  });
});

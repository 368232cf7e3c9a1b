import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import type { ReplayResult } from '../src/stages/0-corpus/replay.js';
import { findRecipe, type Recipe } from '../src/project/recipe.js';
import { JvmRunner, staleSources } from '../src/toolchains/jvm/runner.js';
import { cli, editedCopy, fetchCorpus, processesMentioning, type Edit } from './helpers.js';

/*
 * The warm-JVM runner on json-simple: the same verdicts as the Maven replay, with faults (hangs,
 * System.exit, out of memory, leaked threads) contained by restarting the runner JVM.
 */

const TEST = 'org.json.simple.JsonArrayTest';
const JSON_ARRAY = 'src/main/java/org/json/simple/JsonArray.java';
const ADD_LINE = 'destination.add((T)o);';

let pristine: string;
let recipe: Recipe;
const runner = new JvmRunner(cacheLayout(resolveCacheDir()));

beforeAll(async () => {
  pristine = await fetchCorpus('json-simple');
  recipe = (await findRecipe('json-simple'))!;
});

afterAll(async () => {
  await runner.close();
});

async function runEdited(edits: Edit[], timeoutMs = 30_000) {
  return runIn(await editedCopy(pristine, edits), TEST, timeoutMs);
}

/** Another class of the same copy: one that never calls the edited method. */
const OTHER_TEST = 'org.json.simple.parser.YylexTest';

async function runIn(copy: string, testClass: string, timeoutMs = 30_000) {
  const sources = await staleSources(copy, recipe.build);
  const result = await runner.run({
    projectDir: copy,
    build: recipe.build,
    testClass,
    sources,
    timeoutMs,
  });
  return { ...result, copy };
}

describe('jvm runner verdicts', () => {
  it('finds exactly the edited file as changed', async () => {
    const copy = await editedCopy(pristine, [
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add(null);' },
    ]);
    const sources = await staleSources(copy, recipe.build);
    expect(sources.map((source) => source.path)).toEqual([`${copy}/${JSON_ARRAY}`]);
    expect(sources[0]!.scope).toBe('main');
  });

  it('passes the pristine class and fails, errors or refuses to compile like Maven', async () => {
    const passed = await runEdited([]);
    expect(passed.verdict).toMatchObject({ kind: 'Passed', counts: { tests: 7 } });

    const failed = await runEdited([
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add(null);' },
    ]);
    expect(failed.verdict).toMatchObject({
      kind: 'TestFailed',
      failures: [{ testMethod: 'testAsCollection', exceptionType: 'java.lang.AssertionError' }],
    });

    const errored = await runEdited([
      {
        file: JSON_ARRAY,
        from: 'for(final Object o : this){',
        to: 'for(final Object o : (JsonArray)null){',
      },
    ]);
    expect(errored.verdict).toMatchObject({
      kind: 'TestErrored',
      failures: [
        { testMethod: 'testAsCollection', exceptionType: 'java.lang.NullPointerException' },
      ],
    });

    const broken = await runEdited([
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add((T)o)' },
    ]);
    expect(broken.verdict).toMatchObject({ kind: 'CompileError', scope: 'main' });
    if (broken.verdict.kind !== 'CompileError') return;
    expect(broken.verdict.messages[0]).toMatchObject({ message: "';' expected" });
    expect(broken.verdict.messages[0]!.file).toMatch(/JsonArray\.java$/);
  });

  it('keeps the project source level: Java 8 syntax fails in a Java 7 project', async () => {
    const lambda = await runEdited([
      { file: JSON_ARRAY, from: ADD_LINE, to: 'Runnable r = () -> {}; destination.add((T)o);' },
    ]);
    expect(lambda.verdict.kind).toBe('CompileError');
  });

  it('gives NoTestsRan for a test class that does not exist', async () => {
    const missing = await runIn(await editedCopy(pristine, []), 'org.json.simple.NoSuchTest');
    expect(missing.verdict).toEqual({
      kind: 'NoTestsRan',
      reason: 'test class not found: org.json.simple.NoSuchTest',
    });
  });

  it('gives every run fresh static state', async () => {
    // A static counter that would break the test on a second run if it survived.
    const results = [];
    const copy = await editedCopy(pristine, [
      {
        file: JSON_ARRAY,
        from: ADD_LINE,
        to: 'if (Holder.calls++ > 100) { destination.add(null); } else { destination.add((T)o); }',
      },
      {
        file: JSON_ARRAY,
        from: '	/** Instantiates an empty JsonArray. */',
        to: '	static final class Holder { static int calls; }\n	/** Instantiates an empty JsonArray. */',
      },
    ]);
    const sources = await staleSources(copy, recipe.build);
    for (let i = 0; i < 40; i++) {
      results.push(
        await runner.run({
          projectDir: copy,
          build: recipe.build,
          testClass: TEST,
          sources,
          timeoutMs: 30_000,
        }),
      );
    }
    expect(results.map((r) => r.verdict.kind)).toEqual(Array(40).fill('Passed'));
    expect(results.slice(1).every((r) => !r.started)).toBe(true);
  });

  it('runs the build of identical sources again and rebuilds when their text changes', async () => {
    const copy = await editedCopy(pristine, [
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add(null);' },
    ]);
    const first = await runIn(copy, TEST);
    expect(first).toMatchObject({ buildReused: false, verdict: { kind: 'TestFailed' } });
    expect(first.timings.compileMs).toBeGreaterThan(0);
    const again = await runIn(copy, TEST);
    expect(again).toMatchObject({ buildReused: true, verdict: { kind: 'TestFailed' } });
    expect(again.timings.compileMs).toBe(0);

    const file = path.join(copy, JSON_ARRAY);
    await writeFile(
      file,
      (await readFile(file, 'utf8')).replace('destination.add(null);', ADD_LINE),
    );
    const fixed = await runIn(copy, TEST);
    expect(fixed).toMatchObject({ buildReused: false, verdict: { kind: 'Passed' } });
  });

  it('gives Timeout for an infinite loop, kills the JVM and starts a fresh one', async () => {
    const hang = await runEdited(
      [{ file: JSON_ARRAY, from: ADD_LINE, to: 'while (destination.size() >= 0) { }' }],
      3_000,
    );
    expect(hang.verdict).toMatchObject({ kind: 'Timeout', limitMs: 3_000 });
    // The runner JVM of that copy (its command line names the copy) is gone.
    expect(await processesMentioning(hang.copy)).toEqual([]);
    const after = await runIn(hang.copy, OTHER_TEST);
    expect(after).toMatchObject({ verdict: { kind: 'Passed' }, started: true });
  });

  it('gives Crashed for System.exit and for running out of memory, then recovers', async () => {
    const exit = await runEdited([{ file: JSON_ARRAY, from: ADD_LINE, to: 'System.exit(3);' }]);
    expect(exit.verdict).toMatchObject({
      kind: 'Crashed',
      reason: 'runner JVM died (exit code 3)',
    });
    const oom = await runEdited([
      {
        file: JSON_ARRAY,
        from: ADD_LINE,
        to: 'java.util.List<long[]> hog = new java.util.ArrayList<long[]>(); while (hog.size() >= 0) hog.add(new long[1 << 24]);',
      },
    ]);
    expect(oom.verdict.kind).toBe('Crashed');
    expect(await runIn(oom.copy, OTHER_TEST)).toMatchObject({
      verdict: { kind: 'Passed' },
      started: true,
    });
  });

  it('restarts the JVM when a test leaves a thread running', async () => {
    const leak = await runEdited([
      {
        file: JSON_ARRAY,
        from: ADD_LINE,
        to: 'new Thread() { public void run() { while (true) { try { Thread.sleep(1000); } catch (InterruptedException e) { } } } }.start(); destination.add((T)o);',
      },
    ]);
    expect(leak.verdict.kind).toBe('Passed');
    expect(await runIn(leak.copy, OTHER_TEST)).toMatchObject({
      verdict: { kind: 'Passed' },
      started: true,
    });
  });
});

describe('replay --runner jvm', () => {
  it('gives the same output shape as the Maven runner', async () => {
    const copy = await editedCopy(pristine, [
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add(null);' },
    ]);
    const result = await cli([
      'replay',
      copy,
      '--runner',
      'jvm',
      '--test',
      TEST,
      '--runs',
      '3',
      '--json',
    ]);
    expect(result.exitCode).toBe(1);
    const replay = result.json as ReplayResult;
    expect(replay.runner).toBe('jvm');
    expect(replay.verdict.kind).toBe('TestFailed');
    expect(replay.runs).toHaveLength(3);
    expect(await processesMentioning(copy)).toEqual([]);
  });
});

import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import type { ReplayResult } from '../src/stages/0-corpus/replay.js';
import { cli, editedCopy, fetchCorpus, processesMentioning, type Edit } from './helpers.js';

/*
 * Verdicts of real Maven replays on json-simple (the smallest corpus project), each caused by a
 * one-line source edit in production code.
 */

const TEST = 'org.json.simple.JsonArrayTest';
const JSON_ARRAY = 'src/main/java/org/json/simple/JsonArray.java';
const ADD_LINE = 'destination.add((T)o);';

let pristine: string;

beforeAll(async () => {
  pristine = await fetchCorpus('json-simple');
});

async function replayEdited(edits: Edit[], extra: string[] = []) {
  const copy = await editedCopy(pristine, edits);
  const result = await cli(['replay', copy, '--test', TEST, '--json', ...extra]);
  return { ...result, replay: result.json as ReplayResult };
}

describe('replay of json-simple with the Maven runner', () => {
  it('passes on the pristine project (by corpus name)', async () => {
    const result = await cli(['replay', 'json-simple', '--test', TEST, '--json']);
    expect(result.exitCode).toBe(0);
    const replay = result.json as ReplayResult;
    expect(replay.verdict.kind).toBe('Passed');
    expect(replay.baseline?.usability).toEqual({ kind: 'Usable' });
    expect(replay.replayCommand).toContain(`-Dtest=${TEST}`);
  });

  it('gives TestFailed for an edit that breaks an assertion', async () => {
    const { exitCode, replay } = await replayEdited([
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add(null);' },
    ]);
    expect(exitCode).toBe(1);
    expect(replay.verdict.kind).toBe('TestFailed');
    if (replay.verdict.kind !== 'TestFailed') return;
    expect(replay.verdict.failures[0]).toMatchObject({
      testClass: TEST,
      testMethod: 'testAsCollection',
      exceptionType: 'java.lang.AssertionError',
    });
    expect(replay.verdict.failures[0]!.frames.length).toBeGreaterThan(0);
  });

  it('gives TestErrored for an edit that throws', async () => {
    const { exitCode, replay } = await replayEdited([
      {
        file: JSON_ARRAY,
        from: 'for(final Object o : this){',
        to: 'for(final Object o : (JsonArray)null){',
      },
    ]);
    expect(exitCode).toBe(1);
    expect(replay.verdict).toMatchObject({
      kind: 'TestErrored',
      failures: [
        { testMethod: 'testAsCollection', exceptionType: 'java.lang.NullPointerException' },
      ],
    });
  });

  it('gives CompileError, not a test failure, for an edit that does not compile', async () => {
    const { exitCode, replay } = await replayEdited([
      { file: JSON_ARRAY, from: ADD_LINE, to: 'destination.add((T)o)' },
    ]);
    expect(exitCode).toBe(1);
    expect(replay.verdict.kind).toBe('CompileError');
    if (replay.verdict.kind !== 'CompileError') return;
    expect(replay.verdict.scope).toBe('main');
    expect(replay.verdict.messages[0]!.file).toMatch(/JsonArray\.java$/);
    expect(replay.verdict.messages[0]!.line).toBeGreaterThan(0);
    expect(replay.runs).toEqual([]);
  });

  it('gives CompileError in test scope when a test source breaks', async () => {
    const { replay } = await replayEdited([
      {
        file: 'src/test/java/org/json/simple/JsonArrayTest.java',
        from: 'public void testAsCollection(){',
        to: 'public void testAsCollection(){ int broken = "text";',
      },
    ]);
    expect(replay.verdict).toMatchObject({ kind: 'CompileError', scope: 'test' });
  });

  it('gives Timeout for an infinite loop and leaves no process behind', async () => {
    const { exitCode, replay } = await replayEdited(
      [{ file: JSON_ARRAY, from: ADD_LINE, to: 'while (destination.size() >= 0) { }' }],
      ['--timeout', '20', '--keep'],
    );
    expect(exitCode).toBe(1);
    expect(replay.verdict).toMatchObject({ kind: 'Timeout', phase: 'test', limitMs: 20_000 });
    expect(replay.workDir).toBeTruthy();
    expect(await processesMentioning(replay.workDir!)).toEqual([]);
  });

  it('gives Crashed when the code under test calls System.exit', async () => {
    const { exitCode, replay } = await replayEdited([
      { file: JSON_ARRAY, from: ADD_LINE, to: 'System.exit(3);' },
    ]);
    expect(exitCode).toBe(1);
    expect(replay.verdict).toMatchObject({
      kind: 'Crashed',
      reason: 'forked test JVM exited with code 3',
    });
  });

  it('gives Flaky when repeated runs disagree', async () => {
    // Each test JVM leaves a marker in target/; a JVM that finds an earlier marker misbehaves.
    const flaky =
      'new java.io.File("target/flaky-" + java.lang.management.ManagementFactory.getRuntimeMXBean().getName()).mkdir(); ' +
      'int markers = 0; for (String name : new java.io.File("target").list()) { if (name.startsWith("flaky-")) markers++; } ' +
      'destination.add(markers > 1 ? null : (T)o);';
    const { exitCode, replay } = await replayEdited(
      [{ file: JSON_ARRAY, from: ADD_LINE, to: flaky }],
      ['--runs', '2'],
    );
    expect(exitCode).toBe(1);
    expect(replay.verdict).toMatchObject({ kind: 'Flaky', kinds: ['Passed', 'TestFailed'] });
    expect(replay.runs).toHaveLength(2);
  });
});

describe('bad input to replay', () => {
  it('rejects a directory that is not a Maven project', async () => {
    const result = await cli(['replay', path.dirname(pristine), '--test', TEST]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/not a Maven project \(no pom\.xml\)/);
  });

  it('rejects an unknown corpus name', async () => {
    const result = await cli(['replay', 'no-such-project', '--test', TEST]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/unknown project 'no-such-project'.*known: .*json-simple/);
  });

  it('rejects a malformed test class name before doing any work', async () => {
    const result = await cli(['replay', 'json-simple', '--test', 'not a class', '--json']);
    expect(result.exitCode).toBe(2);
    expect(result.json).toMatchObject({
      kind: 'usage',
      error: expect.stringMatching(/fully qualified class name/),
    });
  });

  it('rejects an unknown test class', async () => {
    const result = await cli(['replay', 'json-simple', '--test', 'org.json.simple.NoSuchTest']);
    expect(result.exitCode).toBe(2);
    expect(result.stderr).toMatch(/test class org\.json\.simple\.NoSuchTest not found/);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('reports a dependency that cannot be resolved in one line with exit code 2', async () => {
    const copy = await editedCopy(pristine, []);
    const pom = path.join(copy, 'pom.xml');
    const text = await readFile(pom, 'utf8');
    await writeFile(
      pom,
      text.replace(
        '<dependencies>',
        '<dependencies><dependency><groupId>org.example.witnessgym</groupId><artifactId>does-not-exist</artifactId><version>1.0</version></dependency>',
      ),
    );
    const result = await cli(['replay', copy, '--test', TEST]);
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/cannot resolve the dependencies.*does-not-exist/);
  });
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { DEFAULT_BUILD } from '../src/toolchains/build-settings.js';
import { traceProject, type ExecutionContextRecord } from '../src/stages/1-trace/trace.js';
import { silent } from '../src/events/types.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { builtFixture } from './helpers.js';

/*
 * The tracer on a fixture whose production code uses every construct that trips up a line-based
 * instrumenter: explicit constructor calls, multi-line annotated generic signatures, overloads,
 * nested, inner, local and anonymous classes, an enum with a constant body, a record, interface
 * default and static methods, static and instance initialisers, and a lambda.
 */

const cache = cacheLayout(resolveCacheDir());
const runner = new JvmRunner(cache);
let records: ExecutionContextRecord[];

beforeAll(async () => {
  const project = await builtFixture('trace-constructs', cache);
  const work = path.dirname(project);
  const summary = await traceProject(project, {
    cache,
    build: DEFAULT_BUILD,
    classes: [{ testClass: 'fixture.ExitingTest' }, { testClass: 'fixture.ConstructsTest' }],
    out: path.join(work, 'map.jsonl'),
    perTest: true,
    tree: `local:${project}`,
    baselineId: null,
    lock: path.join(work, 'map.lock'),
    events: silent,
    runner,
  });
  expect(summary.records).toHaveLength(2);
  records = (await readFile(path.join(work, 'map.jsonl'), 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as ExecutionContextRecord);
});

afterAll(async () => {
  await runner.close();
});

function entries(record: ExecutionContextRecord): string[] {
  return record.trace.map((m) => `${m.className}.${m.signature}@${m.line}`);
}

describe('tracing every Java construct', () => {
  it('records a class that kills its JVM with its verdict and goes on', () => {
    const exiting = records.find(
      (r) => r.testClass === 'fixture.ExitingTest' && r.testMethod === null,
    )!;
    expect(exiting).toMatchObject({ status: 'Crashed', size: 0, bucket: 'none' });
    expect(records.some((r) => r.testClass === 'fixture.ConstructsTest')).toBe(true);
  });

  it('reports each production method once, with its declaration line and source file', () => {
    const classRecord = records.find(
      (r) => r.testClass === 'fixture.ConstructsTest' && r.testMethod === null,
    )!;
    expect(classRecord.status).toBe('Passed');
    const traced = entries(classRecord);
    const expected = [
      'fixture.Constructs.<clinit>()@9',
      'fixture.Constructs.Constructs()@19',
      'fixture.Constructs.Constructs(java.lang.String)@23',
      'fixture.Base.Base(int)@105',
      'fixture.Constructs.largest(java.util.List, java.lang.Comparable)@30',
      'fixture.Constructs.overloaded(int)@38',
      'fixture.Constructs.overloaded(java.lang.String)@40',
      'fixture.Constructs.viaLambda()@42',
      'fixture.Constructs.viaLocalClass()@47',
      'fixture.Constructs$1Local.Local(fixture.Constructs)@48',
      'fixture.Constructs$1Local.twice(int)@49',
      'fixture.Constructs.viaAnonymousClass(int[])@56',
      'fixture.Constructs$1.run()@59',
      'fixture.Constructs$Nested.depth()@66',
      'fixture.Constructs$Inner.owner()@72',
      'fixture.Constructs$Shape.<clinit>()@78',
      'fixture.Constructs$Shape$1.corners()@80',
      'fixture.Constructs$Shape.corners()@86',
      'fixture.Constructs$Point.Point(int, int)@91',
      'fixture.Constructs$Point.sum()@96',
      'fixture.Greeter.greet()@111',
      'fixture.Greeter.suffix()@115',
    ];
    for (const entry of expected) expect(traced).toContain(entry);
    expect(new Set(traced).size).toBe(traced.length);
    for (const method of classRecord.trace) {
      expect(method.file).toBe('src/main/java/fixture/Constructs.java');
    }
  });

  it('leaves compiler-made methods out: lambda bodies, enum values() and valueOf()', () => {
    const names = records
      .find((r) => r.testClass === 'fixture.ConstructsTest' && r.testMethod === null)!
      .trace.map((m) => m.method);
    expect(names.some((name) => name.startsWith('lambda$'))).toBe(false);
    expect(names).not.toContain('values');
    expect(names).not.toContain('valueOf');
  });

  it('traces each test method on its own when asked', () => {
    const nested = records.find((r) => r.testMethod === 'onlyNested')!;
    expect(nested.trace.map((m) => `${m.className}.${m.signature}`)).toEqual([
      'fixture.Constructs$Nested.Nested()',
      'fixture.Constructs$Nested.depth()',
    ]);
    expect(nested).toMatchObject({ size: 2, bucket: 'short' });
  });
});

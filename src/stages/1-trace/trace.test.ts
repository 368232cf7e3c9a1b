import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { cacheLayout } from '../../core/cache.js';
import { makeTempDir } from '../../core/fs.js';
import type { JvmRunner, JvmRunRequest, JvmRunResult } from '../../toolchains/jvm/runner.js';
import { plainSink } from '../../events/render.js';
import { DEFAULT_BUILD } from '../../toolchains/build-settings.js';
import { traceProject, type TraceOptions } from './trace.js';

/*
 * Resuming and rebuilding the map, with a runner that answers without a JVM: each test class
 * runs two tests that enter one production method.
 */

class AnsweringRunner {
  readonly runs: string[] = [];

  async run(request: JvmRunRequest): Promise<JvmRunResult> {
    this.runs.push(`${request.testClass}${request.perTest ? ' per test' : ''}`);
    return {
      verdict: {
        kind: 'Passed',
        counts: { tests: 2, failures: 0, errors: 0, skipped: 0 },
        testTimeMs: 1,
      },
      timings: { compileMs: 0, loadMs: 0, testMs: 1, wallMs: 1 },
      started: false,
      buildReused: false,
      buildSteps: { rerun: 0, rerunMs: 0, learningMs: 0 },
      trace: {
        log: request.perTest ? [-1, 0, -2, 0] : [0],
        methods: {
          0: { owner: 'demo/Demo', name: 'run', descriptor: '()V', source: 'Demo.java', line: 2 },
        },
      },
      tests: [
        { testClass: request.testClass, testMethod: 'first', outcome: 'Passed', traceIndex: 0 },
        { testClass: request.testClass, testMethod: 'second', outcome: 'Passed', traceIndex: 1 },
      ],
    };
  }

  async close(): Promise<void> {}
}

let project: string;
let out: string;
let runner: AnsweringRunner;
let logged: string[];

beforeEach(async () => {
  const dir = await makeTempDir('trace-unit');
  project = path.join(dir, 'project');
  await mkdir(path.join(project, 'src/main/java/demo'), { recursive: true });
  await writeFile(
    path.join(project, 'src/main/java/demo/Demo.java'),
    'class Demo {\n  void run() {}\n}\n',
  );
  out = path.join(dir, 'out', 'map.jsonl');
  runner = new AnsweringRunner();
  logged = [];
});

function trace(overrides: Partial<TraceOptions> = {}) {
  return traceProject(project, {
    cache: cacheLayout(path.dirname(project)),
    build: DEFAULT_BUILD,
    classes: [{ testClass: 'demo.ATest' }, { testClass: 'demo.BTest' }],
    out,
    perTest: false,
    tree: 'c0ffee',
    baselineId: 'b1',
    lock: `${out}.lock`,
    events: plainSink((line) => logged.push(line)),
    runner: runner as unknown as JvmRunner,
    ...overrides,
  });
}

async function mapLines(): Promise<{ testClass: string; testMethod: string | null }[]> {
  return (await readFile(out, 'utf8'))
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line));
}

describe('the execution-context map', () => {
  it('is resumed when traced from the same inputs, with a manifest beside it', async () => {
    expect(await trace()).toMatchObject({ traced: 2, skipped: 0 });
    expect(await trace()).toMatchObject({
      traced: 0,
      skipped: 2,
      records: [{ size: 1 }, { size: 1 }],
    });
    expect(runner.runs).toEqual(['demo.ATest', 'demo.BTest']);
    const manifest = JSON.parse(
      await readFile(path.join(path.dirname(out), 'map.manifest.json'), 'utf8'),
    );
    expect(manifest).toMatchObject({
      kind: 'execution-context-manifest',
      v: 1,
      inputs: { tree: 'c0ffee', baselineId: 'b1', perTest: false },
    });
  });

  it('is traced afresh when the build, the tree or the baseline changed', async () => {
    await trace();
    const rebuilt = await trace({ build: { ...DEFAULT_BUILD, jvmArgs: ['-ea'] } });
    expect(rebuilt).toMatchObject({ traced: 2, skipped: 0 });
    expect(logged).toContainEqual(
      expect.stringMatching(
        /^trace: tracing .*map\.jsonl afresh: map\.manifest\.json records other inputs: build [0-9a-f]+ → [0-9a-f]+$/,
      ),
    );
    expect(
      await trace({ build: { ...DEFAULT_BUILD, jvmArgs: ['-ea'] }, tree: 'beef' }),
    ).toMatchObject({ traced: 2 });
    expect(
      await trace({
        build: { ...DEFAULT_BUILD, jvmArgs: ['-ea'] },
        tree: 'beef',
        baselineId: 'b2',
      }),
    ).toMatchObject({ traced: 2 });
    expect(await mapLines()).toHaveLength(2);
  });

  it('gets per-test records when asked after a plain trace, and serves plain requests after', async () => {
    await trace();
    expect(await trace({ perTest: true })).toMatchObject({ traced: 2 });
    expect((await mapLines()).map((line) => line.testMethod)).toEqual([
      null,
      'first',
      'second',
      null,
      'first',
      'second',
    ]);
    expect(await trace()).toMatchObject({ traced: 0 });
    // A class added by a plain request to a map traced per test gets its per-test records too.
    await trace({
      perTest: false,
      classes: [{ testClass: 'demo.ATest' }, { testClass: 'demo.CTest' }],
    });
    expect(runner.runs.at(-1)).toBe('demo.CTest per test');
  });

  it('traces again the class of a torn last line, leaving no broken line', async () => {
    await trace();
    const text = await readFile(out, 'utf8');
    const [first, second] = text.trim().split('\n');
    await writeFile(out, `${first}\n${second!.slice(0, 30)}`);
    expect(await trace()).toMatchObject({ traced: 1, skipped: 1 });
    expect(logged).toContain(
      `trace: ${out}:2 was cut short by an interrupted run; its class is traced again`,
    );
    expect((await mapLines()).map((line) => line.testClass)).toEqual(['demo.ATest', 'demo.BTest']);
  });

  it('is traced afresh when it has no manifest (written by an older witnessgym)', async () => {
    await mkdir(path.dirname(out), { recursive: true });
    await writeFile(out, '{"testClass":"demo.ATest"}\n');
    expect(await trace()).toMatchObject({ traced: 2 });
    expect(logged).toContainEqual(expect.stringMatching(/afresh: it has no manifest$/));
  });
});

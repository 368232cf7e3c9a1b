import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../core/package-root.js';
import { PROTOCOL_VERSION, readAnswer, RequestSchema, type Op } from './protocol.js';

const buildSteps = { rerun: 1, rerunMs: 40, learningMs: 300, learnt: { '{"mainClass":"G"}': [] } };
const failedTest = {
  testClass: 'a.FooTest',
  testMethod: 'fails',
  outcome: 'failure',
  printed: 'java.lang.AssertionError: expected 1',
  message: 'expected 1',
  frames: ['a.FooTest.fails(FooTest.java:9)'],
  traceIndex: 1,
};
const trace = {
  log: [-1, 0, -2, 0, 1],
  methods: {
    '0': { owner: 'a/Foo', name: 'bar', descriptor: '()V', source: 'Foo.java', line: 3 },
    '1': { owner: 'a/Foo$1', name: '<init>', descriptor: '()V', source: null, line: null },
  },
};

/** One answer the runner JVM writes for each kind, with the op it answers. */
const ANSWERS: [Op, Record<string, unknown>][] = [
  ['ping', { kind: 'Pong', v: PROTOCOL_VERSION, pid: 4242, java: '17.0.15' }],
  ['compile', { kind: 'Compiled', compileMs: 120, buildSteps }],
  [
    'compile',
    {
      kind: 'CompileFailed',
      compileMs: 80,
      scope: 'test',
      messages: [{ file: '/p/FooTest.java', line: 4, column: null, message: 'cannot find symbol' }],
    },
  ],
  ['compile', { kind: 'BuildStepFailed', compileMs: 90, reason: 'G: boom', buildSteps }],
  [
    'run',
    {
      kind: 'Ran',
      results: [{ testClass: 'a.FooTest', testMethod: 'passes', outcome: 'passed' }, failedTest],
      trace,
      loadMs: 30,
      testMs: 12,
      restart: false,
    },
  ],
  ['run', { kind: 'Ran', results: [], loadMs: 0, testMs: 0, restart: true }],
  ['run', { kind: 'TestClassNotFound', className: 'a.MissingTest', restart: false }],
  [
    'run',
    { kind: 'RunCrashed', reason: 'java.lang.OutOfMemoryError: Java heap space', restart: false },
  ],
  ['compile', { kind: 'Error', message: 'java.lang.NullPointerException: null' }],
];

const line = (answer: Record<string, unknown>, id = 7) => JSON.stringify({ ...answer, id });

function faultOf(op: Op, text: string): string {
  const read = readAnswer(op, 7, text);
  if (read.kind !== 'Fault') throw new Error(`expected a fault, read ${JSON.stringify(read)}`);
  return read.reason;
}

describe('readAnswer', () => {
  it.each(ANSWERS)('reads a %s answer of kind %j', (op, answer) => {
    expect(readAnswer(op, 7, line(answer))).toEqual({
      kind: 'Read',
      answer: { ...answer, id: 7 },
    });
  });

  it('takes an Error without id as the answer to the pending request', () => {
    const answer = { kind: 'Error', id: null, message: 'bad JSON at 0' };
    expect(readAnswer('run', 7, JSON.stringify(answer))).toEqual({ kind: 'Read', answer });
  });

  it('refuses a line that is not JSON', () => {
    expect(faultOf('run', '{"kind":"Ran",')).toMatch(/^answer to run request 7 is not JSON \(/);
  });

  it('refuses a kind the op cannot have', () => {
    const reason = faultOf('run', line(ANSWERS[0]![1]));
    expect(reason).toMatch(/^answer to run request 7 does not fit the protocol \(kind: /);
  });

  it('names the field that breaks the schema', () => {
    const ran = { kind: 'Ran', results: [{ ...failedTest, outcome: 'broken' }], loadMs: 1 };
    const reason = faultOf('run', line({ ...ran, testMs: 1, restart: false }));
    expect(reason).toContain('results.0.outcome: ');
    expect(faultOf('run', line({ ...ran, restart: false }))).toContain('testMs: ');
  });

  it('shows the first few of many issues', () => {
    const ran = { kind: 'Ran', results: [], trace: { log: ['x', 'x', 'x', 'x', 'x', 'x', 'x'] } };
    const reason = faultOf('run', line({ ...ran, loadMs: 1, testMs: 1, restart: false }));
    expect(reason).toContain('trace.log.4: ');
    expect(reason).not.toContain('trace.log.5: ');
    expect(reason).toContain('; 3 more)');
  });

  it('refuses fields the protocol does not have', () => {
    const reason = faultOf(
      'compile',
      line({ kind: 'Compiled', compileMs: 1, buildSteps, ok: true }),
    );
    expect(reason).toContain('ok');
  });

  it('refuses an answer to another request', () => {
    expect(faultOf('compile', line(ANSWERS[1]![1], 6))).toBe(
      'answer to compile request 7 carries the id 6',
    );
  });

  it('refuses a runner of another protocol version, whatever its pong looks like', () => {
    const reason = faultOf('ping', line({ kind: 'Pong', v: PROTOCOL_VERSION + 1, uptime: 3 }));
    expect(reason).toBe(
      `the runner JVM speaks protocol version ${PROTOCOL_VERSION + 1}, this harness version ${PROTOCOL_VERSION}`,
    );
  });

  it('refuses a pong without a version', () => {
    expect(faultOf('ping', line({ kind: 'Pong', pid: 1, java: '17' }))).toContain('v: ');
  });
});

describe('protocol version', () => {
  it('is the one the runner JVM answers with', async () => {
    const main = await readFile(
      path.join(packageRoot(), 'jvm/runner/witnessgym/runner/Main.java'),
      'utf8',
    );
    expect(/PROTOCOL_VERSION = (\d+);/.exec(main)?.[1]).toBe(String(PROTOCOL_VERSION));
  });
});

describe('RequestSchema', () => {
  const project = {
    key: 'k',
    classes: '/p/target/classes',
    testClasses: '/p/target/test-classes',
    classpath: ['/m/junit.jar'],
    bridge: '/c/bridge',
    release: '8',
  };

  it('describes the requests the harness sends', () => {
    for (const request of [
      { op: 'ping' },
      {
        op: 'compile',
        project,
        overlay: '/t/overlay',
        sources: [{ path: '/p/src/main/java/a/Foo.java', scope: 'main' }],
        generators: [{ mainClass: 'G', args: ['{outputDir}'], systemProperties: {} }],
        learnt: {},
      },
      { op: 'run', project, overlay: '/t/overlay', testClass: 'a.FooTest', trace: true },
    ]) {
      expect(RequestSchema.safeParse(request).success).toBe(true);
    }
  });

  it('has no op beyond ping, compile and run', () => {
    expect(RequestSchema.safeParse({ op: 'shutdown' }).success).toBe(false);
  });
});

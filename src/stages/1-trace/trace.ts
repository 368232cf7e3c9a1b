import { appendFile, mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import type { EventSink } from '../../events/types.js';
import { copyProjectTree, makeTempDir, readJsonLines, removeTree } from '../../core/fs.js';
import { describeVerdict, type SingleVerdictKind } from '../../core/verdict.js';
import type { JvmRunner, RawTrace, TestOutcome } from '../../toolchains/jvm/runner.js';
import { jvmTestRunner } from '../../runners/jvm.js';
import { timeLimit } from '../../runners/time-limits.js';
import { withTimeLimit, withTracing } from '../../runners/wrappers.js';
import type { BaselineClass } from '../0-corpus/baseline.js';
import type { BuildSettings } from '../../toolchains/build.js';
import { locate, SourceIndex, type MethodLocation } from './locations.js';

/** Execution-context length buckets of the paper, plus the two it leaves out. */
export type ContextBucket = 'none' | 'short' | 'mid-short' | 'mid-long' | 'long' | 'beyond';

export function contextBucket(size: number): ContextBucket {
  if (size === 0) return 'none';
  if (size <= 40) return 'short';
  if (size <= 70) return 'mid-short';
  if (size <= 120) return 'mid-long';
  if (size <= 150) return 'long';
  return 'beyond';
}

/** Prompts name the first few methods and files of a context. */
const ANCHOR_COUNT = 12;

export interface ExecutionContext {
  /** The ordered trace τ: production methods in first-hit order (hence also the set EC). */
  trace: MethodLocation[];
  size: number;
  bucket: ContextBucket;
  /** The first distinct methods, as `Class.signature`. */
  anchors: string[];
  /** The first distinct source files. */
  bugRelatedFiles: string[];
}

/** One line of the execution-context map: a test class, or one of its test methods. */
export interface ExecutionContextRecord extends ExecutionContext {
  testClass: string;
  testMethod: string | null;
  /** Verdict of the traced run, and the class's verdict in the baseline. */
  status: SingleVerdictKind;
  baselineStatus: SingleVerdictKind | null;
  detail: string;
  durationMs: number;
  /** Hits recorded (first hit per test), for throughput figures. */
  records: number;
}

function contextOf(trace: MethodLocation[]): ExecutionContext {
  const files: string[] = [];
  for (const location of trace) {
    if (location.file && !files.includes(location.file)) files.push(location.file);
  }
  return {
    trace,
    size: trace.length,
    bucket: contextBucket(trace.length),
    anchors: trace.slice(0, ANCHOR_COUNT).map((m) => `${m.className}.${m.signature}`),
    bugRelatedFiles: files.slice(0, ANCHOR_COUNT),
  };
}

/** First-hit order of method ids in a slice of the log (test markers skipped). */
function firstHits(log: number[]): number[] {
  const seen = new Set<number>();
  const order: number[] = [];
  for (const value of log) {
    if (value >= 0 && !seen.has(value)) {
      seen.add(value);
      order.push(value);
    }
  }
  return order;
}

/** The log cut at test markers: index k holds what the k-th test entered. */
function perTestLogs(log: number[]): number[][] {
  const tests: number[][] = [];
  let current: number[] | undefined;
  for (const value of log) {
    if (value < 0) {
      current = [];
      tests[-1 - value] = current;
    } else {
      current?.push(value);
    }
  }
  return tests;
}

export interface TraceOptions {
  cache: CacheLayout;
  build: BuildSettings;
  /** Test classes to trace, each with its baseline entry when known. */
  classes: { testClass: string; baseline?: BaselineClass }[];
  out: string;
  perTest: boolean;
  events: EventSink;
  runner?: JvmRunner;
}

export interface TraceSummary {
  out: string;
  traced: number;
  skipped: number;
  records: ExecutionContextRecord[];
  durationMs: number;
}

/**
 * The class records of an execution-context map by test class; an interrupted run's cut last
 * line is left out, so that class is traced again.
 */
export async function readContextMap(file: string): Promise<Map<string, ExecutionContextRecord>> {
  const records = await readJsonLines<ExecutionContextRecord>(file);
  return new Map(
    records
      .filter((record) => record.testMethod === null)
      .map((record) => [record.testClass, record]),
  );
}

const TEST_STATUS: Record<TestOutcome['outcome'], SingleVerdictKind> = {
  Passed: 'Passed',
  Skipped: 'NoTestsRan',
  Failed: 'TestFailed',
  Errored: 'TestErrored',
};

/**
 * Runs each selected test class once in the warm JVM with production classes instrumented, and
 * appends one record per class (and per test method when asked) to the map. The project is used
 * through a working copy, so tests that write to their directory leave the original alone.
 */
export async function traceProject(
  projectRoot: string,
  options: TraceOptions,
): Promise<TraceSummary> {
  const started = performance.now();
  const done = await readContextMap(options.out);
  const pending = options.classes.filter((entry) => !done.has(entry.testClass));
  await mkdir(path.dirname(options.out), { recursive: true });
  const workDir = await makeTempDir('trace');
  const copy = path.join(workDir, 'project');
  const baselines = new Map(options.classes.map((entry) => [entry.testClass, entry.baseline]));
  const runner = withTimeLimit(
    withTracing(jvmTestRunner(options.cache, options.runner), options.perTest),
    (request) => timeLimit('jvm', 'trace', baselines.get(request.testClass)?.durationMs),
  );
  options.events.emit({
    kind: 'StageStarted',
    stage: 'trace',
    subject: options.out,
    total: pending.length,
    unit: 'classes',
  });
  try {
    if (pending.length > 0) await copyProjectTree(projectRoot, copy);
    const sources = await SourceIndex.build(path.join(copy, options.build.module ?? ''), copy);
    for (const [index, { testClass, baseline }] of pending.entries()) {
      const result = await runner.run({
        target: { projectDir: copy, build: options.build, changed: [] },
        testClass,
      });
      const raw: RawTrace = result.trace ?? { log: [], methods: {} };
      const locations = new Map<number, MethodLocation>();
      for (const [id, method] of Object.entries(raw.methods))
        locations.set(Number(id), await locate(method, sources));
      const toTrace = (ids: number[]) => ids.map((id) => locations.get(id)!).filter(Boolean);
      const common = {
        testClass,
        status: result.verdict.kind,
        baselineStatus: baseline?.status ?? null,
        detail: describeVerdict(result.verdict),
        durationMs: result.durationMs,
      };
      const classRecord: ExecutionContextRecord = {
        ...common,
        testMethod: null,
        records: raw.log.filter((value) => value >= 0).length,
        ...contextOf(toTrace(firstHits(raw.log))),
      };
      const lines = [classRecord];
      if (options.perTest) {
        const logs = perTestLogs(raw.log);
        for (const test of result.tests ?? []) {
          if (test.traceIndex === undefined) continue;
          const ids = firstHits(logs[test.traceIndex] ?? []);
          lines.push({
            ...common,
            testMethod: test.testMethod,
            status: TEST_STATUS[test.outcome],
            records: ids.length,
            ...contextOf(toTrace(ids)),
          });
        }
      }
      // One write per class: a crash leaves at most one partial line, which is traced again.
      await appendFile(options.out, lines.map((line) => `${JSON.stringify(line)}\n`).join(''));
      done.set(testClass, classRecord);
      options.events.emit({
        kind: 'ItemDone',
        stage: 'trace',
        done: index + 1,
        total: pending.length,
        item: testClass,
        outcome: `${classRecord.status}, ${classRecord.size} methods (${classRecord.bucket})`,
      });
    }
    options.events.emit({
      kind: 'StageFinished',
      stage: 'trace',
      subject: options.out,
      durationMs: Math.round(performance.now() - started),
    });
  } finally {
    await runner.close();
    await removeTree(workDir);
  }
  return {
    out: options.out,
    traced: pending.length,
    skipped: options.classes.length - pending.length,
    records: options.classes.flatMap((entry) => done.get(entry.testClass) ?? []),
    durationMs: Math.round(performance.now() - started),
  };
}

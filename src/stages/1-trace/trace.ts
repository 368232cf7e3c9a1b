import { rm } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import type { FetchedProjectRef } from '../../project/project.js';
import { note, type EventSink } from '../../events/types.js';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../../core/fs.js';
import { withLock } from '../../records/lock.js';
import { describeVerdict, type SingleVerdictKind } from '../../core/verdict.js';
import { defineManifest, manifestBeside, readIfBuiltFrom } from '../../records/manifest.js';
import {
  appendRecords,
  defineRecord,
  readRecords,
  recordId,
  writeRecordFile,
  type RecordOf,
  type TornLine,
} from '../../records/record.js';
import { SingleVerdictKindSchema } from '../../records/schemas.js';
import { jvmTestRunner } from '../../runners/jvm.js';
import { timeLimit } from '../../runners/time-limits.js';
import { withTimeLimit, withTracing } from '../../runners/wrappers.js';
import type { BuildSettings } from '../../toolchains/build-settings.js';
import { projectLayout } from '../../toolchains/layout.js';
import type { JvmRunner, RawTrace, TestOutcome } from '../../toolchains/jvm/runner.js';
import { baselineClass, type BaselineClass } from '../../project/baseline.js';
import { locate, MethodLocationSchema, SourceIndex, type MethodLocation } from './locations.js';

/** Execution-context length buckets of the paper, plus the two it leaves out. */
export const ContextBucketSchema = z.enum([
  'none',
  'short',
  'mid-short',
  'mid-long',
  'long',
  'beyond',
]);
export type ContextBucket = z.infer<typeof ContextBucketSchema>;

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

const ExecutionContextSchema = z.strictObject({
  /** The ordered trace τ: production methods in first-hit order (hence also the set EC). */
  trace: z.array(MethodLocationSchema),
  size: z.number().int().nonnegative(),
  bucket: ContextBucketSchema,
  /** The first distinct methods, as `Class.signature`. */
  anchors: z.array(z.string()),
  /** The first distinct source files. */
  bugRelatedFiles: z.array(z.string()),
});
export type ExecutionContext = z.infer<typeof ExecutionContextSchema>;

/** One line of the execution-context map: a test class, or one of its test methods. */
const ExecutionContextRecordSchema = z.strictObject({
  ...ExecutionContextSchema.shape,
  testClass: z.string(),
  testMethod: z.string().nullable(),
  /** Verdict of the traced run, and the class's verdict in the baseline. */
  status: SingleVerdictKindSchema,
  baselineStatus: SingleVerdictKindSchema.nullable(),
  detail: z.string(),
  durationMs: z.number().nonnegative(),
  /** Hits recorded (first hit per test), for throughput figures. */
  records: z.number().int().nonnegative(),
});
export type ExecutionContextRecord = z.infer<typeof ExecutionContextRecordSchema>;

export const ExecutionContextLine = defineRecord({
  kind: 'execution-context',
  version: 1,
  schema: ExecutionContextRecordSchema,
});

/**
 * Beside the map: what it was traced from. A map traced per test also serves a request without
 * per-test records; the other way round, the map is traced again.
 */
export const ContextMapManifestFile = defineManifest(
  'execution-context-manifest',
  z.strictObject({
    /** The traced tree: the pristine commit, or a content hash of a project used in place. */
    tree: z.string(),
    /** Lines of another shape (an older witnessgym's) are traced again, not misread. */
    recordVersion: z.number().int(),
    /** Id of the build settings. */
    build: z.string(),
    /** Id of the baseline the classes' time limits and baseline verdicts came from. */
    baselineId: z.string().nullable(),
    perTest: z.boolean(),
  }),
);
export type ContextMapInputs = RecordOf<typeof ContextMapManifestFile>['inputs'];

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
  /** What is traced, recorded in the map's manifest (see ContextMapManifestFile). */
  tree: string;
  baselineId: string | null;
  /** Held while the map is written. */
  lock: string;
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

type MapState =
  | { kind: 'Missing' }
  | { kind: 'Stale'; reason: string }
  | {
      kind: 'Current';
      perTest: boolean;
      /** Class records by test class. */
      done: Map<string, ExecutionContextRecord>;
      tornLastLine: TornLine | null;
    };

/** The map at `out`, if traced from `wanted` (and per test when `perTest` is asked for). */
async function readMap(
  out: string,
  wanted: Omit<ContextMapInputs, 'perTest'>,
  perTest: boolean,
): Promise<MapState> {
  const manifest = await readIfBuiltFrom(manifestBeside(out), ContextMapManifestFile, wanted);
  if (manifest.kind === 'Missing') {
    return (await exists(out)) ? { kind: 'Stale', reason: 'it has no manifest' } : manifest;
  }
  if (manifest.kind === 'Stale') return manifest;
  if (perTest && !manifest.record.inputs.perTest) {
    return { kind: 'Stale', reason: 'it has no per-test records' };
  }
  const { records, tornLastLine } = await readRecords(out, ExecutionContextLine);
  const done = new Map(
    records
      .filter((record) => record.testMethod === null)
      .map((record) => [record.testClass, record]),
  );
  return { kind: 'Current', perTest: manifest.record.inputs.perTest, done, tornLastLine };
}

const TEST_STATUS: Record<TestOutcome['outcome'], SingleVerdictKind> = {
  Passed: 'Passed',
  Skipped: 'NoTestsRan',
  Failed: 'TestFailed',
  Errored: 'TestErrored',
};

/** Where a project's execution-context map is, and the lock held while writing it. */
export interface ContextMapLocation {
  contextMap: string;
  lock: string;
}

/**
 * Traces test classes of a fetched project into `map`, the map's inputs (tree, build, baseline)
 * and the classes' time limits taken from the project, for `trace` and for inject alike.
 */
export function traceFetchedProject(
  project: FetchedProjectRef,
  options: {
    cache: CacheLayout;
    classes: string[];
    map: ContextMapLocation;
    perTest: boolean;
    events: EventSink;
  },
): Promise<TraceSummary> {
  const { baseline } = project;
  return traceProject(project.root, {
    cache: options.cache,
    build: project.build,
    classes: options.classes.map((testClass) => {
      const entry = baselineClass(baseline, testClass);
      return entry ? { testClass, baseline: entry } : { testClass };
    }),
    out: options.map.contextMap,
    perTest: options.perTest,
    tree: project.base.commit,
    baselineId: recordId(baseline),
    lock: options.map.lock,
    events: options.events,
  });
}

/**
 * Runs each selected test class once in the warm JVM with production classes instrumented, and
 * appends one record per class (and per test method when asked) to the map. A map traced from
 * the same inputs is resumed: classes it has are not traced again; one traced from other inputs
 * is traced afresh. The project is used through a working copy, so tests that write to their
 * directory leave the original alone.
 */
export async function traceProject(
  projectRoot: string,
  options: TraceOptions,
): Promise<TraceSummary> {
  const started = performance.now();
  const { out, classes } = options;
  const log = (line: string) => note(options.events, 'trace', line);
  const wanted = {
    tree: options.tree,
    recordVersion: ExecutionContextLine.version,
    build: recordId(options.build),
    baselineId: options.baselineId,
  };
  const summary = (done: Map<string, ExecutionContextRecord>, traced: number): TraceSummary => ({
    out,
    traced,
    skipped: classes.length - traced,
    records: classes.flatMap((entry) => done.get(entry.testClass) ?? []),
    durationMs: Math.round(performance.now() - started),
  });
  // A finished map is read without the lock: appends leave at most a torn last line.
  const seen = await readMap(out, wanted, options.perTest);
  if (seen.kind === 'Current' && classes.every((entry) => seen.done.has(entry.testClass))) {
    return summary(seen.done, 0);
  }
  return withLock(options.lock, { purpose: `trace into ${out}`, log }, async () => {
    let map = await readMap(out, wanted, options.perTest);
    if (map.kind !== 'Current') {
      if (map.kind === 'Stale') log(`tracing ${out} afresh: ${map.reason}`);
      await rm(out, { force: true });
      const inputs = { ...wanted, perTest: options.perTest };
      await writeRecordFile(manifestBeside(out), ContextMapManifestFile, { inputs });
      map = { kind: 'Current', perTest: options.perTest, done: new Map(), tornLastLine: null };
    }
    if (map.tornLastLine) {
      log(
        `${out}:${map.tornLastLine.line} was cut short by an interrupted run; its class is traced again`,
      );
    }
    const { done } = map;
    const pending = classes.filter((entry) => !done.has(entry.testClass));
    if (pending.length > 0) {
      log(`${pending.length} of ${classes.length} test classes to trace into ${out}`);
      // Every line of a map traced per test is: classes added later get their per-test records.
      await traceClasses(projectRoot, pending, { ...options, perTest: map.perTest }, done);
    }
    return summary(done, pending.length);
  });
}

/** Traces `pending` into the map, adding each class record to `done` once appended. */
async function traceClasses(
  projectRoot: string,
  pending: TraceOptions['classes'],
  options: TraceOptions,
  done: Map<string, ExecutionContextRecord>,
): Promise<void> {
  const started = performance.now();
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
    await copyProjectTree(projectRoot, copy);
    const sources = await SourceIndex.build(copy, projectLayout(options.build));
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
      // One write per class: a crash leaves at most one torn line, whose class is traced again.
      await appendRecords(options.out, ExecutionContextLine, lines);
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
}

import path from 'node:path';
import { projectCache, type CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { surefireSelects } from '../../core/glob.js';
import type { EventSink } from '../../events/types.js';
import { isUsable } from '../../project/baseline.js';
import { resolveFetchedProject, type RecipeRequest } from '../../project/project.js';
import { traceFetchedProject, type ExecutionContextRecord } from './trace.js';

export interface TraceStageOptions extends RecipeRequest {
  /** Test classes to trace, names or globs; every usable class of the baseline by default. */
  tests?: string[];
  /** Where the map goes; the project cache's map by default. */
  out?: string;
  perTest: boolean;
}

/** A traced class whose verdict differs from its baseline's. */
export interface TraceMismatch {
  testClass: string;
  baseline: ExecutionContextRecord['baselineStatus'];
  traced: ExecutionContextRecord['status'];
  detail: string;
}

export interface TraceStageResult {
  project: string;
  out: string;
  classes: number;
  tracedNow: number;
  resumed: number;
  /** Test classes per length bucket. */
  buckets: Record<string, number>;
  verdictsMatchingBaseline: number;
  mismatches: TraceMismatch[];
  durationMs: number;
}

/** The trace stage: the execution-context map of a fetched project's test classes. */
export async function runTrace(
  argument: string,
  options: TraceStageOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<TraceStageResult> {
  const ref = await resolveFetchedProject(argument, cache, options);
  const selected = ref.baseline.classes.filter((entry) =>
    options.tests
      ? options.tests.some((pattern) => surefireSelects(pattern, entry.testClass))
      : isUsable(entry),
  );
  if (selected.length === 0) {
    throw new UserError(
      `no test class of ${ref.label} matches --tests ${options.tests?.join(' ')}`,
    );
  }
  const cached = projectCache(cache, ref.base);
  const summary = await traceFetchedProject(ref, {
    cache,
    classes: selected.map((entry) => entry.testClass),
    map: options.out ? { contextMap: path.resolve(options.out), lock: cached.lock } : cached,
    perTest: options.perTest,
    events,
  });
  const buckets: Record<string, number> = {};
  for (const record of summary.records) buckets[record.bucket] = (buckets[record.bucket] ?? 0) + 1;
  const mismatches = summary.records
    .filter((record) => record.baselineStatus !== null && record.status !== record.baselineStatus)
    .map((record) => ({
      testClass: record.testClass,
      baseline: record.baselineStatus,
      traced: record.status,
      detail: record.detail,
    }));
  return {
    project: ref.label,
    out: summary.out,
    classes: summary.records.length,
    tracedNow: summary.traced,
    resumed: summary.skipped,
    buckets,
    verdictsMatchingBaseline: summary.records.length - mismatches.length,
    mismatches,
    durationMs: summary.durationMs,
  };
}

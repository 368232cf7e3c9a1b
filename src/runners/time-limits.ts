import type { RunnerName } from './types.js';

/**
 * Every time limit of a test run, in one place. What a limit is for:
 * - `run`: a candidate's run, against the class's normal time. The warm JVM follows PIT
 *   (1.25 × normal + 4 s); Maven pays JVM starts and plugin resolution on top of the class's own
 *   time, so it gets a minute plus three times the normal time.
 * - `reference`: the run that measures the normal time itself (the class on a reference state),
 *   so twice the candidate limit, against the baseline.
 * - `trace`: an instrumented run, with room for the instrumentation.
 * Without a known normal time, a run gets ten minutes.
 */
export type LimitPurpose = 'run' | 'reference' | 'trace';

export const UNKNOWN_TIME_LIMIT_MS = 600_000;

/** PIT's limit for a run in a warm JVM. */
function warmRunTimeout(normalMs: number): number {
  return Math.round(1.25 * normalMs) + 4000;
}

export function timeLimit(
  runner: RunnerName,
  purpose: LimitPurpose,
  normalMs: number | undefined,
): number {
  if (normalMs === undefined) return UNKNOWN_TIME_LIMIT_MS;
  const run = runner === 'maven' ? 60_000 + 3 * normalMs : warmRunTimeout(normalMs);
  switch (purpose) {
    case 'run':
      return run;
    case 'reference':
      return 2 * run;
    case 'trace':
      return 10_000 + 2 * normalMs;
  }
}

import { z } from 'zod';
import { errorMessage } from '../core/errors.js';

/**
 * The checks a state of a project can be put through. A stage composes the ones it needs in a
 * plan (injection: all of them in this order; a transformation step, the evaluation oracle and
 * strengthening pick their own), and every planned check gets a recorded outcome.
 */
export const CHECK_NAMES = [
  /** The change touches production Java sources and means something. */
  'diff',
  /** No public or protected signature is changed. */
  'signature',
  /** The change has the required structure (a bug type's, say). */
  'structure',
  /** The test passes on the reference state (the clean code, for an injection). */
  'reference',
  'compiles',
  /** The test fails (TestFailed or TestErrored) in every one of N runs. */
  'exposes',
  /** The failing run entered the changed code. */
  'reached',
  /** Other test classes that reach the change, rerun to see which now fail. */
  'collateral',
  /**
   * The bug fails few tests: no failing test of the witness or the collateral run meets a broken
   * class initialiser, and no class fails in most of its tests (that is no hidden bug).
   */
  'narrow',
  /** One Maven replay agrees: the ground truth. */
  'maven',
] as const;
export type CheckName = (typeof CHECK_NAMES)[number];

/** Why a failed check turned a candidate down, in the words summaries count by. */
export const FAILURE_STAGES = [
  'diff',
  'signature',
  'structure',
  'baseline',
  'compile',
  'not-exposed',
  'timeout',
  'crashed',
  'infra',
  'not-reached',
  'flaky',
  'maven',
  'too-broad',
] as const;
export type FailureStage = (typeof FAILURE_STAGES)[number];

export type CheckOutcome<Evidence> =
  | { kind: 'Passed'; evidence: Evidence }
  | { kind: 'Failed'; stage: FailureStage; reason: string; verdict?: string }
  | { kind: 'Skipped'; reason: string };

export function passed<Evidence>(evidence: Evidence): CheckOutcome<Evidence> {
  return { kind: 'Passed', evidence };
}

export function failed(
  stage: FailureStage,
  reason: string,
  verdict?: string,
): { kind: 'Failed'; stage: FailureStage; reason: string; verdict?: string } {
  return { kind: 'Failed', stage, reason, ...(verdict ? { verdict } : {}) };
}

/** A failed check in one line: its reason, and the verdict it saw when it kept one. */
export function describeFailure(outcome: { reason: string; verdict?: string }): string {
  return outcome.verdict ? `${outcome.reason} (${outcome.verdict})` : outcome.reason;
}

/** How one check ended, as persisted with the candidate (evidence lives in the record itself). */
export const CheckRecordSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('Passed'),
    check: z.enum(CHECK_NAMES),
    durationMs: z.number(),
  }),
  z.strictObject({
    kind: z.literal('Failed'),
    check: z.enum(CHECK_NAMES),
    stage: z.enum(FAILURE_STAGES),
    reason: z.string(),
    verdict: z.string().optional(),
    durationMs: z.number(),
  }),
  z.strictObject({
    kind: z.literal('Skipped'),
    check: z.enum(CHECK_NAMES),
    reason: z.string(),
    durationMs: z.literal(0),
  }),
]);
export type CheckRecord = z.infer<typeof CheckRecordSchema>;

/**
 * Runs the checks of a plan one at a time, recording each outcome and its time. Once a check
 * fails, `finish` records every planned check that did not run as Skipped, so a record always
 * says of each check whether it passed, failed or was never tried, and why.
 */
export class CheckLog {
  private readonly records: CheckRecord[] = [];
  private readonly started = performance.now();

  constructor(private readonly plan: readonly CheckName[]) {}

  async run<Evidence>(
    check: CheckName,
    body: () => CheckOutcome<Evidence> | Promise<CheckOutcome<Evidence>>,
  ): Promise<CheckOutcome<Evidence>> {
    if (!this.plan.includes(check)) throw new Error(`check ${check} is not in the plan`);
    const started = performance.now();
    // A fault of the harness inside a check is that check's failure, recorded like any other.
    const outcome = await Promise.resolve()
      .then(body)
      .catch((error: unknown) => failed('infra', `harness error: ${errorMessage(error)}`));
    const durationMs = Math.round(performance.now() - started);
    this.records.push(
      outcome.kind === 'Skipped'
        ? { kind: 'Skipped', check, reason: outcome.reason, durationMs: 0 }
        : outcome.kind === 'Passed'
          ? { kind: 'Passed', check, durationMs }
          : {
              kind: 'Failed',
              check,
              stage: outcome.stage,
              reason: outcome.reason,
              ...(outcome.verdict ? { verdict: outcome.verdict } : {}),
              durationMs,
            },
    );
    return outcome;
  }

  skip(check: CheckName, reason: string): void {
    this.records.push({ kind: 'Skipped', check, reason, durationMs: 0 });
  }

  /**
   * Every planned check's record, in plan order; those never run are Skipped with the reason
   * `notRun` gives (there are none once every check has run).
   */
  finish(notRun = 'an earlier check failed'): { checks: CheckRecord[]; totalMs: number } {
    const checks = this.plan.map(
      (check) =>
        this.records.find((record) => record.check === check) ??
        ({ kind: 'Skipped', check, reason: notRun, durationMs: 0 } as const),
    );
    return { checks, totalMs: Math.round(performance.now() - this.started) };
  }
}

/** Time spent in the given checks. */
export function checkTime(checks: readonly CheckRecord[], names: readonly CheckName[]): number {
  return checks
    .filter((record) => names.includes(record.check))
    .reduce((sum, record) => sum + record.durationMs, 0);
}

import { baselineClass } from '../../project/baseline.js';
import { z } from 'zod';
import {
  checkCollateral,
  checkCompiles,
  checkExposes,
  checkReached,
  checkWithMaven,
  ReferenceRuns,
  FailureSignatureSchema,
} from '../../checks/runs.js';
import { checkDiff, checkSignature, checkStructure } from '../../checks/static.js';
import { checkNarrow } from '../../checks/suite.js';
import {
  CHECK_NAMES,
  CheckLog,
  checkTime,
  failed,
  FAILURE_STAGES,
  type CheckName,
  type CheckOutcome,
  type CheckRecord,
} from '../../checks/types.js';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage } from '../../core/errors.js';
import type { FileChange } from '../../core/file-change.js';
import { failingMethodsOf } from '../../core/test-reports.js';
import type { SingleVerdict, SingleVerdictKind } from '../../core/verdict.js';
import { SingleVerdictKindSchema } from '../../records/schemas.js';
import { TouchedMemberSchema, type TouchedMember } from '../../lang/java/change.js';
import type { ProjectRef } from '../../project/project.js';
import { patchOf, withPatch, type ProjectState } from '../../project/state.js';
import { compiledSources, type WorkingCopy } from '../../project/working-copy.js';
import { jvmTestRunner } from '../../runners/jvm.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { RunTarget, TestRunner } from '../../runners/types.js';
import type { JvmRunner } from '../../toolchains/jvm/runner.js';
import type { Toolchain } from '../../toolchains/types.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { Injector } from './rules/types.js';
import type { BugTypeSpec } from './spec.js';

/** Where a candidate was turned down: a failed check's stage, or the agent engine's own two. */
export const REJECTION_STAGES = [
  ...FAILURE_STAGES,
  /** Agent engine: the change passed, but the attempt's report line was missing or wrong. */
  'report',
  /** Agent engine: the agent could not be started. */
  'agent',
] as const;
export type RejectionStage = (typeof REJECTION_STAGES)[number];

/** An injection goes through every check, in their order: cheap and static first, Maven late. */
export const INJECTION_CHECKS: readonly CheckName[] = CHECK_NAMES;

export const ValidationTimingsSchema = z.strictObject({
  staticMs: z.number(),
  compileMs: z.number(),
  runsMs: z.number(),
  mavenMs: z.number(),
  collateralMs: z.number(),
  totalMs: z.number(),
});
export type ValidationTimings = z.infer<typeof ValidationTimingsSchema>;

export const AcceptedEvidenceSchema = z.strictObject({
  structure: z.string(),
  touched: z.array(TouchedMemberSchema),
  failure: FailureSignatureSchema,
  /** Verdict kinds of the fast runs. */
  runs: z.array(SingleVerdictKindSchema),
  /** The Maven replay's verdict; null when Maven confirmation was off (its check says Skipped). */
  maven: SingleVerdictKindSchema.nullable(),
  /** The mutated member (or its class) as the failing run entered it. */
  reachedAs: z.string(),
  /** Other test classes that reach the change and now fail; a bug many catch is an easy case. */
  otherFailingClasses: z.array(z.string()),
  collateral: z.strictObject({ checked: z.number().int(), reaching: z.number().int() }),
});
export type AcceptedEvidence = z.infer<typeof AcceptedEvidenceSchema>;

export type ValidationOutcome =
  | {
      kind: 'Accepted';
      state: ProjectState;
      evidence: AcceptedEvidence;
      checks: CheckRecord[];
      timings: ValidationTimings;
    }
  | {
      kind: 'Rejected';
      stage: RejectionStage;
      reason: string;
      verdict?: string;
      checks: CheckRecord[];
      timings: ValidationTimings;
    };

function timingsOf(checks: readonly CheckRecord[], totalMs: number): ValidationTimings {
  return {
    staticMs: checkTime(checks, ['diff', 'signature', 'structure']),
    compileMs: checkTime(checks, ['compiles']),
    runsMs: checkTime(checks, ['reference', 'exposes', 'reached']),
    mavenMs: checkTime(checks, ['maven']),
    collateralMs: checkTime(checks, ['collateral']),
    totalMs,
  };
}

/** A rejection that no check produced: the agent engine's report and start failures. */
export function rejectionWithoutChecks(
  stage: RejectionStage,
  reason: string,
): Extract<ValidationOutcome, { kind: 'Rejected' }> {
  const { checks } = new CheckLog(INJECTION_CHECKS).finish(`the candidate was rejected: ${stage}`);
  return { kind: 'Rejected', stage, reason, checks, timings: timingsOf(checks, 0) };
}

export interface ValidatorOptions {
  cache: CacheLayout;
  project: ProjectRef;
  /** The harness-owned, compiled copy that candidates are checked out into one at a time. */
  copy: WorkingCopy;
  /** The pool of warm JVMs, shared with whoever else validates in this run. */
  jvm: JvmRunner;
  toolchain: Toolchain;
  /** Class records of the execution-context map, for finding other classes that reach a change. */
  contexts: ExecutionContextRecord[];
  /** Upper bound on other classes rerun per accepted candidate. */
  collateralLimit: number;
  /** Fast runs that must all expose the bug. */
  fastRuns: number;
  /** Confirm with one Maven replay (the ground truth); off only in unit-level experiments. */
  mavenCheck: boolean;
}

/**
 * The Maven replay of the witness on a candidate, which must fail with the methods and types the
 * fast run failed with (what the case will record): a bug whose witness fails otherwise under
 * Maven would be refuted by `case verify`, so it is refused here with the difference as reason.
 */
export function confirmWithMaven(
  maven: TestRunner,
  target: RunTarget,
  witness: string,
  normalMs: number | undefined,
  fastVerdict: SingleVerdict,
): ReturnType<typeof checkWithMaven> {
  return checkWithMaven(maven, target, witness, normalMs, failingMethodsOf(fastVerdict));
}

/** Test classes whose execution context contains a touched member (or its class). */
function classesReaching(
  contexts: readonly ExecutionContextRecord[],
  touched: readonly TouchedMember[],
  reach: BugTypeSpec['reach'],
): string[] {
  return contexts
    .filter((record) =>
      record.trace.some((location) =>
        touched.some((member) =>
          reach === 'class'
            ? location.className === member.binaryClass
            : location.file === member.file &&
              location.line === member.cleanLine &&
              (member.name === '<init>'
                ? location.className === member.binaryClass
                : location.method === member.name),
        ),
      ),
    )
    .map((record) => record.testClass);
}

/**
 * Judges injection candidates against their witness, composing the shared checks: static ones,
 * the witness passing on the reference state, then on the candidate state the fast runner
 * (compiles, fails in every run, enters the changed code), one Maven replay, collateral, and
 * narrowness (a bug that breaks a class's initialiser or most of a class's tests is no hidden bug).
 */
export class InjectionValidator {
  private readonly fast: TestRunner;
  private readonly maven: TestRunner;
  private readonly references: ReferenceRuns;

  constructor(private readonly options: ValidatorOptions) {
    this.fast = jvmTestRunner(options.cache, options.jvm);
    this.maven = mavenTestRunner(options.toolchain, options.cache);
    this.references = new ReferenceRuns(
      this.fast,
      (testClass) => this.baselineOf(testClass)?.durationMs,
    );
  }

  private baselineOf(testClass: string) {
    return baselineClass(this.options.project.baseline, testClass);
  }

  /**
   * The outcome for one candidate: `changes` turn `reference` (the clean state) into the
   * candidate. A fault of the harness on one candidate (say, a report it cannot read) is that
   * candidate's `infra` rejection, not the end of the run.
   */
  async validate(
    spec: BugTypeSpec,
    injector: Injector,
    witness: string,
    reference: ProjectState,
    changes: readonly FileChange[],
  ): Promise<ValidationOutcome> {
    const log = new CheckLog(INJECTION_CHECKS);
    try {
      return await this.judge(log, spec, injector, witness, reference, changes);
    } catch (error) {
      return this.rejected(log, failed('infra', `harness error: ${errorMessage(error)}`));
    } finally {
      await this.options.copy.checkout(reference);
    }
  }

  private rejected(
    log: CheckLog,
    failure: Extract<CheckOutcome<unknown>, { kind: 'Failed' }>,
  ): Extract<ValidationOutcome, { kind: 'Rejected' }> {
    const { checks, totalMs } = log.finish(`an earlier check failed (${failure.stage})`);
    return {
      kind: 'Rejected',
      stage: failure.stage,
      reason: failure.reason,
      ...(failure.verdict ? { verdict: failure.verdict } : {}),
      checks,
      timings: timingsOf(checks, totalMs),
    };
  }

  private async judge(
    log: CheckLog,
    spec: BugTypeSpec,
    injector: Injector,
    witness: string,
    reference: ProjectState,
    changes: readonly FileChange[],
  ): Promise<ValidationOutcome> {
    const { project, copy } = this.options;
    const diff = await log.run('diff', () => checkDiff(changes, project.layout));
    if (diff.kind !== 'Passed') return this.rejected(log, failure(diff));
    const { meaningful, touched } = diff.evidence;

    const signature = await log.run('signature', () =>
      spec.changesSignature
        ? { kind: 'Skipped', reason: `${spec.name} changes signatures by design` }
        : checkSignature(meaningful),
    );
    if (signature.kind === 'Failed') return this.rejected(log, signature);
    const structure = await log.run('structure', () =>
      checkStructure(meaningful, (before, after) => injector.check(before, after), spec.name),
    );
    if (structure.kind !== 'Passed') return this.rejected(log, failure(structure));

    const baselineEntry = this.baselineOf(witness);
    const clean = await log.run('reference', () =>
      baselineEntry?.usability.kind === 'Unusable'
        ? failed(
            'baseline',
            `the witness is unusable in the baseline: ${baselineEntry.usability.reason}`,
          )
        : this.references.check(copy, reference, witness, project.build),
    );
    if (clean.kind !== 'Passed') return this.rejected(log, failure(clean));

    const candidate = withPatch(reference, patchOf(changes));
    const target = {
      projectDir: copy.root,
      build: project.build,
      changed: compiledSources(await copy.checkout(candidate)),
    };
    const compiled = await log.run('compiles', () => checkCompiles(this.fast, target));
    if (compiled.kind !== 'Passed') return this.rejected(log, failure(compiled));
    const exposed = await log.run('exposes', () =>
      checkExposes(
        this.fast,
        target,
        witness,
        this.options.fastRuns,
        timeLimit(this.fast.name, 'run', clean.evidence.testMs),
      ),
    );
    if (exposed.kind !== 'Passed') return this.rejected(log, failure(exposed));
    const reached = await log.run('reached', () =>
      checkReached(exposed.evidence.trace, touched, spec.reach),
    );
    if (reached.kind !== 'Passed') return this.rejected(log, failure(reached));

    // Collateral and narrowness before Maven: a bug they refuse costs no Maven replay.
    const reaching = classesReaching(this.options.contexts, touched, spec.reach).filter(
      (testClass) => testClass !== witness,
    );
    const collateral = await log.run('collateral', () =>
      checkCollateral(
        this.fast,
        this.references,
        copy,
        reference,
        target,
        reaching,
        this.options.collateralLimit,
      ),
    );
    if (collateral.kind !== 'Passed') return this.rejected(log, failure(collateral));
    const narrow = await log.run('narrow', () =>
      checkNarrow([
        { testClass: witness, verdict: exposed.evidence.verdict },
        ...collateral.evidence.otherFailingClasses.map((testClass, index) => ({
          testClass,
          verdict: collateral.evidence.otherVerdicts[index]!,
        })),
      ]),
    );
    if (narrow.kind !== 'Passed') return this.rejected(log, failure(narrow));

    let mavenKind: SingleVerdictKind | null = null;
    if (this.options.mavenCheck) {
      const maven = await log.run('maven', () =>
        confirmWithMaven(
          this.maven,
          target,
          witness,
          baselineEntry?.durationMs,
          exposed.evidence.verdict,
        ),
      );
      if (maven.kind !== 'Passed') return this.rejected(log, failure(maven));
      mavenKind = maven.evidence.verdict;
    } else {
      log.skip('maven', 'Maven confirmation is off');
    }

    const { checks, totalMs } = log.finish();
    return {
      kind: 'Accepted',
      state: candidate,
      evidence: {
        structure: structure.evidence.structure,
        touched,
        failure: exposed.evidence.failure,
        runs: exposed.evidence.runs,
        maven: mavenKind,
        reachedAs: reached.evidence.reachedAs,
        otherFailingClasses: collateral.evidence.otherFailingClasses,
        collateral: {
          checked: collateral.evidence.checked,
          reaching: collateral.evidence.reaching,
        },
      },
      checks,
      timings: timingsOf(checks, totalMs),
    };
  }

  async close(): Promise<void> {
    await this.maven.close();
  }
}

/** A check that must run reports Skipped only by mistake. */
function failure<Evidence>(
  outcome: Exclude<CheckOutcome<Evidence>, { kind: 'Passed' }>,
): Extract<CheckOutcome<Evidence>, { kind: 'Failed' }> {
  if (outcome.kind === 'Skipped')
    throw new Error(`a required check was skipped: ${outcome.reason}`);
  return outcome;
}

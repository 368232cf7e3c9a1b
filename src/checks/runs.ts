import { z } from 'zod';
import { failingMethodsOf, signatureMismatch, type FailingMethods } from '../core/test-reports.js';
import {
  describeVerdict,
  exposesBug,
  type SingleVerdict,
  type SingleVerdictKind,
} from '../core/verdict.js';
import type { TouchedMember } from '../lang/java/change.js';
import type { ProjectState } from '../project/state.js';
import { compiledSources, type WorkingCopy } from '../project/working-copy.js';
import { timeLimit } from '../runners/time-limits.js';
import type { RunTarget, TestRunner } from '../runners/types.js';
import { withReruns, withTimeLimit } from '../runners/wrappers.js';
import type { RawTrace } from '../toolchains/jvm/runner.js';
import { failed, passed, type CheckOutcome, type FailureStage } from './types.js';

/** The first failure of a run that exposes a bug: what a case's witness is known to show. */
export const FailureSignatureSchema = z.strictObject({
  kind: z.enum(['TestFailed', 'TestErrored']),
  testMethod: z.string(),
  exceptionType: z.string(),
  message: z.string(),
  /** Top frame of the failure, where the test saw it go wrong. */
  frame: z.string().nullable(),
});
export type FailureSignature = z.infer<typeof FailureSignatureSchema>;

function signatureOf(verdict: SingleVerdict): FailureSignature | null {
  if (verdict.kind !== 'TestFailed' && verdict.kind !== 'TestErrored') return null;
  const first = verdict.failures[0];
  return {
    kind: verdict.kind,
    testMethod: first?.testMethod ?? '',
    exceptionType: first?.exceptionType ?? 'unknown',
    message: (first?.message ?? '').split('\n')[0]!.slice(0, 300),
    frame: first?.frames[0] ?? null,
  };
}

function stageOf(verdict: SingleVerdict): FailureStage {
  switch (verdict.kind) {
    case 'CompileError':
      return 'compile';
    case 'Timeout':
      return 'timeout';
    case 'Crashed':
      return 'crashed';
    case 'InfraError':
      return 'infra';
    default:
      return 'not-exposed';
  }
}

/** A test class on a reference state: it passed there, in this much test time. */
export interface ReferenceEvidence {
  testMs: number;
}

/**
 * Runs of test classes on reference states (the clean code, for an injection), once per state and
 * class: a candidate's test must pass there, and its time there sets the candidate's limit.
 */
export class ReferenceRuns {
  private readonly runs = new Map<string, Promise<SingleVerdict & ReferenceEvidence>>();

  /** `normalMs` is a class's time in the baseline, if known. */
  constructor(
    private readonly runner: TestRunner,
    private readonly normalMs: (testClass: string) => number | undefined,
  ) {}

  /** The class's verdict on `state`, checked out in `copy` for the run (and moved back after). */
  verdict(copy: WorkingCopy, state: ProjectState, testClass: string, build: RunTarget['build']) {
    const key = `${state.id}\0${testClass}`;
    let run = this.runs.get(key);
    if (!run) {
      run = copy.visit(state, async (changed) => {
        const result = await this.runner.run({
          target: { projectDir: copy.root, build, changed: compiledSources(changed) },
          testClass,
          timeoutMs: timeLimit(this.runner.name, 'reference', this.normalMs(testClass)),
        });
        return { ...result.verdict, testMs: result.testMs };
      });
      this.runs.set(key, run);
      // A harness fault is not the class's verdict: the next candidate runs it again.
      run.catch(() => this.runs.delete(key));
    }
    return run;
  }

  async check(
    copy: WorkingCopy,
    state: ProjectState,
    testClass: string,
    build: RunTarget['build'],
  ): Promise<CheckOutcome<ReferenceEvidence>> {
    const reference = await this.verdict(copy, state, testClass, build);
    if (reference.kind !== 'Passed') {
      return failed(
        'baseline',
        'the witness does not pass on clean code',
        describeVerdict(reference),
      );
    }
    return passed({ testMs: reference.testMs });
  }
}

export async function checkCompiles(
  runner: TestRunner,
  target: RunTarget,
): Promise<CheckOutcome<{ compileMs: number }>> {
  const compiled = await runner.compile(target);
  if (compiled.kind === 'Compiled') return passed({ compileMs: compiled.durationMs });
  return failed(
    stageOf(compiled.verdict),
    `the change does not build: ${describeVerdict(compiled.verdict)}`,
    describeVerdict(compiled.verdict),
  );
}

export interface ExposureEvidence {
  failure: FailureSignature;
  runs: SingleVerdictKind[];
  /** The first run's verdict, every failure in it. */
  verdict: SingleVerdict;
  /** What the first run entered, when the runner traces. */
  trace: RawTrace | undefined;
}

/**
 * The test fails (TestFailed or TestErrored) in each of `runs` runs, the first one traced when
 * the runner can; `limitMs` is each run's limit.
 */
export async function checkExposes(
  runner: TestRunner,
  target: RunTarget,
  testClass: string,
  runs: number,
  limitMs: number,
): Promise<CheckOutcome<ExposureEvidence>> {
  const limited = withTimeLimit(runner, () => limitMs);
  const first = await limited.run({
    target,
    testClass,
    ...(runner.traces ? { trace: { perTest: false } } : {}),
  });
  if (!exposesBug(first.verdict)) {
    const stage = stageOf(first.verdict);
    return failed(
      stage,
      stage === 'not-exposed'
        ? `the witness does not expose the change (${first.verdict.kind})`
        : `the witness run ended without a test failure: ${describeVerdict(first.verdict)}`,
      describeVerdict(first.verdict),
    );
  }
  const kinds: SingleVerdictKind[] = [first.verdict.kind];
  if (runs > 1) {
    const rest = await withReruns(limited, runs - 1, {
      stopAfter: (run) => !exposesBug(run.verdict),
    }).run({ target, testClass });
    kinds.push(...rest.runs.map((run) => run.verdict.kind));
    const notExposing = rest.runs.find((run) => !exposesBug(run.verdict));
    if (notExposing) {
      return failed(
        'flaky',
        `run ${kinds.length} of ${runs} did not expose the change (${kinds.join(', ')})`,
        describeVerdict(notExposing.verdict),
      );
    }
  }
  return passed({
    failure: signatureOf(first.verdict)!,
    runs: kinds,
    verdict: first.verdict,
    trace: first.trace,
  });
}

/** What counts as entering a change: its method, or anywhere in its class. */
export type ReachGranularity = 'method' | 'class';

/** The traced method that shows the run entered the changed code. */
export function checkReached(
  trace: RawTrace | undefined,
  touched: readonly TouchedMember[],
  granularity: ReachGranularity,
): CheckOutcome<{ reachedAs: string }> {
  const entered = new Set((trace?.log ?? []).filter((id) => id >= 0).map(String));
  const hit = Object.entries(trace?.methods ?? {})
    .filter(([id]) => entered.has(id))
    .map(([, method]) => method);
  for (const member of touched) {
    const owner = member.binaryClass.replace(/\./g, '/');
    for (const method of hit) {
      if (granularity === 'class') {
        if (method.owner === owner) {
          return passed({ reachedAs: `${member.binaryClass}.${method.name} (class reached)` });
        }
        continue;
      }
      const lines = member.buggyLines;
      if (
        lines &&
        method.name === member.name &&
        method.owner.split('$')[0] === owner.split('$')[0] &&
        method.line !== null &&
        method.line >= lines.first &&
        method.line <= lines.last
      ) {
        return passed({ reachedAs: `${member.binaryClass}.${member.name} (line ${method.line})` });
      }
    }
  }
  return failed(
    'not-reached',
    `the failing run never entered the changed ${granularity} (${touched.map((m) => m.key).join(', ')})`,
  );
}

/**
 * One run of the ground-truth runner exposes the change too; given the signature the fast runner
 * recorded, with those same failures, compared as `case verify` compares them (else the build would
 * archive a case that verify refutes).
 */
export async function checkWithMaven(
  maven: TestRunner,
  target: RunTarget,
  testClass: string,
  normalMs: number | undefined,
  expected?: FailingMethods,
): Promise<CheckOutcome<{ verdict: SingleVerdictKind }>> {
  const compiled = await maven.compile(target);
  const verdict =
    compiled.kind === 'CompileFailed'
      ? compiled.verdict
      : (
          await maven.run({
            target,
            testClass,
            timeoutMs: timeLimit(maven.name, 'run', normalMs),
          })
        ).verdict;
  return mavenConfirms(verdict, expected);
}

/** A Maven verdict of the witness exposes the change, with the failures expected if given. */
export function mavenConfirms(
  verdict: SingleVerdict,
  expected?: FailingMethods,
): CheckOutcome<{ verdict: SingleVerdictKind }> {
  if (!exposesBug(verdict)) {
    return failed('maven', 'the Maven replay does not expose the change', describeVerdict(verdict));
  }
  const mismatch = expected && signatureMismatch(expected, failingMethodsOf(verdict));
  if (mismatch) {
    return failed(
      'maven',
      `the Maven replay fails otherwise than the fast runner: ${mismatch}`,
      describeVerdict(verdict),
    );
  }
  return passed({ verdict: verdict.kind });
}

export interface CollateralEvidence {
  /** Classes that reach the change (besides the test itself) and now fail. */
  otherFailingClasses: string[];
  /** Their verdicts, in the same order. */
  otherVerdicts: SingleVerdict[];
  checked: number;
  reaching: number;
}

/**
 * Other test classes that reach the change, up to `limit` of them, each rerun on the candidate
 * when it passes on the reference state: a bug that many classes catch is an easy case.
 */
export async function checkCollateral(
  runner: TestRunner,
  references: ReferenceRuns,
  copy: WorkingCopy,
  reference: ProjectState,
  target: RunTarget,
  reaching: readonly string[],
  limit: number,
): Promise<CheckOutcome<CollateralEvidence>> {
  const checked = reaching.slice(0, limit);
  const others: string[] = [];
  const verdicts: SingleVerdict[] = [];
  for (const testClass of checked) {
    const clean = await references.verdict(copy, reference, testClass, target.build);
    if (clean.kind !== 'Passed') continue;
    const result = await runner.run({
      target,
      testClass,
      timeoutMs: timeLimit(runner.name, 'run', clean.testMs),
    });
    if (result.verdict.kind !== 'Passed') {
      others.push(testClass);
      verdicts.push(result.verdict);
    }
  }
  return passed({
    otherFailingClasses: others,
    otherVerdicts: verdicts,
    checked: checked.length,
    reaching: reaching.length,
  });
}

import { utimes, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage } from '../../core/errors.js';
import {
  describeVerdict,
  exposesBug,
  type SingleVerdict,
  type SingleVerdictKind,
} from '../../core/verdict.js';
import { replayTestClass } from '../../replay/replay.js';
import type { ProjectRef } from '../../replay/project.js';
import { JvmRunner, warmRunTimeout, type RawTrace } from '../../toolchains/jvm/runner.js';
import type { Toolchain } from '../../toolchains/types.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import { staticFindings, type FileChange, type TouchedMember } from './change.js';
import type { Injector } from './rules/types.js';
import type { BugTypeSpec } from './spec.js';

/** Where a candidate was turned down; `reason` says why in one line. */
export type RejectionStage =
  | 'diff'
  | 'signature'
  | 'structure'
  | 'baseline'
  | 'compile'
  | 'not-exposed'
  | 'timeout'
  | 'crashed'
  | 'infra'
  | 'not-reached'
  | 'flaky'
  | 'maven'
  /** Agent engine: the change passed, but the attempt's report line was missing or wrong. */
  | 'report'
  /** Agent engine: the agent could not be started. */
  | 'agent';

export interface FailureSignature {
  kind: 'TestFailed' | 'TestErrored';
  testMethod: string;
  exceptionType: string;
  message: string;
  /** Top frame of the failure, where the test saw it go wrong. */
  frame: string | null;
}

export interface ValidationTimings {
  staticMs: number;
  compileMs: number;
  runsMs: number;
  mavenMs: number;
  collateralMs: number;
  totalMs: number;
}

export interface AcceptedEvidence {
  structure: string;
  touched: TouchedMember[];
  failure: FailureSignature;
  /** Verdict kinds of the three fast runs, and of the Maven replay. */
  runs: SingleVerdictKind[];
  maven: SingleVerdictKind;
  /** The mutated member (or its class) as the failing run entered it. */
  reachedAs: string;
  /** Other test classes that reach the change and now fail; a bug many catch is an easy case. */
  otherFailingClasses: string[];
  collateral: { checked: number; reaching: number };
}

export function noTimings(): ValidationTimings {
  return { staticMs: 0, compileMs: 0, runsMs: 0, mavenMs: 0, collateralMs: 0, totalMs: 0 };
}

export type ValidationOutcome =
  | { accepted: true; evidence: AcceptedEvidence; timings: ValidationTimings }
  | {
      accepted: false;
      stage: RejectionStage;
      reason: string;
      verdict?: string;
      timings: ValidationTimings;
    };

export interface ValidatorOptions {
  cache: CacheLayout;
  project: ProjectRef;
  /** The harness-owned working copy (compiled) where candidates are applied one at a time. */
  workCopy: string;
  runner: JvmRunner;
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

function verdictStage(verdict: SingleVerdict): RejectionStage {
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

/** The traced method that shows the witness ran the changed code, or null. */
function reachedMember(
  trace: RawTrace | undefined,
  touched: readonly TouchedMember[],
  reach: BugTypeSpec['reach'],
): string | null {
  const entered = new Set((trace?.log ?? []).filter((id) => id >= 0).map(String));
  const hit = Object.entries(trace?.methods ?? {})
    .filter(([id]) => entered.has(id))
    .map(([, method]) => method);
  for (const member of touched) {
    const owner = member.binaryClass.replace(/\./g, '/');
    for (const method of hit) {
      if (reach === 'class') {
        if (method.owner === owner) return `${member.binaryClass}.${method.name} (class reached)`;
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
        return `${member.binaryClass}.${member.name} (line ${method.line})`;
      }
    }
  }
  return null;
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
 * Judges candidates against their witness: static checks, then the fast runner (compile, the
 * witness must fail in every run and enter the changed code), then one Maven replay. Each
 * candidate is written into the working copy and taken out again before the next.
 */
export class CandidateValidator {
  private readonly cleanRuns = new Map<string, Promise<SingleVerdict & { durationMs: number }>>();

  constructor(private readonly options: ValidatorOptions) {}

  private moduleRoot(): string {
    const module = this.options.project.build.module;
    return module ? `${module}/src/main/java` : 'src/main/java';
  }

  /** The witness on clean code, once per class: it must pass, and its time sets the limit. */
  private cleanRun(testClass: string) {
    let run = this.cleanRuns.get(testClass);
    if (!run) {
      const baseline = this.options.project.baseline?.classes.find(
        (entry) => entry.testClass === testClass,
      );
      run = this.options.runner
        .run({
          projectDir: this.options.workCopy,
          build: this.options.project.build,
          testClass,
          sources: [],
          timeoutMs: baseline ? warmRunTimeout(baseline.durationMs) * 2 : 600_000,
        })
        .then((result) => ({ ...result.verdict, durationMs: result.timings.testMs }));
      this.cleanRuns.set(testClass, run);
    }
    return run;
  }

  /**
   * The outcome for one candidate. A fault of the harness on one candidate (say, a report it
   * cannot read) is that candidate's `infra` rejection, not the end of the run.
   */
  async validate(
    spec: BugTypeSpec,
    injector: Injector,
    witness: string,
    changes: readonly FileChange[],
  ): Promise<ValidationOutcome> {
    const started = performance.now();
    try {
      return await this.judge(spec, injector, witness, changes);
    } catch (error) {
      const totalMs = Math.round(performance.now() - started);
      return {
        accepted: false,
        stage: 'infra',
        reason: `harness error: ${errorMessage(error)}`,
        timings: { ...noTimings(), totalMs },
      };
    }
  }

  private async judge(
    spec: BugTypeSpec,
    injector: Injector,
    witness: string,
    changes: readonly FileChange[],
  ): Promise<ValidationOutcome> {
    const started = performance.now();
    const timings = noTimings();
    const done = () => ({ ...timings, totalMs: Math.round(performance.now() - started) });
    const reject = (stage: RejectionStage, reason: string, verdict?: SingleVerdict) => ({
      accepted: false as const,
      stage,
      reason,
      ...(verdict ? { verdict: describeVerdict(verdict) } : {}),
      timings: done(),
    });

    const findings = staticFindings(changes, this.moduleRoot(), spec, injector);
    timings.staticMs = Math.round(performance.now() - started);
    if (!findings.ok) return reject(findings.stage, findings.reason);

    const baselineEntry = this.options.project.baseline?.classes.find(
      (entry) => entry.testClass === witness,
    );
    if (baselineEntry && !baselineEntry.usable) {
      return reject(
        'baseline',
        `the witness is unusable in the baseline: ${baselineEntry.reason ?? baselineEntry.status}`,
      );
    }
    const clean = await this.cleanRun(witness);
    if (clean.kind !== 'Passed') {
      return reject('baseline', 'the witness does not pass on clean code', clean);
    }

    const applied = await this.apply(changes);
    try {
      const runs: SingleVerdict[] = [];
      let failure: FailureSignature | null = null;
      let reachedAs: string | null = null;
      const runsStarted = performance.now();
      for (let index = 0; index < this.options.fastRuns; index++) {
        const result = await this.options.runner.run({
          projectDir: this.options.workCopy,
          build: this.options.project.build,
          testClass: witness,
          sources: applied,
          timeoutMs: warmRunTimeout(clean.durationMs),
          // The first run also records what the witness entered.
          trace: index === 0,
        });
        timings.compileMs += result.timings.compileMs;
        runs.push(result.verdict);
        if (!exposesBug(result.verdict)) {
          timings.runsMs = Math.round(performance.now() - runsStarted);
          return index === 0
            ? reject(
                verdictStage(result.verdict),
                verdictStage(result.verdict) === 'not-exposed'
                  ? `the witness does not expose the change (${result.verdict.kind})`
                  : `the witness run ended without a test failure: ${describeVerdict(result.verdict)}`,
                result.verdict,
              )
            : reject(
                'flaky',
                `run ${index + 1} of ${this.options.fastRuns} did not expose the change (${runs.map((run) => run.kind).join(', ')})`,
                result.verdict,
              );
        }
        if (index === 0) {
          failure = signatureOf(result.verdict);
          reachedAs = reachedMember(result.trace, findings.touched, spec.reach);
          if (!reachedAs) {
            timings.runsMs = Math.round(performance.now() - runsStarted);
            return reject(
              'not-reached',
              `the failing run never entered the changed ${spec.reach === 'class' ? 'class' : 'method'} (${findings.touched.map((m) => m.key).join(', ')})`,
              result.verdict,
            );
          }
        }
      }
      timings.runsMs = Math.round(performance.now() - runsStarted);

      let mavenKind: SingleVerdictKind = runs[0]!.kind as SingleVerdictKind;
      if (this.options.mavenCheck) {
        const mavenStarted = performance.now();
        const replayed = await replayTestClass(
          { ...this.options.project, root: this.options.workCopy },
          {
            runner: 'maven',
            toolchain: this.options.toolchain,
            cache: this.options.cache,
            testClass: witness,
            runs: 1,
          },
        );
        timings.mavenMs = Math.round(performance.now() - mavenStarted);
        const verdict = replayed.verdict;
        if (verdict.kind === 'Flaky' || !exposesBug(verdict)) {
          return {
            ...reject('maven', 'the Maven replay does not expose the change'),
            verdict: describeVerdict(verdict),
          };
        }
        mavenKind = verdict.kind;
      }

      const collateralStarted = performance.now();
      const reaching = classesReaching(this.options.contexts, findings.touched, spec.reach).filter(
        (testClass) => testClass !== witness,
      );
      const others: string[] = [];
      const checked = reaching.slice(0, this.options.collateralLimit);
      for (const testClass of checked) {
        const cleanOther = await this.cleanRun(testClass);
        if (cleanOther.kind !== 'Passed') continue;
        const result = await this.options.runner.run({
          projectDir: this.options.workCopy,
          build: this.options.project.build,
          testClass,
          sources: applied,
          timeoutMs: warmRunTimeout(cleanOther.durationMs),
        });
        if (result.verdict.kind !== 'Passed') others.push(testClass);
      }
      timings.collateralMs = Math.round(performance.now() - collateralStarted);
      return {
        accepted: true,
        evidence: {
          structure: findings.structure,
          touched: findings.touched,
          failure: failure!,
          runs: runs.map((run) => run.kind),
          maven: mavenKind,
          reachedAs: reachedAs!,
          otherFailingClasses: others,
          collateral: { checked: checked.length, reaching: reaching.length },
        },
        timings: done(),
      };
    } finally {
      await this.restore(changes);
    }
  }

  /** Writes the buggy versions into the working copy; returns them as changed sources. */
  private async apply(changes: readonly FileChange[]) {
    for (const change of changes) {
      await writeFile(path.join(this.options.workCopy, change.file), change.after);
    }
    return changes.map((change) => ({
      path: path.join(this.options.workCopy, change.file),
      scope: 'main' as const,
    }));
  }

  /**
   * Puts the clean versions back with a timestamp older than the compiled classes, so neither
   * Maven nor the stale-source scan sees them as changed.
   */
  private async restore(changes: readonly FileChange[]): Promise<void> {
    const old = new Date('2000-01-01T00:00:00Z');
    for (const change of changes) {
      const file = path.join(this.options.workCopy, change.file);
      await writeFile(file, change.before);
      await utimes(file, old, old);
    }
  }
}

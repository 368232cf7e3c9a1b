import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { sha256Text } from '../../core/fs.js';
import { checkWithMaven } from '../../checks/runs.js';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import { note, type EventSink } from '../../events/types.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { applyEdits } from '../../lang/java/syntax.js';
import type { ProjectRef } from '../../project/project.js';
import { patchOf, ProjectStateSchema, withPatch, type ProjectState } from '../../project/state.js';
import { compiledSources, type WorkingCopy } from '../../project/working-copy.js';
import { defineRecord } from '../../records/record.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { TestRunner } from '../../runners/types.js';
import { prepareProjectRuntime, type ProjectRuntime } from '../../toolchains/jvm/setup.js';
import { analyzeSource } from '../../toolchains/jvm/source-model.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { InjectionRecord } from '../2-inject/records.js';
import { anchorAfter, bugAnchor, locateAnchor, type BugAnchor } from './focus.js';
import type { TransformOperator, TransformSite } from './operators/types.js';
import { GateRecordSchema, profileSite } from './profile.js';

/*
 * The transform stage: after a bug is injected, apply operators in sequence; a step is kept only
 * if the project still compiles, the witness still fails with every failing method failing as
 * after injection (the set may shrink, never grow or change its exception), and the other test
 * classes that reach the bug's file and passed on the buggy state still pass. Otherwise the next
 * candidate is tried; a step with none kept ends the case short. The final state is confirmed
 * with Maven.
 */

/** How a test method of the witness failed: its exception type. */
const MethodFailuresSchema = z.record(z.string(), z.string());
type MethodFailures = z.infer<typeof MethodFailuresSchema>;

export const StepSchema = z.strictObject({
  operator: z.string(),
  description: z.string(),
  /** The step's own patch (the state before it → after it). */
  diff: z.string(),
  /** Candidates turned down before this one, with why. */
  rejected: z.array(z.strictObject({ description: z.string(), reason: z.string() })),
  failingMethods: MethodFailuresSchema,
  otherClassesRun: z.number().int(),
  durationMs: z.number(),
  /** A step that gates the bug on its inputs: the condition and its observed rarity. */
  gate: GateRecordSchema.optional(),
});
export type Step = z.infer<typeof StepSchema>;

export const TransformLine = defineRecord({
  kind: 'transformed-case',
  version: 1,
  schema: z.strictObject({
    id: z.string(),
    injection: z.string(),
    /** The operator ids asked for, in order. */
    sequence: z.array(z.string()),
    outcome: z.discriminatedUnion('kind', [
      z.strictObject({
        kind: z.literal('Kept'),
        state: ProjectStateSchema,
        maven: z.string().nullable(),
      }),
      z.strictObject({
        kind: z.literal('Short'),
        /** The step (0-based) that no candidate passed, and why the last one failed. */
        step: z.number().int(),
        reason: z.string(),
      }),
    ]),
    steps: z.array(StepSchema),
    buggyFailures: MethodFailuresSchema,
    durationMs: z.number(),
  }),
});
export type TransformRecord = z.infer<typeof TransformLine.schema>;

/** Content address of a transformed case: the injection, the operator sequence, the stage. */
export function transformId(injection: string, sequence: readonly string[]): string {
  return sha256Text(JSON.stringify([injection, sequence, TransformLine.version])).slice(0, 16);
}

export interface TransformOptions {
  cache: CacheLayout;
  project: ProjectRef;
  copy: WorkingCopy;
  fast: TestRunner;
  /** The ground truth for the final state; null leaves it unconfirmed (recorded as such). */
  maven: TestRunner | null;
  contexts: readonly ExecutionContextRecord[];
  /** Other classes reaching the bug's file rerun per step, at most. */
  otherClassLimit: number;
  /** Candidates tried per step before the case is given up. */
  candidatesPerStep: number;
  events: EventSink;
}

function methodFailures(verdict: SingleVerdict): MethodFailures {
  if (verdict.kind !== 'TestFailed' && verdict.kind !== 'TestErrored') return {};
  return Object.fromEntries(verdict.failures.map((f) => [f.testMethod, f.exceptionType]));
}

/** Why the witness's failures after a step do not keep the bug as it was, or undefined. */
function failuresKept(buggy: MethodFailures, now: MethodFailures): string | undefined {
  const methods = Object.keys(now);
  if (methods.length === 0) return 'the witness no longer fails (the step repairs the bug)';
  for (const method of methods) {
    if (!(method in buggy)) return `${method} fails now but did not after injection`;
    if (buggy[method] !== now[method]) {
      return `${method} fails with ${now[method]} instead of ${buggy[method]}`;
    }
  }
  return undefined;
}

/** Classes besides the witness whose calls are profiled for an operator that places a probe. */
const PROFILED_CLASS_LIMIT = 8;

class TransformRun {
  private projectRuntime: Promise<ProjectRuntime> | undefined;

  constructor(private readonly options: TransformOptions) {}

  private get build() {
    return this.options.project.build;
  }

  private async runClass(state: ProjectState, testClass: string, normalMs?: number) {
    const { copy, fast } = this.options;
    const changed = await copy.checkout(state);
    const target = { projectDir: copy.root, build: this.build, changed: compiledSources(changed) };
    const compiled = await fast.compile(target);
    if (compiled.kind === 'CompileFailed')
      return { compileError: describeVerdict(compiled.verdict) };
    const result = await fast.run({
      target,
      testClass,
      timeoutMs: timeLimit(fast.name, 'run', normalMs),
    });
    return { verdict: result.verdict };
  }

  /** Classes other than the witness that reach the file and pass on the buggy state. */
  private othersReaching(file: string, witness: string): string[] {
    return this.options.contexts
      .filter(
        (record) =>
          record.testMethod === null &&
          record.testClass !== witness &&
          record.status === 'Passed' &&
          record.trace.some((location) => location.file === file),
      )
      .map((record) => record.testClass)
      .slice(0, this.options.otherClassLimit);
  }

  async transform(
    injection: InjectionRecord,
    operators: readonly TransformOperator[],
  ): Promise<TransformRecord> {
    const started = Date.now();
    const sequence = operators.map((operator) => operator.id);
    const id = transformId(injection.id, sequence);
    const witness = injection.witness.testClass;
    const base = {
      id,
      injection: injection.id,
      sequence,
    };
    const anchor0 = bugAnchor(injection.state.patches[0]!.diff);
    const buggyRun = await this.runClass(injection.state, witness);
    const buggyFailures = buggyRun.verdict ? methodFailures(buggyRun.verdict) : {};
    const steps: Step[] = [];
    const short = (step: number, reason: string): TransformRecord => ({
      ...base,
      outcome: { kind: 'Short', step, reason },
      steps,
      buggyFailures,
      durationMs: Date.now() - started,
    });
    if (!anchor0) return short(0, 'the bug patch has no hunk to anchor the steps on');
    if (Object.keys(buggyFailures).length === 0) {
      return short(
        0,
        `the witness does not fail on the buggy state (${buggyRun.compileError ?? describeVerdict(buggyRun.verdict!)})`,
      );
    }
    const others = this.othersReaching(anchor0.file, witness);
    const passingOthers: string[] = [];
    for (const testClass of others) {
      const run = await this.runClass(injection.state, testClass);
      if (run.verdict?.kind === 'Passed') passingOthers.push(testClass);
    }

    let state = injection.state;
    let anchor: BugAnchor = anchor0;
    const added: string[] = [];
    for (const [index, operator] of operators.entries()) {
      const stepStarted = Date.now();
      await this.options.copy.checkout(state);
      const file = path.join(this.options.copy.root, anchor.file);
      const source = await readFile(file, 'utf8');
      const focus = locateAnchor(source, anchor);
      if (!focus) return short(index, `the bug's lines are no longer found in ${anchor.file}`);
      const runtime = await this.runtime();
      const analysis = await analyzeSource(
        {
          file,
          classpath: [runtime.classes, ...runtime.classpath],
          release: runtime.release,
          ranges: [[0, source.length]],
        },
        this.options.cache,
      );
      if (analysis.kind === 'failed') return short(index, analysis.reason);
      const site = await this.profiled(operator, {
        state,
        file: anchor.file,
        site: {
          source,
          focus,
          model: analysis.model,
          added,
          bug: injection.state.patches[0]!.diff,
        },
        witness,
        // The witness methods still failing: an earlier gate may have narrowed them.
        failures: steps[steps.length - 1]?.failingMethods ?? buggyFailures,
      });
      if (typeof site === 'string') return short(index, site);
      const candidates = operator.candidates(site).slice(0, this.options.candidatesPerStep);
      if (candidates.length === 0) {
        const calls = (failing: boolean) =>
          (site.profile?.observations ?? [])
            .filter((o) => (o.failingMethod !== null) === failing)
            .reduce((sum, o) => sum + o.count, 0);
        const profiled = site.profile
          ? ` (profiled: ${calls(true)} calls from failing witness methods, ${calls(false)} others)`
          : '';
        return short(index, `${operator.id} has no site around the bug${profiled}`);
      }
      const rejected: Step['rejected'] = [];
      let kept: Step | undefined;
      for (const candidate of candidates) {
        const after = applyEdits(source, candidate.edits);
        const next = withPatch(state, patchOf([{ file: anchor.file, before: source, after }]));
        const reason = await this.stepRejection(next, witness, buggyFailures, passingOthers);
        if (typeof reason === 'string') {
          rejected.push({ description: candidate.description, reason });
          continue;
        }
        kept = {
          operator: operator.id,
          description: candidate.description,
          diff: next.patches[next.patches.length - 1]!.diff,
          rejected,
          failingMethods: reason.failures,
          otherClassesRun: passingOthers.length,
          durationMs: Date.now() - stepStarted,
          ...(candidate.gate ? { gate: candidate.gate } : {}),
        };
        anchor = anchorAfter(anchor, focus, candidate.edits, after);
        added.push(...candidate.added);
        state = next;
        break;
      }
      if (!kept) return short(index, rejected[rejected.length - 1]?.reason ?? 'no candidate');
      steps.push(kept);
      note(
        this.options.events,
        'transform',
        `${injection.id} step ${index + 1}: ${kept.description}`,
      );
    }
    const maven = await this.confirm(state, witness);
    if (maven.kind === 'Refuted') return short(operators.length - 1, maven.reason);
    return {
      ...base,
      outcome: { kind: 'Kept', state, maven: maven.kind === 'Confirmed' ? maven.verdict : null },
      steps,
      buggyFailures,
      durationMs: Date.now() - started,
    };
  }

  /**
   * The site with the values reaching the operator's probe, for an operator that places one (run
   * on a probe state that is never kept), or why they could not be recorded.
   */
  private async profiled(
    operator: TransformOperator,
    request: {
      state: ProjectState;
      file: string;
      site: TransformSite;
      witness: string;
      failures: MethodFailures;
    },
  ): Promise<TransformSite | string> {
    if (!operator.probe) return request.site;
    const plan = operator.probe(request.site);
    if (!plan) return `${operator.id} has no site around the bug to profile`;
    const outcome = await profileSite({
      copy: this.options.copy,
      fast: this.options.fast,
      build: this.build,
      state: request.state,
      file: request.file,
      source: request.site.source,
      plan,
      witness: request.witness,
      failingMethods: Object.keys(request.failures),
      // Every class that calls the probed method tells calls apart, not only those rerun per step.
      others: this.options.contexts
        .filter(
          (record) =>
            record.testMethod === null &&
            record.testClass !== request.witness &&
            record.trace.some(
              (location) => location.file === request.file && location.method === plan.method,
            ),
        )
        .map((record) => record.testClass)
        .slice(0, PROFILED_CLASS_LIMIT),
    });
    if (outcome.kind === 'Unprofiled') return outcome.reason;
    return { ...request.site, profile: outcome.profile };
  }

  /** Why a step's state is turned down, or the witness's failures when it is kept. */
  private async stepRejection(
    next: ProjectState,
    witness: string,
    buggyFailures: MethodFailures,
    others: readonly string[],
  ): Promise<string | { failures: MethodFailures }> {
    const run = await this.runClass(next, witness);
    if (run.compileError !== undefined) return `does not compile: ${run.compileError}`;
    const failures = methodFailures(run.verdict!);
    const broken = failuresKept(buggyFailures, failures);
    if (broken) return broken;
    for (const testClass of others) {
      const other = await this.runClass(next, testClass);
      if (other.verdict?.kind !== 'Passed') {
        return `${testClass}, which passed on the buggy state, now ${other.verdict ? describeVerdict(other.verdict) : 'does not compile'}`;
      }
    }
    return { failures };
  }

  /** The final state under Maven, the ground truth (the check inject closes a bug with). */
  private async confirm(
    state: ProjectState,
    witness: string,
  ): Promise<
    | { kind: 'Confirmed'; verdict: string }
    | { kind: 'Unconfirmed' }
    | { kind: 'Refuted'; reason: string }
  > {
    const { maven, copy } = this.options;
    if (!maven) return { kind: 'Unconfirmed' };
    const changed = await copy.checkout(state);
    const target = { projectDir: copy.root, build: this.build, changed: compiledSources(changed) };
    const outcome = await checkWithMaven(maven, target, witness, undefined);
    if (outcome.kind === 'Passed') return { kind: 'Confirmed', verdict: outcome.evidence.verdict };
    const reason =
      outcome.kind === 'Failed' && outcome.verdict
        ? `${outcome.reason} (${outcome.verdict})`
        : outcome.reason;
    return { kind: 'Refuted', reason: `final state: ${reason}` };
  }

  /** The project's class path as the analysis needs it: the same for every step, read once. */
  private runtime(): Promise<ProjectRuntime> {
    this.projectRuntime ??= prepareProjectRuntime(
      this.options.copy.root,
      this.build,
      this.options.cache,
    );
    return this.projectRuntime;
  }
}

/** Transforms each injection with the operator sequence, one case after the other. */
export async function transformInjections(
  injections: readonly InjectionRecord[],
  operators: readonly TransformOperator[],
  options: TransformOptions,
  done: (record: TransformRecord) => Promise<void>,
): Promise<void> {
  await loadJavaGrammar();
  const run = new TransformRun(options);
  for (const injection of injections) await done(await run.transform(injection, operators));
}

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { PhaseClock } from '../../core/phase-clock.js';
import type { TransformMemo } from './memo.js';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { sha256Text } from '../../core/fs.js';
import { checkWithMaven } from '../../checks/runs.js';
import { checkDiff, checkSignature } from '../../checks/static.js';
import { describeFailure } from '../../checks/types.js';
import { describeVerdict, exposesBug, type SingleVerdict } from '../../core/verdict.js';
import { note, type EventSink } from '../../events/types.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import type { ProjectRef } from '../../project/project.js';
import { patchOf, ProjectStateSchema, withPatch, type ProjectState } from '../../project/state.js';
import { compiledSources, type WorkingCopy } from '../../project/working-copy.js';
import { defineRecord } from '../../records/record.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { TestRunner } from '../../runners/types.js';
import { prepareProjectRuntime, type ProjectRuntime } from '../../toolchains/jvm/setup.js';
import { analyseSource } from '../../toolchains/jvm/source-model.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { InjectionRecord } from '../2-inject/records.js';
import {
  StepEngineSchema,
  type CandidateSource,
  type CandidateVerdict,
  type StepCandidate,
  type StepSite,
} from './candidates.js';
import { bugAnchor, locateAnchor, type BugAnchor } from './focus.js';
import { GateRecordSchema, profileSite, type ProbePlan, type SiteProfile } from './profile.js';
import {
  planRuns,
  profilingRuns,
  TestReach,
  tracedTests,
  type ClassRun,
  type RunPlan,
  type StepSelection,
  type TracedClass,
} from './selection.js';

/*
 * The transform stage: after a bug is injected, apply operators in sequence, each step's
 * candidates coming from its source (the operator's code or a coding agent, see candidates.ts).
 * A step is kept only if it changes production sources alone and no public or protected
 * signature, leaves the bug's lines in place, the project still compiles, the witness still fails
 * with every failing method failing as after injection (the set may shrink, never grow or change
 * its exception), and the other test classes that reach the bug's file and passed on the buggy
 * state still pass. Otherwise the next candidate is tried; a step with none kept ends the case
 * short. A step runs only the test methods whose trace on the buggy state reaches a member it
 * edits (selection.ts); the whole classes, then Maven, check the final state.
 */

/** How a test method of the witness failed: its exception type. */
const MethodFailuresSchema = z.record(z.string(), z.string());
type MethodFailures = z.infer<typeof MethodFailuresSchema>;

export const StepSchema = z.strictObject({
  operator: z.string(),
  engine: StepEngineSchema,
  description: z.string(),
  /** The step's own patch (the state before it → after it). */
  diff: z.string(),
  /** Candidates turned down before this one, with why. */
  rejected: z.array(z.strictObject({ description: z.string(), reason: z.string() })),
  failingMethods: MethodFailuresSchema,
  otherClassesRun: z.number().int(),
  /**
   * With per-test selection: the runs that validated the kept candidate (a class without
   * `methods` ran whole), and the test methods they ran of the classes' total.
   */
  validatedBy: z
    .array(z.strictObject({ testClass: z.string(), methods: z.array(z.string()).optional() }))
    .optional(),
  testMethodsRun: z.number().int().optional(),
  testMethodsInClasses: z.number().int().optional(),
  /** Time spent validating this step's candidates (rejected ones included). */
  validationMs: z.number().optional(),
  /** A step that gates the bug on its inputs: the condition and its observed rarity. */
  gate: GateRecordSchema.optional(),
  durationMs: z.number(),
});
export type Step = z.infer<typeof StepSchema>;

/** The checks that close a case after its steps, on its final state. */
export const FinalCheckSchema = z.enum(['whole classes', 'maven']);
export type FinalCheck = z.infer<typeof FinalCheckSchema>;

/**
 * Where a case stopped short: before any step (the bug as injected gives the steps nothing to
 * work on), at a step (0-based) no candidate passed, or at a final check of the last state.
 */
export const StoppedAtSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('precondition') }),
  z.strictObject({ kind: z.literal('step'), index: z.number().int(), operator: z.string() }),
  z.strictObject({ kind: z.literal('final'), check: FinalCheckSchema }),
]);
export type StoppedAt = z.infer<typeof StoppedAtSchema>;

/** Where a case stopped, as a person reads it: `step 2 t_helper_call_v1`, `final maven`. */
export function describeStop(at: StoppedAt): string {
  switch (at.kind) {
    case 'precondition':
      return 'before the steps';
    case 'step':
      return `step ${at.index + 1} ${at.operator}`;
    case 'final':
      return `final ${at.check}`;
  }
}

/**
 * Version 3 records where a Short case stopped as data; version 2's reasons carried it as a
 * prefix and counted a bug unfit for steps as stopped at the first. A version-2 file is refused
 * by the reader (the build keeps its transformed cases per version and redoes them).
 */
export const TransformLine = defineRecord({
  kind: 'transformed-case',
  version: 3,
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
        /** Time the final Maven confirmation took (absent in records written before it was kept). */
        confirmMs: z.number().optional(),
      }),
      z.strictObject({
        kind: z.literal('Short'),
        stoppedAt: StoppedAtSchema,
        /** Why: the bug unfit for steps, the last candidate's rejection, or the check's finding. */
        reason: z.string(),
      }),
    ]),
    steps: z.array(StepSchema),
    buggyFailures: MethodFailuresSchema,
    durationMs: z.number(),
  }),
});
export type TransformRecord = z.infer<typeof TransformLine.schema>;

/** The witness's failures a case's final state must show: its last step's, or the bug's own. */
export function expectedFailures(record: Pick<TransformRecord, 'steps' | 'buggyFailures'>) {
  return record.steps.at(-1)?.failingMethods ?? record.buggyFailures;
}

/**
 * Content address of a transformed case: the injection and its witness (one bug may be exposed
 * by witnesses of several context buckets, and each validates its own steps), the steps'
 * sources, the stage.
 */
export function transformId(
  injection: Pick<InjectionRecord, 'id' | 'witness'>,
  sources: readonly Pick<CandidateSource, 'id' | 'engine'>[],
): string {
  const steps = sources.map((source) => [source.id, source.engine]);
  return sha256Text(
    JSON.stringify([injection.id, injection.witness.testClass, steps, TransformLine.version]),
  ).slice(0, 16);
}

/**
 * The record of a sequence that another one, transformed before for the same injection, already
 * fell short in: one that begins with the same operators and fell short at one of those steps.
 * Those first steps are decided the same way (a deterministic operator does not look past its own
 * step), so this sequence falls short where that one did; a bug unfit for any step is unfit for
 * every sequence. Undefined when there is none; one that fell short only in its final checks says
 * nothing of this sequence's different final state.
 */
export function shortLikeSharedSteps(
  injection: Pick<InjectionRecord, 'id' | 'witness'>,
  sources: readonly Pick<CandidateSource, 'id' | 'engine'>[],
  earlier: ReadonlyMap<string, TransformRecord>,
): TransformRecord | undefined {
  const deterministic = (ids: readonly string[]) =>
    ids.map((id) => ({ id, engine: 'deterministic' }));
  for (const record of earlier.values()) {
    if (record.injection !== injection.id || record.outcome.kind !== 'Short') continue;
    const { stoppedAt } = record.outcome;
    if (stoppedAt.kind === 'final') continue;
    const sharedSteps = stoppedAt.kind === 'step' ? stoppedAt.index + 1 : 0;
    const shared = sources.slice(0, sharedSteps);
    // The same witness and engine: the record's id is the deterministic one of its sequence.
    if (
      shared.length !== sharedSteps ||
      shared.some(
        (source, index) =>
          source.engine !== 'deterministic' || source.id !== record.sequence[index],
      ) ||
      record.id !== transformId(injection, deterministic(record.sequence))
    ) {
      continue;
    }
    const where =
      stoppedAt.kind === 'step'
        ? `as its first ${sharedSteps} steps did in ${record.sequence.length === sharedSteps ? 'a shorter' : 'another'} sequence`
        : 'as in another sequence';
    return {
      ...record,
      id: transformId(injection, sources),
      sequence: sources.map((source) => source.id),
      outcome: {
        kind: 'Short',
        stoppedAt,
        reason: `${record.outcome.reason} (${where}, transformed before)`,
      },
      durationMs: 0,
    };
  }
  return undefined;
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
  /**
   * How a step is validated: `per-test` (the default) runs the test methods whose trace on the
   * buggy state reaches a changed member, then the whole classes once on the final state;
   * `whole-class` runs the witness and the other classes whole at every step.
   */
  validation?: 'per-test' | 'whole-class';
  events: EventSink;
  /** Where the transformations' time goes, summed over all of them (bench:build-throughput). */
  clock?: PhaseClock;
  /** What other transformations of the same states learnt (see TransformMemo); none kept when absent. */
  memo?: TransformMemo;
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

/** What a kept candidate leaves: its state, the witness's failures, and how it was validated. */
interface KeptEvidence {
  state: ProjectState;
  failures: MethodFailures;
  anchor: BugAnchor;
  plan: RunPlan | undefined;
  selection: StepSelection | undefined;
  /** The bug's file after the step, from which the reach map follows it. */
  bugFileAfter: string;
}

/** The witness and the other classes that pass on the buggy state; the reach map with selection. */
interface BuggyClasses {
  traced: TracedClass[];
  reach: TestReach | undefined;
}

function wholeClassesOf(classes: BuggyClasses): ClassRun[] {
  return classes.traced.map(({ testClass }) => ({ testClass }));
}

/** Classes besides the witness whose calls are profiled for an operator that places a probe. */
const PROFILED_CLASS_LIMIT = 8;

class TransformRun {
  private projectRuntime: Promise<ProjectRuntime> | undefined;

  constructor(private readonly options: TransformOptions) {}

  private get build() {
    return this.options.project.build;
  }

  private time<T>(phase: string, run: () => Promise<T>): Promise<T> {
    return this.options.clock ? this.options.clock.time(phase, run) : run();
  }

  private remember<T>(key: string, compute: () => Promise<T>, keep?: (value: T) => boolean) {
    return this.options.memo ? this.options.memo.remember(key, compute, keep) : compute();
  }

  private get perTest(): boolean {
    return (this.options.validation ?? 'per-test') === 'per-test';
  }

  private async runClass(state: ProjectState, run: ClassRun, traced = false, normalMs?: number) {
    const { copy, fast } = this.options;
    const changed = await copy.checkout(state);
    const target = { projectDir: copy.root, build: this.build, changed: compiledSources(changed) };
    const compiled = await fast.compile(target);
    if (compiled.kind === 'CompileFailed')
      return { compileError: describeVerdict(compiled.verdict) };
    const result = await fast.run({
      target,
      testClass: run.testClass,
      ...(run.methods ? { methods: run.methods } : {}),
      ...(traced ? { trace: { perTest: true } } : {}),
      timeoutMs: timeLimit(fast.name, 'run', normalMs),
    });
    return { verdict: result.verdict, tests: tracedTests(run.testClass, result) };
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
    sources: readonly CandidateSource[],
  ): Promise<TransformRecord> {
    const started = Date.now();
    const sequence = sources.map((source) => source.id);
    const id = transformId(injection, sources);
    const witness = injection.witness.testClass;
    const base = {
      id,
      injection: injection.id,
      sequence,
    };
    const anchor0 = bugAnchor(injection.state.patches[0]!.diff);
    const buggyRun = await this.time('witness on the bug', () =>
      this.remember(
        `witness ${injection.state.id} ${witness} ${this.perTest}`,
        () => this.runClass(injection.state, { testClass: witness }, this.perTest),
        // Only the run that shows the bug: any other may be passing (a time limit under load).
        (run) => run.verdict !== undefined && exposesBug(run.verdict),
      ),
    );
    const buggyFailures = buggyRun.verdict ? methodFailures(buggyRun.verdict) : {};
    const steps: Step[] = [];
    const short = (stoppedAt: StoppedAt, reason: string): TransformRecord => ({
      ...base,
      outcome: { kind: 'Short', stoppedAt, reason },
      steps,
      buggyFailures,
      durationMs: Date.now() - started,
    });
    const precondition = { kind: 'precondition' } as const;
    if (!anchor0) return short(precondition, 'the bug patch has no hunk to anchor the steps on');
    if (Object.keys(buggyFailures).length === 0) {
      return short(
        precondition,
        `the witness does not fail on the buggy state (${buggyRun.compileError ?? describeVerdict(buggyRun.verdict!)})`,
      );
    }
    // The other classes run when the first candidate is validated or a site profiled: a case
    // whose first step has no site needs none of them.
    let classes: BuggyClasses | undefined;
    let classesAsked: Promise<BuggyClasses> | undefined;
    const classesOnBug = () =>
      (classesAsked ??= this.time('other classes on the bug', () =>
        this.remember(
          `classes ${injection.state.id} ${witness} ${anchor0.file} ${this.perTest} ${this.options.otherClassLimit}`,
          () =>
            this.buggyClasses(
              injection.state,
              { testClass: witness, tests: buggyRun.tests ?? [] },
              anchor0.file,
            ),
        ),
      ).then((shared) => {
        // Each transformation narrows the reach as its steps go: a copy of the shared one.
        classes = { ...shared };
        return classes;
      }));

    let state = injection.state;
    let anchor: BugAnchor = anchor0;
    const added: string[] = [];
    for (const [index, source] of sources.entries()) {
      const stepStarted = Date.now();
      const here = { kind: 'step', index, operator: source.id } as const;
      // The witness methods still failing: an earlier gate may have narrowed them.
      const failing = expectedFailures({ steps, buggyFailures });
      const site = await this.time('site', () =>
        this.siteOf(
          injection,
          { step: index, sequence, state, anchor, added },
          failing,
          classesOnBug,
        ),
      );
      if (site.kind === 'Lost') return short(here, site.reason);
      let validationMs = 0;
      const offer = await this.time('operator', () =>
        source.offer(site.site, async (candidate) => {
          await classesOnBug();
          const validationStarted = Date.now();
          const verdict = await this.time('validation', () =>
            this.judgeCandidate(site.site, candidate, buggyFailures, classes!),
          );
          validationMs += Date.now() - validationStarted;
          return verdict;
        }),
      );
      if (offer.kind === 'NoneKept') return short(here, offer.reason);
      const { plan, selection } = offer.evidence;
      const kept: Step = {
        operator: source.id,
        engine: offer.engine,
        description: offer.candidate.description,
        diff: offer.evidence.state.patches.at(-1)!.diff,
        rejected: offer.rejected,
        failingMethods: offer.evidence.failures,
        otherClassesRun: classes!.traced.length - 1,
        ...(plan
          ? {
              validatedBy: plan.runs,
              testMethodsRun: plan.methodsRun,
              testMethodsInClasses: plan.methodsInClasses,
            }
          : {}),
        validationMs,
        durationMs: Date.now() - stepStarted,
        ...(offer.candidate.gate ? { gate: offer.candidate.gate } : {}),
      };
      if (classes!.reach && selection) {
        classes!.reach = classes!.reach.after(offer.evidence.bugFileAfter, selection);
      }
      state = offer.evidence.state;
      anchor = offer.evidence.anchor;
      added.push(...offer.candidate.added);
      steps.push(kept);
      note(
        this.options.events,
        'transform',
        `${injection.id} step ${index + 1}: ${kept.description}`,
      );
    }
    // Selection ran only the tests a step could reach: the whole classes close the case.
    if (this.perTest && classes && steps.length > 0) {
      const whole = await this.time('whole classes', () =>
        this.stepRejection(state, buggyFailures, wholeClassesOf(classes!)),
      );
      if (typeof whole === 'string') {
        return short({ kind: 'final', check: 'whole classes' }, whole);
      }
    }
    const confirmStarted = Date.now();
    const confirming = () =>
      this.confirm(state, witness, expectedFailures({ steps, buggyFailures }));
    // Without a Maven runner (a build's whole-suite run confirms instead) there is nothing to time.
    const maven = this.options.maven
      ? await this.time('maven confirm', confirming)
      : await confirming();
    if (maven.kind === 'Refuted') return short({ kind: 'final', check: 'maven' }, maven.reason);
    return {
      ...base,
      outcome: {
        kind: 'Kept',
        state,
        maven: maven.kind === 'Confirmed' ? maven.verdict : null,
        confirmMs: Date.now() - confirmStarted,
      },
      steps,
      buggyFailures,
      durationMs: Date.now() - started,
    };
  }

  /** Where a step starts: the bug's file in `state` and the bug in it, if still found. */
  private async siteOf(
    injection: InjectionRecord,
    at: Pick<StepSite, 'step' | 'sequence' | 'state' | 'anchor' | 'added'>,
    failing: MethodFailures,
    classesOnBug: () => Promise<BuggyClasses>,
  ): Promise<{ kind: 'Found'; site: StepSite } | { kind: 'Lost'; reason: string }> {
    await this.options.copy.checkout(at.state);
    const file = path.join(this.options.copy.root, at.anchor.file);
    const source = await readFile(file, 'utf8');
    const focus = locateAnchor(source, at.anchor);
    if (!focus)
      return { kind: 'Lost', reason: `the bug's lines are no longer found in ${at.anchor.file}` };
    const runtime = await this.runtime();
    const witness = injection.witness.testClass;
    return {
      kind: 'Found',
      site: {
        ...at,
        injection,
        context: this.options.contexts.find(
          (record) => record.testMethod === null && record.testClass === witness,
        ),
        source,
        focus,
        release: runtime.release,
        // Reads the working copy: asked for before any candidate is checked out.
        model: () =>
          this.time('source model', () =>
            this.remember(
              `model ${at.state.id} ${at.anchor.file}`,
              () =>
                analyseSource(
                  {
                    file,
                    classpath: [runtime.classes, ...runtime.classpath],
                    release: runtime.release,
                    ranges: [[0, source.length]],
                  },
                  this.options.cache,
                ),
              (outcome) => outcome.kind === 'Analysed',
            ),
          ),
        profile: async (plan) => {
          // Outside the profile's time: validation needs these runs anyway.
          const classes = await classesOnBug();
          return this.time('profile', () =>
            this.remember(
              `profile ${at.state.id} ${at.anchor.file} ${witness} ${JSON.stringify([plan, failing])}`,
              () =>
                this.profiled(plan, classes, {
                  state: at.state,
                  file: at.anchor.file,
                  source,
                  witness,
                  failures: failing,
                }),
              // A reason it could not profile may be passing (a time limit under load).
              (profile) => typeof profile !== 'string',
            ),
          );
        },
      },
    };
  }

  /**
   * The values reaching a probe placed as `plan` says, on a probe state that is never kept: in
   * the witness's failing methods and in the other classes that call the probed method.
   */
  private async profiled(
    plan: ProbePlan,
    classes: BuggyClasses,
    request: {
      state: ProjectState;
      file: string;
      source: string;
      witness: string;
      failures: MethodFailures;
    },
  ): Promise<SiteProfile | string> {
    const failingMethods = Object.keys(request.failures);
    // Every class that calls the probed method tells calls apart, not only those rerun per step.
    const others = this.options.contexts
      .filter(
        (record) =>
          record.testMethod === null &&
          record.testClass !== request.witness &&
          record.trace.some(
            (location) => location.file === request.file && location.method === plan.method,
          ),
      )
      .map((record) => record.testClass)
      .slice(0, PROFILED_CLASS_LIMIT);
    // With selection, a class traced on the bug runs only its tests that enter the probe's member.
    const entering = classes.reach?.entering(request.source, plan.at);
    const runs = [request.witness, ...others].flatMap((testClass): ClassRun[] => {
      const traced = classes.traced.find((entry) => entry.testClass === testClass);
      if (!entering || !traced) return [{ testClass }];
      return profilingRuns([traced], request.witness, failingMethods, entering);
    });
    const outcome = await profileSite({
      copy: this.options.copy,
      fast: this.options.fast,
      build: this.build,
      state: request.state,
      file: request.file,
      source: request.source,
      plan,
      witness: request.witness,
      failingMethods,
      runs,
    });
    return outcome.kind === 'Unprofiled' ? outcome.reason : outcome.profile;
  }

  /**
   * A candidate as every engine's is judged: production Java sources only (no test or build
   * file), no public or protected signature changed, the bug's lines still found, then the runs
   * (with selection, the tests reaching what it edits, when it edits the bug's file alone).
   */
  private async judgeCandidate(
    site: StepSite,
    candidate: StepCandidate,
    buggyFailures: MethodFailures,
    classes: BuggyClasses,
  ): Promise<CandidateVerdict<KeptEvidence>> {
    const diff = checkDiff(candidate.changes, this.options.project.layout);
    if (diff.kind === 'Failed') return { kind: 'Rejected', reason: diff.reason };
    const signature = diff.kind === 'Passed' ? checkSignature(diff.evidence.meaningful) : diff;
    if (signature.kind === 'Failed') return { kind: 'Rejected', reason: signature.reason };
    if (!candidate.anchor) {
      return { kind: 'Rejected', reason: "the bug's lines are no longer found after the step" };
    }
    const next = withPatch(site.state, patchOf(candidate.changes));
    const [change] = candidate.changes;
    const alone = candidate.changes.length === 1 && change!.file === site.anchor.file;
    const selection = alone ? classes.reach?.select(site.source, change!.after) : undefined;
    const plan: RunPlan | undefined = selection
      ? planRuns(
          classes.traced,
          site.injection.witness.testClass,
          Object.keys(buggyFailures),
          selection.tests,
        )
      : undefined;
    const reason = await this.stepRejection(
      next,
      buggyFailures,
      plan?.runs ?? wholeClassesOf(classes),
    );
    if (typeof reason === 'string') return { kind: 'Rejected', reason };
    return {
      kind: 'Kept',
      evidence: {
        state: next,
        failures: reason.failures,
        anchor: candidate.anchor,
        plan,
        selection,
        bugFileAfter: alone ? change!.after : site.source,
      },
    };
  }

  /**
   * The classes a step's validation runs, each run on the buggy state (traced per test, with
   * selection): the witness (already run), and the other classes reaching the bug's file that
   * pass there; with selection, which of their tests enter each member of the file.
   */
  private async buggyClasses(
    buggy: ProjectState,
    witness: TracedClass,
    file: string,
  ): Promise<BuggyClasses> {
    const traced = [witness];
    for (const testClass of this.othersReaching(file, witness.testClass)) {
      const run = await this.runClass(buggy, { testClass }, this.perTest);
      if (run.verdict?.kind === 'Passed') traced.push({ testClass, tests: run.tests ?? [] });
    }
    if (!this.perTest) return { traced, reach: undefined };
    await this.options.copy.checkout(buggy);
    const source = await readFile(path.join(this.options.copy.root, file), 'utf8');
    const tests = traced.flatMap((entry) => entry.tests);
    return { traced, reach: TestReach.fromTraces(file, source, tests) };
  }

  /**
   * Why a step's state is turned down, or the witness's failures when it is kept: `runs` starts
   * with the witness's run; the other classes' runs must pass.
   */
  private async stepRejection(
    next: ProjectState,
    buggyFailures: MethodFailures,
    runs: readonly ClassRun[],
  ): Promise<string | { failures: MethodFailures }> {
    const [witnessRun, ...others] = runs;
    const run = await this.runClass(next, witnessRun!);
    if (run.compileError !== undefined) return `does not compile: ${run.compileError}`;
    const failures = methodFailures(run.verdict!);
    const broken = failuresKept(buggyFailures, failures);
    if (broken) return broken;
    for (const classRun of others) {
      const other = await this.runClass(next, classRun);
      if (other.verdict?.kind !== 'Passed') {
        return `${classRun.testClass}, which passed on the buggy state, now ${other.verdict ? describeVerdict(other.verdict) : 'does not compile'}`;
      }
    }
    return { failures };
  }

  /**
   * The final state under Maven, the ground truth (the check inject closes a bug with): the
   * witness fails with the failures the case will record, as `case verify` will compare them.
   */
  private async confirm(
    state: ProjectState,
    witness: string,
    failures: MethodFailures,
  ): Promise<
    | { kind: 'Confirmed'; verdict: string }
    | { kind: 'Unconfirmed' }
    | { kind: 'Refuted'; reason: string }
  > {
    const { maven, copy } = this.options;
    if (!maven) return { kind: 'Unconfirmed' };
    const changed = await copy.checkout(state);
    const target = { projectDir: copy.root, build: this.build, changed: compiledSources(changed) };
    const outcome = await checkWithMaven(maven, target, witness, undefined, failures);
    if (outcome.kind === 'Passed') return { kind: 'Confirmed', verdict: outcome.evidence.verdict };
    return { kind: 'Refuted', reason: describeFailure(outcome) };
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

/** Transforms cases one after the other in the options' working copy. */
export interface Transformer {
  transform(
    injection: InjectionRecord,
    sources: readonly CandidateSource[],
  ): Promise<TransformRecord>;
}

export async function createTransformer(options: TransformOptions): Promise<Transformer> {
  await loadJavaGrammar();
  return new TransformRun(options);
}

import type { CacheLayout } from '../../core/cache.js';
import { sha256Text } from '../../core/fs.js';
import { seededRandom, shuffled } from '../../core/random.js';
import type { EventSink } from '../../events/types.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { pristineState, type ProjectRef } from '../../project/project.js';
import type { ProjectState } from '../../project/state.js';
import { WorkingCopy } from '../../project/working-copy.js';
import { JvmRunner } from '../../toolchains/jvm/runner.js';
import type { Toolchain } from '../../toolchains/types.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import { InjectionOutput } from './output.js';
import type { BugTypeRef, EngineRef, InjectSummary, Site, TypeSummary } from './records.js';
import { specHash, type BugTypeSpec } from './spec.js';
import { InjectionValidator, type ValidationOutcome } from './validate.js';

/*
 * What both inject engines (rules, agent) share: a validation session over a working copy of the
 * project, recording each candidate's outcome, and the run's announcements and summary.
 */

export interface InjectOptions {
  cache: CacheLayout;
  project: ProjectRef;
  toolchain: Toolchain;
  specs: BugTypeSpec[];
  /** Execution-context records of the test classes that may serve as witnesses. */
  contexts: ExecutionContextRecord[];
  /** Accepted injections wanted per type (finished work in `out` counts). */
  count: number;
  /** Candidates tried per type at most, this run. */
  maxTries: number;
  seed: number;
  out: string;
  collateralLimit: number;
  mavenCheck: boolean;
  events: EventSink;
}

/** The harness side of a run: a working copy of the project, a warm runner, a validator. */
export interface ValidationSession {
  validator: InjectionValidator;
  events: EventSink;
  /** The state candidates are made from: the pristine tree. */
  reference: ProjectState;
  output: InjectionOutput;
  /** Witness classes in the run's seeded order. */
  witnessOrder: string[];
  contextOf: Map<string, ExecutionContextRecord>;
}

/** Opens the output and a working copy, runs `use`, and always cleans up the copy and JVMs. */
export async function withValidationSession<T>(
  options: InjectOptions,
  use: (session: ValidationSession) => Promise<T>,
): Promise<T> {
  await loadJavaGrammar();
  const output = await InjectionOutput.open(options.out, options.events);
  const reference = pristineState(options.project);
  const copy = await WorkingCopy.create(
    options.project.root,
    reference,
    options.project.layout,
    'inject',
  );
  const jvm = new JvmRunner(options.cache);
  const validator = new InjectionValidator({
    cache: options.cache,
    project: options.project,
    copy,
    jvm,
    toolchain: options.toolchain,
    contexts: options.contexts,
    collateralLimit: options.collateralLimit,
    fastRuns: 3,
    mavenCheck: options.mavenCheck,
  });
  try {
    const witnessOrder = shuffled(
      options.contexts.map((record) => record.testClass).sort(),
      seededRandom(options.seed),
    );
    const contextOf = new Map(options.contexts.map((record) => [record.testClass, record]));
    const started = performance.now();
    options.events.emit({
      kind: 'StageStarted',
      stage: 'inject',
      subject: options.project.label,
      total: null,
      unit: 'candidates',
    });
    const result = await use({
      validator,
      events: options.events,
      reference,
      output,
      witnessOrder,
      contextOf,
    });
    options.events.emit({
      kind: 'StageFinished',
      stage: 'inject',
      subject: options.project.label,
      durationMs: Math.round(performance.now() - started),
    });
    return result;
  } finally {
    await validator.close();
    await jvm.close();
    await copy.close();
  }
}

/** A different but reproducible random stream per bug type. */
export function typeRandom(seed: number, typeId: string): () => number {
  return seededRandom(seed ^ Number.parseInt(sha256Text(typeId).slice(0, 8), 16));
}

interface Decision {
  session: ValidationSession;
  options: InjectOptions;
  spec: BugTypeSpec;
  engine: EngineRef;
  id: string;
  witness: ExecutionContextRecord;
  /** The rules engine's site; an agent's is found from the members its change touched. */
  site: Site | null;
}

export function bugTypeRef(spec: BugTypeSpec): BugTypeRef {
  return { id: spec.id, name: spec.name, category: spec.category, specHash: specHash(spec) };
}

/** Records a validation outcome as an accepted injection or a rejection, and announces it. */
export async function recordOutcome(decision: Decision, outcome: ValidationOutcome): Promise<void> {
  const { session, options, spec, id, witness } = decision;
  let announced: { what: string; detail: string };
  if (outcome.kind === 'Accepted') {
    const touched = outcome.evidence.touched[0];
    if (!decision.site && !touched) throw new Error(`accepted ${id} touches no member`);
    const site = decision.site ?? {
      file: touched!.file,
      member: touched!.key,
      line: touched!.cleanLine ?? touched!.buggyLines!.first,
      description: outcome.evidence.structure,
    };
    await session.output.accept({
      id,
      state: outcome.state,
      bugType: bugTypeRef(spec),
      engine: decision.engine,
      seed: options.seed,
      witness: { testClass: witness.testClass, contextSize: witness.size, bucket: witness.bucket },
      site,
      evidence: outcome.evidence,
      checks: outcome.checks,
      timings: outcome.timings,
      createdAt: new Date().toISOString(),
    });
    announced = {
      what: `${site.member}: ${site.description}`,
      detail: `${outcome.evidence.failure.kind} in ${witness.testClass}`,
    };
  } else {
    await session.output.reject({
      id,
      base: options.project.base,
      bugType: bugTypeRef(spec),
      engine: decision.engine,
      witness: witness.testClass,
      site: decision.site,
      stage: outcome.stage,
      reason: outcome.reason,
      ...(outcome.verdict ? { verdict: outcome.verdict } : {}),
      checks: outcome.checks,
      timings: outcome.timings,
    });
    announced = {
      what: decision.site?.member ?? id,
      detail: `${outcome.stage}: ${outcome.reason}`,
    };
  }
  const tally = session.output.tally(bugTypeRef(spec), options.project.base, decision.engine);
  options.events.emit({
    kind: 'CandidateDecided',
    typeId: spec.id,
    candidateId: id,
    decision: outcome.kind,
    ...announced,
    accepted: tally.accepted,
    tried: tally.tried,
  });
}

/** Announces that the tries of a type (the `index`-th of the run, 0-based) begin. */
export function announceType(
  options: InjectOptions,
  index: number,
  spec: BugTypeSpec,
  sites: number | null,
): void {
  options.events.emit({
    kind: 'TypeStarted',
    typeId: spec.id,
    index: index + 1,
    of: options.specs.length,
    sites,
    wanted: options.count,
    maxTries: options.maxTries,
  });
}

/** The run's summary, written beside its records; its time is the sum of its types'. */
export function writeRunSummary(
  session: ValidationSession,
  options: InjectOptions,
  engine: EngineRef,
  types: TypeSummary[],
): Promise<InjectSummary> {
  return session.output.writeSummary({
    project: options.project.label,
    engine,
    seed: options.seed,
    wanted: options.count,
    maxTries: options.maxTries,
    out: options.out,
    types,
    coverage: session.output.coverage(options.specs.map(bugTypeRef), options.project.base, engine),
    durationMs: types.reduce((sum, type) => sum + type.durationMs, 0),
  });
}

/**
 * A type's tally once its tries are over, announced as the type's end; `triesLeft` says whether
 * the run could have tried more (so it was the sites that ran out).
 */
export function typeSummary(
  spec: BugTypeSpec,
  engine: EngineRef,
  session: ValidationSession,
  options: InjectOptions,
  found: { sites: number | null; triesLeft: boolean },
  runMs: number,
): TypeSummary {
  const tally = session.output.tally(bugTypeRef(spec), session.reference.base, engine);
  const durationMs = runMs + session.output.earlierDuration(spec.id, engine);
  session.events.emit({
    kind: 'TypeFinished',
    typeId: spec.id,
    accepted: tally.accepted,
    tried: tally.tried,
    durationMs,
  });
  return {
    typeId: spec.id,
    name: spec.name,
    sitesFound: found.sites,
    tried: tally.tried,
    accepted: tally.accepted,
    acceptanceRate: tally.tried === 0 ? 0 : tally.accepted / tally.tried,
    rejectedBy: tally.rejectedBy,
    ended:
      tally.accepted >= options.count
        ? 'count-reached'
        : found.triesLeft
          ? 'sites-exhausted'
          : 'tries-exhausted',
    durationMs,
  };
}

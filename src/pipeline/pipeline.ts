import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../core/cache.js';
import { sha256Text } from '../core/fs.js';
import type { PhaseClock } from '../core/phase-clock.js';
import { runPool } from '../core/pool.js';
import {
  SuiteCheckSchema,
  type CoWitness,
  type CoWitnessPolicy,
  type GivenAway,
  type SuiteCheck,
} from '../checks/suite.js';
import type { EventSink } from '../events/types.js';
import type { FetchedProjectRef, ProjectRef } from '../project/project.js';
import { appendRecords, defineRecord, readRecords } from '../records/record.js';
import type { ExecutionContextRecord } from '../stages/1-trace/trace.js';
import { witnessContexts } from '../stages/2-inject/contexts.js';
import { injectWithRules } from '../stages/2-inject/inject.js';
import { TypeSummarySchema, type InjectionRecord } from '../stages/2-inject/records.js';
import { specHash, type BugTypeSpec } from '../stages/2-inject/spec.js';
import type { CandidateSource } from '../stages/3-transform/candidates.js';
import { openTransformer, type OpenTransformer } from '../stages/3-transform/driver.js';
import { TransformMemo } from '../stages/3-transform/memo.js';
import { keepsBugReach, type TransformSpec } from '../stages/3-transform/spec.js';
import {
  describeStop,
  expectedFailures,
  shortLikeSharedSteps,
  StoppedAtSchema,
  transformId,
  TransformLine,
  type TransformRecord,
} from '../stages/3-transform/transform.js';
import { JvmRunner } from '../toolchains/jvm/runner.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';
import { WholeSuite } from './whole-suite.js';
import { cellKey, type CellKey, type PlanCell } from './plan.js';

/*
 * `witnessgym build`: a plan's cells filled from real projects, stage after stage. Per project
 * and context bucket, bugs are injected with witnesses of that bucket only; each cell then takes
 * bugs of its type and bucket and applies its depth's operator sequence; a kept case goes to the
 * archive. Every decision is appended to the build's ledger as it is made, and each stage keeps
 * its own resumable output, so a build killed at any point resumes without losing or repeating a
 * case. A cell the projects cannot fill is reported short, with why; nothing is padded.
 */

const CellKeySchema = z.strictObject({
  typeId: z.string(),
  bucket: z.string(),
  depth: z.number().int(),
  /** The operators, when the cell's group has its own sequence for the depth. */
  sequence: z.array(z.string()).optional(),
});

/**
 * Where a bug tried in a cell stopped short: in transformation, at the whole-suite check (other
 * existing classes expose it, or the suite could not be run), or refused by the archive.
 */
const CaseStopSchema = z.discriminatedUnion('kind', [
  ...StoppedAtSchema.options,
  z.strictObject({ kind: z.literal('suite') }),
  z.strictObject({ kind: z.literal('archive') }),
]);
export type CaseStop = z.infer<typeof CaseStopSchema>;

export function describeCaseStop(at: CaseStop): string {
  switch (at.kind) {
    case 'archive':
      return 'archive';
    case 'suite':
      return 'whole suite';
    default:
      return describeStop(at);
  }
}

/**
 * One bug tried in one cell, and what became of it. Version 2 says where a Short one stopped as
 * data (version 1 wrote a string that counted a bug unfit for steps as lost to the first operator);
 * version 3 records the whole-suite check of a kept case (`suite`) and its stop. A build directory
 * of an earlier version is refused (`buildInputsId`): its cases were archived without that check.
 */
export const BuildCaseLine = defineRecord({
  kind: 'build-case',
  version: 3,
  schema: z.strictObject({
    cell: CellKeySchema,
    project: z.string(),
    injection: z.string(),
    transform: z.string(),
    outcome: z.discriminatedUnion('kind', [
      z.strictObject({ kind: z.literal('Archived'), caseId: z.string() }),
      z.strictObject({ kind: z.literal('Short'), stoppedAt: CaseStopSchema, reason: z.string() }),
    ]),
    /** The whole existing suite on the kept case's final state (absent for a case lost before). */
    suite: SuiteCheckSchema.optional(),
    durationMs: z.number(),
  }),
});
export type BuildCaseRecord = z.infer<typeof BuildCaseLine.schema>;

/** What inject made of a type for one project's bucket, against the count the build asked. */
const InjectedTypeSchema = z.strictObject({
  project: z.string(),
  bucket: z.string(),
  asked: z.number().int(),
  type: TypeSummarySchema,
});
export type InjectedType = z.infer<typeof InjectedTypeSchema>;

/**
 * A project's bucket whose inject-then-transform rounds ran to their end, with the settings they
 * ran with (the seed is the build directory's own) and what inject made of each type. A rerun
 * with the same settings would only try more bugs after the rounds had judged the tries enough;
 * it takes this record and the ledger instead. Other settings (more cases, tries or spares) work
 * again.
 */
export const FinishedBucketLine = defineRecord({
  kind: 'build-bucket-finished',
  version: 1,
  schema: z.strictObject({
    project: z.string(),
    bucket: z.string(),
    settings: z.string(),
    injected: z.array(InjectedTypeSchema),
  }),
});
export type FinishedBucketRecord = z.infer<typeof FinishedBucketLine.schema>;

/** What the archive stage gets for a kept case. */
export interface KeptCase {
  project: ProjectRef;
  injection: InjectionRecord;
  transform: TransformRecord;
  contexts: readonly ExecutionContextRecord[];
  /** Other existing classes that expose the bug, hidden from the workspace with the witness. */
  coWitnesses: CoWitness[];
}

export interface BuildOptions {
  cache: CacheLayout;
  projects: readonly FetchedProjectRef[];
  cells: readonly PlanCell[];
  specs: readonly BugTypeSpec[];
  /** The candidate source of each step of a depth's operator sequence. */
  sourcesFor: (sequence: readonly string[]) => CandidateSource[];
  /** The operators' specs: what their steps keep of the bug. */
  transforms: readonly TransformSpec[];
  seed: number;
  /** Cases transformed at once, each in its own working copy and JVM. */
  workers: number;
  out: string;
  /** Confirm every kept case with Maven (the default; off only for quick trials). */
  maven: boolean;
  /** Candidates an inject run tries per type at most. */
  maxTries: number;
  /** Candidates each step tries (the sources' setting): with the others, what a bucket ran with. */
  candidates: number;
  /** Extra bugs injected per cell, beyond what it wants, for the ones transformation loses. */
  spare: number;
  otherClassLimit: number;
  collateralLimit: number;
  /** A kept case that other existing classes expose: refused, or kept with them hidden. */
  coWitnesses: CoWitnessPolicy;
  /** Where the transformations' time goes, when a benchmark asks (see TransformOptions.clock). */
  clock?: PhaseClock;
  /** The units of a project as jobs on a queue's workers (build --queue); here otherwise. */
  queuedUnit?: (
    project: FetchedProjectRef,
    contexts: readonly ExecutionContextRecord[],
  ) => Promise<CaseUnit>;
  archive: (
    kept: KeptCase,
  ) => Promise<{ kind: 'Archived'; caseId: string } | { kind: 'Refused'; reason: string }>;
  events: EventSink;
}

/**
 * The archived entries that count, in ledger order: the first of each case. A bug exposed by
 * witnesses of two buckets is one case; a ledger written before that was checked may name it
 * twice.
 */
export function countedCases(entries: readonly BuildCaseRecord[]): Set<BuildCaseRecord> {
  const seen = new Set<string>();
  const counted = new Set<BuildCaseRecord>();
  for (const entry of entries) {
    if (entry.outcome.kind !== 'Archived' || seen.has(entry.outcome.caseId)) continue;
    seen.add(entry.outcome.caseId);
    counted.add(entry);
  }
  return counted;
}

/**
 * Whether the bug was tried with this cell's depth and sequence, in this cell or another (its
 * twin of a bucket, or another type's cell with the same operators).
 */
export function triedInSequence(
  entries: readonly BuildCaseRecord[],
  cell: CellKey,
  injection: string,
): boolean {
  const operators = (key: CellKey) => `${key.depth} ${key.sequence?.join(' ') ?? ''}`;
  return entries.some(
    (entry) => entry.injection === injection && operators(entry.cell) === operators(cell),
  );
}

/**
 * The build's ledger: every bug tried in a cell, appended as it is decided, and the buckets whose
 * rounds ran to their end.
 */
class Ledger {
  private counted: Set<BuildCaseRecord>;

  private constructor(
    private readonly dir: string,
    readonly entries: BuildCaseRecord[],
    readonly finishedBuckets: FinishedBucketRecord[],
  ) {
    this.counted = countedCases(entries);
  }

  static async open(out: string): Promise<Ledger> {
    const dir = path.join(out, 'build');
    return new Ledger(
      dir,
      (await readRecords(path.join(dir, 'cases.jsonl'), BuildCaseLine)).records,
      (await readRecords(path.join(dir, 'finished.jsonl'), FinishedBucketLine)).records,
    );
  }

  finished(project: string, bucket: string, settings: string): FinishedBucketRecord | undefined {
    return this.finishedBuckets.find(
      (record) =>
        record.project === project && record.bucket === bucket && record.settings === settings,
    );
  }

  async finish(record: FinishedBucketRecord): Promise<void> {
    await appendRecords(path.join(this.dir, 'finished.jsonl'), FinishedBucketLine, [record]);
    this.finishedBuckets.push(record);
  }

  counts(entry: BuildCaseRecord): boolean {
    return this.counted.has(entry);
  }

  archived(cell: PlanCell): number {
    return this.inCell(cell).filter((entry) => this.counted.has(entry)).length;
  }

  inCell(cell: PlanCell): BuildCaseRecord[] {
    const key = cellKey(cell.key);
    return this.entries.filter((entry) => cellKey(entry.cell) === key);
  }

  async append(entry: BuildCaseRecord): Promise<void> {
    await appendRecords(path.join(this.dir, 'cases.jsonl'), BuildCaseLine, [entry]);
    this.entries.push(entry);
    this.counted = countedCases(this.entries);
  }
}

/** Why a cell is short, as the stages said it. */
export interface CellShortfall {
  cell: PlanCell;
  archived: number;
  reasons: string[];
}

export interface BuildResult {
  ledger: BuildCaseRecord[];
  /** Ledger entries an earlier run had decided. */
  resumed: number;
  /** Every archived case's transformation, this run's and earlier ones'. */
  kept: { project: ProjectRef; entry: BuildCaseRecord; record: TransformRecord }[];
  shortfalls: CellShortfall[];
  injected: { project: string; bucket: string; typeId: string; accepted: number; tried: number }[];
  durationMs: number;
}

/** Inject-then-transform rounds per project and bucket, at most. */
const MAX_ROUNDS = 3;

/** Bugs of a cell that must all fall short at its first operator before more are not sought. */
const FIRST_STEP_TRIES = 3;

/**
 * Whether a project's bugs of a cell are out of its first operator's reach: each of the last
 * few tried fell short at step 1 and none was kept (an equals typo in the header gives the rare
 * gate no statement to gate). More bugs of the type would fall short the same way, so no more
 * are injected for the cell in this project; the cell's shortfall says why.
 */
export function firstStepOutOfReach(entries: readonly BuildCaseRecord[]): boolean {
  const last = entries.slice(-FIRST_STEP_TRIES);
  return (
    last.length === FIRST_STEP_TRIES &&
    !entries.some((entry) => entry.outcome.kind === 'Archived') &&
    last.every(
      (entry) =>
        entry.outcome.kind === 'Short' &&
        entry.outcome.stoppedAt.kind === 'step' &&
        entry.outcome.stoppedAt.index === 0,
    )
  );
}

/** Why a project's bugs of a type fell short of what the build asked of a bucket, if they did. */
export function injectShortfall({
  project,
  bucket,
  asked,
  type,
}: InjectedType): string | undefined {
  if (type.accepted >= asked) return undefined;
  return `${project}: ${type.accepted} ${bucket} bugs of ${asked} asked for (${type.sitesFound ?? '?'} sites, ${type.tried} tried, ${type.ended})`;
}

/**
 * Why a project's bugs tried in a cell were lost, from its ledger entries: how many stopped where,
 * each with the gist of its reason (up to its first colon or parenthesis).
 */
export function transformShortfall(
  project: string,
  entries: readonly BuildCaseRecord[],
): string | undefined {
  const tally = new Map<string, number>();
  let short = 0;
  for (const entry of entries) {
    if (entry.outcome.kind !== 'Short') continue;
    short++;
    const gist = entry.outcome.reason.replace(/ \(.*$/, '').split(':')[0];
    const what = `${describeCaseStop(entry.outcome.stoppedAt)}: ${gist}`;
    tally.set(what, (tally.get(what) ?? 0) + 1);
  }
  if (short === 0) return undefined;
  const counts = [...tally].map(([what, count]) => `${count}× ${what}`).join('; ');
  const outOfReach = firstStepOutOfReach(entries)
    ? `; the last ${FIRST_STEP_TRIES} fell short at the first operator, so no more were injected`
    : '';
  return `${project}: ${short} bugs fell short in transformation (${counts})${outOfReach}`;
}

/** A transformation worker: its transformer, and the whole suite run in its own working copy. */
type Worker = OpenTransformer & { suite: WholeSuite };

/**
 * A build's unit of work: a bug transformed by a cell's sequence (unless `transformed` says how
 * an earlier run did), and a kept case's whole-suite check. Deterministic in its inputs, so a
 * queue's worker on another host returns what this machine would.
 */
export type CaseUnit = (
  injection: InjectionRecord,
  sources: CandidateSource[],
  transformed?: TransformRecord,
) => Promise<CaseUnitResult>;

export type CaseUnitResult =
  | { kind: 'Transformed'; record: TransformRecord; suite?: SuiteCheck }
  /** Refused before its steps: they keep the bug's reach, and the remaining suite exposes it. */
  | { kind: 'GivenAwayBeforeSteps'; suite: GivenAway };

/** The unit as a transformer and a whole suite in working copies of their own run it. */
export function caseUnitOf(
  worker: Pick<Worker, 'transformer' | 'suite'>,
  coWitnesses: CoWitnessPolicy,
  transforms: readonly TransformSpec[],
): CaseUnit {
  return async (injection, sources, transformed) => {
    const witness = injection.witness.testClass;
    const sequence = sources.map((source) => source.id);
    // A bug the remaining suite exposes now, steps that keep its reach leave exposed: the
    // transformation and its Maven confirmation would be spent on a case refused at the end.
    if (!transformed && coWitnesses === 'refuse' && keepsBugReach(transforms, sequence)) {
      const suite = await worker.suite.givenAwayBeforeSteps(injection.state, witness);
      if (suite) return { kind: 'GivenAwayBeforeSteps', suite };
    }
    const record = transformed ?? (await worker.transformer.transform(injection, sources));
    if (record.outcome.kind !== 'Kept') return { kind: 'Transformed', record };
    const suite = await worker.suite.check(
      record.outcome.state,
      { testClass: witness, expected: expectedFailures(record) },
      coWitnesses,
    );
    return { kind: 'Transformed', record, suite };
  };
}

/** Why the whole-suite check refused a case, as the ledger and the summary say it. */
export function suiteRefusal(
  suite: Extract<SuiteCheck, { kind: 'GivenAway' | 'Unfinished' }>,
): string {
  if (suite.kind === 'Unfinished') return `the whole suite did not run to its end: ${suite.reason}`;
  const runners = suite.runs
    .filter((run) => run.failing.length > 0)
    .map((run) => run.runner)
    .join(', ');
  if (suite.runs.some((run) => run.stoppedAtFirst)) {
    return `existing classes give the bug away: ${suite.classes[0]} fails on the buggy state and passes on clean code (${runners}; the warm runs stop at the first that does)`;
  }
  return `existing classes give the bug away: ${suite.classes.length} fail on the buggy state and pass on clean code (${suite.classes.slice(0, 3).join(', ')}${suite.classes.length > 3 ? ', …' : ''}; ${runners})`;
}

/** One transformation job: a bug in a cell. */
export interface Job {
  cell: PlanCell;
  injection: InjectionRecord;
}

/**
 * A round's jobs: per cell, shallow depths first, the bugs it still wants among those it has not
 * tried. A bug that made a case in one series (a cell, or a group's depth series) is not tried
 * for another, and in a round it is tried for one series only, so cases share a bug only within
 * a series.
 */
export function nextJobs(input: {
  cells: readonly PlanCell[];
  /** Every cell of the plan: which series a ledger entry's cell belongs to. */
  planCells: readonly PlanCell[];
  injections: readonly InjectionRecord[];
  entries: readonly BuildCaseRecord[];
  counts: (entry: BuildCaseRecord) => boolean;
  wantedMore: (cell: PlanCell) => number;
}): Job[] {
  const seriesOf = new Map(input.planCells.map((cell) => [cellKey(cell.key), cell.series]));
  const caseSeries = new Map<string, Set<string>>();
  for (const entry of input.entries) {
    if (!input.counts(entry)) continue;
    const key = cellKey(entry.cell);
    const series = caseSeries.get(entry.injection) ?? new Set<string>();
    series.add(seriesOf.get(key) ?? key);
    caseSeries.set(entry.injection, series);
  }
  const jobs: Job[] = [];
  const takenBy = new Map<string, string>();
  for (const cell of [...input.cells].sort((a, b) => a.depth - b.depth)) {
    const free = (injection: InjectionRecord) =>
      [...(caseSeries.get(injection.id) ?? [])].every((series) => series === cell.series) &&
      (takenBy.get(injection.id) ?? cell.series) === cell.series;
    const pool = input.injections.filter(
      (injection) =>
        injection.bugType.id === cell.typeId &&
        !triedInSequence(input.entries, cell.key, injection.id) &&
        free(injection),
    );
    for (const injection of pool.slice(0, input.wantedMore(cell))) {
      takenBy.set(injection.id, cell.series);
      jobs.push({ cell, injection });
    }
  }
  return jobs;
}

/** The inject output of a project's bugs with witnesses of one bucket. */
function injectOut(out: string, project: ProjectRef, bucket: string): string {
  return path.join(out, 'work', project.label.replace(/[^\w.@-]+/g, '_'), `inject-${bucket}`);
}

/** Transformed cases, per record version: a newer witnessgym redoes what an older one wrote. */
function transformOut(out: string, project: ProjectRef): string {
  return path.join(
    out,
    'work',
    project.label.replace(/[^\w.@-]+/g, '_'),
    `transformed-v${TransformLine.version}.jsonl`,
  );
}

function injectedKey(project: string, bucket: string, typeId: string): string {
  return JSON.stringify([project, bucket, typeId]);
}

/** Which bucket a bug sits in: its witness's context length, as the trace measured it. */
function bucketOf(injection: InjectionRecord): string {
  return injection.witness.bucket;
}

class Build {
  /**
   * What the transformations learn of a state, for the others of the build: a bug retried in
   * another cell in a later round, or at another depth, starts from the same states.
   */
  private readonly memo = new TransformMemo();
  private readonly shortReasons = new Map<string, Map<string, string>>();
  /** What inject made of each type per project and bucket: a later round's replaces the earlier. */
  private readonly injected = new Map<string, InjectedType>();

  private readonly resumed: number;

  constructor(
    private readonly options: BuildOptions,
    private readonly ledger: Ledger,
  ) {
    this.resumed = ledger.entries.length;
  }

  private async keptCases(): Promise<BuildResult['kept']> {
    const kept: BuildResult['kept'] = [];
    for (const project of this.options.projects) {
      const records = new Map(
        (await readRecords(transformOut(this.options.out, project), TransformLine)).records.map(
          (record) => [record.id, record],
        ),
      );
      for (const entry of this.ledger.entries) {
        const record = records.get(entry.transform);
        if (entry.project === project.label && this.ledger.counts(entry) && record) {
          kept.push({ project, entry, record });
        }
      }
    }
    return kept;
  }

  private wantedMore(cell: PlanCell): number {
    return Math.max(0, cell.wanted - this.ledger.archived(cell));
  }

  /** Says why a cell is short in a project, besides what inject and the ledger say. */
  private reason(cell: PlanCell, project: string, reason: string): void {
    const key = cellKey(cell.key);
    const reasons = this.shortReasons.get(key) ?? new Map<string, string>();
    reasons.set(project, reason);
    this.shortReasons.set(key, reasons);
  }

  async run(): Promise<BuildResult> {
    const started = Date.now();
    this.progress('start', `${this.ledger.entries.length} bugs tried by an earlier run`);
    for (const project of this.options.projects) {
      if (this.options.cells.every((cell) => this.wantedMore(cell) === 0)) break;
      await this.buildProject(project);
    }
    const shortfalls = this.options.cells
      .filter((cell) => this.wantedMore(cell) > 0)
      .map((cell) => ({
        cell,
        archived: this.ledger.archived(cell),
        reasons: this.shortfallReasons(cell),
      }));
    return {
      ledger: this.ledger.entries,
      resumed: this.resumed,
      kept: await this.keptCases(),
      shortfalls,
      injected: [...this.injected.values()].map(({ project, bucket, type }) => ({
        project,
        bucket,
        typeId: type.typeId,
        accepted: type.accepted,
        tried: type.tried,
      })),
      durationMs: Date.now() - started,
    };
  }

  /**
   * Why a cell is short, per project: its witnesses, what inject made of its type (this run's or
   * a finished bucket's), and what the ledger says of the bugs tried in it, whichever run tried
   * them.
   */
  private shortfallReasons(cell: PlanCell): string[] {
    const said = this.shortReasons.get(cellKey(cell.key));
    return this.options.projects.flatMap((project) => {
      const injected = this.injected.get(injectedKey(project.label, cell.bucket, cell.typeId));
      const reasons = [
        said?.get(project.label),
        injected && injectShortfall(injected),
        transformShortfall(
          project.label,
          this.ledger.inCell(cell).filter((entry) => entry.project === project.label),
        ),
      ];
      return reasons.filter((reason) => reason !== undefined);
    });
  }

  /**
   * What a project's bucket runs with besides the seed: its cells and what they want, the bug
   * types as their specs read, and the settings of inject and of the steps.
   */
  private bucketSettings(bucket: string): string {
    const { cells, specs } = this.options;
    return sha256Text(
      JSON.stringify([
        cells
          .filter((cell) => cell.bucket === bucket)
          .map((cell) => [cellKey(cell.key), cell.wanted, cell.sequence, cell.series]),
        specs.map((spec) => [spec.id, specHash(spec)]),
        this.options.maxTries,
        this.options.spare,
        this.options.candidates,
        this.options.maven,
        this.options.otherClassLimit,
        this.options.collateralLimit,
        this.options.coWitnesses,
        TransformLine.version,
      ]),
    ).slice(0, 16);
  }

  private async buildProject(project: FetchedProjectRef): Promise<void> {
    const { cache, events } = this.options;
    const buckets = [...new Set(this.options.cells.map((cell) => cell.bucket))].filter((bucket) =>
      this.options.cells.some((cell) => cell.bucket === bucket && this.wantedMore(cell) > 0),
    );
    // A bucket whose rounds ran to their end with these settings is not worked again.
    const unfinished = buckets.filter((bucket) => {
      const finished = this.ledger.finished(project.label, bucket, this.bucketSettings(bucket));
      for (const injected of finished?.injected ?? []) this.noteInjected(injected);
      return !finished;
    });
    if (unfinished.length === 0) return;
    const contexts = await witnessContexts(project, cache, events);
    for (const bucket of unfinished) {
      const cells = this.options.cells.filter(
        (cell) => cell.bucket === bucket && this.wantedMore(cell) > 0,
      );
      if (cells.length === 0) continue;
      const witnesses = contexts.filter((record) => record.bucket === bucket);
      if (witnesses.length === 0) {
        for (const cell of cells) {
          this.reason(
            cell,
            project.label,
            `${project.label} has no passing test class with a ${bucket} context`,
          );
        }
        continue;
      }
      // Bugs transformation loses are replaced by new ones while inject finds more.
      for (let round = 1; round <= MAX_ROUNDS; round++) {
        const wanting = cells.filter(
          (cell) =>
            this.wantedMore(cell) > 0 &&
            !firstStepOutOfReach(
              this.ledger.inCell(cell).filter((entry) => entry.project === project.label),
            ),
        );
        if (wanting.length === 0) break;
        const injections = await this.inject(project, bucket, cells, wanting, witnesses);
        const tried = this.ledger.entries.length;
        await this.transformAll(project, contexts, wanting, injections);
        if (this.ledger.entries.length === tried) break;
      }
      await this.ledger.finish({
        project: project.label,
        bucket,
        settings: this.bucketSettings(bucket),
        injected: [...this.injected.values()].filter(
          (entry) => entry.project === project.label && entry.bucket === bucket,
        ),
      });
    }
  }

  private noteInjected(entry: InjectedType): void {
    this.injected.set(injectedKey(entry.project, entry.bucket, entry.type.typeId), entry);
  }

  /**
   * Bugs of each type the wanting cells ask for, with witnesses of the bucket: per series of
   * cells that may share bugs, as many as its most demanding depth tried and still wants; summed
   * over the type's series (cells of different series never share a bug), plus the spare.
   */
  private async inject(
    project: ProjectRef,
    bucket: string,
    bucketCells: readonly PlanCell[],
    wanting: readonly PlanCell[],
    witnesses: ExecutionContextRecord[],
  ): Promise<InjectionRecord[]> {
    const out = injectOut(this.options.out, project, bucket);
    const perSeries = new Map<string, number>();
    for (const cell of bucketCells) {
      const count =
        this.ledger.inCell(cell).filter((entry) => entry.project === project.label).length +
        this.wantedMore(cell);
      const key = JSON.stringify([cell.typeId, cell.series]);
      perSeries.set(key, Math.max(perSeries.get(key) ?? 0, count));
    }
    const countOf = new Map<string, number>();
    for (const typeId of new Set(wanting.map((cell) => cell.typeId))) {
      let count = this.options.spare;
      for (const [key, series] of perSeries) {
        if ((JSON.parse(key) as string[])[0] === typeId) count += series;
      }
      countOf.set(typeId, count);
    }
    // One inject run per count: a run asks the same number of bugs of each of its types.
    const byCount = new Map<number, BugTypeSpec[]>();
    for (const [typeId, count] of countOf) {
      const spec = this.options.specs.find((candidate) => candidate.id === typeId);
      if (!spec) continue;
      byCount.set(count, [...(byCount.get(count) ?? []), spec]);
    }
    // A bug an inject output records twice (outputs of earlier versions do) is one bug, tried once.
    const bugs = new Map<string, InjectionRecord>();
    for (const [count, specs] of [...byCount].sort((a, b) => a[0] - b[0])) {
      const { summary, accepted } = await injectWithRules({
        cache: this.options.cache,
        project,
        toolchain: mavenToolchain,
        specs,
        contexts: witnesses,
        count,
        maxTries: this.options.maxTries,
        seed: this.options.seed,
        out,
        collateralLimit: this.options.collateralLimit,
        // The case's final state is what Maven must confirm (the transformation's last check, at
        // every depth): a Maven replay of the bug before its steps would only repeat it.
        mavenCheck: false,
        events: this.options.events,
      });
      for (const type of summary.types) {
        this.noteInjected({ project: project.label, bucket, asked: count, type });
      }
      for (const record of accepted) bugs.set(record.id, record);
    }
    return [...bugs.values()].filter((record) => bucketOf(record) === bucket);
  }

  /**
   * Fills the cells from the bugs, in rounds, each bug's transformation a unit: on this
   * machine's workers, or as jobs on the build's queue.
   */
  private async transformAll(
    project: FetchedProjectRef,
    contexts: readonly ExecutionContextRecord[],
    cells: readonly PlanCell[],
    injections: readonly InjectionRecord[],
  ): Promise<void> {
    const file = transformOut(this.options.out, project);
    const earlier = new Map(
      (await readRecords(file, TransformLine)).records.map((record) => [record.id, record]),
    );
    const rounds = async (workers: number, unitOf: (worker: number) => CaseUnit) => {
      for (;;) {
        const jobs = nextJobs({
          cells,
          planCells: this.options.cells,
          injections,
          entries: this.ledger.entries,
          counts: (entry) => this.ledger.counts(entry),
          wantedMore: (cell) => this.wantedMore(cell),
        });
        if (jobs.length === 0) break;
        await runPool(jobs, { workers }, (job, worker) =>
          this.decide(project, contexts, job, unitOf(worker), earlier, file),
        );
      }
    };
    if (this.options.queuedUnit) {
      // Every unit of a round is in flight at once: the queue's workers decide how many run.
      const unit = await this.options.queuedUnit(project, contexts);
      await rounds(Number.MAX_SAFE_INTEGER, () => unit);
      return;
    }
    const workerCount = Math.max(1, this.options.workers);
    // One pool of warm JVMs for the steps and the whole-suite runs of every worker: a JVM runs
    // in one directory, so two per worker (its transformer's copy and its suite copy).
    const jvm = new JvmRunner(this.options.cache, 2 * workerCount);
    const workers: Worker[] = await Promise.all(
      Array.from({ length: workerCount }, async (_, index) => ({
        ...(await openTransformer({
          cache: this.options.cache,
          project,
          contexts,
          copyName: `build-${index}`,
          // The whole suite's Maven run confirms the witness too.
          maven: false,
          otherClassLimit: this.options.otherClassLimit,
          events: this.options.events,
          jvm,
          memo: this.memo,
          ...(this.options.clock ? { clock: this.options.clock } : {}),
        })),
        suite: await WholeSuite.open({
          cache: this.options.cache,
          project,
          contexts,
          jvm,
          copyName: `suite-${index}`,
          maven: this.options.maven,
        }),
      })),
    );
    try {
      const units = workers.map((worker) =>
        caseUnitOf(worker, this.options.coWitnesses, this.options.transforms),
      );
      await rounds(workers.length, (worker) => units[worker]!);
    } finally {
      for (const worker of workers) {
        await worker.close();
        await worker.suite.close();
      }
      await jvm.close();
    }
  }

  private async decide(
    project: ProjectRef,
    contexts: readonly ExecutionContextRecord[],
    job: Job,
    unit: CaseUnit,
    earlier: Map<string, TransformRecord>,
    file: string,
  ): Promise<void> {
    const started = Date.now();
    const { cell, injection } = job;
    const sources = this.options.sourcesFor(cell.sequence);
    const id = transformId(injection, sources);
    // A case transformed before an interruption is not transformed again, nor one whose first
    // steps already fell short for this bug in another sequence that begins with them.
    const known = earlier.get(id) ?? shortLikeSharedSteps(injection, sources, earlier);
    const result: CaseUnitResult =
      known?.outcome.kind === 'Short'
        ? { kind: 'Transformed', record: known }
        : await unit(injection, sources, known);
    const base = {
      cell: cell.key,
      project: project.label,
      injection: injection.id,
      transform: id,
    };
    if (result.kind === 'GivenAwayBeforeSteps') {
      await this.ledger.append({
        ...base,
        outcome: {
          kind: 'Short',
          stoppedAt: { kind: 'suite' },
          reason: `${suiteRefusal(result.suite)}, before the steps, which keep its reach`,
        },
        suite: result.suite,
        durationMs: Date.now() - started,
      });
      this.progressOfLast(cell, injection);
      return;
    }
    const { record, suite } = result;
    if (!earlier.has(id)) {
      await appendRecords(file, TransformLine, [record]);
      earlier.set(id, record);
    }
    if (record.outcome.kind === 'Short') {
      const { stoppedAt, reason } = record.outcome;
      await this.ledger.append({
        ...base,
        outcome: { kind: 'Short', stoppedAt, reason },
        durationMs: Date.now() - started,
      });
    } else if (!suite) {
      throw new Error(`transformed case ${id} was kept without its whole-suite check`);
    } else {
      if (suite.kind === 'WitnessRefuted') {
        await this.ledger.append({
          ...base,
          outcome: {
            kind: 'Short',
            stoppedAt: { kind: 'final', check: 'maven' },
            reason: suite.reason,
          },
          suite,
          durationMs: Date.now() - started,
        });
      } else if (suite.kind === 'GivenAway' || suite.kind === 'Unfinished') {
        await this.ledger.append({
          ...base,
          outcome: { kind: 'Short', stoppedAt: { kind: 'suite' }, reason: suiteRefusal(suite) },
          suite,
          durationMs: Date.now() - started,
        });
      } else {
        const archived = await this.options.archive({
          project,
          injection,
          transform: record,
          contexts,
          coWitnesses: suite.kind === 'Hidden' ? suite.coWitnesses : [],
        });
        await this.ledger.append({
          ...base,
          outcome:
            archived.kind === 'Archived'
              ? archived
              : { kind: 'Short', stoppedAt: { kind: 'archive' }, reason: archived.reason },
          suite,
          durationMs: Date.now() - started,
        });
      }
    }
    this.progressOfLast(cell, injection);
  }

  /** The progress line of the ledger's last entry, the bug just decided in `cell`. */
  private progressOfLast(cell: PlanCell, injection: InjectionRecord): void {
    const last = this.ledger.entries[this.ledger.entries.length - 1]!;
    this.progress(
      `${cellKey(cell.key)} ${injection.id}`,
      last.outcome.kind === 'Archived'
        ? `archived ${last.outcome.caseId}`
        : `short at ${describeCaseStop(last.outcome.stoppedAt)}: ${last.outcome.reason}`,
    );
  }

  private progress(item: string, outcome: string): void {
    const wanted = this.options.cells.reduce((sum, cell) => sum + cell.wanted, 0);
    const archived = this.options.cells.reduce(
      (sum, cell) => sum + Math.min(cell.wanted, this.ledger.archived(cell)),
      0,
    );
    const rejectedBy: Record<string, number> = {};
    for (const entry of this.ledger.entries) {
      if (entry.outcome.kind !== 'Short') continue;
      const { stoppedAt } = entry.outcome;
      // Steps by operator, whichever step it was.
      const by = stoppedAt.kind === 'step' ? stoppedAt.operator : describeCaseStop(stoppedAt);
      rejectedBy[by] = (rejectedBy[by] ?? 0) + 1;
    }
    this.options.events.emit({
      kind: 'BuildProgress',
      archived,
      wanted,
      tried: this.ledger.entries.length,
      rejectedBy,
      item,
      outcome,
    });
  }
}

/** Runs the build; the ledger in `out/build/` says what an earlier run already decided. */
export async function runBuild(options: BuildOptions): Promise<BuildResult> {
  const ledger = await Ledger.open(options.out);
  return new Build(options, ledger).run();
}

/**
 * A build's identity: its seed, which every stage's choices follow, so a rerun into the same
 * directory continues the same build. Projects, cells and counts may change: more of them
 * extend the benchmark, and what was built stays.
 */
export function buildInputsId(seed: number): string {
  return sha256Text(JSON.stringify([seed, BuildCaseLine.version])).slice(0, 16);
}

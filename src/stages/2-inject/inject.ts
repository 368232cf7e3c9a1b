import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import type { FileChange } from '../../core/file-change.js';
import { sha256Text } from '../../core/fs.js';
import { appendRecords, readRecords, writeRecordFile } from '../../records/record.js';
import { seededRandom, shuffled } from '../../core/random.js';
import { applyEdits, loadJavaGrammar, type TextEdit } from '../../lang/java/syntax.js';
import { pristineState, type ProjectRef } from '../../project/project.js';
import { sameBase, type ProjectBase, type ProjectState } from '../../project/state.js';
import { WorkingCopy } from '../../project/working-copy.js';
import { specText } from '../../agents/types.js';
import { note, type EventSink } from '../../events/types.js';
import { JvmRunner } from '../../toolchains/jvm/runner.js';
import type { Toolchain } from '../../toolchains/types.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import {
  InjectionLine,
  InjectSummaryFile,
  readEarlierSummary,
  RejectionLine,
  type Coverage,
  type EarlierSummary,
  type BugTypeRef,
  type EngineRef,
  type InjectionRecord,
  type InjectSummary,
  type RejectionRecord,
  type Site,
  type TypeSummary,
} from './records.js';
import { injectorFor } from './rules/index.js';
import { rewritesIn } from './rules/rewrites.js';
import type { Plausibility } from './rules/types.js';
import { memberId, nextTry, triesInOrder, witnessFor, type Covered } from './try-order.js';
import { specHash, type BugTypeSpec } from './spec.js';
import { InjectionValidator, type RejectionStage, type ValidationOutcome } from './validate.js';

const RULES: EngineRef = { kind: 'rules' };

/** Records of one engine count towards its own `--count` only. */
function sameEngine(a: EngineRef, b: EngineRef): boolean {
  if (a.kind === 'rules' || b.kind === 'rules') return a.kind === b.kind;
  return (
    specText(a.agent) === specText(b.agent) &&
    a.attempts === b.attempts &&
    a.promptVersion === b.promptVersion
  );
}

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

/** A rules-engine candidate: one rewrite in one reached member. */
interface RuleCandidate {
  id: string;
  file: string;
  /** The clean file, as site search read it. */
  before: string;
  member: string;
  line: number;
  description: string;
  edits: TextEdit[];
  plausibility: Plausibility;
  witnesses: string[];
}

/**
 * The output directory: accepted injections and rejections as JSONL (appended as each candidate
 * is decided, so an interrupted run resumes), and the summary.
 */
export class InjectionOutput {
  readonly accepted: InjectionRecord[] = [];
  readonly rejected: RejectionRecord[] = [];
  private readonly decided = new Set<string>();
  /** The summary an earlier run into this directory left, if any. */
  private earlier: EarlierSummary | undefined;

  private constructor(readonly dir: string) {}

  static async open(dir: string, events: EventSink): Promise<InjectionOutput> {
    const output = new InjectionOutput(dir);
    await mkdir(dir, { recursive: true });
    const injections = await readRecords(output.file('injections.jsonl'), InjectionLine);
    const rejections = await readRecords(output.file('rejections.jsonl'), RejectionLine);
    for (const [name, read] of [
      ['injections.jsonl', injections],
      ['rejections.jsonl', rejections],
    ] as const) {
      if (read.tornLastLine) {
        const where = `${output.file(name)}:${read.tornLastLine.line}`;
        note(
          events,
          'inject',
          `${where} was cut short by an interrupted run; its candidate is decided again`,
        );
      }
    }
    output.accepted.push(...injections.records);
    output.rejected.push(...rejections.records);
    output.earlier = await readEarlierSummary(output.file('summary.json'));
    for (const record of [...output.accepted, ...output.rejected]) output.decided.add(record.id);
    return output;
  }

  file(name: string): string {
    return path.join(this.dir, name);
  }

  isDecided(id: string): boolean {
    return this.decided.has(id);
  }

  async accept(record: InjectionRecord): Promise<void> {
    await appendRecords(this.file('injections.jsonl'), InjectionLine, [record]);
    this.accepted.push(record);
    this.decided.add(record.id);
  }

  async reject(record: RejectionRecord): Promise<void> {
    await appendRecords(this.file('rejections.jsonl'), RejectionLine, [record]);
    this.rejected.push(record);
    this.decided.add(record.id);
  }

  /**
   * Accepted, tried and rejections by stage so far (earlier runs included) of one bug type, as
   * its spec now reads, by one engine, on one base: a directory reused for another project or
   * after a spec edit counts only its own work.
   */
  tally(bugType: BugTypeRef, base: ProjectBase, engine: EngineRef) {
    const mine = (record: InjectionRecord | RejectionRecord) =>
      record.bugType.id === bugType.id &&
      record.bugType.specHash === bugType.specHash &&
      sameBase('state' in record ? record.state.base : record.base, base) &&
      sameEngine(record.engine, engine);
    const accepted = this.accepted.filter(mine).length;
    const rejections = this.rejected.filter(mine);
    const rejectedBy: Partial<Record<RejectionStage, number>> = {};
    for (const record of rejections) rejectedBy[record.stage] = (rejectedBy[record.stage] ?? 0) + 1;
    return { accepted, tried: accepted + rejections.length, rejectedBy };
  }

  /** Accepted bugs of one engine on one base, whatever their type. */
  private acceptedOn(base: ProjectBase, engine: EngineRef): InjectionRecord[] {
    return this.accepted.filter(
      (record) => sameBase(record.state.base, base) && sameEngine(record.engine, engine),
    );
  }

  /** Where the accepted bugs of one engine on one base are: what the next tries avoid. */
  spread(base: ProjectBase, engine: EngineRef): Covered & { witnessUses: Map<string, number> } {
    const accepted = this.acceptedOn(base, engine);
    const witnessUses = new Map<string, number>();
    for (const { witness } of accepted)
      witnessUses.set(witness.testClass, (witnessUses.get(witness.testClass) ?? 0) + 1);
    return {
      files: new Set(accepted.map((record) => record.site.file)),
      members: new Set(accepted.map((record) => memberId(record.site))),
      witnessUses,
    };
  }

  /** How many files, members and witnesses the accepted bugs of these types (as their specs now read) cover. */
  coverage(bugTypes: readonly BugTypeRef[], base: ProjectBase, engine: EngineRef): Coverage {
    const accepted = this.acceptedOn(base, engine).filter((record) =>
      bugTypes.some(
        (type) => type.id === record.bugType.id && type.specHash === record.bugType.specHash,
      ),
    );
    return {
      accepted: accepted.length,
      files: new Set(accepted.map((record) => record.site.file)).size,
      members: new Set(accepted.map((record) => memberId(record.site))).size,
      witnesses: new Set(accepted.map((record) => record.witness.testClass)).size,
    };
  }

  /** The time earlier runs into this directory spent on a type, from their summary. */
  earlierDuration(typeId: string, engine: EngineRef): number {
    if (!this.earlier || !sameEngine(this.earlier.engine, engine)) return 0;
    return this.earlier.types.find((type) => type.typeId === typeId)?.durationMs ?? 0;
  }

  async writeSummary(summary: InjectSummary): Promise<InjectSummary> {
    await writeRecordFile(this.file('summary.json'), InjectSummaryFile, summary);
    return summary;
  }
}

/** Content-addressed: the same state, type (as its spec reads), file and rewrite, the same id. */
function candidateId(state: ProjectState, spec: BugTypeSpec, file: string, after: string): string {
  const key = [state.id, spec.id, specHash(spec), file, sha256Text(after)];
  return sha256Text(key.join('\0')).slice(0, 16);
}

/** The members of each file that witnesses reach, with the witnesses reaching each. */
function reachedMembers(contexts: readonly ExecutionContextRecord[], productionRoot: string) {
  const byFile = new Map<
    string,
    Map<string, { name: string; line: number; witnesses: string[] }>
  >();
  for (const record of contexts) {
    for (const location of record.trace) {
      if (!location.file || location.line === null) continue;
      if (!location.file.startsWith(`${productionRoot}/`)) continue; // generated sources are rebuilt
      const name = location.method === '<clinit>' ? null : location.method;
      if (!name) continue;
      const members = byFile.get(location.file) ?? new Map();
      byFile.set(location.file, members);
      const key = `${name}:${location.line}`;
      const entry = members.get(key) ?? { name, line: location.line, witnesses: [] };
      if (!entry.witnesses.includes(record.testClass)) entry.witnesses.push(record.testClass);
      members.set(key, entry);
    }
  }
  return byFile;
}

/**
 * Every rewrite the type's rules offer in reached members, one parse per file. Constructors are
 * named after their class in traces, as in source.
 */
async function ruleCandidates(
  project: ProjectRef,
  spec: BugTypeSpec,
  contexts: readonly ExecutionContextRecord[],
  productionRoot: string,
): Promise<RuleCandidate[]> {
  const injector = injectorFor(spec.id);
  const pristine = pristineState(project);
  const candidates: RuleCandidate[] = [];
  for (const [file, reached] of reachedMembers(contexts, productionRoot)) {
    const source = await readFile(path.join(project.root, file), 'utf8');
    const rewrites = rewritesIn(injector, source, (name, line) => reached.get(`${name}:${line}`));
    for (const rewrite of rewrites) {
      candidates.push({
        id: candidateId(pristine, spec, file, rewrite.after),
        file,
        before: source,
        member: rewrite.member,
        line: rewrite.mark.line,
        description: rewrite.description,
        edits: rewrite.edits,
        plausibility: rewrite.plausibility,
        witnesses: rewrite.mark.witnesses,
      });
    }
  }
  return candidates;
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

/**
 * Stage 2 with the rules engine: for each bug type, tries rewrites of members the witnesses
 * reach, in a seeded order, until `count` are accepted or the tries run out. Accepted bugs and
 * rejections are appended as they are decided, so an interrupted run resumes where it stopped.
 */
export async function injectWithRules(options: InjectOptions): Promise<InjectSummary> {
  const productionRoot = options.project.layout.mainSources;
  return withValidationSession(options, async (session) => {
    const types: TypeSummary[] = [];
    for (const [index, spec] of options.specs.entries()) {
      const typeStarted = performance.now();
      const injector = injectorFor(spec.id);
      const candidates = await ruleCandidates(
        options.project,
        spec,
        options.contexts,
        productionRoot,
      );
      announceType(options, index, spec, candidates.length);
      let triedNow = 0;
      const order = triesInOrder(candidates, typeRandom(options.seed, spec.id));
      for (;;) {
        if (
          session.output.tally(bugTypeRef(spec), options.project.base, RULES).accepted >=
          options.count
        ) {
          break;
        }
        if (triedNow >= options.maxTries) break;
        const spread = session.output.spread(options.project.base, RULES);
        const candidate = nextTry(order, (c) => session.output.isDecided(c.id), spread);
        if (!candidate) break;
        triedNow++;
        const witness = session.contextOf.get(
          witnessFor(candidate.file, candidate.witnesses, session.witnessOrder, spread.witnessUses),
        )!;
        const changes: FileChange[] = [
          {
            file: candidate.file,
            before: candidate.before,
            after: applyEdits(candidate.before, candidate.edits),
          },
        ];
        const outcome = await session.validator.validate(
          spec,
          injector,
          witness.testClass,
          session.reference,
          changes,
        );
        await recordOutcome(
          {
            session,
            options,
            spec,
            engine: RULES,
            id: candidate.id,
            witness,
            site: {
              file: candidate.file,
              member: candidate.member,
              line: candidate.line,
              description: candidate.description,
            },
          },
          outcome,
        );
      }
      types.push(
        typeSummary(
          spec,
          RULES,
          session,
          options,
          { sites: candidates.length, triesLeft: triedNow < options.maxTries },
          Math.round(performance.now() - typeStarted),
        ),
      );
    }
    return writeRunSummary(session, options, RULES, types);
  });
}

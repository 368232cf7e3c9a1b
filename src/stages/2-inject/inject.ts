import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import {
  copyProjectTree,
  makeTempDir,
  removeTree,
  sha256Text,
  writeFileAtomic,
  writeJsonAtomic,
} from '../../core/fs.js';
import { appendRecords, defineRecord, readRecords } from '../../records/record.js';
import { seededRandom, shuffled } from '../../core/random.js';
import { applyEdits, loadJavaGrammar, type TextEdit } from '../../lang/java/syntax.js';
import type { ProjectRef } from '../../replay/project.js';
import { JvmRunner } from '../../toolchains/jvm/runner.js';
import type { Toolchain } from '../../toolchains/types.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { FileChange } from './change.js';
import { injectorFor } from './rules/index.js';
import { rewritesIn } from './rules/rewrites.js';
import type { BugTypeSpec } from './spec.js';
import {
  CandidateValidator,
  type AcceptedEvidence,
  type RejectionStage,
  type ValidationOutcome,
  type ValidationTimings,
} from './validate.js';

/** An injected bug the witness exposes: everything a case needs, with how it was proven. */
export interface InjectionRecord {
  id: string;
  project: string;
  typeId: string;
  typeName: string;
  category: BugTypeSpec['category'];
  engine: 'rules' | 'agent';
  seed: number;
  witness: { testClass: string; contextSize: number; bucket: string };
  site: { file: string; member: string; line: number; description: string };
  patch: string;
  patchFile: string;
  evidence: AcceptedEvidence;
  timings: ValidationTimings;
  createdAt: string;
}

export interface RejectionRecord {
  id: string;
  project: string;
  typeId: string;
  engine: 'rules' | 'agent';
  witness: string;
  site: { file: string; member: string; line: number; description: string } | null;
  stage: RejectionStage;
  reason: string;
  verdict?: string;
  timings: ValidationTimings;
}

export interface TypeSummary {
  typeId: string;
  name: string;
  /** Candidate sites found in the reached methods of the witnesses (rules engine; agents pick their own). */
  sitesFound: number | null;
  tried: number;
  accepted: number;
  acceptanceRate: number;
  rejectedBy: Partial<Record<RejectionStage, number>>;
  durationMs: number;
}

export interface InjectSummary {
  project: string;
  engine: 'rules' | 'agent';
  seed: number;
  out: string;
  types: TypeSummary[];
  durationMs: number;
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
  log: (line: string) => void;
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
  witnesses: string[];
}

// Temporary schemas, in place until these records are reshaped: they check only the envelope.
const InjectionLine = defineRecord({
  kind: 'injection',
  version: 1,
  schema: z.custom<InjectionRecord>(),
});
const RejectionLine = defineRecord({
  kind: 'rejection',
  version: 1,
  schema: z.custom<RejectionRecord>(),
});

/**
 * The output directory: accepted injections and rejections as JSONL (appended as each candidate
 * is decided, so an interrupted run resumes), patches, and the summary.
 */
export class InjectionOutput {
  readonly accepted: InjectionRecord[] = [];
  readonly rejected: RejectionRecord[] = [];
  private readonly decided = new Set<string>();

  private constructor(readonly dir: string) {}

  static async open(dir: string): Promise<InjectionOutput> {
    const output = new InjectionOutput(dir);
    await mkdir(path.join(dir, 'patches'), { recursive: true });
    // A torn last line is a candidate decided again.
    const injections = await readRecords(output.file('injections.jsonl'), InjectionLine);
    const rejections = await readRecords(output.file('rejections.jsonl'), RejectionLine);
    output.accepted.push(...injections.records);
    output.rejected.push(...rejections.records);
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
    await writeFileAtomic(this.file(record.patchFile), record.patch);
    await appendRecords(this.file('injections.jsonl'), InjectionLine, [record]);
    this.accepted.push(record);
    this.decided.add(record.id);
  }

  async reject(record: RejectionRecord): Promise<void> {
    await appendRecords(this.file('rejections.jsonl'), RejectionLine, [record]);
    this.rejected.push(record);
    this.decided.add(record.id);
  }

  /** Accepted, tried and rejections by stage of one type so far (earlier runs included). */
  tally(typeId: string) {
    const accepted = this.accepted.filter((record) => record.typeId === typeId).length;
    const rejections = this.rejected.filter((record) => record.typeId === typeId);
    const rejectedBy: Partial<Record<RejectionStage, number>> = {};
    for (const record of rejections) rejectedBy[record.stage] = (rejectedBy[record.stage] ?? 0) + 1;
    return { accepted, tried: accepted + rejections.length, rejectedBy };
  }

  async writeSummary(summary: InjectSummary): Promise<InjectSummary> {
    await writeJsonAtomic(this.file('summary.json'), summary);
    return summary;
  }
}

/** Content-addressed: the same project, type, file and rewrite always get the same id. */
export function candidateId(project: string, typeId: string, file: string, after: string): string {
  return sha256Text([project, typeId, file, sha256Text(after)].join('\0')).slice(0, 16);
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
  const candidates: RuleCandidate[] = [];
  for (const [file, reached] of reachedMembers(contexts, productionRoot)) {
    const source = await readFile(path.join(project.root, file), 'utf8');
    const rewrites = rewritesIn(injector, source, (name, line) => reached.get(`${name}:${line}`));
    for (const rewrite of rewrites) {
      candidates.push({
        id: candidateId(project.label, spec.id, file, rewrite.after),
        file,
        before: source,
        member: rewrite.member,
        line: rewrite.mark.line,
        description: rewrite.description,
        edits: rewrite.edits,
        witnesses: rewrite.mark.witnesses,
      });
    }
  }
  return candidates;
}

/**
 * Seeded order that spreads tries over members: members in shuffled order, one rewrite of each
 * per round, so a count is not spent on one method's variants.
 */
function triesInOrder(candidates: RuleCandidate[], random: () => number): RuleCandidate[] {
  const byMember = new Map<string, RuleCandidate[]>();
  for (const candidate of candidates) {
    const key = `${candidate.file}#${candidate.member}`;
    byMember.set(key, [...(byMember.get(key) ?? []), candidate]);
  }
  const groups = shuffled([...byMember.keys()].sort(), random).map((key) =>
    shuffled(byMember.get(key)!, random),
  );
  const order: RuleCandidate[] = [];
  for (let round = 0; order.length < candidates.length; round++) {
    for (const group of groups) if (group[round]) order.push(group[round]!);
  }
  return order;
}

export function productionRootOf(project: ProjectRef): string {
  return project.build.module ? `${project.build.module}/src/main/java` : 'src/main/java';
}

/** The unified diff of a change, with a/ and b/ prefixes as git writes them. */
export function unifiedPatch(changes: readonly FileChange[]): string {
  return changes
    .map((change) =>
      createTwoFilesPatch(
        `a/${change.file}`,
        `b/${change.file}`,
        change.before,
        change.after,
        '',
        '',
        {
          context: 3,
        },
      ).replace(/^=+\n/, ''),
    )
    .join('');
}

/** The harness side of a run: a working copy of the project, a warm runner, a validator. */
export interface ValidationSession {
  validator: CandidateValidator;
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
  const output = await InjectionOutput.open(options.out);
  const workDir = await makeTempDir('inject');
  const workCopy = path.join(workDir, 'project');
  const runner = new JvmRunner(options.cache);
  try {
    await copyProjectTree(options.project.root, workCopy);
    const validator = new CandidateValidator({
      cache: options.cache,
      project: options.project,
      workCopy,
      runner,
      toolchain: options.toolchain,
      contexts: options.contexts,
      collateralLimit: options.collateralLimit,
      fastRuns: 3,
      mavenCheck: options.mavenCheck,
    });
    const witnessOrder = shuffled(
      options.contexts.map((record) => record.testClass).sort(),
      seededRandom(options.seed),
    );
    const contextOf = new Map(options.contexts.map((record) => [record.testClass, record]));
    return await use({ validator, output, witnessOrder, contextOf });
  } finally {
    await runner.close();
    await removeTree(workDir);
  }
}

/** A different but reproducible random stream per bug type. */
export function typeRandom(seed: number, typeId: string): () => number {
  return seededRandom(seed ^ Number.parseInt(sha256Text(typeId).slice(0, 8), 16));
}

export interface Decision {
  session: ValidationSession;
  options: InjectOptions;
  spec: BugTypeSpec;
  engine: 'rules' | 'agent';
  id: string;
  witness: string;
  changes: FileChange[];
  site: InjectionRecord['site'] | null;
}

/** Records a validation outcome as an accepted injection or a rejection. */
export async function recordOutcome(
  decision: Decision,
  outcome: ValidationOutcome,
): Promise<InjectionRecord | RejectionRecord> {
  const { session, options, spec, id, witness } = decision;
  if (outcome.accepted) {
    const touched = outcome.evidence.touched[0];
    const context = session.contextOf.get(witness);
    const record: InjectionRecord = {
      id,
      project: options.project.label,
      typeId: spec.id,
      typeName: spec.name,
      category: spec.category,
      engine: decision.engine,
      seed: options.seed,
      witness: {
        testClass: witness,
        contextSize: context?.size ?? 0,
        bucket: context?.bucket ?? 'none',
      },
      site: decision.site ?? {
        file: touched?.file ?? decision.changes[0]!.file,
        member: touched?.key ?? '',
        line: touched?.cleanLine ?? 0,
        description: outcome.evidence.structure,
      },
      patch: unifiedPatch(decision.changes),
      patchFile: path.join('patches', `${id}.patch`),
      evidence: outcome.evidence,
      timings: outcome.timings,
      createdAt: new Date().toISOString(),
    };
    await session.output.accept(record);
    options.log(
      `inject: ${spec.id}: accepted ${id} ${record.site.member}: ${record.site.description} (${outcome.evidence.failure.kind} in ${witness})`,
    );
    return record;
  }
  const record: RejectionRecord = {
    id,
    project: options.project.label,
    typeId: spec.id,
    engine: decision.engine,
    witness,
    site: decision.site,
    stage: outcome.stage,
    reason: outcome.reason,
    ...(outcome.verdict ? { verdict: outcome.verdict } : {}),
    timings: outcome.timings,
  };
  await session.output.reject(record);
  options.log(
    `inject: ${spec.id}: rejected ${decision.site?.member ?? id} (${outcome.stage}): ${outcome.reason}`,
  );
  return record;
}

export function typeSummary(
  spec: BugTypeSpec,
  output: InjectionOutput,
  sitesFound: number | null,
  durationMs: number,
): TypeSummary {
  const tally = output.tally(spec.id);
  return {
    typeId: spec.id,
    name: spec.name,
    sitesFound,
    tried: tally.tried,
    accepted: tally.accepted,
    acceptanceRate: tally.tried === 0 ? 0 : tally.accepted / tally.tried,
    rejectedBy: tally.rejectedBy,
    durationMs,
  };
}

/**
 * Stage 2 with the rules engine: for each bug type, tries rewrites of members the witnesses
 * reach, in a seeded order, until `count` are accepted or the tries run out. Accepted bugs and
 * rejections are appended as they are decided, so an interrupted run resumes where it stopped.
 */
export async function injectWithRules(options: InjectOptions): Promise<InjectSummary> {
  const started = performance.now();
  const productionRoot = productionRootOf(options.project);
  return withValidationSession(options, async (session) => {
    const types: TypeSummary[] = [];
    for (const spec of options.specs) {
      const typeStarted = performance.now();
      const injector = injectorFor(spec.id);
      const candidates = await ruleCandidates(
        options.project,
        spec,
        options.contexts,
        productionRoot,
      );
      options.log(`inject: ${spec.id}: ${candidates.length} sites in reached members`);
      let triedNow = 0;
      for (const candidate of triesInOrder(candidates, typeRandom(options.seed, spec.id))) {
        if (session.output.tally(spec.id).accepted >= options.count) break;
        if (triedNow >= options.maxTries) break;
        if (session.output.isDecided(candidate.id)) continue;
        triedNow++;
        const witness = session.witnessOrder.find((testClass) =>
          candidate.witnesses.includes(testClass),
        )!;
        const changes = [
          {
            file: candidate.file,
            before: candidate.before,
            after: applyEdits(candidate.before, candidate.edits),
          },
        ];
        const outcome = await session.validator.validate(spec, injector, witness, changes);
        await recordOutcome(
          {
            session,
            options,
            spec,
            engine: 'rules',
            id: candidate.id,
            witness,
            changes,
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
          session.output,
          candidates.length,
          Math.round(performance.now() - typeStarted),
        ),
      );
    }
    return session.output.writeSummary({
      project: options.project.label,
      engine: 'rules',
      seed: options.seed,
      out: options.out,
      types,
      durationMs: Math.round(performance.now() - started),
    });
  });
}

import { z } from 'zod';
import { AgentSpecSchema, agentTaskResultSchema } from '../../agents/records.js';
import { CheckRecordSchema } from '../../checks/types.js';
import { ProjectBaseSchema, ProjectStateSchema } from '../../project/state.js';
import { defineRecord, readRecordFile, RecordError } from '../../records/record.js';
import { InjectReportSchema } from './agent-task/report.js';
import { AcceptedEvidenceSchema, REJECTION_STAGES, ValidationTimingsSchema } from './validate.js';

/*
 * The stage's persisted records: injections.jsonl, rejections.jsonl and summary.json, each line
 * or file with its kind and version (see src/records). The TS types are the schemas' outputs.
 */

/** Who made a bug: the rules engine, or an agent (its full spec, attempt budget and prompts). */
export const EngineRefSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('rules') }),
  z.strictObject({
    kind: z.literal('agent'),
    agent: AgentSpecSchema,
    attempts: z.number().int().positive(),
    promptVersion: z.number().int().positive(),
  }),
]);
export type EngineRef = z.infer<typeof EngineRefSchema>;

/** Where a bug is: the member it changes, and the change in one line. */
export const SiteSchema = z.strictObject({
  file: z.string(),
  member: z.string(),
  line: z.number().int().positive(),
  description: z.string(),
});
export type Site = z.infer<typeof SiteSchema>;

/** The bug type an injection is of, with the hash of the spec it was made from. */
export const BugTypeRefSchema = z.strictObject({
  id: z.string(),
  name: z.string(),
  category: z.enum(['API Contract', 'Value Flow', 'Logic']),
  specHash: z.string(),
});
export type BugTypeRef = z.infer<typeof BugTypeRefSchema>;

/** An injected bug the witness exposes: everything a case needs, with how it was proven. */
export const InjectionLine = defineRecord({
  kind: 'injection',
  version: 1,
  schema: z.strictObject({
    id: z.string(),
    /** The buggy state: the project's base plus the bug's patch (the only copy of the patch). */
    state: ProjectStateSchema,
    bugType: BugTypeRefSchema,
    engine: EngineRefSchema,
    seed: z.number().int(),
    witness: z.strictObject({
      testClass: z.string(),
      contextSize: z.number().int(),
      bucket: z.string(),
    }),
    site: SiteSchema,
    evidence: AcceptedEvidenceSchema,
    checks: z.array(CheckRecordSchema),
    timings: ValidationTimingsSchema,
    createdAt: z.string(),
  }),
});
export type InjectionRecord = z.infer<typeof InjectionLine.schema>;

/** A candidate turned down, with the check that did it and every check's outcome. */
export const RejectionLine = defineRecord({
  kind: 'rejection',
  version: 1,
  schema: z.strictObject({
    id: z.string(),
    base: ProjectBaseSchema,
    bugType: BugTypeRefSchema,
    engine: EngineRefSchema,
    witness: z.string(),
    /** Null for an agent's change that never reached a site. */
    site: SiteSchema.nullable(),
    stage: z.enum(REJECTION_STAGES),
    reason: z.string(),
    verdict: z.string().optional(),
    checks: z.array(CheckRecordSchema),
    timings: ValidationTimingsSchema,
  }),
});
export type RejectionRecord = z.infer<typeof RejectionLine.schema>;

/** One agent task: every attempt with its prompt, transcript, report and verdicts. */
export const AgentRunFile = defineRecord({
  kind: 'inject-agent-run',
  version: 1,
  schema: agentTaskResultSchema(InjectReportSchema),
});

export const TypeSummarySchema = z.strictObject({
  typeId: z.string(),
  name: z.string(),
  /** Candidate sites found in the reached methods of the witnesses (rules engine; agents pick their own). */
  sitesFound: z.number().int().nullable(),
  tried: z.number().int(),
  accepted: z.number().int(),
  acceptanceRate: z.number(),
  rejectedBy: z.partialRecord(z.enum(REJECTION_STAGES), z.number().int()),
  /** Why the type's tries ended: the count was reached, or sites or tries ran out first. */
  ended: z.enum(['count-reached', 'sites-exhausted', 'tries-exhausted']),
  /** Over every run into this directory, not only the last. */
  durationMs: z.number(),
});
export type TypeSummary = z.infer<typeof TypeSummarySchema>;

/** Where a run's accepted bugs are: how many distinct files, members and witnesses they cover. */
export const CoverageSchema = z.strictObject({
  accepted: z.number().int(),
  files: z.number().int(),
  members: z.number().int(),
  witnesses: z.number().int(),
});
export type Coverage = z.infer<typeof CoverageSchema>;

const InjectSummarySchema = z.strictObject({
  project: z.string(),
  engine: EngineRefSchema,
  seed: z.number().int(),
  /** `--count` and `--max-tries` of the run. */
  wanted: z.number().int(),
  maxTries: z.number().int(),
  out: z.string(),
  types: z.array(TypeSummarySchema),
  /** Of the accepted bugs of the run's types in the directory (earlier runs included). */
  coverage: CoverageSchema,
  durationMs: z.number(),
});

/** Version 2 adds `coverage`. */
export const InjectSummaryFile = defineRecord({
  kind: 'inject-summary',
  version: 2,
  schema: InjectSummarySchema,
});
export type InjectSummary = z.infer<typeof InjectSummaryFile.schema>;

/** A summary an earlier witnessgym wrote, read only for the time its types took. */
const InjectSummaryFileV1 = defineRecord({
  kind: 'inject-summary',
  version: 1,
  schema: InjectSummarySchema.omit({ coverage: true }),
});
export type EarlierSummary = Pick<InjectSummary, 'engine' | 'types'>;

/**
 * The summary an earlier run left in a directory, of this version or the last (so a run resumes
 * into a directory an older witnessgym wrote); undefined when there is none.
 */
export async function readEarlierSummary(file: string): Promise<EarlierSummary | undefined> {
  try {
    return await readRecordFile(file, InjectSummaryFile);
  } catch (error) {
    if (!(error instanceof RecordError)) throw error;
    try {
      return await readRecordFile(file, InjectSummaryFileV1);
    } catch {
      throw error;
    }
  }
}

import { z } from 'zod';
import { sha256Text } from '../../core/fs.js';
import { TouchedMemberSchema } from '../../lang/java/change.js';
import { ProjectBaseSchema } from '../../project/state.js';
import { defineRecord, olderShape } from '../../records/record.js';
import { ContextBucketSchema } from '../1-trace/trace.js';
import { BugTypeRefSchema, SiteSchema } from '../2-inject/records.js';

/*
 * The persisted records of the case archive: `case.json` in each case directory, the hidden
 * witness beside it (`hidden/<case-id>/witness.json`), and the benchmark's `cases.jsonl` index.
 */

/** How each failing test method of the witness fails: its exception type. */
export const CaseFailureSignatureSchema = z.record(z.string(), z.string());
export type CaseFailureSignature = z.infer<typeof CaseFailureSignatureSchema>;

/** One patch of the case's state, kept as a file of the case directory. */
export const PatchFileSchema = z.strictObject({
  /** Relative to the case directory. */
  file: z.string(),
  /** The patch's id (a hash of its text), so a file edited afterwards is noticed. */
  id: z.string().regex(/^[0-9a-f]{16}$/),
});

export const ToolVersionsSchema = z.strictObject({
  witnessgym: z.string(),
  java: z.string(),
  maven: z.string(),
});
export type ToolVersions = z.infer<typeof ToolVersionsSchema>;

export const CASE_ID_PATTERN = /^[A-Za-z0-9._-]+@[A-Za-z0-9._-]+-[0-9a-f]{16}$/;

const CaseSchemaV1 = z.strictObject({
  id: z.string().regex(CASE_ID_PATTERN),
  project: ProjectBaseSchema,
  /** The buggy state: the project's base plus these patches in order (the bug, then each step). */
  state: z.strictObject({
    id: z.string().regex(/^[0-9a-f]{16}$/),
    patches: z.array(PatchFileSchema).min(1),
  }),
  /** The id of `bug.patch`, the state's patches combined. */
  bugPatch: z.string().regex(/^[0-9a-f]{16}$/),
  /** The witness's execution context, named after its test class as the paper does. */
  trace: z.strictObject({ id: z.string(), bucket: ContextBucketSchema, size: z.number().int() }),
  bugType: BugTypeRefSchema,
  /** Where the bug was injected (before any transformation step). */
  site: SiteSchema,
  injection: z.string(),
  transform: z.string(),
  transforms: z.strictObject({ ids: z.array(z.string()), depth: z.number().int() }),
  officialTest: z.strictObject({ path: z.string(), class: z.string() }),
  verifyCommand: z.string(),
  /** The production files the final patch changes. */
  bugRelatedFiles: z.array(z.string()).min(1),
  /** The members the final patch changes, located in the buggy files (what a witness must enter). */
  bugMembers: z.array(TouchedMemberSchema),
  /** The module holding the code and tests, relative to the project root ('.' for the root). */
  moduleRoot: z.string(),
  /** After the last step: the witness's failing methods and how each fails. */
  expectedFailure: CaseFailureSignatureSchema,
  seed: z.number().int(),
  promptVersion: z.number().int().positive(),
  tools: ToolVersionsSchema,
});

/** Another existing test class that exposes the bug, hidden from the workspace with the witness. */
export const CaseCoWitnessSchema = z.strictObject({
  class: z.string(),
  path: z.string(),
  /** Its failing test methods on the buggy tree and the exception each fails with. */
  failingMethods: CaseFailureSignatureSchema,
});
export type CaseCoWitness = z.infer<typeof CaseCoWitnessSchema>;

/**
 * Version 2 records what an evaluation workspace leaves out besides the witness: the co-witnesses
 * (`build --co-witnesses hide`) and the test resources only the hidden tests name. A case of
 * version 1 reads as it was written: nothing hidden but the witness.
 */
export const CaseFile = defineRecord({
  kind: 'case',
  version: 2,
  schema: CaseSchemaV1.extend({
    coWitnesses: z.array(CaseCoWitnessSchema),
    /** Project-relative paths of test resources named by the hidden tests' sources alone. */
    hiddenResources: z.array(z.string()),
  }),
  older: [
    olderShape({
      version: 1,
      schema: CaseSchemaV1,
      upgrade: (old) => ({ ...old, coWitnesses: [], hiddenResources: [] }),
    }),
  ],
});
export type CaseRecord = z.infer<typeof CaseFile.schema>;

/** The witness, kept apart from the case (evaluation never copies it into a workspace). */
export const HiddenWitnessFile = defineRecord({
  kind: 'case-witness',
  version: 1,
  schema: z.strictObject({
    caseId: z.string().regex(CASE_ID_PATTERN),
    testClass: z.string(),
    /** Project-relative; the file's text is beside this record under `files/<path>`. */
    path: z.string(),
    sha256: z.string().regex(/^[0-9a-f]{64}$/),
    failingMethods: z.array(z.string()),
  }),
});
export type HiddenWitness = z.infer<typeof HiddenWitnessFile.schema>;

/** One line of `cases.jsonl`, in the spirit of a SWE-bench instance file. */
export const CaseIndexLine = defineRecord({
  kind: 'case-index',
  version: 2,
  schema: z.strictObject({
    instance_id: z.string().regex(CASE_ID_PATTERN),
    project: z.string(),
    version: z.string(),
    base_commit: z.string(),
    type_id: z.string(),
    category: BugTypeRefSchema.shape.category,
    bucket: ContextBucketSchema,
    /** The injected bug (before any step): cases sharing it are one bug at several depths. */
    injection_id: z.string(),
    depth: z.number().int(),
    transforms: z.array(z.string()),
    /** Clean → buggy: the whole state in one patch. */
    patch: z.string(),
    test_class: z.string(),
    test_path: z.string(),
    verify_command: z.string(),
    /** The witness methods that fail on the buggy tree and pass on the clean one. */
    FAIL_TO_PASS: z.array(z.string()),
  }),
});
export type CaseIndexEntry = z.infer<typeof CaseIndexLine.schema>;

/** What a case's id is derived from. */
export interface CaseKey {
  project: { name: string; version: string };
  typeId: string;
  site: z.infer<typeof SiteSchema>;
  sequence: readonly string[];
  seed: number;
}

/**
 * Content address of a case: project@version, bug type, site, operator sequence and seed (and the
 * record's version); readable prefix, hashed rest.
 */
export function caseId(key: CaseKey): string {
  const { site } = key;
  const hash = sha256Text(
    JSON.stringify([
      key.project.name,
      key.project.version,
      key.typeId,
      [site.file, site.member, site.line, site.description],
      key.sequence,
      key.seed,
      CaseFile.version,
    ]),
  ).slice(0, 16);
  const readable = (part: string) => part.replace(/[^A-Za-z0-9._-]/g, '-');
  return `${readable(key.project.name)}@${readable(key.project.version)}-${hash}`;
}

/** The index line of a case, from its record and its combined patch. */
export function indexEntry(record: CaseRecord, patch: string): CaseIndexEntry {
  return {
    instance_id: record.id,
    project: record.project.name,
    version: record.project.version,
    base_commit: record.project.commit,
    type_id: record.bugType.id,
    category: record.bugType.category,
    bucket: record.trace.bucket,
    injection_id: record.injection,
    depth: record.transforms.depth,
    transforms: record.transforms.ids,
    patch,
    test_class: record.officialTest.class,
    test_path: record.officialTest.path,
    verify_command: record.verifyCommand,
    FAIL_TO_PASS: Object.keys(record.expectedFailure).sort(),
  };
}

import { z } from 'zod';
import { AgentOutcomeSchema } from '../../agents/records.js';
import { ContextBucketSchema } from '../1-trace/trace.js';
import { BugTypeRefSchema } from '../2-inject/records.js';

/*
 * What an evaluation records: one row per (case, agent, setting, attempt), each with the
 * verifier's diagnosis of the attempt. The rows live in the run's SQLite database (store.ts);
 * these schemas are the shape of each row's JSON columns.
 */

/** The paper's two settings: without and with the witness's execution context. */
export const SETTINGS = ['NoEC', 'WithEC'] as const;
export const SettingSchema = z.enum(SETTINGS);
export type Setting = z.infer<typeof SettingSchema>;

export const SideSchema = z.enum(['buggy', 'clean']);
export type Side = z.infer<typeof SideSchema>;

export const ViolationSchema = z.strictObject({
  file: z.string(),
  edit: z.enum(['added', 'edited', 'deleted']),
  what: z.enum([
    'build file',
    'build configuration',
    'test runtime configuration',
    'production code',
    'link',
    'special file',
    'too large',
    'too many entries',
    'unreadable',
    'other file',
    // The static screen's findings in a submitted test (screen.ts), each with its line.
    'reads project files',
    'reads class bytes',
    'reads process or environment',
    'starts processes',
    'opens sockets',
    'uses instrumentation',
    'forges stack traces',
    'inspects class structure',
    'exits the JVM',
  ]),
  /** For a screen finding: the 1-based line and its source text. */
  line: z.number().int().positive().optional(),
  code: z.string().optional(),
});
export type Violation = z.infer<typeof ViolationSchema>;

/**
 * Why an attempt succeeded or failed, beyond pass/fail. Exactly one per attempt; `Success` is the
 * strict criterion: the submitted test compiles, fails on the buggy tree (assertion or other
 * exception) and passes on the clean tree in 3 of 3 fresh runs each, and executes a member the bug
 * changed.
 */
export const DiagnosisSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('Success') }),
  /** The agent left no Java test source in the workspace. */
  z.strictObject({ kind: z.literal('NoTest') }),
  /** The agent changed files outside the allow-list; nothing of the attempt was run. */
  z.strictObject({ kind: z.literal('Violation'), violations: z.array(ViolationSchema).min(1) }),
  z.strictObject({ kind: z.literal('DoesNotCompile'), messages: z.array(z.string()) }),
  /** Passes on the buggy tree and never executed a member the bug changed. */
  z.strictObject({ kind: z.literal('NotReached') }),
  /** Passes on the buggy tree although it executed a member the bug changed. */
  z.strictObject({ kind: z.literal('NotTriggered') }),
  /** Fails on the buggy tree and on the clean tree too: a wrong oracle. */
  z.strictObject({ kind: z.literal('FailsOnClean'), verdict: z.string() }),
  /** Fresh runs of one side disagreed. */
  z.strictObject({ kind: z.literal('Flaky'), side: SideSchema, kinds: z.array(z.string()) }),
  /** Fails on buggy, passes on clean, but never executed a member the bug changed. */
  z.strictObject({ kind: z.literal('BugNotExecuted') }),
  /** Every test was skipped (an assumption) or none was found. */
  z.strictObject({ kind: z.literal('NoTestsRan'), side: SideSchema, reason: z.string() }),
  z.strictObject({ kind: z.literal('TestTimeout'), side: SideSchema }),
  /** The test JVM died (System.exit, a crash). */
  z.strictObject({ kind: z.literal('TestCrashed'), side: SideSchema, reason: z.string() }),
  z.strictObject({ kind: z.literal('AgentTimeout') }),
  /** The agent did not start or broke off (missing executable, endpoint error). */
  z.strictObject({ kind: z.literal('AgentFailed'), reason: z.string() }),
  /** The harness could not judge the attempt (Maven could not resolve, disk, a bug of ours). */
  z.strictObject({ kind: z.literal('HarnessFault'), reason: z.string() }),
]);
export type Diagnosis = z.infer<typeof DiagnosisSchema>;
export type DiagnosisKind = Diagnosis['kind'];

/** How much of the bug's changed lines the submitted test executed, on the buggy tree (JaCoCo). */
export const ChangeCoverageSchema = z.strictObject({
  /** Changed lines JaCoCo can instrument (declarations and braces have no code). */
  lines: z.number().int(),
  covered: z.number().int(),
  /**
   * Per member the bug changed: whether any of its lines ran, or a failure's stack trace passes
   * through it (an exception leaving a method early marks none of its lines). A member the bug
   * removed (an overridden `equals` turned into an overload) has no buggy lines: it counts as
   * reached when the clean run executed it.
   */
  members: z.array(z.strictObject({ key: z.string(), reached: z.boolean() })),
});
export type ChangeCoverage = z.infer<typeof ChangeCoverageSchema>;

export const UsageSchema = z.strictObject({
  inputTokens: z.number().int().nullable(),
  outputTokens: z.number().int().nullable(),
  costUsd: z.number().nullable(),
});
export type Usage = z.infer<typeof UsageSchema>;

/** A materialised test file of an attempt; its text is stored once by hash. */
export const SubmittedFileSchema = z.strictObject({ path: z.string(), sha256: z.string() });

/** The case's coordinates the tables group by, copied into each row. */
export const CaseDimensionsSchema = z.strictObject({
  caseId: z.string(),
  project: z.string(),
  bugType: BugTypeRefSchema,
  bucket: ContextBucketSchema,
  depth: z.number().int(),
});
export type CaseDimensions = z.infer<typeof CaseDimensionsSchema>;

/** One finished attempt. */
export const AttemptRowSchema = z.strictObject({
  case: CaseDimensionsSchema,
  /** The agent's name as given to --agent. */
  agent: z.string(),
  /** Hash of the agent's full spec (model, flags), so a changed agent is not mixed in. */
  agentSpec: z.string(),
  setting: SettingSchema,
  attempt: z.number().int().positive(),
  diagnosis: DiagnosisSchema,
  /** The paper's looser criterion: the test fails on the buggy tree, not by a compile error. */
  paperSuccess: z.boolean(),
  coverage: ChangeCoverageSchema.nullable(),
  agentOutcome: AgentOutcomeSchema,
  agentMs: z.number().int(),
  verifyMs: z.number().int(),
  usage: UsageSchema.nullable(),
  /** sha256 of the attempt's user prompt and of the transcript, stored in the files table. */
  prompt: z.string(),
  transcript: z.string(),
  testFiles: z.array(SubmittedFileSchema),
  /** What the next attempt's prompt is told. */
  feedback: z.string(),
  /** JDK, Maven and witnessgym versions of the verification. */
  tools: z.record(z.string(), z.string()),
  finishedAt: z.string(),
});
export type AttemptRow = z.infer<typeof AttemptRowSchema>;

/** Attempts of one (case, agent, setting) after its item ended: the item succeeds once any does. */
export function itemSucceeded(attempts: readonly Pick<AttemptRow, 'diagnosis'>[]): boolean {
  return attempts.some((attempt) => attempt.diagnosis.kind === 'Success');
}

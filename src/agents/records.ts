import { z } from 'zod';

/*
 * Schemas of what the attempt loop returns (see engine.ts), so a stage can persist an agent task's
 * result as a versioned record, read back strictly; `report` is the stage's own report schema.
 */

export const AgentOutcomeSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('Exited'),
    code: z.number().int().nullable(),
    signal: z.string().nullable(),
  }),
  z.strictObject({ kind: z.literal('Completed') }),
  z.strictObject({ kind: z.literal('Timeout') }),
  z.strictObject({ kind: z.literal('FailedToStart'), reason: z.string() }),
  z.strictObject({ kind: z.literal('Failed'), reason: z.string() }),
]);

export const AttemptJudgementSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('Accepted'), summary: z.string() }),
  z.strictObject({ kind: z.literal('Rejected'), reason: z.string(), feedback: z.string() }),
]);

/** An adapter's full spec (see AgentSpec in types.ts). */
export const AgentSpecSchema = z
  .record(
    z.string(),
    z.union([z.string(), z.number(), z.boolean(), z.null(), z.array(z.string()).readonly()]),
  )
  .and(z.object({ name: z.string() }));

export function agentTaskResultSchema<Report extends z.ZodType>(report: Report) {
  const parse = z.discriminatedUnion('kind', [
    z.strictObject({
      kind: z.literal('Parsed'),
      report,
      mismatches: z.array(z.string()),
      warnings: z.array(z.string()),
    }),
    z.strictObject({ kind: z.literal('Missing') }),
    z.strictObject({ kind: z.literal('Malformed'), line: z.string(), error: z.string() }),
    z.strictObject({ kind: z.literal('SchemaViolation'), line: z.string(), error: z.string() }),
  ]);
  return z.strictObject({
    runId: z.string(),
    adapter: AgentSpecSchema,
    systemPrompt: z.string(),
    attempts: z.array(
      z.strictObject({
        attempt: z.number().int().positive(),
        adapter: z.string(),
        outcome: AgentOutcomeSchema,
        durationMs: z.number(),
        report: parse,
        reportProblems: z.array(z.string()),
        userPrompt: z.string(),
        finalText: z.string(),
        transcript: z.string(),
        harness: AttemptJudgementSchema.nullable(),
        judgement: AttemptJudgementSchema,
      }),
    ),
    acceptedAttempt: z.number().int().nullable(),
    stop: z.enum(['accepted', 'attemptsExhausted', 'agentFailedToStart']),
  });
}

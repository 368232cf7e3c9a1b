import { z } from 'zod';
import { agentTaskResultSchema } from '../../../agents/records.js';
import type { ReportFormat } from '../../../agents/report.js';
import { defineRecord } from '../../../records/record.js';

export const TRANSFORM_REPORT_PREFIX = 'TRANSFORM_REPORT_JSON:';

/** Free text that models write either as one string or as a list of strings. */
const Prose = z.union([z.string(), z.array(z.string())]);

/**
 * The paper's TRANSFORM_REPORT_JSON line (Appendix I.3/I.6). It is recorded and checked for
 * consistency with the task; it never decides whether the step is kept, which is the stage's
 * validation alone.
 */
export const TransformReportSchema = z.object({
  ok: z.boolean(),
  transform_id: z.string(),
  changed_files: z.array(z.string()),
  edit_sites: z.array(z.string()),
  what_was_added_or_wrapped: Prose,
  what_was_preserved: Prose,
  what_was_replaced_or_overwritten: Prose,
  compatibility_with_previous_steps: Prose,
  expected_effect_on_stealth: Prose,
  expected_effect_on_trigger_depth: Prose,
});
export type TransformReport = z.infer<typeof TransformReportSchema>;

export const TRANSFORM_REPORT_FIELDS = Object.keys(TransformReportSchema.shape);

/** A report must name the operator its step was asked to apply. */
export function transformReportFormat(transformId: string): ReportFormat<TransformReport> {
  return {
    prefix: TRANSFORM_REPORT_PREFIX,
    schema: TransformReportSchema,
    mismatches: (report) =>
      report.transform_id === transformId
        ? []
        : [
            `transform_id ${JSON.stringify(report.transform_id)} differs from the requested transform ${JSON.stringify(transformId)}`,
          ],
  };
}

/** One agent step's run (prompts, attempt, report, verdict), as `agent-runs/<id>.json`. */
export const TransformAgentRunFile = defineRecord({
  kind: 'transform-agent-run',
  // 2: agent outcome kinds PascalCase. Only written (a log of runs), so version 1 is not migrated.
  version: 2,
  schema: agentTaskResultSchema(TransformReportSchema),
});

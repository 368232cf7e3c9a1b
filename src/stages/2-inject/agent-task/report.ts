import { z } from 'zod';
import type { ReportFormat } from '../../../agents/report.js';

export const INJECT_REPORT_PREFIX = 'INJECT_REPORT_JSON:';

/** Free text that models write either as one string or as a list of strings. */
const Prose = z.union([z.string(), z.array(z.string())]);

/**
 * The paper's INJECT_REPORT_JSON line (Appendix I.1/I.2): operational evidence and type-site
 * rationale. It is recorded and checked for consistency with the task; it never decides
 * acceptance, which is the harness's validation alone.
 */
export const InjectReportSchema = z.object({
  // operational evidence
  ok: z.boolean(),
  git_changed_files: z.array(z.string()),
  repro_cmd: z.string(),
  /** null when the agent did not manage to run the command */
  repro_exit_code: z.number().int().nullable(),
  observed_exception: z.string().nullable(),
  call_chain: Prose,
  notes: Prose,
  // type-site rationale
  type_id: z.string(),
  target_files: z.array(z.string()),
  target_symbols: z.array(z.string()),
  selected_anchor: z.string(),
  why_this_site: Prose,
  expected_trigger_path: Prose,
  stealth_rationale: Prose,
  bug_mechanism: Prose,
  preserved_prior_structure: Prose,
  possible_risks: Prose,
});
export type InjectReport = z.infer<typeof InjectReportSchema>;

/** What a report must agree with: the command it was given and the type it was asked for. */
export interface InjectReportExpectation {
  replayCommand: string;
  typeId: string;
}

export function injectReportFormat(expected: InjectReportExpectation): ReportFormat<InjectReport> {
  return {
    prefix: INJECT_REPORT_PREFIX,
    schema: InjectReportSchema,
    mismatches: (report) => {
      const mismatches: string[] = [];
      if (report.repro_cmd.trim() !== expected.replayCommand.trim()) {
        mismatches.push(
          `repro_cmd ${JSON.stringify(report.repro_cmd)} differs from the given command ${JSON.stringify(expected.replayCommand)}`,
        );
      }
      if (report.type_id !== expected.typeId) {
        mismatches.push(
          `type_id ${JSON.stringify(report.type_id)} differs from the requested type ${JSON.stringify(expected.typeId)}`,
        );
      }
      return mismatches;
    },
  };
}

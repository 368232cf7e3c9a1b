import { z } from 'zod';

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

export type ReportParse =
  /** `mismatches`: where the report contradicts the task (command or type id). */
  | { status: 'ok'; report: InjectReport; mismatches: string[]; warnings: string[] }
  | { status: 'missing' }
  | { status: 'malformed'; line: string; error: string }
  | { status: 'schema'; line: string; error: string };

function startsReport(line: string): boolean {
  return line.trimStart().startsWith(INJECT_REPORT_PREFIX);
}

function tryJson(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (error) {
    return { ok: false, error: (error as Error).message };
  }
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Reads the last line starting with the prefix. The paper asks for one line; a report whose JSON
 * runs over the following lines (models like to pretty-print) is accepted with a warning when
 * everything after the prefix is exactly one JSON value.
 */
export function parseInjectReport(
  finalText: string,
  expected: { replayCommand: string; typeId: string },
): ReportParse {
  const lines = finalText.split(/\r?\n/);
  let index = -1;
  for (let i = lines.length - 1; i >= 0; i--) {
    if (startsReport(lines[i]!)) {
      index = i;
      break;
    }
  }
  if (index < 0) return { status: 'missing' };
  const line = lines[index]!.trim();
  const body = line.slice(INJECT_REPORT_PREFIX.length).trim();
  const warnings: string[] = [];
  let parsed = tryJson(body);
  if (!parsed.ok) {
    const rest = [body, ...lines.slice(index + 1)].join('\n').trim();
    const multiLine = tryJson(rest);
    if (!multiLine.ok) return { status: 'malformed', line, error: parsed.error };
    parsed = multiLine;
    warnings.push('the report JSON spans several lines; the paper asks for a single line');
  }
  const checked = InjectReportSchema.safeParse(parsed.value);
  if (!checked.success) return { status: 'schema', line, error: formatIssues(checked.error) };
  const report = checked.data;
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
  return { status: 'ok', report, mismatches, warnings };
}

/** What is wrong with a report, for the record and the next attempt's feedback; [] if nothing. */
export function reportProblems(parse: ReportParse): string[] {
  switch (parse.status) {
    case 'ok':
      return parse.mismatches;
    case 'missing':
      return [`no line starting with ${INJECT_REPORT_PREFIX} in the final output`];
    case 'malformed':
      return [`the ${INJECT_REPORT_PREFIX} line is not valid JSON (${parse.error})`];
    case 'schema':
      return [
        `the ${INJECT_REPORT_PREFIX} report lacks required fields or has wrong types: ${parse.error}`,
      ];
  }
}

import { z } from 'zod';

/**
 * A report line a task asks its agent to end with: `<prefix> <one JSON object>`, e.g.
 * INJECT_REPORT_JSON. It is recorded and checked against the task; it never decides acceptance,
 * which is the harness's alone.
 */
export interface ReportFormat<Report> {
  /** Including the colon, e.g. `INJECT_REPORT_JSON:`. */
  prefix: string;
  schema: z.ZodType<Report>;
  /** Where a well-formed report contradicts the task, in words; [] when it agrees. */
  mismatches: (report: Report) => string[];
}

export type ReportParse<Report> =
  | { kind: 'Parsed'; report: Report; mismatches: string[]; warnings: string[] }
  | { kind: 'Missing' }
  | { kind: 'Malformed'; line: string; error: string }
  | { kind: 'SchemaViolation'; line: string; error: string };

type JsonParse = { kind: 'Json'; value: unknown } | { kind: 'NotJson'; error: string };

function tryJson(text: string): JsonParse {
  try {
    return { kind: 'Json', value: JSON.parse(text) };
  } catch (error) {
    return { kind: 'NotJson', error: (error as Error).message };
  }
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/**
 * Reads the last line starting with the prefix. The prompts ask for one line; a report whose JSON
 * runs over the following lines (models like to pretty-print) is accepted with a warning when
 * everything after the prefix is exactly one JSON value.
 */
export function parseReport<Report>(
  finalText: string,
  format: ReportFormat<Report>,
): ReportParse<Report> {
  const lines = finalText.split(/\r?\n/);
  const index = lines.findLastIndex((line) => line.trimStart().startsWith(format.prefix));
  if (index < 0) return { kind: 'Missing' };
  const line = lines[index]!.trim();
  const body = line.slice(format.prefix.length).trim();
  const warnings: string[] = [];
  let parsed = tryJson(body);
  if (parsed.kind === 'NotJson') {
    const multiLine = tryJson([body, ...lines.slice(index + 1)].join('\n').trim());
    if (multiLine.kind === 'NotJson') return { kind: 'Malformed', line, error: parsed.error };
    parsed = multiLine;
    warnings.push('the report JSON spans several lines; the paper asks for a single line');
  }
  const checked = format.schema.safeParse(parsed.value);
  if (!checked.success) {
    return { kind: 'SchemaViolation', line, error: formatIssues(checked.error) };
  }
  return {
    kind: 'Parsed',
    report: checked.data,
    mismatches: format.mismatches(checked.data),
    warnings,
  };
}

/** What is wrong with a report, for the record and the next attempt's feedback; [] if nothing. */
export function reportProblems<Report>(parse: ReportParse<Report>, prefix: string): string[] {
  switch (parse.kind) {
    case 'Parsed':
      return parse.mismatches;
    case 'Missing':
      return [`no line starting with ${prefix} in the final output`];
    case 'Malformed':
      return [`the ${prefix} line is not valid JSON (${parse.error})`];
    case 'SchemaViolation':
      return [`the ${prefix} report lacks required fields or has wrong types: ${parse.error}`];
  }
}

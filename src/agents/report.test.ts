import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { parseReport, reportProblems, type ReportFormat } from './report.js';

const ToyReportSchema = z.object({ triggered: z.boolean(), test: z.string() });
type ToyReport = z.infer<typeof ToyReportSchema>;

const PREFIX = 'TRIGGER_REPORT_JSON:';
const format: ReportFormat<ToyReport> = {
  prefix: PREFIX,
  schema: ToyReportSchema,
  mismatches: (report) => (report.test === 'p.CounterTest' ? [] : [`test ${report.test} differs`]),
};

const report: ToyReport = { triggered: true, test: 'p.CounterTest' };
const line = (value: unknown) => `${PREFIX} ${JSON.stringify(value)}`;

describe('parseReport', () => {
  it('reads a sound report line', () => {
    const parsed = parseReport(`Done.\n${line(report)}\n`, format);
    expect(parsed).toEqual({ kind: 'Parsed', report, mismatches: [], warnings: [] });
    expect(reportProblems(parsed, PREFIX)).toEqual([]);
  });

  it('takes the last line with its own prefix, indentation allowed', () => {
    const first = { ...report, triggered: false };
    const text = `${line(first)}\nmore work\n   ${line(report)}\r\nINJECT_REPORT_JSON: {}\n`;
    const parsed = parseReport(text, format);
    expect(parsed.kind === 'Parsed' && parsed.report).toEqual(report);
  });

  it('reports a missing line, naming the prefix', () => {
    const parsed = parseReport('INJECT_REPORT_JSON: {"triggered": true}', format);
    expect(parsed).toEqual({ kind: 'Missing' });
    expect(reportProblems(parsed, PREFIX)).toEqual([
      'no line starting with TRIGGER_REPORT_JSON: in the final output',
    ]);
  });

  it('reports a line that is not JSON', () => {
    const parsed = parseReport(`${PREFIX} {"triggered": tru`, format);
    expect(parsed).toMatchObject({ kind: 'Malformed', line: `${PREFIX} {"triggered": tru` });
    expect(reportProblems(parsed, PREFIX)[0]).toMatch(
      /^the TRIGGER_REPORT_JSON: line is not valid JSON/,
    );
  });

  it("reports a report that does not fit the format's schema, field by field", () => {
    const parsed = parseReport(line({ triggered: 'yes' }), format);
    expect(parsed.kind).toBe('SchemaViolation');
    const problem = reportProblems(parsed, PREFIX)[0]!;
    expect(problem).toMatch(
      /^the TRIGGER_REPORT_JSON: report lacks required fields or has wrong types/,
    );
    expect(problem).toContain('triggered');
    expect(problem).toContain('test');
  });

  it("reports where a report contradicts the task, by the format's own check", () => {
    const parsed = parseReport(line({ ...report, test: 'p.OtherTest' }), format);
    expect(parsed).toMatchObject({ kind: 'Parsed', mismatches: ['test p.OtherTest differs'] });
    expect(reportProblems(parsed, PREFIX)).toEqual(['test p.OtherTest differs']);
  });

  it('accepts pretty-printed JSON after the prefix, with a warning', () => {
    const text = `Summary.\n${PREFIX}\n${JSON.stringify(report, null, 2)}\n`;
    const parsed = parseReport(text, format);
    expect(parsed.kind).toBe('Parsed');
    expect(parsed.kind === 'Parsed' && parsed.warnings[0]).toMatch(/several lines/);
  });

  it('does not take trailing prose for JSON', () => {
    const text = `${PREFIX} {"triggered": true,\n"test": "p.CounterTest"}\nThanks!`;
    expect(parseReport(text, format).kind).toBe('Malformed');
  });
});

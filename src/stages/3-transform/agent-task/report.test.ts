import { describe, expect, it } from 'vitest';
import { parseReport, reportProblems } from '../../../agents/report.js';
import { TRANSFORM_REPORT_PREFIX, transformReportFormat, type TransformReport } from './report.js';

const format = transformReportFormat('t_call_stack_deepen_v1');

const report: TransformReport = {
  ok: true,
  transform_id: 't_call_stack_deepen_v1',
  changed_files: ['src/main/java/p/Counter.java'],
  edit_sites: ['Counter.add', 'Counter.addPositive'],
  what_was_added_or_wrapped: 'a private helper for the guarded update',
  what_was_preserved: ['signatures', 'the guard'],
  what_was_replaced_or_overwritten: 'the inline update',
  compatibility_with_previous_steps: 'first step',
  expected_effect_on_stealth: 'reads like an extraction',
  expected_effect_on_trigger_depth: 'one more frame',
};

const line = (value: unknown) => `${TRANSFORM_REPORT_PREFIX} ${JSON.stringify(value)}`;

describe('the TRANSFORM_REPORT_JSON line', () => {
  it('reads a sound report', () => {
    expect(parseReport(`done\n${line(report)}`, format)).toEqual({
      kind: 'Parsed',
      report,
      mismatches: [],
      warnings: [],
    });
  });

  it('reports a missing line, broken JSON and missing fields', () => {
    expect(parseReport('done', format)).toEqual({ kind: 'Missing' });
    const broken = parseReport(`${TRANSFORM_REPORT_PREFIX} {"ok": tru`, format);
    expect(broken.kind).toBe('Malformed');
    expect(reportProblems(broken, TRANSFORM_REPORT_PREFIX)[0]).toMatch(
      /^the TRANSFORM_REPORT_JSON: line is not valid JSON/,
    );
    const partial: Partial<TransformReport> = { ...report };
    delete partial.edit_sites;
    const violation = parseReport(line(partial), format);
    expect(violation.kind).toBe('SchemaViolation');
    expect(reportProblems(violation, TRANSFORM_REPORT_PREFIX)[0]).toContain('edit_sites');
  });

  it('flags a report naming another transform', () => {
    const parsed = parseReport(line({ ...report, transform_id: 't_rare_profile_gate_v1' }), format);
    expect(reportProblems(parsed, TRANSFORM_REPORT_PREFIX)).toEqual([
      'transform_id "t_rare_profile_gate_v1" differs from the requested transform "t_call_stack_deepen_v1"',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import { parseInjectReport, reportProblems, type InjectReport } from './report.js';

const expected = { replayCommand: 'mvn -q -Dtest=p.CounterTest test', typeId: 'logic_guard' };

const report: InjectReport = {
  ok: true,
  git_changed_files: ['src/main/java/p/Counter.java'],
  repro_cmd: expected.replayCommand,
  repro_exit_code: 1,
  observed_exception: 'java.lang.AssertionError: expected:<3> but was:<2>',
  call_chain: ['CounterTest.ignoresNonPositiveSteps', 'Counter.add'],
  notes: 'one edit',
  type_id: expected.typeId,
  target_files: ['src/main/java/p/Counter.java'],
  target_symbols: ['add'],
  selected_anchor: 'add',
  why_this_site: 'guarded update',
  expected_trigger_path: 'test -> add',
  stealth_rationale: 'one token',
  bug_mechanism: 'inverted guard',
  preserved_prior_structure: 'all signatures',
  possible_risks: ['other callers of add'],
};

const line = (value: unknown) => `INJECT_REPORT_JSON: ${JSON.stringify(value)}`;

describe('parseInjectReport', () => {
  it('reads a sound report line', () => {
    const parsed = parseInjectReport(`I changed the guard.\n${line(report)}\n`, expected);
    expect(parsed).toEqual({ status: 'ok', report, mismatches: [], warnings: [] });
    expect(reportProblems(parsed)).toEqual([]);
  });

  it('takes the last report line, indentation allowed', () => {
    const first = { ...report, notes: 'first' };
    const last = { ...report, notes: 'last' };
    const parsed = parseInjectReport(`${line(first)}\nmore work\n   ${line(last)}\r\n`, expected);
    expect(parsed.status === 'ok' && parsed.report.notes).toBe('last');
  });

  it('reports a missing line', () => {
    const parsed = parseInjectReport('done, the test fails now', expected);
    expect(parsed).toEqual({ status: 'missing' });
    expect(reportProblems(parsed)[0]).toMatch(/no line starting with INJECT_REPORT_JSON:/);
  });

  it('reports a line that is not JSON', () => {
    const parsed = parseInjectReport('INJECT_REPORT_JSON: {"ok": true, "type_id": ', expected);
    expect(parsed.status).toBe('malformed');
    expect(reportProblems(parsed)[0]).toMatch(/not valid JSON/);
  });

  it('reports missing fields and wrong types', () => {
    const partial: Partial<InjectReport> = { ...report };
    delete partial.bug_mechanism;
    const parsed = parseInjectReport(line({ ...partial, repro_exit_code: 'one' }), expected);
    expect(parsed.status).toBe('schema');
    const problem = reportProblems(parsed)[0]!;
    expect(problem).toContain('bug_mechanism');
    expect(problem).toContain('repro_exit_code');
  });

  it('flags a report whose command or type differs from the task', () => {
    const parsed = parseInjectReport(
      line({ ...report, repro_cmd: 'mvn test', type_id: 'npe_guard_removed' }),
      expected,
    );
    expect(parsed.status).toBe('ok');
    const problems = reportProblems(parsed);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^repro_cmd "mvn test" differs/);
    expect(problems[1]).toMatch(/^type_id "npe_guard_removed" differs/);
  });

  it('accepts pretty-printed JSON after the prefix, with a warning', () => {
    const text = `Summary.\nINJECT_REPORT_JSON:\n${JSON.stringify(report, null, 2)}\n`;
    const parsed = parseInjectReport(text, expected);
    expect(parsed.status).toBe('ok');
    expect(parsed.status === 'ok' && parsed.warnings[0]).toMatch(/several lines/);
  });

  it('does not take trailing prose for JSON', () => {
    const text = `INJECT_REPORT_JSON: {"ok": true,\n"notes": "x"}\nThanks!`;
    expect(parseInjectReport(text, expected).status).toBe('malformed');
  });
});

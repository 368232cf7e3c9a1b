import { describe, expect, it } from 'vitest';
import { parseReport, reportProblems } from '../../../agents/report.js';
import { INJECT_REPORT_PREFIX, injectReportFormat, type InjectReport } from './report.js';

const expected = { replayCommand: 'mvn -q -Dtest=p.CounterTest test', typeId: 'logic_guard' };
const parseInjectReport = (text: string, task: typeof expected) =>
  parseReport(text, injectReportFormat(task));
const problemsOf = (parse: ReturnType<typeof parseInjectReport>) =>
  reportProblems(parse, INJECT_REPORT_PREFIX);

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

describe('the INJECT_REPORT_JSON line', () => {
  it('reads a sound report line', () => {
    const parsed = parseInjectReport(`I changed the guard.\n${line(report)}\n`, expected);
    expect(parsed).toEqual({ kind: 'Parsed', report, mismatches: [], warnings: [] });
    expect(problemsOf(parsed)).toEqual([]);
  });

  it('reports a missing line', () => {
    const parsed = parseInjectReport('done, the test fails now', expected);
    expect(parsed).toEqual({ kind: 'Missing' });
    expect(problemsOf(parsed)[0]).toMatch(/no line starting with INJECT_REPORT_JSON:/);
  });

  it('reports missing fields and wrong types', () => {
    const partial: Partial<InjectReport> = { ...report };
    delete partial.bug_mechanism;
    const parsed = parseInjectReport(line({ ...partial, repro_exit_code: 'one' }), expected);
    expect(parsed.kind).toBe('SchemaViolation');
    const problem = problemsOf(parsed)[0]!;
    expect(problem).toContain('bug_mechanism');
    expect(problem).toContain('repro_exit_code');
  });

  it('flags a report whose command or type differs from the task', () => {
    const parsed = parseInjectReport(
      line({ ...report, repro_cmd: 'mvn test', type_id: 'npe_guard_removed' }),
      expected,
    );
    expect(parsed.kind).toBe('Parsed');
    const problems = problemsOf(parsed);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/^repro_cmd "mvn test" differs/);
    expect(problems[1]).toMatch(/^type_id "npe_guard_removed" differs/);
  });
});

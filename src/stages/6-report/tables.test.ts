import { describe, expect, it } from 'vitest';
import { wilsonInterval } from '../../metrics/interval.js';
import { AttemptRowSchema, type AttemptRow, type Diagnosis } from '../5-evaluate/records.js';
import {
  diagnosisBreakdown,
  finalDiagnosis,
  formatDelta,
  formatProportion,
  giveAwayRate,
  renderTables,
  resultTables,
  successByAgentSetting,
  successByBucket,
  successByDepth,
  successByTypeBucket,
} from './tables.js';

const guard = { id: 'guard', name: 'Guard Predicate Inversion', category: 'Logic' } as const;
const equalsTypo = { id: 'equals', name: 'Typo in equals', category: 'API Contract' } as const;
// Its id sorts after guard's, its name before: the order must come from the name.
const boundary = { id: 'off-by-one', name: 'Boundary Shift', category: 'Logic' } as const;

const success: Diagnosis = { kind: 'Success' };
const notTriggered: Diagnosis = { kind: 'NotTriggered' };
const noCompile: Diagnosis = { kind: 'DoesNotCompile', messages: ['x'] };

interface RowOptions {
  caseId?: string;
  project?: string;
  bugType?: typeof guard | typeof equalsTypo | typeof boundary;
  bucket?: AttemptRow['case']['bucket'];
  depth?: number;
  agent?: string;
  agentSpec?: string;
  setting?: AttemptRow['setting'];
  attempt?: number;
  diagnosis?: Diagnosis;
  paperSuccess?: boolean;
  coverage?: AttemptRow['coverage'];
}

/** A schema-valid row: the tables see what the store would hand them. */
function row(options: RowOptions = {}): AttemptRow {
  const diagnosis = options.diagnosis ?? notTriggered;
  return AttemptRowSchema.parse({
    case: {
      caseId: options.caseId ?? 'c1',
      project: options.project ?? 'commons-lang',
      bugType: { ...(options.bugType ?? guard), specHash: 'h' },
      bucket: options.bucket ?? 'short',
      depth: options.depth ?? 1,
    },
    agent: options.agent ?? 'codex',
    agentSpec: options.agentSpec ?? 'spec-codex',
    setting: options.setting ?? 'NoEC',
    attempt: options.attempt ?? 1,
    diagnosis,
    paperSuccess: options.paperSuccess ?? diagnosis.kind === 'Success',
    coverage: options.coverage ?? null,
    agentOutcome: { kind: 'Completed' },
    agentMs: 1,
    verifyMs: 1,
    usage: null,
    prompt: 'p',
    transcript: 't',
    testFiles: [],
    feedback: '',
    tools: {},
    finishedAt: '2025-01-01T00:00:00Z',
  });
}

/** `successes` succeeding and `n - successes` failing cases, one attempt each. */
function cases(prefix: string, successes: number, n: number, options: RowOptions = {}) {
  return Array.from({ length: n }, (_, index) =>
    row({
      ...options,
      caseId: `${prefix}${index}`,
      diagnosis: index < successes ? success : notTriggered,
    }),
  );
}

describe('successByAgentSetting', () => {
  it('counts an item that failed and then succeeded once, as a success', () => {
    const [entry] = successByAgentSetting([
      row({ attempt: 1, diagnosis: noCompile }),
      row({ attempt: 2, diagnosis: success }),
      row({ caseId: 'c2', attempt: 1 }),
    ]);
    expect(entry!.settings).toEqual([
      expect.objectContaining({
        setting: 'NoEC',
        strict: expect.objectContaining({ successes: 1, n: 2, rate: 0.5 }),
      }),
    ]);
  });

  it('keeps the settings apart, NoEC first, and gives the WithEC gain in points', () => {
    const [entry] = successByAgentSetting([
      ...cases('w', 3, 4, { setting: 'WithEC' }),
      ...cases('n', 1, 4, { setting: 'NoEC' }),
    ]);
    expect(entry!.settings.map((setting) => [setting.setting, setting.strict.successes])).toEqual([
      ['NoEC', 1],
      ['WithEC', 3],
    ]);
    expect(entry!.withEcGainPp).toBeCloseTo(50, 10);
  });

  it('has no gain without both settings, and sorts agents by name', () => {
    const table = successByAgentSetting([row({ agent: 'zeta' }), row({ agent: 'alpha' })]);
    expect(table.map((entry) => [entry.agent, entry.withEcGainPp])).toEqual([
      ['alpha', null],
      ['zeta', null],
    ]);
  });

  it('reports the paper criterion beside the strict one', () => {
    const [entry] = successByAgentSetting([
      row({ caseId: 'a', diagnosis: { kind: 'FailsOnClean', verdict: 'v' }, paperSuccess: true }),
      row({ caseId: 'b', diagnosis: success }),
    ]);
    expect(entry!.settings[0]!.strict.successes).toBe(1);
    expect(entry!.settings[0]!.paper.successes).toBe(2);
  });

  it('does not pool one agent name under two specs', () => {
    const table = successByAgentSetting([
      row({ agentSpec: 'aaaaaaaa1111', diagnosis: success }),
      row({ agentSpec: 'bbbbbbbb2222' }),
    ]);
    expect(table.map((entry) => [entry.agent, entry.settings[0]!.strict.successes])).toEqual([
      ['codex@aaaaaaaa', 1],
      ['codex@bbbbbbbb', 0],
    ]);
  });
});

describe('successByTypeBucket', () => {
  it('gives WithEC and NoEC counts per type and bucket, types by category then name', () => {
    const table = successByTypeBucket([
      ...cases('gs', 2, 3, { bucket: 'short', setting: 'WithEC' }),
      ...cases('gs', 1, 3, { bucket: 'short', setting: 'NoEC' }),
      ...cases('gl', 0, 2, { bucket: 'long', setting: 'NoEC' }),
      ...cases('e', 1, 1, { bugType: equalsTypo, bucket: 'long', setting: 'WithEC' }),
      ...cases('b', 1, 1, { bugType: boundary, bucket: 'long', setting: 'WithEC' }),
    ]);
    expect(table.buckets).toEqual(['short', 'long']);
    expect(table.types.map((entry) => entry.bugType.id)).toEqual(['equals', 'off-by-one', 'guard']);
    expect(table.types[2]!.cells).toEqual([
      {
        agent: 'codex',
        bucket: 'short',
        noEc: { successes: 1, n: 3 },
        withEc: { successes: 2, n: 3 },
      },
      { agent: 'codex', bucket: 'long', noEc: { successes: 0, n: 2 }, withEc: null },
    ]);
  });
});

describe('successByBucket and successByDepth', () => {
  it('orders buckets as the enum does and gives deltas from short', () => {
    const table = successByBucket([
      ...cases('l', 1, 4, { bucket: 'long' }),
      ...cases('s', 3, 4, { bucket: 'short' }),
      ...cases('m', 2, 4, { bucket: 'mid-short' }),
    ]);
    expect(table.levels).toEqual(['short', 'mid-short', 'long']);
    const levels = table.agents[0]!.levels;
    expect(levels.map((level) => level.settings[0]!.deltaPp)).toEqual([
      null,
      expect.closeTo(-25, 10),
      expect.closeTo(-50, 10),
    ]);
  });

  it('orders depths ascending, deltas from depth 1 per setting', () => {
    const table = successByDepth([
      ...cases('a', 1, 2, { depth: 10, setting: 'WithEC' }),
      ...cases('b', 2, 2, { depth: 1, setting: 'WithEC' }),
      ...cases('c', 0, 2, { depth: 3, setting: 'NoEC' }),
      ...cases('d', 1, 2, { depth: 1, setting: 'NoEC' }),
    ]);
    expect(table.levels).toEqual([1, 3, 10]);
    expect(
      table.agents[0]!.levels.map((level) =>
        level.settings.map((entry) => [entry.setting, entry.deltaPp]),
      ),
    ).toEqual([
      [
        ['NoEC', null],
        ['WithEC', null],
      ],
      [['NoEC', expect.closeTo(-50, 10)]],
      [['WithEC', expect.closeTo(-50, 10)]],
    ]);
  });

  it('has no delta where the agent has no baseline cell', () => {
    const table = successByDepth([
      row({ agent: 'a', depth: 1 }),
      row({ agent: 'b', depth: 3, diagnosis: success }),
    ]);
    expect(table.agents[1]!.levels).toEqual([
      {
        level: 3,
        settings: [expect.objectContaining({ setting: 'NoEC', deltaPp: null })],
      },
    ]);
  });
});

describe('finalDiagnosis and diagnosisBreakdown', () => {
  it("takes the successful attempt's diagnosis, else the last one's", () => {
    expect(finalDiagnosis([{ diagnosis: noCompile }, { diagnosis: success }])).toEqual(success);
    expect(finalDiagnosis([{ diagnosis: success }, { diagnosis: { kind: 'NotReached' } }])).toEqual(
      success,
    );
    expect(finalDiagnosis([{ diagnosis: noCompile }, { diagnosis: notTriggered }])).toEqual(
      notTriggered,
    );
  });

  it('counts final diagnoses per item and every attempt, and the mean change coverage', () => {
    const coverage = (covered: number, lines: number) => ({ lines, covered, members: [] });
    const [breakdown] = diagnosisBreakdown([
      // Out of order on purpose: the last attempt is the highest number, not the last row.
      row({ caseId: 'a', attempt: 2, diagnosis: notTriggered, coverage: coverage(1, 4) }),
      row({ caseId: 'a', attempt: 1, diagnosis: noCompile }),
      row({ caseId: 'b', attempt: 1, diagnosis: noCompile, coverage: coverage(0, 0) }),
      row({ caseId: 'c', attempt: 1, diagnosis: success, coverage: coverage(4, 4) }),
    ]);
    expect(breakdown).toEqual({
      agent: 'codex',
      setting: 'NoEC',
      items: 3,
      attempts: 4,
      kinds: [
        { kind: 'Success', items: 1, attempts: 1 },
        { kind: 'DoesNotCompile', items: 1, attempts: 2 },
        { kind: 'NotTriggered', items: 1, attempts: 1 },
      ],
      changeCoverage: { mean: 0.625, attempts: 2 },
    });
  });
});

describe('items the harness could not judge', () => {
  const fault: Diagnosis = { kind: 'HarnessFault', reason: 'coverage: no execution data' };
  it('are left out of the success tables and the give-away, and listed', () => {
    const rows = [
      row({ caseId: 'c1', diagnosis: fault }),
      row({ caseId: 'c2', diagnosis: notTriggered }),
      row({ caseId: 'c3', diagnosis: fault }),
      row({ caseId: 'c3', attempt: 2, diagnosis: success }),
      row({ caseId: 'c4', agent: 'existing-tests', agentSpec: 's', diagnosis: fault }),
    ];
    const tables = resultTables(rows);
    const codex = tables.byAgentSetting.find((entry) => entry.agent === 'codex')!;
    // c1 faulted and nothing succeeded: unknown, not a failure; c3 succeeded after a fault.
    expect(codex.settings[0]!.strict).toMatchObject({ successes: 1, n: 2 });
    expect(tables.giveAway).toBeNull();
    expect(tables.unjudged.map((item) => item.caseId)).toEqual(['c1', 'c4']);
    expect(tables.diagnoses.length).toBeGreaterThan(0);
    expect(renderTables(tables)).toContain('2 items left out of the tables');
  });
});

describe('giveAwayRate', () => {
  it('is the share of cases the existing tests expose, per type and per project', () => {
    const agent = 'existing-tests';
    const giveAway = giveAwayRate([
      row({ agent, caseId: 'a', project: 'p2', diagnosis: success }),
      // The same case in the other setting counts once.
      row({ agent, caseId: 'a', project: 'p2', setting: 'WithEC' }),
      row({ agent, caseId: 'b', project: 'p1', bugType: equalsTypo }),
      row({ agent, caseId: 'c', project: 'p1', bugType: equalsTypo, diagnosis: success }),
      row({ agent: 'codex', caseId: 'd', diagnosis: success }),
    ]);
    expect(giveAway?.overall).toMatchObject({ successes: 2, n: 3 });
    expect(giveAway?.byType.map((entry) => [entry.bugType.id, entry.cases.successes])).toEqual([
      ['equals', 1],
      ['guard', 1],
    ]);
    expect(giveAway?.byProject.map((entry) => [entry.project, entry.cases.n])).toEqual([
      ['p1', 2],
      ['p2', 1],
    ]);
  });

  it('is null when the agent did not run', () => {
    expect(giveAwayRate([row()])).toBeNull();
  });
});

describe('renderTables', () => {
  it('says there is nothing to show for no rows', () => {
    expect(renderTables(resultTables([]))).toBe('no finished attempts\n');
  });

  it('formats counts with their interval and signed deltas', () => {
    expect(
      formatProportion({ successes: 7, n: 10, rate: 0.7, interval: wilsonInterval(7, 10) }),
    ).toBe('7/10 70.0% [39.7–89.2]');
    expect(formatDelta(4.7)).toBe('+4.7 pp');
    expect(formatDelta(-8)).toBe('-8.0 pp');
    expect(formatDelta(-0.01)).toBe('0.0 pp');
  });

  it('shows the figures of every table', () => {
    const text = renderTables(
      resultTables([
        ...cases('n', 7, 10, { setting: 'NoEC' }),
        ...cases('w', 8, 10, { setting: 'WithEC' }),
        row({ agent: 'existing-tests', caseId: 'n0', diagnosis: success }),
      ]),
    );
    expect(text).toContain('7/10 70.0% [39.7–89.2]');
    expect(text).toContain('+10.0 pp');
    expect(text).toContain('8/7 of 10');
    expect(text).toContain('Give-away rate by project');
    expect(text).toContain('21 finished attempts in 21 items');
  });

  it('moves columns that do not fit the width into further blocks', () => {
    const tables = resultTables([
      ...cases('s', 1, 2, { bucket: 'short' }),
      ...cases('l', 1, 2, { bucket: 'long', setting: 'WithEC' }),
    ]);
    const narrow = renderTables(tables, { width: 40 });
    const bucketSection = narrow.slice(
      narrow.indexOf('(paper Table 7)'),
      narrow.indexOf('(paper Table 8)'),
    );
    const tableLines = bucketSection.split('\n').filter((line) => line.includes('  '));
    expect(Math.max(...tableLines.map((line) => line.length))).toBeLessThanOrEqual(40);
    expect(bucketSection.match(/^agent /gm)?.length).toBeGreaterThan(1);
    expect(renderTables(tables).match(/^agent .*short NoEC.*long WithEC/gm)).toHaveLength(1);
  });
});

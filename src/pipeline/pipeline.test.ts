import { describe, expect, it } from 'vitest';
import {
  countedCases,
  firstStepOutOfReach,
  injectShortfall,
  nextJobs,
  suiteRefusal,
  transformShortfall,
  triedInSequence,
  type BuildCaseRecord,
  type CaseStop,
} from './pipeline.js';
import type { InjectionRecord } from '../stages/2-inject/records.js';
import { cellKey, type PlanCell } from './plan.js';

const atStep = (index: number, operator = 'x'): CaseStop => ({ kind: 'step', index, operator });

function entry(
  bucket: string,
  outcome: BuildCaseRecord['outcome'],
  injection = 'inj1',
): BuildCaseRecord {
  return {
    cell: { typeId: 't', bucket, depth: 1 },
    project: 'p@1',
    injection,
    transform: 'trf',
    outcome,
    durationMs: 1,
  };
}

describe('countedCases', () => {
  it('counts a case once, in the first cell that archived it, and no short entry', () => {
    const first = entry('mid-long', { kind: 'Archived', caseId: 'p@1-a' });
    const twin = entry('mid-short', { kind: 'Archived', caseId: 'p@1-a' });
    const other = entry('short', { kind: 'Archived', caseId: 'p@1-b' }, 'inj2');
    const short = entry(
      'short',
      { kind: 'Short', stoppedAt: atStep(0), reason: 'no site' },
      'inj3',
    );
    const counted = countedCases([first, twin, short, other]);
    expect([...counted]).toEqual([first, other]);
  });
});

describe('triedInSequence', () => {
  const gate = ['t_rare_profile_gate_v1'];
  it('takes a bug tried at a depth as tried for every cell with the same operators', () => {
    const tried = [entry('short', { kind: 'Short', stoppedAt: atStep(0), reason: 'no site' })];
    expect(triedInSequence(tried, { typeId: 't', bucket: 'long', depth: 1 }, 'inj1')).toBe(true);
    expect(triedInSequence(tried, { typeId: 't', bucket: 'short', depth: 1 }, 'inj2')).toBe(false);
    expect(triedInSequence(tried, { typeId: 't', bucket: 'short', depth: 3 }, 'inj1')).toBe(false);
  });

  it("keeps a group's own sequence apart from the plan's at the same depth", () => {
    const plain = [entry('short', { kind: 'Archived', caseId: 'p@1-a' })];
    const own = { typeId: 't', bucket: 'short', depth: 1, sequence: gate };
    expect(triedInSequence(plain, own, 'inj1')).toBe(false);
    const withOwn = [{ ...plain[0]!, cell: own }];
    expect(triedInSequence(withOwn, own, 'inj1')).toBe(true);
    expect(triedInSequence(withOwn, { typeId: 't', bucket: 'short', depth: 1 }, 'inj1')).toBe(
      false,
    );
  });
});

describe('firstStepOutOfReach', () => {
  const short = (stoppedAt: CaseStop, injection: string, reason = 'no site') =>
    entry('short', { kind: 'Short', stoppedAt, reason }, injection);
  const atGate = (injection: string) => short(atStep(0, 't_rare_profile_gate_v1'), injection);

  it('holds when the last three bugs fell short at the first operator and none was kept', () => {
    expect(firstStepOutOfReach([atGate('a'), atGate('b'), atGate('c')])).toBe(true);
    expect(firstStepOutOfReach([atGate('a'), atGate('b')])).toBe(false);
  });

  it('fails when a bug got further, or one of the cell was kept', () => {
    const further = short(atStep(1, 't_call_stack_deepen_v1'), 'c');
    expect(firstStepOutOfReach([atGate('a'), atGate('b'), further])).toBe(false);
    const kept = entry('short', { kind: 'Archived', caseId: 'p@1-a' }, 'k');
    expect(firstStepOutOfReach([kept, atGate('a'), atGate('b'), atGate('c')])).toBe(false);
  });

  it('does not count bugs unfit for any step as lost to the first operator', () => {
    const unfit = (injection: string) =>
      short({ kind: 'precondition' }, injection, 'the witness does not fail on the buggy state');
    expect(firstStepOutOfReach([unfit('a'), unfit('b'), unfit('c')])).toBe(false);
    expect(firstStepOutOfReach([atGate('a'), atGate('b'), unfit('c')])).toBe(false);
  });
});

describe('why a cell is short', () => {
  it('tallies where the bugs tried stopped, the steps apart from before them and the final checks', () => {
    const entries = [
      entry('short', { kind: 'Short', stoppedAt: atStep(0, 'gate'), reason: 'gate: no site' }, 'a'),
      entry('short', { kind: 'Short', stoppedAt: atStep(0, 'gate'), reason: 'gate: no site' }, 'b'),
      entry(
        'short',
        {
          kind: 'Short',
          stoppedAt: { kind: 'precondition' },
          reason: 'the witness does not fail on the buggy state (Passed)',
        },
        'c',
      ),
      entry(
        'short',
        {
          kind: 'Short',
          stoppedAt: { kind: 'final', check: 'maven' },
          reason: 'Passed under Maven',
        },
        'd',
      ),
      entry('short', { kind: 'Archived', caseId: 'p@1-e' }, 'e'),
    ];
    expect(transformShortfall('p@1', entries)).toBe(
      'p@1: 4 bugs fell short in transformation (2× step 1 gate: gate; 1× before the steps: the witness does not fail on the buggy state; 1× final maven: Passed under Maven)',
    );
    expect(transformShortfall('p@1', entries.slice(4))).toBeUndefined();
    const gate = (injection: string) =>
      entry('short', { kind: 'Short', stoppedAt: atStep(0, 'gate'), reason: 'no site' }, injection);
    expect(transformShortfall('p@1', [gate('a'), gate('b'), gate('c')])).toMatch(
      /; the last 3 fell short at the first operator, so no more were injected$/,
    );
  });

  it('says what inject made of a type only when it fell short of what was asked', () => {
    const type = {
      typeId: 't',
      name: 'T',
      sitesFound: 9,
      tried: 6,
      accepted: 2,
      acceptanceRate: 2 / 6,
      rejectedBy: {},
      ended: 'sites-exhausted' as const,
      durationMs: 1,
    };
    expect(injectShortfall({ project: 'p@1', bucket: 'short', asked: 4, type })).toBe(
      'p@1: 2 short bugs of 4 asked for (9 sites, 6 tried, sites-exhausted)',
    );
    expect(injectShortfall({ project: 'p@1', bucket: 'short', asked: 2, type })).toBeUndefined();
  });
});

describe('nextJobs', () => {
  const bug = (id: string) => ({ id, bugType: { id: 't' } }) as InjectionRecord;
  const bugs = [bug('a'), bug('b'), bug('c')];
  function cell(depth: 1 | 3 | 5 | 10, series?: string): PlanCell {
    const key = { typeId: 't', bucket: 'short', depth };
    return {
      typeId: 't',
      bucket: 'short',
      depth,
      wanted: 1,
      sequence: [],
      purpose: 'p',
      key,
      series: series ?? cellKey(key),
    };
  }
  const archived = (depth: number, injection: string): BuildCaseRecord => ({
    ...entry('short', { kind: 'Archived', caseId: `p@1-${injection}${depth}` }, injection),
    cell: { typeId: 't', bucket: 'short', depth },
  });
  const jobsFor = (cells: PlanCell[], entries: BuildCaseRecord[] = [], planCells = cells) =>
    nextJobs({
      cells,
      planCells,
      injections: bugs,
      entries,
      counts: (each) => countedCases(entries).has(each),
      wantedMore: (each) =>
        each.wanted -
        entries.filter((e) => e.outcome.kind === 'Archived' && e.cell.depth === each.depth).length,
    }).map((job) => `${job.cell.depth}:${job.injection.id}`);

  it('gives the cells of a plain group distinct bugs, in a round and after a case was made', () => {
    const cells = [cell(3), cell(1), cell(10)];
    expect(jobsFor(cells)).toEqual(['1:a', '3:b', '10:c']);
    // Bug a made the depth-1 case; the depth-3 cell, short of b, does not take it.
    const shortOfB: BuildCaseRecord = {
      ...entry('short', { kind: 'Short', stoppedAt: atStep(0), reason: 'no site' }, 'b'),
      cell: { typeId: 't', bucket: 'short', depth: 3 },
    };
    expect(jobsFor(cells, [archived(1, 'a'), shortOfB])).toEqual(['3:c', '10:b']);
  });

  it('lets the cells of a depth series take the same bug, and no cell outside it', () => {
    const series = cell(1, 'anchor').series;
    const cells = [cell(1, series), cell(3, series), cell(5)];
    expect(jobsFor(cells)).toEqual(['1:a', '3:a', '5:b']);
    // The depth-1 case of bug a is the series' own: depth 3 takes a; a cell outside does not.
    expect(jobsFor([cell(3, series), cell(5)], [archived(1, 'a')], cells)).toEqual(['3:a', '5:b']);
    // A case of a cell the plan no longer has is a series of its own.
    expect(jobsFor([cell(3, series)], [archived(1, 'a')], [cell(3, series)])).toEqual(['3:b']);
  });
});

describe('the whole-suite stop', () => {
  it('names the classes that give the bug away and the runners that saw them, tallied apart', () => {
    const reason = suiteRefusal({
      kind: 'GivenAway',
      runs: [
        { runner: 'jvm', classesRun: 9, durationMs: 1, failing: [] },
        {
          runner: 'maven',
          classesRun: 9,
          durationMs: 1,
          failing: ['p.A', 'p.B', 'p.C', 'p.D'].map((testClass) => ({
            testClass,
            failingMethods: {},
          })),
        },
      ],
      classes: ['p.A', 'p.B', 'p.C', 'p.D'],
    });
    expect(reason).toBe(
      'existing classes give the bug away: 4 fail on the buggy state and pass on clean code (p.A, p.B, p.C, …; maven)',
    );
    const lost = entry('short', { kind: 'Short', stoppedAt: { kind: 'suite' }, reason });
    expect(transformShortfall('p@1', [lost])).toBe(
      'p@1: 1 bugs fell short in transformation (1× whole suite: existing classes give the bug away)',
    );
  });

  it('names the one class a warm run that stopped at the first give-away saw', () => {
    const reason = suiteRefusal({
      kind: 'GivenAway',
      runs: [
        {
          runner: 'jvm',
          classesRun: 3,
          durationMs: 1,
          failing: [{ testClass: 'p.B', failingMethods: {} }],
          stoppedAtFirst: true,
        },
      ],
      classes: ['p.B'],
    });
    expect(reason).toBe(
      'existing classes give the bug away: p.B fails on the buggy state and passes on clean code (jvm; the warm runs stop at the first that does)',
    );
  });
});

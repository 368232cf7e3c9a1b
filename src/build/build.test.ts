import { describe, expect, it } from 'vitest';
import {
  countedCases,
  firstStepOutOfReach,
  triedInSequence,
  type BuildCaseRecord,
} from './build.js';

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
    const short = entry('short', { kind: 'Short', stage: 'step 1 x', reason: 'no site' }, 'inj3');
    const counted = countedCases([first, twin, short, other]);
    expect([...counted]).toEqual([first, other]);
  });
});

describe('triedInSequence', () => {
  const gate = ['t_rare_profile_gate_v1'];
  it('takes a bug tried at a depth as tried for every cell with the same operators', () => {
    const tried = [entry('short', { kind: 'Short', stage: 'step 1 x', reason: 'no site' })];
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
  const short = (stage: string, injection: string) =>
    entry('short', { kind: 'Short', stage, reason: 'no site' }, injection);
  const atGate = (injection: string) => short('step 1 t_rare_profile_gate_v1', injection);

  it('holds when the last three bugs fell short at the first operator and none was kept', () => {
    expect(firstStepOutOfReach([atGate('a'), atGate('b'), atGate('c')])).toBe(true);
    expect(firstStepOutOfReach([atGate('a'), atGate('b')])).toBe(false);
  });

  it('fails when a bug got further, or one of the cell was kept', () => {
    const further = short('step 2 t_call_stack_deepen_v1', 'c');
    expect(firstStepOutOfReach([atGate('a'), atGate('b'), further])).toBe(false);
    const kept = entry('short', { kind: 'Archived', caseId: 'p@1-a' }, 'k');
    expect(firstStepOutOfReach([kept, atGate('a'), atGate('b'), atGate('c')])).toBe(false);
  });
});

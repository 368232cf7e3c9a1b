import { describe, expect, it } from 'vitest';
import type { RepairInstance } from '../../repair/instance.js';
import { summarise, type ReevaluationRow } from './reevaluate.js';

/* The re-evaluation's figures from its rows: rates before and after, ranks, rejections. */

function instance(id: string, strengthened: boolean): RepairInstance {
  return {
    instance_id: id,
    repo: 'r',
    base_commit: 'c',
    snapshot: 's',
    patch: 'p',
    test_patch: '',
    FAIL_TO_PASS: ['a.T#m'],
    PASS_TO_PASS: [],
    problem_statement: '',
    module: '.',
    maven_flags: [],
    origin: { kind: 'swe-bench' },
    ...(strengthened
      ? {
          strengthening: {
            engine: 'deterministic',
            stages: ['coverage'] as const,
            added: ['a.TStrengthenedTest#m_1'],
            coverage: { relevant: 10, before: 6, after: 8 },
          },
        }
      : {}),
  } as RepairInstance;
}

function row(
  agent: string,
  instanceId: string,
  accepted: boolean,
  after: ReevaluationRow['strengthened'],
): ReevaluationRow {
  return {
    agent,
    instanceId,
    patchId: 'x',
    accepted,
    original: accepted ? 'Resolved' : 'Unresolved: a.T#m',
    strengthened: after,
    stripped: [],
    diffAgainstGold: null,
  };
}

describe('summarise', () => {
  const instances = ['i1', 'i2', 'i3', 'i4'].map((id, index) => instance(id, index < 2));
  const rows = [
    // A: 3 accepted, one rejected by a new test: 75 % → 50 %.
    row('A', 'i1', true, { kind: 'Rejected', failing: ['a.TStrengthenedTest#m_1'] }),
    row('A', 'i2', true, { kind: 'Passes' }),
    row('A', 'i3', true, { kind: 'NotStrengthened' }),
    row('A', 'i4', false, null),
    // B: 2 accepted, both pass: 50 % → 50 %.
    row('B', 'i1', true, { kind: 'Passes' }),
    row('B', 'i2', true, { kind: 'Passes' }),
    // C: 1 accepted, its new tests do not compile against it: 25 % → 0 %.
    row('C', 'i2', true, { kind: 'TestsDoNotCompile', messages: ['x'] }),
  ];
  const summary = summarise(instances, rows, [], '/tmp/out');

  it("computes each agent's resolve rate before and after, over all instances", () => {
    const byAgent = Object.fromEntries(summary.agents.map((agent) => [agent.agent, agent]));
    expect(byAgent.A).toMatchObject({ resolveBefore: 0.75, resolveAfter: 0.5, rejected: 1 });
    expect(byAgent.B).toMatchObject({ resolveBefore: 0.5, resolveAfter: 0.5, rejected: 0 });
    expect(byAgent.C).toMatchObject({ resolveBefore: 0.25, resolveAfter: 0, rejected: 1 });
    // Each rate with its Wilson 95 % interval; B rejected nothing of 2 it had accepted.
    expect(byAgent.A!.resolveBeforeCi.low).toBeLessThan(0.75);
    expect(byAgent.A!.resolveBeforeCi.high).toBeGreaterThan(0.75);
    expect(byAgent.B).toMatchObject({ rejectedShare: 0, rejectedShareCi: { low: 0 } });
    expect(byAgent.B!.rejectedShareCi.high).toBeCloseTo(0.6576, 4);
    // Ranks: A 1 → 1 and B 2 → 1 (tied at 50 %, both first), C 3 → 3.
    expect([byAgent.A!.rankBefore, byAgent.A!.rankAfter]).toEqual([1, 1]);
    expect([byAgent.B!.rankBefore, byAgent.B!.rankAfter]).toEqual([2, 1]);
    expect([byAgent.C!.rankBefore, byAgent.C!.rankAfter]).toEqual([3, 3]);
  });

  it('counts rejections of accepted patches, a new class that does not compile among them', () => {
    expect(summary.overall).toMatchObject({ accepted: 6, rejected: 2, rejectedShare: 2 / 6 });
    expect(summary.overall.rejectedShareCi.low).toBeCloseTo(0.0968, 4);
    expect(summary.overall.rejectedShareCi.high).toBeCloseTo(0.7, 1);
    expect(summary.rejections.map((entry) => [entry.agent, entry.instanceId])).toEqual([
      ['A', 'i1'],
      ['C', 'i2'],
    ]);
    expect(summary.strengthenedInstances).toBe(2);
    expect(summary.coverage).toEqual({ relevant: 20, before: 12, after: 16 });
  });
});

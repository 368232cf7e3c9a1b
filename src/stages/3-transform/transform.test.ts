import { describe, expect, it } from 'vitest';
import {
  finalCheckOf,
  finalCheckReason,
  shortLikeSharedSteps,
  transformId,
  type TransformRecord,
} from './transform.js';

const injection = { id: 'bug', witness: { testClass: 'org.example.WitnessTest' } } as Parameters<
  typeof transformId
>[0];
const deterministic = (id: string) => ({ id, engine: 'deterministic' });
const depth3 = ['gate', 'helper', 'reroute'].map(deterministic);
const depth5 = [...depth3, deterministic('bundle'), deterministic('holder')];

function recorded(
  sources: typeof depth3,
  outcome: TransformRecord['outcome'],
): Map<string, TransformRecord> {
  const id = transformId(injection, sources);
  return new Map([
    [
      id,
      {
        id,
        injection: injection.id,
        sequence: sources.map((source) => source.id),
        outcome,
        steps: [],
        buggyFailures: { parses: 'java.lang.AssertionError' },
        durationMs: 1234,
      },
    ],
  ]);
}

describe('shortLikeSharedSteps', () => {
  it('falls short where a shorter sequence it begins with fell short at a step', () => {
    const earlier = recorded(depth3, { kind: 'Short', step: 1, reason: 'helper has no site' });
    const derived = shortLikeSharedSteps(injection, depth5, earlier);
    expect(derived).toMatchObject({
      id: transformId(injection, depth5),
      sequence: ['gate', 'helper', 'reroute', 'bundle', 'holder'],
      outcome: { kind: 'Short', step: 1, reason: expect.stringMatching(/^helper has no site \(/) },
      durationMs: 0,
    });
  });

  it('falls short where a sequence sharing its first steps fell short at one of them', () => {
    const depth10 = [...depth3, deterministic('cache'), deterministic('bundle')];
    const earlier = recorded(depth5, { kind: 'Short', step: 2, reason: 'reroute has no site' });
    expect(shortLikeSharedSteps(injection, depth10, earlier)).toMatchObject({
      outcome: { kind: 'Short', step: 2 },
      durationMs: 0,
    });
    // Past the shared steps, the other sequence says nothing of this one.
    const later = recorded(depth5, { kind: 'Short', step: 3, reason: 'bundle has no site' });
    expect(shortLikeSharedSteps(injection, depth10, later)).toBeUndefined();
  });

  it('says nothing when the prefix was kept, failed only its final checks, or was not tried', () => {
    const state = { base: {}, patches: [] } as unknown as Extract<
      TransformRecord['outcome'],
      { kind: 'Kept' }
    >['state'];
    expect(
      shortLikeSharedSteps(
        injection,
        depth5,
        recorded(depth3, { kind: 'Kept', state, maven: 'TestFailed' }),
      ),
    ).toBeUndefined();
    expect(
      shortLikeSharedSteps(
        injection,
        depth5,
        recorded(depth3, {
          kind: 'Short',
          step: 2,
          reason: finalCheckReason('maven', 'Passed under Maven'),
        }),
      ),
    ).toBeUndefined();
    expect(shortLikeSharedSteps(injection, depth5, new Map())).toBeUndefined();
  });

  it("does not carry over an agent's steps, whose prompt names the whole sequence", () => {
    const agent = depth3.map((source) => ({ ...source, engine: 'agent:scripted' }));
    const earlier = recorded(agent, { kind: 'Short', step: 0, reason: 'no candidate kept' });
    expect(
      shortLikeSharedSteps(injection, [...agent, deterministic('bundle')], earlier),
    ).toBeUndefined();
  });
});

describe('finalCheckOf', () => {
  it('tells the final checks apart from each other and from the steps', () => {
    expect(finalCheckOf(finalCheckReason('maven', 'Passed under Maven'))).toBe('maven');
    expect(finalCheckOf(finalCheckReason('whole classes', 'CTest#a passed'))).toBe('whole classes');
    expect(finalCheckOf('t_rare_profile_gate_v1 has no site around the bug')).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { cacheLayout } from '../../core/cache.js';
import { silent } from '../../events/types.js';
import type { ProjectRef } from '../../project/project.js';
import type { WorkingCopy } from '../../project/working-copy.js';
import type { TestRunner } from '../../runners/types.js';
import type { InjectionRecord } from '../2-inject/records.js';
import type { CandidateSource } from './candidates.js';
import {
  createTransformer,
  describeStop,
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
const atStep = (index: number) => ({
  kind: 'step' as const,
  index,
  operator: ['gate', 'helper', 'reroute', 'bundle'][index]!,
});

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
    const earlier = recorded(depth3, {
      kind: 'Short',
      stoppedAt: atStep(1),
      reason: 'helper has no site',
    });
    const derived = shortLikeSharedSteps(injection, depth5, earlier);
    expect(derived).toMatchObject({
      id: transformId(injection, depth5),
      sequence: ['gate', 'helper', 'reroute', 'bundle', 'holder'],
      outcome: {
        kind: 'Short',
        stoppedAt: atStep(1),
        reason: expect.stringMatching(/^helper has no site \(/),
      },
      durationMs: 0,
    });
  });

  it('falls short where a sequence sharing its first steps fell short at one of them', () => {
    const depth10 = [...depth3, deterministic('cache'), deterministic('bundle')];
    const earlier = recorded(depth5, {
      kind: 'Short',
      stoppedAt: atStep(2),
      reason: 'reroute has no site',
    });
    expect(shortLikeSharedSteps(injection, depth10, earlier)).toMatchObject({
      outcome: { kind: 'Short', stoppedAt: atStep(2) },
      durationMs: 0,
    });
    // Past the shared steps, the other sequence says nothing of this one.
    const later = recorded(depth5, {
      kind: 'Short',
      stoppedAt: atStep(3),
      reason: 'bundle has no site',
    });
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
          stoppedAt: { kind: 'final', check: 'maven' },
          reason: 'Passed under Maven',
        }),
      ),
    ).toBeUndefined();
    expect(shortLikeSharedSteps(injection, depth5, new Map())).toBeUndefined();
  });

  it('carries a bug unfit for any step over to every sequence of its witness', () => {
    const earlier = recorded(depth3, {
      kind: 'Short',
      stoppedAt: { kind: 'precondition' },
      reason: 'the witness does not fail on the buggy state (Passed)',
    });
    const other = [deterministic('bundle'), deterministic('holder')];
    expect(shortLikeSharedSteps(injection, other, earlier)).toMatchObject({
      outcome: { kind: 'Short', stoppedAt: { kind: 'precondition' } },
    });
    const otherWitness = {
      ...injection,
      witness: { ...injection.witness, testClass: 'org.example.OtherTest' },
    };
    expect(shortLikeSharedSteps(otherWitness, other, earlier)).toBeUndefined();
  });

  it("does not carry over an agent's steps, whose prompt names the whole sequence", () => {
    const agent = depth3.map((source) => ({ ...source, engine: 'agent:scripted' }));
    const earlier = recorded(agent, {
      kind: 'Short',
      stoppedAt: atStep(0),
      reason: 'no candidate kept',
    });
    expect(
      shortLikeSharedSteps(injection, [...agent, deterministic('bundle')], earlier),
    ).toBeUndefined();
  });
});

describe('describeStop', () => {
  it('names the step 1-based with its operator, and the final checks apart from the steps', () => {
    expect(describeStop(atStep(0))).toBe('step 1 gate');
    expect(describeStop({ kind: 'final', check: 'whole classes' })).toBe('final whole classes');
    expect(describeStop({ kind: 'precondition' })).toBe('before the steps');
  });
});

describe('where a case stops', () => {
  it('stops a bug whose witness passes on the buggy state before any step, not at the first operator', async () => {
    const copy = { root: '/nonexistent/copy', checkout: async () => [] } as unknown as WorkingCopy;
    const fast = {
      name: 'jvm',
      compile: async () => ({ kind: 'Compiled' }),
      run: async () => ({
        verdict: { kind: 'Passed', counts: { tests: 1, failures: 0, errors: 0, skipped: 0 } },
      }),
    } as unknown as TestRunner;
    const transformer = await createTransformer({
      cache: cacheLayout('/nonexistent/cache'),
      project: { build: {}, layout: {} } as unknown as ProjectRef,
      copy,
      fast,
      maven: null,
      contexts: [],
      otherClassLimit: 0,
      events: silent,
    });
    const buggy = {
      ...injection,
      state: {
        patches: [
          {
            diff: '--- a/src/A.java\n+++ b/src/A.java\n@@ -1,1 +1,1 @@\n-int a = 1;\n+int a = 2;\n',
          },
        ],
      },
    } as unknown as InjectionRecord;
    const gate = {
      id: 'gate',
      engine: 'deterministic',
      offer: () => {
        throw new Error('no step runs before the precondition holds');
      },
    } as unknown as CandidateSource;
    const record = await transformer.transform(buggy, [gate]);
    expect(record.outcome).toMatchObject({
      kind: 'Short',
      stoppedAt: { kind: 'precondition' },
      reason: expect.stringMatching(/^the witness does not fail on the buggy state/),
    });
  });
});

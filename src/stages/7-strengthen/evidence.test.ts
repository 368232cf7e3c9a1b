import { describe, expect, it } from 'vitest';
import type { ObservedValue, StableObservations } from './amplify/observations.js';
import { differences } from './evidence.js';

const int = (text: string): ObservedValue => ({
  kind: 'integral',
  className: 'java.lang.Integer',
  text,
  primitive: true,
});

function observed(
  sites: Record<string, ObservedValue[] | 'unstable'>,
  threw: Record<string, string> = {},
): StableObservations {
  return {
    sites: new Map(
      Object.entries(sites).map(([key, values]) => [
        key,
        values === 'unstable'
          ? { kind: 'Unstable', reason: 'not the same in every run' }
          : { kind: 'Stable', values },
      ]),
    ),
    outcomes: new Map(
      Object.entries(threw).map(([method, exception]) => [
        method,
        { kind: 'Threw', exception, line: undefined },
      ]),
    ),
  };
}

describe('evidence of non-equivalence', () => {
  it('finds the first site whose values differ, per probe', () => {
    const gold = observed({ 'a_1:1': [int('1')], 'a_1:2': [int('2')], 'b_1:1': [int('5')] });
    const mutant = observed({ 'a_1:1': [int('1')], 'a_1:2': [int('3')], 'b_1:1': [int('5')] });
    expect(differences(gold, mutant, ['a_1', 'b_1'])).toEqual([
      { probe: 'a_1', site: 'a_1:2', gold: '2', mutant: '3' },
    ]);
  });

  it('orders sites by number, not as text', () => {
    const gold = observed({ 'a_1:2': [int('2')], 'a_1:10': [int('10')] });
    const mutant = observed({ 'a_1:2': [int('0')], 'a_1:10': [int('0')] });
    expect(differences(gold, mutant, ['a_1'])[0]!.site).toBe('a_1:2');
  });

  it('counts a site only one side reaches, and ignores unstable sites', () => {
    const gold = observed({ 'a_1:1': 'unstable', 'a_1:2': [int('2')] });
    const mutant = observed({ 'a_1:1': [int('9')] });
    expect(differences(gold, mutant, ['a_1'])).toEqual([
      { probe: 'a_1', site: 'a_1:2', gold: '2', mutant: 'not reached' },
    ]);
  });

  it('counts a different exception, or one only the mutant throws', () => {
    const gold = observed({}, { a_1: 'java.lang.IllegalArgumentException' });
    const mutant = observed(
      {},
      { a_1: 'java.lang.NullPointerException', b_1: 'java.io.IOException' },
    );
    expect(differences(gold, mutant, ['a_1', 'b_1'])).toEqual([
      {
        probe: 'a_1',
        site: null,
        gold: 'throws java.lang.IllegalArgumentException',
        mutant: 'throws java.lang.NullPointerException',
      },
      { probe: 'b_1', site: null, gold: 'completes', mutant: 'throws java.io.IOException' },
    ]);
  });

  it('finds nothing where both agree', () => {
    const gold = observed({ 'a_1:1': [int('1')] }, { a_1: 'java.io.IOException' });
    expect(differences(gold, gold, ['a_1'])).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import { cacheLayout } from '../../core/cache.js';
import type { EventSink } from '../../events/types.js';
import { mutantFamiliesFrom, stagesFrom, strengthenInstances } from './driver.js';
import { withCovered } from './strengthen.js';
import { RULE_FAMILIES } from './mutants.js';

const before = {
  kind: 'Measured' as const,
  files: [
    { file: 'src/main/java/a/A.java', relevant: [3, 4, 9], covered: [3], missed: [4, 9] },
    { file: 'src/main/java/a/B.java', relevant: [7], covered: [], missed: [7] },
  ],
  relevant: 4,
  covered: 1,
};

describe('withCovered: coverage after, from the lines new tests reached in the sandbox', () => {
  it('moves the reached missed lines to covered and counts them', () => {
    const after = withCovered(before, ['src/main/java/a/A.java:9', 'src/main/java/a/B.java:7']);
    expect(after.files).toEqual([
      { file: 'src/main/java/a/A.java', relevant: [3, 4, 9], covered: [3, 9], missed: [4] },
      { file: 'src/main/java/a/B.java', relevant: [7], covered: [7], missed: [] },
    ]);
    expect(after.covered).toBe(3);
    expect(after.relevant).toBe(4);
  });

  it('ignores lines that were not missed or are not relevant', () => {
    const after = withCovered(before, ['src/main/java/a/A.java:3', 'src/main/java/a/A.java:5']);
    expect(after.covered).toBe(1);
  });
});

/** What the CLI passes when no flag is given (no file is read: every case is refused first). */
const events: EventSink = { emit: () => undefined };
const cache = cacheLayout('/nonexistent-cache');
const defaults = {
  out: '/nonexistent-out',
  seed: 1,
  attempts: 3,
  stages: 'coverage',
  holdOut: 0.5,
  mutantsPerFamily: 6,
  mutantFamilies: RULE_FAMILIES.join(','),
  agentMutants: 2,
};

describe('strengthen: the engine flags', () => {
  const base = defaults;

  it('refuses an unknown engine, an agent engine without --agent, and --agent without it', async () => {
    await expect(
      strengthenInstances('x.jsonl', { ...base, engine: 'llm' }, cache, events),
    ).rejects.toThrow(UserError);
    await expect(
      strengthenInstances('x.jsonl', { ...base, engine: 'agent' }, cache, events),
    ).rejects.toThrow(/--engine agent needs --agent/);
    await expect(
      strengthenInstances(
        'x.jsonl',
        { ...base, engine: 'deterministic', agent: 'codex' },
        cache,
        events,
      ),
    ).rejects.toThrow(/--agent applies to --engine agent only/);
  });
});

describe('strengthen: --stages and --hold-out', () => {
  const base = { ...defaults, engine: 'deterministic' };

  it('takes the stages in pipeline order, whatever order they are named in', () => {
    expect(stagesFrom('mutation, coverage')).toEqual(['coverage', 'mutation']);
    expect(stagesFrom('mutation')).toEqual(['mutation']);
  });

  it('takes mutant families in generation order and refuses an unknown one', async () => {
    expect(mutantFamiliesFrom('extreme, partial-gold')).toEqual(['partial-gold', 'extreme']);
    await expect(
      strengthenInstances('x.jsonl', { ...base, mutantFamilies: 'operator,agent' }, cache, events),
    ).rejects.toThrow(/--mutant-families takes partial-gold, .* not 'agent'/);
  });

  it('refuses an unknown stage and a share outside [0, 1)', async () => {
    expect(() => stagesFrom('coverage,mutants')).toThrow(/not 'mutants'/);
    await expect(
      strengthenInstances('x.jsonl', { ...base, holdOut: 1 }, cache, events),
    ).rejects.toThrow(/--hold-out must be at least 0 and below 1/);
    await expect(
      strengthenInstances('x.jsonl', { ...base, holdOut: Number.NaN }, cache, events),
    ).rejects.toThrow(UserError);
  });
});

import { describe, expect, it } from 'vitest';
import { cacheLayout } from '../../core/cache.js';
import { makeTempDir, removeTree, sha256Text } from '../../core/fs.js';
import { writeRecordFile } from '../../records/record.js';
import type { RepairSubject } from '../../repair/project.js';
import { behaviourPreservingOperators } from '../3-transform/operators/index.js';
import { rareInputPathConditioning } from '../3-transform/operators/rare-gate.js';
import {
  focusRegions,
  splitAlternatives,
  storedAlternativesFile,
  StoredAlternatives,
  storedGoldAlternatives,
  type GoldAlternative,
} from './alternatives.js';

function alternative(operator: string, variant = ''): GoldAlternative {
  const patch = `--- a/F.java\n+++ b/F.java\n${operator}${variant}\n`;
  return { id: sha256Text(patch).slice(0, 16), operator, description: operator, patch };
}

const ALTERNATIVES = ['t_a', 't_b', 't_c', 't_d', 't_e'].map((operator) => alternative(operator));

describe('splitAlternatives', () => {
  it('puts every alternative in exactly one half, the guard half the larger', () => {
    const { guard, heldOut } = splitAlternatives(ALTERNATIVES, 'instance-1', 7);
    expect(guard).toHaveLength(3);
    expect(heldOut).toHaveLength(2);
    expect([...guard, ...heldOut].map((entry) => entry.id).sort()).toEqual(
      ALTERNATIVES.map((entry) => entry.id).sort(),
    );
  });

  it('is stable for a seed and instance, whatever order the alternatives come in', () => {
    const split = splitAlternatives(ALTERNATIVES, 'instance-1', 7);
    const again = splitAlternatives([...ALTERNATIVES].reverse(), 'instance-1', 7);
    const operators = (entries: GoldAlternative[]) => entries.map((entry) => entry.operator).sort();
    expect(operators(again.guard)).toEqual(operators(split.guard));
    expect(operators(again.heldOut)).toEqual(operators(split.heldOut));
  });

  it('keeps alternatives of one operator on one side', () => {
    const twice = [...ALTERNATIVES, alternative('t_c', ' again')];
    const { guard, heldOut } = splitAlternatives(twice, 'instance-1', 7);
    const guarded = new Set(guard.map((entry) => entry.operator));
    expect(heldOut.filter((entry) => guarded.has(entry.operator))).toEqual([]);
    expect(guard.length + heldOut.length).toBe(twice.length);
  });

  it('depends on the seed and the instance', () => {
    const guardOf = (instanceId: string, seed: number) =>
      splitAlternatives(ALTERNATIVES, instanceId, seed)
        .guard.map((entry) => entry.operator)
        .sort()
        .join(',');
    const bySeed = new Set([1, 2, 3, 4, 5, 6, 7, 8].map((seed) => guardOf('instance-1', seed)));
    const byInstance = new Set(['a', 'b', 'c', 'd', 'e', 'f'].map((id) => guardOf(id, 7)));
    expect(bySeed.size).toBeGreaterThan(1);
    expect(byInstance.size).toBeGreaterThan(1);
  });

  it('splits nothing into two empty halves', () => {
    expect(splitAlternatives([], 'instance-1', 7)).toEqual({ guard: [], heldOut: [] });
  });
});

describe('storedGoldAlternatives', () => {
  it('reads back what was found for the same instance and tests, and redoes it for other tests', async () => {
    const root = await makeTempDir('stored-alternatives');
    try {
      const cache = cacheLayout(root);
      // No project behind it: finding alternatives for it fails, reading them back does not.
      const subject = {
        base: { id: '0123456789abcdef' },
        instance: { patch: 'gold', test_patch: 'tests', FAIL_TO_PASS: ['T#a'], PASS_TO_PASS: [] },
      } as unknown as RepairSubject;
      const options = { cache, seed: 7, maven: undefined!, copy: undefined! };
      const { key, file } = storedAlternativesFile(subject, options);
      const found = {
        alternatives: ALTERNATIVES.slice(0, 2),
        losses: [{ operator: 't_c', reason: 'no site' }],
      };
      await writeRecordFile(file, StoredAlternatives, { key, ...found });
      expect(await storedGoldAlternatives(subject, options)).toEqual(found);

      const otherTests = {
        ...subject,
        instance: { ...subject.instance, FAIL_TO_PASS: [] },
      } as unknown as RepairSubject;
      expect(storedAlternativesFile(otherTests, options).file).not.toBe(file);
      expect(storedAlternativesFile(subject, { ...options, seed: 8 }).file).not.toBe(file);
      await expect(storedGoldAlternatives(otherTests, options)).rejects.toThrow();
    } finally {
      await removeTree(root);
    }
  });
});

describe('focusRegions', () => {
  const source = [
    'class F {', // 1
    '  int run(int a) {', // 2
    '    return a + 1;  ', // 3
    '  }', // 4
    '', // 5
    '  int two() {', // 6
    '    return 2;', // 7
    '  }', // 8
    '}', // 9
    '',
  ].join('\n');
  const texts = (lines: number[]) =>
    focusRegions(source, lines).map((focus) => source.slice(focus.start, focus.end));

  it('spans a run of lines, without indentation or trailing blanks', () => {
    expect(texts([3, 2])).toEqual(['int run(int a) {\n    return a + 1;']);
  });

  it('makes each run of consecutive lines its own focus, in order', () => {
    expect(texts([7, 2, 3, 7])).toEqual(['int run(int a) {\n    return a + 1;', 'return 2;']);
  });

  it('gives none for blank runs, lines past the end or no lines', () => {
    expect(texts([5])).toEqual([]);
    expect(texts([12, 0])).toEqual([]);
    expect(texts([])).toEqual([]);
  });
});

describe('behaviourPreservingOperators', () => {
  it('leaves out the rare-input gate and any operator that needs a profile', () => {
    const operators = behaviourPreservingOperators();
    expect(operators.length).toBeGreaterThan(0);
    expect(operators).not.toContain(rareInputPathConditioning);
    expect(operators.filter((operator) => operator.probe)).toEqual([]);
  });
});

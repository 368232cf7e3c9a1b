import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import type { RepairInstance } from '../../../repair/instance.js';
import { plausibleCandidates } from './agents.js';

/*
 * The plausible agent's candidates: the fix with one more operator edit on or beside a line it
 * changes, and the fix with one of its hunks left out; never the base itself, never gold.
 */

const FILE = 'src/main/java/org/example/Range.java';
const filler = Array.from({ length: 8 }, (_, index) => `    int unused${index} = ${index};`);
const BASE = [
  'class Range {',
  '    boolean contains(int lo, int hi, int x) {',
  '        return lo <= x && x <= hi + 1;',
  '    }',
  ...filler,
  '    int width(int lo, int hi) {',
  '        return hi - lo;',
  '    }',
  '}',
  '',
].join('\n');
const FIXED = BASE.replace('x <= hi + 1', 'x <= hi').replace(
  'return hi - lo;',
  'return hi - lo + 1;',
);

function instanceOf(base: string, fixed: string): RepairInstance {
  return {
    patch: createTwoFilesPatch(`a/${FILE}`, `b/${FILE}`, base, fixed, '', '', {
      context: 1,
    }).replace(/^=+\n/, ''),
  } as RepairInstance;
}

describe('plausibleCandidates', () => {
  it('offers site mutants near the fixed lines and partial fixes, none equal to base or gold', async () => {
    const candidates = await plausibleCandidates(instanceOf(BASE, FIXED), async () => BASE);
    const families = new Set(candidates.map((candidate) => candidate.family));
    expect(families).toEqual(new Set(['site-mutant', 'partial-gold']));
    // Two hunks: each left out once.
    expect(candidates.filter((c) => c.family === 'partial-gold').map((c) => c.detail)).toEqual([
      `${FILE}: hunk 1 of 2 left out`,
      `${FILE}: hunk 2 of 2 left out`,
    ]);
    // A site mutant edits the fixed line or its neighbours (`<=` → `<` on line 3), not far away.
    const sites = candidates.filter((c) => c.family === 'site-mutant').map((c) => c.detail);
    expect(sites).toContain(`${FILE}:3 conditional-boundary`);
    expect(sites.every((detail) => /:(1|2|3|4|5|11|12|13|14|15)\s/.test(detail))).toBe(true);
    for (const candidate of candidates) {
      expect(candidate.diff).not.toBe(instanceOf(BASE, FIXED).patch);
      expect(candidate.diff).toContain(`+++ b/${FILE}`);
    }
  });

  it('has no partial fix of a one-hunk fix', async () => {
    const oneHunk = BASE.replace('x <= hi + 1', 'x <= hi');
    const candidates = await plausibleCandidates(instanceOf(BASE, oneHunk), async () => BASE);
    expect(candidates.some((candidate) => candidate.family === 'partial-gold')).toBe(false);
  });
});

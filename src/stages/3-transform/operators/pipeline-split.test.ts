import { describe, expect, it } from 'vitest';
import { cutScore, stageCuts } from './pipeline-split.js';

describe('stageCuts', () => {
  it('lists every cut of a body into two or three non-empty consecutive stages', () => {
    expect(stageCuts(3)).toEqual([[1], [1, 2], [2]]);
    expect(stageCuts(4)).toHaveLength(3 + 3);
    expect(stageCuts(1)).toEqual([]);
  });
});

describe('cutScore', () => {
  it('prefers the blank lines the author left between steps', () => {
    const blanks = new Set([3]);
    expect(cutScore([3], 5, blanks)).toBeGreaterThan(cutScore([2], 5, blanks));
  });

  it('prefers three stages for a long body and two for a short one, of even length', () => {
    const none = new Set<number>();
    expect(cutScore([3, 6], 9, none)).toBeGreaterThan(cutScore([4], 9, none));
    expect(cutScore([2], 4, none)).toBeGreaterThan(cutScore([1, 2], 4, none));
    expect(cutScore([2], 4, none)).toBeGreaterThan(cutScore([1], 4, none));
  });
});

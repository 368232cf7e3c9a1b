import { describe, expect, it } from 'vitest';
import { competitionRanks, kendallTauB, spearmanRho } from './ranking.js';

describe('leaderboard statistics', () => {
  it('gives tied scores the best rank they share ("1224")', () => {
    expect(competitionRanks([0.8, 0.6, 0.6, 0.5])).toEqual([1, 2, 2, 4]);
  });

  it('is 1 for an unchanged order and -1 for a reversed one', () => {
    expect(spearmanRho([0.9, 0.7, 0.5], [0.8, 0.6, 0.1])).toBeCloseTo(1);
    expect(spearmanRho([0.9, 0.7, 0.5], [0.1, 0.6, 0.8])).toBeCloseTo(-1);
    expect(kendallTauB([0.9, 0.7, 0.5], [0.8, 0.6, 0.1])).toBeCloseTo(1);
    expect(kendallTauB([0.9, 0.7, 0.5], [0.1, 0.6, 0.8])).toBeCloseTo(-1);
  });

  it('matches hand-computed values with a swap and with ties', () => {
    // One adjacent swap among four: ρ = 1 - 6·2/(4·15) = 0.8; τ = (5 - 1)/6.
    expect(spearmanRho([4, 3, 2, 1], [4, 2, 3, 1])).toBeCloseTo(0.8);
    expect(kendallTauB([4, 3, 2, 1], [4, 2, 3, 1])).toBeCloseTo(4 / 6);
    // Ties on one side: τ-b = (C - D) / sqrt((n0 - n1)(n0 - n2)) = 5 / sqrt(6 · 5).
    expect(kendallTauB([4, 3, 2, 1], [4, 3, 3, 1])).toBeCloseTo(5 / Math.sqrt(30));
  });

  it('has no correlation for fewer than two agents or a constant side', () => {
    expect(spearmanRho([0.5], [0.4])).toBeNull();
    expect(spearmanRho([0.5, 0.4], [0.3, 0.3])).toBeNull();
    expect(kendallTauB([0.5, 0.5], [0.3, 0.3])).toBeNull();
  });
});

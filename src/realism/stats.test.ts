import { describe, expect, it } from 'vitest';
import {
  auc,
  clusterBootstrapAuc,
  clusterBootstrapMean,
  clusterBootstrapMeanAuc,
  groupedFolds,
  tost,
  type Scored,
} from './stats.js';

const item = (score: number, label: 0 | 1, cluster = `c${score}-${label}`): Scored => ({
  score,
  label,
  cluster,
});

describe('auc', () => {
  it('counts the positive-above-negative pairs, ties half', () => {
    // Positives 0.9, 0.6, 0.4; negatives 0.6, 0.3. Pairs (p, n): (0.9, 0.6) 1, (0.9, 0.3) 1,
    // (0.6, 0.6) ½, (0.6, 0.3) 1, (0.4, 0.6) 0, (0.4, 0.3) 1 → 4.5 of 6.
    const items = [item(0.9, 1), item(0.6, 1), item(0.4, 1), item(0.6, 0), item(0.3, 0)];
    expect(auc(items)).toBeCloseTo(4.5 / 6, 12);
  });

  it('is 1 when every positive scores above every negative and 0 the other way round', () => {
    expect(auc([item(2, 1), item(3, 1), item(1, 0)])).toBe(1);
    expect(auc([item(0, 1), item(3, 0), item(1, 0)])).toBe(0);
  });
});

function noisySample(count: number, seed: number): Scored[] {
  let state = seed;
  const next = () => (state = (state * 1103515245 + 12345) % 2147483648) / 2147483648;
  return Array.from({ length: count }, (_, index) => {
    const label = (index % 2) as 0 | 1;
    return item(next() + label * 0.3, label, `cluster-${Math.floor(index / 4)}`);
  });
}

describe('clusterBootstrapAuc', () => {
  const options = { resamples: 2000, seed: 7, level: 0.9 };

  it('gives the same interval for the same seed and another for another seed', () => {
    const items = noisySample(120, 3);
    const first = clusterBootstrapAuc(items, options);
    expect(clusterBootstrapAuc(items, options)).toEqual(first);
    expect(clusterBootstrapAuc(items, { ...options, seed: 8 })).not.toEqual(first);
    expect(first.low).toBeLessThan(auc(items));
    expect(first.high).toBeGreaterThan(auc(items));
  });

  it('resamples whole clusters: a sample whose items repeat in clusters is no more precise', () => {
    const once = noisySample(60, 5).map((one, index) => ({ ...one, cluster: `k${index}` }));
    // Each item three times in its own cluster: the same information, so the same width.
    const thrice = once.flatMap((one) => [one, { ...one }, { ...one }]);
    const width = (ci: { low: number; high: number }) => ci.high - ci.low;
    const narrowIfIndependent = clusterBootstrapAuc(
      thrice.map((one, index) => ({ ...one, cluster: `i${index}` })),
      options,
    );
    expect(width(clusterBootstrapAuc(thrice, options))).toBeCloseTo(
      width(clusterBootstrapAuc(once, options)),
      1,
    );
    expect(width(narrowIfIndependent)).toBeLessThan(width(clusterBootstrapAuc(once, options)));
  });

  it('averages replicates under one draw of clusters', () => {
    const a = noisySample(80, 11);
    const b = a.map((one) => ({ ...one, label: (1 - one.label) as 0 | 1 }));
    const ci = clusterBootstrapMeanAuc([a, b], options);
    // The two labellings mirror each other: their mean AUC is 0.5 in every resample.
    expect(ci.low).toBeCloseTo(0.5, 12);
    expect(ci.high).toBeCloseTo(0.5, 12);
  });
});

describe('clusterBootstrapMean', () => {
  it('is deterministic for a seed and brackets the mean', () => {
    const items = Array.from({ length: 50 }, (_, index) => ({
      value: index % 3 === 0 ? 1 : 0,
      cluster: `c${index % 10}`,
    }));
    const options = { resamples: 1000, seed: 2, level: 0.9 };
    const ci = clusterBootstrapMean(items, options);
    expect(clusterBootstrapMean(items, options)).toEqual(ci);
    expect(ci.low).toBeLessThan(17 / 50);
    expect(ci.high).toBeGreaterThan(17 / 50);
  });
});

describe('tost', () => {
  it('is equivalent only when the whole interval lies strictly inside (0.45, 0.55)', () => {
    expect(tost({ low: 0.46, high: 0.54 }).kind).toBe('Equivalent');
    expect(tost({ low: 0.45, high: 0.54 }).kind).toBe('Inconclusive');
    expect(tost({ low: 0.48, high: 0.55 }).kind).toBe('Inconclusive');
    expect(tost({ low: 0.4, high: 0.6 }).kind).toBe('Inconclusive');
    expect(tost({ low: 0.56, high: 0.7 }).kind).toBe('Distinguishable');
    expect(tost({ low: 0.2, high: 0.45 }).kind).toBe('Distinguishable');
  });
});

describe('groupedFolds', () => {
  it('never splits a group and uses every fold', () => {
    const groups = Array.from({ length: 200 }, (_, index) => `g${index % 37}`);
    const labels = groups.map((_, index) => (index % 3 === 0 ? 1 : 0) as 0 | 1);
    const folds = groupedFolds(groups, labels, 5, 1);
    const foldOfGroup = new Map<string, Set<number>>();
    groups.forEach((group, index) =>
      foldOfGroup.set(group, (foldOfGroup.get(group) ?? new Set()).add(folds[index]!)),
    );
    for (const seen of foldOfGroup.values()) expect(seen.size).toBe(1);
    expect(new Set(folds)).toEqual(new Set([0, 1, 2, 3, 4]));
  });

  it('keeps both classes in every fold when the groups allow it', () => {
    const groups = Array.from({ length: 40 }, (_, index) => `g${index}`);
    const labels = groups.map((_, index) => (index < 20 ? 1 : 0) as 0 | 1);
    const folds = groupedFolds(groups, labels, 5, 3);
    for (let fold = 0; fold < 5; fold++) {
      const mine = labels.filter((_, index) => folds[index] === fold);
      expect(mine.filter((label) => label === 1)).toHaveLength(4);
      expect(mine.filter((label) => label === 0)).toHaveLength(4);
    }
  });

  it('makes no more folds than there are groups', () => {
    expect(new Set(groupedFolds(['a', 'a', 'b'], [1, 1, 0], 5, 1)).size).toBe(2);
  });
});

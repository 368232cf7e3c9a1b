import { seededRandom, shuffled } from '../core/random.js';

/*
 * The study's statistics (WitnessGym, Appendix H.2): AUC with ties counted half, its
 * whole-cluster bootstrap interval (clusters resampled with replacement, items of a cluster kept
 * together), the TOST equivalence verdict against (0.45, 0.55), and cross-validation folds that
 * never split a group.
 */

/** One scored item: label 1 is the positive class (injected). */
export interface Scored {
  score: number;
  label: 0 | 1;
  cluster: string;
}

/** Sorted by score, with tie blocks, so each resample's AUC is one pass. */
interface Ranked {
  /** Start index of each block of equal scores; the last entry is the item count. */
  blocks: number[];
  labels: Uint8Array;
  clusterOf: Int32Array;
  clusters: readonly string[];
}

function rank(
  items: readonly Scored[],
  clusters: readonly string[] = [...new Set(items.map((item) => item.cluster))],
): Ranked {
  const sorted = [...items].sort((a, b) => a.score - b.score);
  const clusterIndex = new Map(clusters.map((cluster, index) => [cluster, index]));
  const blocks: number[] = [];
  sorted.forEach((item, index) => {
    if (index === 0 || item.score !== sorted[index - 1]!.score) blocks.push(index);
  });
  blocks.push(sorted.length);
  return {
    blocks,
    labels: Uint8Array.from(sorted.map((item) => item.label)),
    clusterOf: Int32Array.from(sorted.map((item) => clusterIndex.get(item.cluster)!)),
    clusters,
  };
}

/** AUC with each item weighted by its cluster's multiplicity; NaN when a class has no weight. */
function weightedAuc(ranked: Ranked, multiplicity: ArrayLike<number>): number {
  let negativesBelow = 0;
  let pairs = 0;
  let positives = 0;
  for (let b = 0; b + 1 < ranked.blocks.length; b++) {
    let blockPositives = 0;
    let blockNegatives = 0;
    for (let i = ranked.blocks[b]!; i < ranked.blocks[b + 1]!; i++) {
      const weight = multiplicity[ranked.clusterOf[i]!]!;
      if (ranked.labels[i] === 1) blockPositives += weight;
      else blockNegatives += weight;
    }
    pairs += blockPositives * (negativesBelow + blockNegatives / 2);
    negativesBelow += blockNegatives;
    positives += blockPositives;
  }
  return positives === 0 || negativesBelow === 0 ? NaN : pairs / (positives * negativesBelow);
}

/** The probability that a random positive scores above a random negative (ties count half). */
export function auc(items: readonly Scored[]): number {
  const ranked = rank(items);
  return weightedAuc(ranked, new Float64Array(ranked.clusters.length).fill(1));
}

export interface Interval {
  low: number;
  high: number;
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  /** 0.9 for the study's 90 % interval. */
  level: number;
}

export const STUDY_BOOTSTRAP: BootstrapOptions = { resamples: 10_000, seed: 1, level: 0.9 };

function quantile(sorted: readonly number[], q: number): number {
  const position = (sorted.length - 1) * q;
  const below = Math.floor(position);
  const above = Math.ceil(position);
  return sorted[below]! + (sorted[above]! - sorted[below]!) * (position - below);
}

/**
 * Percentile interval of the AUC over resamples of whole clusters. Clusters are resampled within
 * strata of the labels they hold (only positives, only negatives, both), so every resample has
 * both classes in the sample's proportions.
 */
export function clusterBootstrapAuc(items: readonly Scored[], options: BootstrapOptions): Interval {
  return clusterBootstrapMeanAuc([items], options);
}

/** The mean AUC of replicates: the same clusters under other labels or scores. */
export function meanAuc(replicates: readonly (readonly Scored[])[]): number {
  return replicates.reduce((sum, items) => sum + auc(items), 0) / replicates.length;
}

/**
 * The interval of `meanAuc`: each resample draws clusters once and weighs every replicate by the
 * same draw, so the replicates' own variation averages out while the sample's is kept.
 */
export function clusterBootstrapMeanAuc(
  replicates: readonly (readonly Scored[])[],
  options: BootstrapOptions,
): Interval {
  const clusters = [...new Set(replicates.flatMap((items) => items.map((item) => item.cluster)))];
  const ranked = replicates.map((items) => rank(items, clusters));
  const labelsOf = clusters.map(() => new Set<number>());
  for (const one of ranked) {
    one.clusterOf.forEach((cluster, i) => labelsOf[cluster]!.add(one.labels[i]!));
  }
  const strata = new Map<string, number[]>();
  labelsOf.forEach((labels, cluster) => {
    const key = [...labels].sort().join();
    strata.set(key, [...(strata.get(key) ?? []), cluster]);
  });
  const random = seededRandom(options.seed);
  const multiplicity = new Float64Array(clusters.length);
  const values: number[] = [];
  for (let r = 0; r < options.resamples; r++) {
    multiplicity.fill(0);
    for (const members of strata.values()) {
      for (let k = 0; k < members.length; k++) {
        multiplicity[members[Math.floor(random() * members.length)]!]! += 1;
      }
    }
    const value =
      ranked.reduce((sum, one) => sum + weightedAuc(one, multiplicity), 0) / ranked.length;
    if (!Number.isNaN(value)) values.push(value);
  }
  values.sort((a, b) => a - b);
  if (values.length === 0) return { low: NaN, high: NaN };
  const tail = (1 - options.level) / 2;
  return { low: quantile(values, tail), high: quantile(values, 1 - tail) };
}

/** Percentile interval of a mean (an accuracy) over resamples of whole clusters. */
export function clusterBootstrapMean(
  items: readonly { value: number; cluster: string }[],
  options: BootstrapOptions,
): Interval {
  const sums = new Map<string, { sum: number; count: number }>();
  for (const item of items) {
    const entry = sums.get(item.cluster) ?? { sum: 0, count: 0 };
    entry.sum += item.value;
    entry.count += 1;
    sums.set(item.cluster, entry);
  }
  const clusters = [...sums.values()];
  if (clusters.length === 0) return { low: NaN, high: NaN };
  const random = seededRandom(options.seed);
  const values: number[] = [];
  for (let r = 0; r < options.resamples; r++) {
    let sum = 0;
    let count = 0;
    for (let k = 0; k < clusters.length; k++) {
      const drawn = clusters[Math.floor(random() * clusters.length)]!;
      sum += drawn.sum;
      count += drawn.count;
    }
    values.push(sum / count);
  }
  values.sort((a, b) => a - b);
  const tail = (1 - options.level) / 2;
  return { low: quantile(values, tail), high: quantile(values, 1 - tail) };
}

export const EQUIVALENCE_BOUNDS: Interval = { low: 0.45, high: 0.55 };

export type Equivalence =
  /** The whole interval lies strictly inside the bounds: chance-level within the margin. */
  | { kind: 'Equivalent' }
  /** The whole interval lies outside the bounds: the sides are told apart. */
  | { kind: 'Distinguishable' }
  /** The interval reaches a bound: neither shown. */
  | { kind: 'Inconclusive' };

/** Two one-sided tests at α = 0.05, read off the 90 % interval (Schuirmann 1987). */
export function tost(interval: Interval, bounds: Interval = EQUIVALENCE_BOUNDS): Equivalence {
  if (interval.low > bounds.low && interval.high < bounds.high) return { kind: 'Equivalent' };
  if (interval.low >= bounds.high || interval.high <= bounds.low)
    return { kind: 'Distinguishable' };
  return { kind: 'Inconclusive' };
}

/**
 * k folds, each group whole in one fold. Groups are dealt largest first (ties in seeded order)
 * to the fold that has the fewest items of the group's majority label, so classes stay balanced
 * across folds. Returns each item's fold; fewer groups than k give fewer folds.
 */
export function groupedFolds(
  groups: readonly string[],
  labels: readonly (0 | 1)[],
  k: number,
  seed: number,
): number[] {
  const members = new Map<string, number[]>();
  groups.forEach((group, index) => members.set(group, [...(members.get(group) ?? []), index]));
  const folds = Math.min(k, members.size);
  const counts = Array.from({ length: folds }, () => [0, 0]);
  const order = shuffled([...members.keys()], seededRandom(seed)).sort(
    (a, b) => members.get(b)!.length - members.get(a)!.length,
  );
  const foldOf = new Array<number>(groups.length).fill(0);
  for (const group of order) {
    const items = members.get(group)!;
    const positives = items.filter((index) => labels[index] === 1).length;
    const label = positives * 2 >= items.length ? 1 : 0;
    let target = 0;
    for (let fold = 1; fold < folds; fold++) {
      const better =
        counts[fold]![label]! < counts[target]![label]! ||
        (counts[fold]![label] === counts[target]![label] &&
          counts[fold]![0]! + counts[fold]![1]! < counts[target]![0]! + counts[target]![1]!);
      if (better) target = fold;
    }
    counts[target]![1]! += positives;
    counts[target]![0]! += items.length - positives;
    for (const index of items) foldOf[index] = target;
  }
  return foldOf;
}

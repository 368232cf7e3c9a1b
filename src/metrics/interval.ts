export interface Interval {
  low: number;
  high: number;
}

/**
 * Wilson score interval of a binomial proportion (95% for the default z). Unlike the normal
 * approximation it stays inside [0, 1] and is not empty at 0/n or n/n, which small cells hit.
 * With no trials nothing is known, so n = 0 gives the whole range {0, 1}.
 */
export function wilsonInterval(successes: number, n: number, z = 1.96): Interval {
  if (n === 0) return { low: 0, high: 1 };
  const rate = successes / n;
  const z2 = z * z;
  const denominator = 1 + z2 / n;
  const centre = (rate + z2 / (2 * n)) / denominator;
  const halfWidth = (z / denominator) * Math.sqrt((rate * (1 - rate)) / n + z2 / (4 * n * n));
  // Rounding can push the bounds a hair past 0 or 1 at 0/n and n/n.
  return { low: Math.max(0, centre - halfWidth), high: Math.min(1, centre + halfWidth) };
}

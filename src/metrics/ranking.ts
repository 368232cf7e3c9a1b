/*
 * Leaderboard statistics for a re-evaluation: competition ranks ("1224": ties share the best
 * rank), and the rank correlations the SWE-ABS paper reports, Spearman's ρ (Pearson's r of the
 * average ranks, which handles ties) and Kendall's τ-b.
 */

/** Competition ranks of scores, highest first: equal scores share the best rank. */
export function competitionRanks(scores: readonly number[]): number[] {
  return scores.map((score) => 1 + scores.filter((other) => other > score).length);
}

/** Average ranks (ties get the mean of the ranks they span), highest score first. */
function averageRanks(scores: readonly number[]): number[] {
  return scores.map((score) => {
    const above = scores.filter((other) => other > score).length;
    const tied = scores.filter((other) => other === score).length;
    return above + (tied + 1) / 2;
  });
}

function pearson(xs: readonly number[], ys: readonly number[]): number | null {
  const n = xs.length;
  if (n < 2) return null;
  const mean = (values: readonly number[]) => values.reduce((sum, v) => sum + v, 0) / n;
  const mx = mean(xs);
  const my = mean(ys);
  let sxy = 0;
  let sxx = 0;
  let syy = 0;
  for (let i = 0; i < n; i++) {
    sxy += (xs[i]! - mx) * (ys[i]! - my);
    sxx += (xs[i]! - mx) ** 2;
    syy += (ys[i]! - my) ** 2;
  }
  // A constant side has no order to correlate with.
  return sxx === 0 || syy === 0 ? null : sxy / Math.sqrt(sxx * syy);
}

/** Spearman's ρ of two score lists over the same agents; null when undefined (n < 2, constant). */
export function spearmanRho(before: readonly number[], after: readonly number[]): number | null {
  return pearson(averageRanks(before), averageRanks(after));
}

/** Kendall's τ-b of two score lists; null when undefined. */
export function kendallTauB(before: readonly number[], after: readonly number[]): number | null {
  const n = before.length;
  let concordant = 0;
  let discordant = 0;
  let tiedBefore = 0;
  let tiedAfter = 0;
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const a = Math.sign(before[i]! - before[j]!);
      const b = Math.sign(after[i]! - after[j]!);
      if (a === 0 && b === 0) continue;
      if (a === 0) tiedBefore++;
      else if (b === 0) tiedAfter++;
      else if (a === b) concordant++;
      else discordant++;
    }
  }
  const denominator = Math.sqrt(
    (concordant + discordant + tiedBefore) * (concordant + discordant + tiedAfter),
  );
  return denominator === 0 ? null : (concordant - discordant) / denominator;
}

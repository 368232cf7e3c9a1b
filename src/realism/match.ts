import { seededRandom, shuffled } from '../core/random.js';
import { DEFECTS4J_PROJECTS, type RealismPatch } from './patches.js';

/*
 * Size matching: each injected patch gets the real patch nearest in changed lines, hunks and
 * files (on a log scale: 3 against 5 lines is as far as 30 against 50), drawn without
 * replacement, injected patches taken in a seeded order. A real bug of the injected case's own
 * project is preferred unless one of another project is nearer by more than PROJECT_PREFERENCE,
 * as the paper matched by repository first.
 */

export const PROJECT_PREFERENCE = 0.3;

export interface MatchedPair {
  injected: RealismPatch;
  real: RealismPatch;
  distance: number;
}

export type Matching =
  | { kind: 'Matched'; pairs: MatchedPair[] }
  | { kind: 'TooFewReal'; injected: number; real: number };

function sizeDistance(a: RealismPatch, b: RealismPatch): number {
  const log = (value: number) => Math.log(1 + value);
  return (
    Math.abs(log(a.size.changedLines) - log(b.size.changedLines)) +
    0.5 * Math.abs(log(a.size.hunks) - log(b.size.hunks)) +
    0.5 * Math.abs(log(a.size.files) - log(b.size.files))
  );
}

function matchDistance(injected: RealismPatch, real: RealismPatch): number {
  const sameProject = DEFECTS4J_PROJECTS[injected.project] === real.project;
  return sizeDistance(injected, real) + (sameProject ? 0 : PROJECT_PREFERENCE);
}

export function matchBySize(
  injected: readonly RealismPatch[],
  real: readonly RealismPatch[],
  seed: number,
): Matching {
  if (real.length < injected.length) {
    return { kind: 'TooFewReal', injected: injected.length, real: real.length };
  }
  const random = seededRandom(seed);
  const available = shuffled(real, random);
  const pairs: MatchedPair[] = [];
  for (const patch of shuffled(injected, random)) {
    let best = 0;
    let bestDistance = Infinity;
    available.forEach((candidate, index) => {
      const distance = matchDistance(patch, candidate);
      if (distance < bestDistance) [best, bestDistance] = [index, distance];
    });
    const [real] = available.splice(best, 1);
    pairs.push({ injected: patch, real: real!, distance: sizeDistance(patch, real!) });
  }
  return { kind: 'Matched', pairs };
}

import path from 'node:path';
import { shuffled } from '../../core/random.js';
import type { Plausibility } from './rules/types.js';

/*
 * The order the rules engine tries its candidates in: the more plausible first, and spread over
 * files, members and witnesses, so that a run's bugs are not a handful of one method's variants.
 */

export interface Orderable {
  file: string;
  member: string;
  plausibility: Plausibility;
}

/** Where a run's accepted bugs already are: files, and members as `file#member`. */
export interface Covered {
  files: ReadonlySet<string>;
  members: ReadonlySet<string>;
}

export function memberId(site: { file: string; member: string }): string {
  return `${site.file}#${site.member}`;
}

/** Round-robin over groups: the first of each, then the second of each, and so on. */
function interleaved<T>(groups: readonly T[][]): T[] {
  const order: T[] = [];
  const longest = Math.max(0, ...groups.map((group) => group.length));
  for (let round = 0; round < longest; round++)
    for (const group of groups) if (round < group.length) order.push(group[round]!);
  return order;
}

function groupedBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return groups;
}

/**
 * The seeded order: rank by rank (most plausible first); within a rank, files in shuffled order
 * taking turns, and within a file its members taking turns, one rewrite each, so no method gets a
 * second try before every file and method of that rank has had one.
 */
export function triesInOrder<T extends Orderable>(
  candidates: readonly T[],
  random: () => number,
): T[] {
  const ranks = [...new Set(candidates.map((c) => c.plausibility.rank))].sort((a, b) => a - b);
  return ranks.flatMap((rank) => {
    const byFile = groupedBy(
      candidates.filter((c) => c.plausibility.rank === rank),
      (c) => c.file,
    );
    const files = shuffled([...byFile.keys()].sort(), random).map((file) => {
      const byMember = groupedBy(byFile.get(file)!, (c) => c.member);
      const members = shuffled([...byMember.keys()].sort(), random);
      return interleaved(members.map((member) => shuffled(byMember.get(member)!, random)));
    });
    return interleaved(files);
  });
}

function lexicographic(a: readonly number[], b: readonly number[]): number {
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return a[i]! - b[i]!;
  return 0;
}

/**
 * The next candidate to try: the first of `order` not yet done, preferring, in this order, a
 * member without an accepted bug, a more plausible rank, then a file without one; so a second bug
 * in one method waits until every other method's candidates are spent.
 */
export function nextTry<T extends Orderable>(
  order: readonly T[],
  isDone: (candidate: T) => boolean,
  covered: Covered,
): T | undefined {
  let best: T | undefined;
  let bestKey: number[] = [];
  for (const candidate of order) {
    if (isDone(candidate)) continue;
    const key = [
      covered.members.has(memberId(candidate)) ? 1 : 0,
      candidate.plausibility.rank,
      covered.files.has(candidate.file) ? 1 : 0,
    ];
    if (!best || lexicographic(key, bestKey) < 0) {
      best = candidate;
      bestKey = key;
    }
  }
  return best;
}

/** `CSVFormatTest`, `TestCSVFormat`, `CSVFormatTests` for `CSVFormat`: the class's own tests. */
function testsOf(testClass: string, className: string): boolean {
  const simple = testClass.slice(testClass.lastIndexOf('.') + 1);
  return [`${className}Test`, `Test${className}`, `${className}Tests`].includes(simple);
}

/**
 * The witness a candidate in `file` is tried with: the file's class's own tests if they reach it
 * (they are the ones that assert on its behaviour), else the reaching witness fewest accepted
 * bugs use; ties in the run's seeded `order`.
 */
export function witnessFor(
  file: string,
  witnesses: readonly string[],
  order: readonly string[],
  uses: ReadonlyMap<string, number>,
): string {
  const reaching = order.filter((testClass) => witnesses.includes(testClass));
  if (reaching.length === 0) throw new Error(`no witness of ${witnesses.join(', ')} in the run`);
  const className = path.basename(file, '.java');
  const own = reaching.find((testClass) => testsOf(testClass, className));
  if (own) return own;
  return reaching.reduce((best, testClass) =>
    (uses.get(testClass) ?? 0) < (uses.get(best) ?? 0) ? testClass : best,
  );
}

import { describe, expect, it } from 'vitest';
import { seededRandom } from '../../core/random.js';
import { nextTry, triesInOrder, witnessFor, type Covered } from './try-order.js';
import { plausibility, type Plausibility } from './rules/types.js';

interface Candidate {
  id: string;
  file: string;
  member: string;
  plausibility: Plausibility;
}

const at = (id: string, file: string, member: string, rank: 0 | 1 | 2 = 0): Candidate => ({
  id,
  file,
  member,
  plausibility: plausibility(rank, 'test'),
});

const NOTHING: Covered = { files: new Set(), members: new Set() };

describe('the order of tries', () => {
  const candidates = [
    at('a1', 'A.java', 'f()'),
    at('a2', 'A.java', 'f()'),
    at('a3', 'A.java', 'g()'),
    at('b1', 'B.java', 'h()'),
    at('c1', 'C.java', 'k()', 1),
    at('a4', 'A.java', 'f()', 2),
  ];

  it('tries rank by rank, every file and method of a rank before a second in one method', () => {
    for (const seed of [1, 2, 3, 4]) {
      const order = triesInOrder(candidates, seededRandom(seed));
      expect(order.slice(4).map((c) => c.id)).toEqual(['c1', 'a4']);
      expect(new Set(order.slice(0, 2).map((c) => c.file))).toEqual(new Set(['A.java', 'B.java']));
      const secondOfF = order.filter((c) => c.member === 'f()')[1]!;
      expect(order.findIndex((c) => c.id === 'a3')).toBeLessThan(order.indexOf(secondOfF));
    }
  });

  it('is the same for the same seed', () => {
    const once = triesInOrder(candidates, seededRandom(7)).map((c) => c.id);
    expect(triesInOrder(candidates, seededRandom(7)).map((c) => c.id)).toEqual(once);
  });

  it('puts off a method that already has an accepted bug, then a file that has one', () => {
    const order = triesInOrder(candidates, seededRandom(1));
    const covered: Covered = { files: new Set(['A.java']), members: new Set(['A.java#f()']) };
    const done = new Set<string>();
    const tries: string[] = [];
    for (let next = nextTry(order, (c) => done.has(c.id), covered); next;) {
      tries.push(next.id);
      done.add(next.id);
      next = nextTry(order, (c) => done.has(c.id), covered);
    }
    expect(tries).toEqual(['b1', 'a3', 'c1', 'a1', 'a2', 'a4']);
    expect(nextTry(order, () => false, NOTHING)).toBe(order[0]);
  });

  it('gives a candidate its class’s own tests, else the witness fewest accepted bugs use', () => {
    const order = ['p.T1', 'p.T2', 'p.FormatTest', 'p.T3'];
    const file = 'src/main/java/p/Format.java';
    const uses = new Map([['p.FormatTest', 5]]);
    expect(witnessFor(file, ['p.T3', 'p.FormatTest'], order, uses)).toBe('p.FormatTest');
    expect(witnessFor(file, ['p.T3', 'p.T2'], order, new Map())).toBe('p.T2');
    expect(witnessFor(file, ['p.T3', 'p.T2'], order, new Map([['p.T2', 1]]))).toBe('p.T3');
    expect(() => witnessFor(file, ['p.T9'], order, new Map())).toThrow(/no witness/);
  });
});

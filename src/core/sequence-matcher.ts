/*
 * The similarity of Python's difflib.SequenceMatcher (the paper's patch-evolution metrics are
 * defined by it), with its exact semantics: no junk function, and the "autojunk" heuristic that
 * treats elements of `b` occurring in more than 1% of a sequence of 200 or more as popular (they
 * start no match, but extend one). Results equal Python's for the same sequences.
 */

interface Block {
  a: number;
  b: number;
  size: number;
}

const AUTOJUNK_MIN_LENGTH = 200;

export class SequenceMatcher<T> {
  /** Positions of each non-popular element of `b`, ascending. */
  private readonly positionsInB = new Map<T, number[]>();

  constructor(
    private readonly a: readonly T[],
    private readonly b: readonly T[],
  ) {
    b.forEach((element, index) => {
      const positions = this.positionsInB.get(element);
      if (positions) positions.push(index);
      else this.positionsInB.set(element, [index]);
    });
    if (b.length >= AUTOJUNK_MIN_LENGTH) {
      const popularAbove = Math.floor(b.length / 100) + 1;
      for (const [element, positions] of [...this.positionsInB]) {
        if (positions.length > popularAbove) this.positionsInB.delete(element);
      }
    }
  }

  /** The longest block `a[i..i+size) == b[j..j+size)` in the ranges, leftmost in `a`, then `b`. */
  private longestMatch(aLow: number, aHigh: number, bLow: number, bHigh: number): Block {
    const { a, b } = this;
    let best: Block = { a: aLow, b: bLow, size: 0 };
    let lengthEndingAt = new Map<number, number>();
    for (let i = aLow; i < aHigh; i++) {
      const next = new Map<number, number>();
      for (const j of this.positionsInB.get(a[i]!) ?? []) {
        if (j < bLow) continue;
        if (j >= bHigh) break;
        const size = (lengthEndingAt.get(j - 1) ?? 0) + 1;
        next.set(j, size);
        if (size > best.size) best = { a: i - size + 1, b: j - size + 1, size };
      }
      lengthEndingAt = next;
    }
    // Popular elements never start a match, but a match grows over them on either side.
    while (best.a > aLow && best.b > bLow && a[best.a - 1] === b[best.b - 1]) {
      best = { a: best.a - 1, b: best.b - 1, size: best.size + 1 };
    }
    while (
      best.a + best.size < aHigh &&
      best.b + best.size < bHigh &&
      a[best.a + best.size] === b[best.b + best.size]
    ) {
      best = { ...best, size: best.size + 1 };
    }
    return best;
  }

  /** The matching blocks, as difflib finds them: recursively, longest first. */
  matchingBlocks(): Block[] {
    const blocks: Block[] = [];
    const ranges: [number, number, number, number][] = [[0, this.a.length, 0, this.b.length]];
    while (ranges.length > 0) {
      const [aLow, aHigh, bLow, bHigh] = ranges.pop()!;
      const match = this.longestMatch(aLow, aHigh, bLow, bHigh);
      if (match.size === 0) continue;
      blocks.push(match);
      if (aLow < match.a && bLow < match.b) ranges.push([aLow, match.a, bLow, match.b]);
      if (match.a + match.size < aHigh && match.b + match.size < bHigh) {
        ranges.push([match.a + match.size, aHigh, match.b + match.size, bHigh]);
      }
    }
    return blocks.sort((x, y) => x.a - y.a || x.b - y.b);
  }

  /** 2·M / T: M matched elements, T elements in both sequences; 1 for two empty sequences. */
  ratio(): number {
    const total = this.a.length + this.b.length;
    if (total === 0) return 1;
    const matched = this.matchingBlocks().reduce((sum, block) => sum + block.size, 0);
    return (2 * matched) / total;
  }
}

/** difflib's `SequenceMatcher(None, a, b).ratio()`. */
export function similarity<T>(a: readonly T[], b: readonly T[]): number {
  return new SequenceMatcher(a, b).ratio();
}

import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { identicalComparisonInjector as injector } from './identical-comparison.js';

const SOURCE = `package p;

public final class Range {
    private final int min;
    private final int max;
    private final double scale;

    public boolean equals(final Object obj) {
        if (!(obj instanceof Range)) {
            return false;
        }
        final Range other = (Range) obj;
        return min == other.min && max == other.max;
    }

    public boolean isNaN(double d) {
        return d != scale;
    }

    int min() { return min; }
    int getMin() { return min; }
    int getMax() { return max; }
    boolean isOrdered() { return getMin() <= getMax(); }
}
`;

/** Comparisons whose operands are not alike: no copy-paste slip makes them identical. */
const UNALIKE = `package p;

class Walker {
    static final int EOF = -1;
    int maxQueueDepth;
    Object[] filters;
    Mode mode;
    Mode getQuoteMode() { return mode; }

    int walk(Node node, Node head, int n, java.util.Queue<Node> queue, int c) {
        for (int i = 0; i < n; i++) {
            if (node == head) return i;
            if (n < filters.length) return -i;
            if (getQuoteMode() == Mode.NONE) return 0;
            if (queue.size() >= maxQueueDepth) return 1;
        }
        while (c != EOF) c = read();
        return n;
    }
}
`;

beforeAll(loadJavaGrammar);

describe('Comparison of Identical Values', () => {
  it('offers each operand of each comparison in place of the other', () => {
    const mutations = mutationsAt(injector, SOURCE, 'equals', 8);
    const rewritten = mutations.map((m) => /return .* && .*;/.exec(m.source)![0]);
    expect(rewritten).toEqual([
      'return min == min && max == other.max;',
      'return other.min == other.min && max == other.max;',
      'return min == other.min && max == max;',
      'return min == other.min && other.max == other.max;',
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.methodKey).toBe('Range.equals(Object)');
  });

  it('ranks a forgotten qualifier above one copied onto the other side', () => {
    const ranks = mutationsAt(injector, SOURCE, 'equals', 8).map((m) => m.plausibility.rank);
    expect(ranks).toEqual([0, 1, 0, 1]);
  });

  it('offers one getter for its sibling', () => {
    const mutations = mutationsAt(injector, SOURCE, 'isOrdered', 23);
    expect(mutations.map((m) => m.description)).toEqual([
      'getMin() <= getMax(): getMax() → getMin()',
      'getMin() <= getMax(): getMin() → getMax()',
    ]);
    expect(mutations.every((m) => m.check.kind === 'Matches')).toBe(true);
  });

  it.each([
    ['i < n', 'i < i'],
    ['n < filters.length', 'filters.length < filters.length'],
    ['node == head', 'node == node'],
    ['getQuoteMode() == Mode.NONE', 'getQuoteMode() == getQuoteMode()'],
    ['queue.size() >= maxQueueDepth', 'maxQueueDepth >= maxQueueDepth'],
    ['c != EOF', 'EOF != EOF'],
  ])('refuses %s → %s: the operands are not alike', (before, after) => {
    const offered = mutationsAt(injector, UNALIKE, 'walk', 10).map((m) => m.source);
    expect(offered.some((source) => source.includes(after))).toBe(false);
    expect(checkChange(injector, UNALIKE, UNALIKE.replace(before, after)).kind).toBe('Mismatch');
  });

  it('leaves comparisons with literals, null and floating-point self-checks alone', () => {
    expect(mutationsAt(injector, SOURCE, 'isNaN', 16)).toEqual([]);
  });

  it('rejects a near miss: an operand swapped for a different expression', () => {
    const nearMiss = SOURCE.replace('max == other.max', 'max == other.min');
    const verdict = checkChange(injector, SOURCE, nearMiss);
    expect(verdict.kind).toBe('Mismatch');
  });

  it('does not credit a self-comparison the method already had', () => {
    const before = SOURCE.replace('d != scale', 'd != d');
    expect(checkChange(injector, before, before.replace('return min', 'return  min')).kind).toBe(
      'Mismatch',
    );
  });
});

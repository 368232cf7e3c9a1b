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

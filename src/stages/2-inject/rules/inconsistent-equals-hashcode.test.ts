import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { inconsistentEqualsHashCodeInjector as injector } from './inconsistent-equals-hashcode.js';

const SOURCE = `package p;

import java.util.Objects;
import org.apache.commons.lang3.builder.EqualsBuilder;
import org.apache.commons.lang3.builder.HashCodeBuilder;

public final class Span {
    private final int start;
    private final int end;
    private final String name;
    private final boolean open;
    private transient int cache;

    @Override
    public boolean equals(final Object obj) {
        if (this == obj) {
            return true;
        }
        if (!(obj instanceof Span)) {
            return false;
        }
        final Span other = (Span) obj;
        if (open != other.open) {
            return false;
        }

        return start == other.start
            && end == other.end
            && Objects.equals(name, other.name);
    }

    @Override
    public int hashCode() {
        return Objects.hash(start, end, name, open);
    }

    static final class Pair {
        private final long first;
        private final long second;
        private final String label = "";

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Pair)) return false;
            Pair p = (Pair) o;
            if (first != p.first || second != p.second) return false;
            return label.equals(p.label);
        }

        @Override
        public int hashCode() {
            return (int) (first ^ second);
        }
    }

    static final class Built {
        private final int a = 0;
        private final int b = 0;

        @Override
        public boolean equals(Object o) {
            if (!(o instanceof Built)) {
                return false;
            }
            Built that = (Built) o;
            return new EqualsBuilder()
                .append(a, that.a)
                .append(b, that.b)
                .isEquals();
        }

        @Override
        public int hashCode() {
            return new HashCodeBuilder().append(a).append(b).toHashCode();
        }

        public boolean same(Built that) {
            return a == that.a;
        }
    }
}
`;

const CHECK = `        if (open != other.open) {
            return false;
        }
`;
const CHAIN = `        return start == other.start
            && end == other.end
            && Objects.equals(name, other.name);`;

beforeAll(loadJavaGrammar);

describe('Inconsistent equals and hashCode', () => {
  it('drops one comparison hashCode still depends on: a check or an && operand', () => {
    const mutations = mutationsAt(injector, SOURCE, 'equals', 15);
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(CHECK, ''),
      SOURCE.replace(
        CHAIN,
        '        return end == other.end\n            && Objects.equals(name, other.name);',
      ),
      SOURCE.replace(
        CHAIN,
        '        return start == other.start\n            && Objects.equals(name, other.name);',
      ),
      SOURCE.replace(
        CHAIN,
        '        return start == other.start\n            && end == other.end;',
      ),
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.check).toEqual({
      kind: 'Matches',
      evidence: 'Span.equals no longer compares open, which hashCode still uses',
    });
  });

  it('drops one operand of an || check, never state hashCode ignores', () => {
    const mutations = mutationsAt(injector, SOURCE, 'equals', 43);
    expect(
      mutations.map((m) => /if \(.* return false;\n\s+return label/.exec(m.source)![0]),
    ).toEqual([
      'if (second != p.second) return false;\n            return label',
      'if (first != p.first) return false;\n            return label',
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
  });

  it('drops one append of an EqualsBuilder', () => {
    const mutations = mutationsAt(injector, SOURCE, 'equals', 61);
    expect(mutations.map((m) => /return new EqualsBuilder\(\)[^;]*;/.exec(m.source)![0])).toEqual([
      'return new EqualsBuilder()\n                .append(b, that.b)\n                .isEquals();',
      'return new EqualsBuilder()\n                .append(a, that.a)\n                .isEquals();',
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
  });

  it('offers nothing outside equals', () => {
    expect(mutationsAt(injector, SOURCE, 'hashCode', 33)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'same', 77)).toEqual([]);
  });

  it('accepts a hand-written variant: hashCode hashes state equals ignores', () => {
    const hashed = SOURCE.replace('name, open);', 'name, open, cache);');
    expect(checkChange(injector, SOURCE, hashed)).toEqual({
      kind: 'Matches',
      evidence: 'Span.hashCode now uses cache, which equals does not compare',
    });
    const unstable = SOURCE.replace('name, open);', 'name, open) ^ System.identityHashCode(this);');
    expect(checkChange(injector, SOURCE, unstable).kind).toBe('Matches');
  });

  it('matches accessors with the fields behind them', () => {
    const viaGetter = SOURCE.replace(
      'return start == other.start',
      'return getStart() == other.getStart()',
    ).replace(
      '    @Override\n    public int hashCode',
      '    int getStart() {\n        return start;\n    }\n\n    @Override\n    public int hashCode',
    );
    const dropped = viaGetter.replace('getStart() == other.getStart()\n            && ', '');
    expect(checkChange(injector, viaGetter, dropped)).toEqual({
      kind: 'Matches',
      evidence: 'Span.equals no longer compares start, which hashCode still uses',
    });
  });

  it('rejects near misses: type check dropped, self-comparison, both sides dropped, layout', () => {
    const typeCheck = SOURCE.replace(
      '        if (!(obj instanceof Span)) {\n            return false;\n        }\n',
      '',
    );
    expect(checkChange(injector, SOURCE, typeCheck).kind).toBe('Mismatch');
    const selfComparison = SOURCE.replace('end == other.end', 'end == end');
    expect(checkChange(injector, SOURCE, selfComparison).kind).toBe('Mismatch');
    const qualifierSlip = SOURCE.replace('end == other.end', 'other.end == other.end');
    expect(checkChange(injector, SOURCE, qualifierSlip).kind).toBe('Mismatch');
    const both = SOURCE.replace(CHECK, '').replace('name, open);', 'name);');
    expect(checkChange(injector, SOURCE, both).kind).toBe('Mismatch');
    const layout = SOURCE.replace(
      '            && end == other.end',
      '            && end == other.end // why',
    );
    expect(checkChange(injector, SOURCE, layout).kind).toBe('Mismatch');
    const unrelated = SOURCE.replace('return a == that.a;', 'return a != that.a;');
    expect(checkChange(injector, SOURCE, unrelated).kind).toBe('Mismatch');
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { hashedWithoutHashCodeInjector as injector } from './hashed-without-hashcode.js';

const SOURCE = `package p;

public class Money {
    private final long cents;
    private final String currency;

    public Money(long cents, String currency) {
        this.cents = cents;
        this.currency = currency;
    }

    @Override
    public boolean equals(Object obj) {
        if (!(obj instanceof Money)) {
            return false;
        }
        Money other = (Money) obj;
        return cents == other.cents && currency.equals(other.currency);
    }

    /**
     * A hash code consistent with {@link #equals(Object)}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return (int) (cents ^ (cents >>> 32)) * 31 + currency.hashCode();
    }

    //-----------------------------------------------------------------------
    @Override
    public String toString() {
        return cents + " " + currency;
    }

    static final class Tag {
        private final String text = "";

        @Override
        public int hashCode() {
            return text.hashCode();
        }
    }
}
`;

const HASH_CODE = `    /**
     * A hash code consistent with {@link #equals(Object)}.
     *
     * @return the hash code
     */
    @Override
    public int hashCode() {
        return (int) (cents ^ (cents >>> 32)) * 31 + currency.hashCode();
    }
`;

beforeAll(loadJavaGrammar);

describe('Hashed Value Without hashCode', () => {
  it('deletes hashCode with its javadoc and one blank line, leaving the divider', () => {
    const mutations = mutationsAt(injector, SOURCE, 'hashCode', 27);
    expect(mutations).toHaveLength(1);
    expect(mutations[0]!.source).toBe(SOURCE.replace(`\n${HASH_CODE}`, ''));
    expect(mutations[0]!.source).toContain('    }\n\n    //----');
    expect(mutations[0]!.parses).toBe(true);
    expect(mutations[0]!.check).toEqual({
      kind: 'Matches',
      evidence: 'Money overrides equals(Object) but no longer hashCode()',
    });
  });

  it('takes along a divider that would be left heading another divider', () => {
    const sectioned = `class Id {
    int id;

    public boolean equals(Object o) {
        return o instanceof Id && ((Id) o).id == id;
    }

    //-----------------------------------------------------------------------
    /** The id. */
    public int hashCode() {
        return id;
    }

    //-----------------------------------------------------------------------
    public String toString() {
        return "#" + id;
    }
}
`;
    const [mutation] = mutationsAt(injector, sectioned, 'hashCode', 10);
    expect(mutation!.source).toBe(`class Id {
    int id;

    public boolean equals(Object o) {
        return o instanceof Id && ((Id) o).id == id;
    }

    //-----------------------------------------------------------------------
    public String toString() {
        return "#" + id;
    }
}
`);
  });

  // As compress's CPMember under ClassFileEntry's `public abstract int hashCode()`.
  describe('where a superclass of the project declares hashCode() abstract', () => {
    const base = (body: string) => `package r;\n\npublic abstract class Amount {\n${body}}\n`;
    const money = SOURCE.replace('public class Money {', 'public class Money extends r.Amount {');

    it('offers nothing: without its hashCode the class does not compile', () => {
      const obliging = base('    public abstract int hashCode();\n');
      expect(mutationsAt(injector, money, 'hashCode', 27, [obliging])).toEqual([]);
    });

    it('deletes it where the superclass implements hashCode() or does not declare it', () => {
      const implemented = base('    public int hashCode() { return 0; }\n');
      expect(mutationsAt(injector, money, 'hashCode', 27, [implemented])).toHaveLength(1);
      expect(mutationsAt(injector, money, 'hashCode', 27, [base('')])).toHaveLength(1);
    });
  });

  it('offers nothing in a class without equals, nor in equals itself', () => {
    expect(mutationsAt(injector, SOURCE, 'hashCode', 41)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'equals', 13)).toEqual([]);
  });

  it('accepts a hand-written variant: hashCode commented out', () => {
    const commented = SOURCE.replace(
      HASH_CODE,
      HASH_CODE.split('\n')
        .map((line) => (line ? `//${line}` : line))
        .join('\n'),
    );
    expect(checkChange(injector, SOURCE, commented).kind).toBe('Matches');
  });

  it('rejects near misses: hashCode renamed, equals removed too, layout only', () => {
    const renamed = SOURCE.replace(
      'public int hashCode() {\n        return (int)',
      'public int hashcode() {\n        return (int)',
    );
    expect(checkChange(injector, SOURCE, renamed).kind).toBe('Mismatch');
    const start = SOURCE.indexOf('    @Override\n    public boolean equals');
    const end = SOURCE.indexOf('    //----');
    expect(checkChange(injector, SOURCE, SOURCE.slice(0, start) + SOURCE.slice(end)).kind).toBe(
      'Mismatch',
    );
    expect(checkChange(injector, SOURCE, SOURCE.replace('* 31 +', '*31+')).kind).toBe('Mismatch');
  });
});

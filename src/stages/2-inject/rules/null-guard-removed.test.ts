import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar, withJavaTree } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { nullGuardRemovedInjector as injector } from './null-guard-removed.js';

const SOURCE = `package p;

public final class Texts {
    public static String abbreviate(final String str, final int max) {
        if (str == null) {
            return null;
        }
        return str.length() <= max ? str : str.substring(0, max);
    }

    public static boolean isBlank(final String str) {
        return str == null || str.trim().isEmpty();
    }

    public static int length(final String str) {
        return (str == null ? 0 : str.length());
    }

    public static void appendTo(final StringBuilder out, final Object value) {
        if (value != null) {
            out.append(value.toString());
            out.append(';');
        }
    }

    public static int countSpaces(final String str) {
        if (str == null) {
            return 0;
        }
        final int len = str.length();
        int count = 0;
        for (int i = 0; i < len; i++) {
            if (str.charAt(i) == ' ') {
                count++;
            }
        }
        return count;
    }

    public static String require(final String str) {
        if (str == null) {
            throw new IllegalArgumentException("str");
        }
        return str.trim();
    }

    public static String kind(final Object value) {
        if (value == null) {
            return "null";
        } else if (value instanceof String) {
            return "text";
        } else {
            return value.getClass().getSimpleName();
        }
    }

    public static String describe(final Object value) {
        return "value " + value;
    }
}
`;

/** Line of the declaration of `name` in SOURCE. */
const line = (name: string) => SOURCE.split('\n').findIndex((l) => l.includes(` ${name}(`)) + 1;

beforeAll(loadJavaGrammar);

describe('Intra-Function Null Dereference', () => {
  it('removes an early-exit null guard, and offers moving the first dereference above it', () => {
    const abbreviate = mutationsAt(injector, SOURCE, 'abbreviate', line('abbreviate'));
    expect(abbreviate.map((m) => m.source)).toEqual([
      SOURCE.replace('        if (str == null) {\n            return null;\n        }\n', ''),
    ]);
    const count = mutationsAt(injector, SOURCE, 'countSpaces', line('countSpaces'));
    expect(count.map((m) => m.source)).toEqual([
      SOURCE.replace('        if (str == null) {\n            return 0;\n        }\n', ''),
      SOURCE.replace(
        '        if (str == null) {\n            return 0;\n        }\n        final int len = str.length();\n',
        '        final int len = str.length();\n        if (str == null) {\n            return 0;\n        }\n',
      ),
    ]);
    for (const m of [...abbreviate, ...count]) {
      expect(m.parses).toBe(true);
      expect(m.check.kind).toBe('Matches');
    }
    expect(count[1]!.check).toMatchObject({ evidence: expect.stringContaining('before') });
  });

  it('drops the null test of a short-circuit and of a conditional expression', () => {
    const blank = mutationsAt(injector, SOURCE, 'isBlank', line('isBlank'));
    expect(blank.map((m) => m.source)).toEqual([
      SOURCE.replace('return str == null || str.trim().isEmpty();', 'return str.trim().isEmpty();'),
    ]);
    const length = mutationsAt(injector, SOURCE, 'length', line('length'));
    expect(length.map((m) => m.source)).toEqual([
      SOURCE.replace('return (str == null ? 0 : str.length());', 'return str.length();'),
    ]);
    expect([...blank, ...length].every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(blank[0]!.methodKey).toBe('Texts.isBlank(String)');
  });

  it('unwraps the body of an if (x != null) one level out', () => {
    const mutations = mutationsAt(injector, SOURCE, 'appendTo', line('appendTo'));
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(
        "        if (value != null) {\n            out.append(value.toString());\n            out.append(';');\n        }\n",
        "        out.append(value.toString());\n        out.append(';');\n",
      ),
    ]);
    expect(withJavaTree(mutations[0]!.source, (root) => root.hasError)).toBe(false);
    expect(mutations[0]!.check.kind).toBe('Matches');
  });

  it('keeps the rest of an else-if chain when its null branch goes', () => {
    const mutations = mutationsAt(injector, SOURCE, 'kind', line('kind'));
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(
        '        if (value == null) {\n            return "null";\n        } else if',
        '        if',
      ),
    ]);
    expect(mutations[0]!.parses && mutations[0]!.check.kind).toBe('Matches');
  });

  it('leaves guards that throw, and methods without null checks, alone', () => {
    expect(mutationsAt(injector, SOURCE, 'require', line('require'))).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'describe', line('describe'))).toEqual([]);
  });

  it('accepts a hand-written variant: the value overwritten after its check', () => {
    const overwritten = SOURCE.replace(
      'public static String abbreviate(final String str, final int max) {\n        if (str == null) {\n            return null;\n        }\n',
      'public static String abbreviate(String str, final int max) {\n        if (str == null) {\n            return null;\n        }\n        str = System.getProperty(str);\n',
    );
    expect(checkChange(injector, SOURCE, overwritten).kind).toBe('Matches');
  });

  it('rejects near misses: a guard turned around, a guard weakened, a comment-only change', () => {
    const inverted = SOURCE.replace(
      'if (str == null) {\n            return null;',
      'if (str != null) {\n            return null;',
    );
    expect(checkChange(injector, SOURCE, inverted).kind).toBe('Mismatch');
    const weakened = SOURCE.replace('str == null || str.trim()', 'str == null && str.trim()');
    expect(checkChange(injector, SOURCE, weakened).kind).toBe('Mismatch');
    const commented = SOURCE.replace(
      'if (value != null) {',
      '// value may be null\n        if (value != null) {',
    );
    expect(checkChange(injector, SOURCE, commented).kind).toBe('Mismatch');
  });

  it('rejects removing a null check whose value is never dereferenced', () => {
    const before = SOURCE.replace(
      'return "value " + value;',
      'return value == null ? "none" : "value " + value;',
    );
    expect(checkChange(injector, before, SOURCE).kind).toBe('Mismatch');
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { guardInversionInjector as injector } from './guard-inversion.js';

const SOURCE = `package p;

import java.util.List;

public class Params {
    private final List<String> values;
    private boolean strict;

    public String lookup(int index) {
        if (values.isEmpty()) {
            return null;
        }
        if (index < 0 || index >= values.size()) {
            throw new IndexOutOfBoundsException("index " + index);
        }
        String value = values.get(index);
        return value != null ? value.trim() : "";
    }

    public int count(String prefix) {
        int n = 0;
        for (int i = 0; i < values.size(); i++) {
            if (!strict && values.get(i).startsWith(prefix)) {
                n++;
            }
        }
        return n;
    }

    public void log(String message) {
        if (LOG.isDebugEnabled()) {
            LOG.debug(message);
        }
        System.out.println(message);
    }

    public int size(List<String> list) {
        return list.size();
    }

    public int size(List<Integer> list) {
        if (list.size() > 1) {
            return 2;
        }
        return list.size();
    }
}
`;

beforeAll(loadJavaGrammar);

/** The guard lines of `lookup`. */
function conditionLines(source: string): string[] {
  return source
    .split('\n')
    .filter((line) => /^\s+(if|return .*\?)/.test(line))
    .slice(0, 3);
}

describe('Guard Predicate Inversion', () => {
  it('tries an off-by-one on a real bound first, then swapped branches, then connectives', () => {
    const mutations = mutationsAt(injector, SOURCE, 'lookup', 9);
    expect(mutations.map((m) => m.description)).toEqual([
      'if (index < 0 || index >= values.size()) → if (index < 0 || index > values.size())',
      'if (values.isEmpty()) → if (!values.isEmpty())',
      '?: value != null → ?: value == null',
      'if (index < 0 || index >= values.size()) → if (index <= 0 || index >= values.size())',
      'if (index < 0 || index >= values.size()) → if (index < 0 && index >= values.size())',
    ]);
    expect(mutations.map((m) => conditionLines(m.source).join(' | '))).toEqual([
      '        if (values.isEmpty()) { |         if (index < 0 || index > values.size()) { |         return value != null ? value.trim() : "";',
      '        if (!values.isEmpty()) { |         if (index < 0 || index >= values.size()) { |         return value != null ? value.trim() : "";',
      '        if (values.isEmpty()) { |         if (index < 0 || index >= values.size()) { |         return value == null ? value.trim() : "";',
      '        if (values.isEmpty()) { |         if (index <= 0 || index >= values.size()) { |         return value != null ? value.trim() : "";',
      '        if (values.isEmpty()) { |         if (index < 0 && index >= values.size()) { |         return value != null ? value.trim() : "";',
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.methodKey).toBe('Params.lookup(int)');
  });

  it('removes a negation and flips a loop bound over a size', () => {
    const mutations = mutationsAt(injector, SOURCE, 'count', 20);
    expect(mutations.map((m) => m.description)).toEqual([
      'for i < values.size() → for i <= values.size()',
      'if (!strict && values.get(i).startsWith(prefix)) → if (strict && values.get(i).startsWith(prefix))',
      'if (!strict && values.get(i).startsWith(prefix)) → if (!strict && !values.get(i).startsWith(prefix))',
      'if (!strict && values.get(i).startsWith(prefix)) → if (!strict || values.get(i).startsWith(prefix))',
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
  });

  it('leaves logging guards alone; a method without guards has no sites', () => {
    expect(mutationsAt(injector, SOURCE, 'log', 32)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'size', 39)).toEqual([]);
  });

  it('accepts hand-written inversions and weakenings of a guard', () => {
    for (const [from, to] of [
      ['if (values.isEmpty())', 'if (!values.isEmpty())'],
      ['if (index < 0 || index >= values.size())', 'if (index > 0 || index >= values.size())'],
      ['if (index < 0 || index >= values.size())', 'if (index >= values.size())'],
      ['if (!strict && values', 'if (strict && values'],
      ['if (list.size() > 1)', 'if (list.size() <= 1)'],
    ] as const) {
      const verdict = checkChange(injector, SOURCE, SOURCE.replace(from, to));
      expect(verdict, `${from} → ${to}`).toMatchObject({ kind: 'Matches' });
    }
  });

  it('rejects constant conditions, other bug types and changes outside the condition', () => {
    for (const [from, to] of [
      // constant conditions
      ['if (values.isEmpty())', 'if (false)'],
      ['if (index < 0 || index >= values.size())', 'if (index < 0 || index >= index)'],
      ['if (!strict && values.get(i)', 'if (!strict && strict && values.get(i)'],
      // the same decision written differently
      ['if (index < 0 || index >= values.size())', 'if (!(index >= 0 && index < values.size()))'],
      // operands reordered: only what the first one guards changes
      ['if (index < 0 || index >= values.size())', 'if (index >= values.size() || index < 0)'],
      // a different predicate, not an inverted one
      ['if (index < 0 || index >= values.size())', 'if (index < 1 || index >= values.size())'],
      // a null check dropped: a null dereference, not an inversion
      ['value != null ? value.trim()', 'true ? value.trim()'],
      // the guarded body changed too
      ['return null;\n        }\n        if (index', 'return "";\n        }\n        if (!(index'],
      // comment only
      ['if (values.isEmpty()) {', 'if (values.isEmpty() /* !! */) {'],
      // not a guard: a returned expression
      ['return list.size();\n    }\n}', 'return -list.size();\n    }\n}'],
    ] as const) {
      const after = SOURCE.replace(from, to);
      expect(after, from).not.toBe(SOURCE);
      expect(checkChange(injector, SOURCE, after).kind, `${from} → ${to}`).toBe('Mismatch');
    }
  });

  it('never flips one of two equal predicates, which would test p and !p', () => {
    const before = SOURCE.replace(
      'if (values.isEmpty()) {',
      'if (values.isEmpty() || strict || values.isEmpty()) {',
    );
    const descriptions = mutationsAt(injector, before, 'lookup', 9).map((m) => m.description);
    expect(descriptions.filter((d) => d.includes('!values.isEmpty()'))).toEqual([]);
    const after = before.replace('|| values.isEmpty()) {', '|| !values.isEmpty()) {');
    const verdict = checkChange(injector, before, after);
    expect(verdict.kind === 'Mismatch' && verdict.reason).toMatch(
      /constant: it tests a predicate and its negation/,
    );
  });

  it('rejects a guard reduced to one of its null checks being dropped', () => {
    const before = SOURCE.replace(
      'return value != null ? value.trim() : "";',
      'return value != null && !value.isEmpty() ? value.trim() : "";',
    );
    const after = before.replace('value != null && !value.isEmpty() ?', '!value.isEmpty() ?');
    const verdict = checkChange(injector, before, after);
    expect(verdict).toMatchObject({ kind: 'Mismatch' });
    expect(verdict.kind === 'Mismatch' && verdict.reason).toMatch(/null check/);
  });
});

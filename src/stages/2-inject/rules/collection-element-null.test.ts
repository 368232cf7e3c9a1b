import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { collectionElementNullInjector as injector } from './collection-element-null.js';

const SOURCE = `package p;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public final class Registry {
    private final Map<String, Object> entries = new HashMap<>();
    private final List<String> order = new ArrayList<>();
    private Object[] slots = new Object[8];
    private int size;
    private final Map<String, String> cache = new HashMap<>();

    public void evict(final String key) {
        entries.remove(key);
        order.remove(order.indexOf(key));
    }

    public void removeAt(final int index) {
        System.arraycopy(slots, index + 1, slots, index, size - index - 1);
        size--;
    }

    public int totalLength() {
        int total = 0;
        for (final String name : order) {
            if (name == null) {
                continue;
            }
            total += name.length();
        }
        return total;
    }

    public String describe(final String key) {
        final Object value = entries.get(key);
        return value == null ? "none" : value.toString();
    }

    public void reset() {
        order.clear();
    }

    public String trimmed(final String key) {
        if (!cache.containsKey(key)) {
            cache.put(key, key.trim());
        }
        return cache.get(key);
    }

    public int keyLength(final String key) {
        if (key == null) {
            return 0;
        }
        return key.length();
    }
}
`;

const line = (name: string) => SOURCE.split('\n').findIndex((l) => l.includes(` ${name}(`)) + 1;

beforeAll(loadJavaGrammar);

describe('Collection Element Null Dereference', () => {
  it.each([
    ['evict', 'entries.remove(key);', 'entries.put(key, null);'],
    ['evict', 'order.remove(order.indexOf(key));', 'order.set(order.indexOf(key), null);'],
    ['reset', 'order.clear();', 'Collections.fill(order, null);'],
  ])('refuses a removal turned into a null write in %s: %s → %s', (member, from, to) => {
    const offered = mutationsAt(injector, SOURCE, member, line(member)).map((m) => m.source);
    expect(offered.some((source) => source.includes(to))).toBe(false);
    const written = SOURCE.replace(from, to).replace(
      'import java.util.HashMap;',
      'import java.util.Collections;\nimport java.util.HashMap;',
    );
    expect(checkChange(injector, SOURCE, written).kind).toBe('Mismatch');
  });

  it('clears an array slot instead of compacting the array', () => {
    const mutations = mutationsAt(injector, SOURCE, 'removeAt', line('removeAt'));
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(
        'System.arraycopy(slots, index + 1, slots, index, size - index - 1);',
        'slots[index] = null;',
      ),
    ]);
    expect(mutations[0]!.check.kind).toBe('Matches');
  });

  it('fills a lazily computed cache entry with a null placeholder', () => {
    const mutations = mutationsAt(injector, SOURCE, 'trimmed', line('trimmed'));
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace('cache.put(key, key.trim());', 'cache.put(key, null);'),
    ]);
    expect(mutations[0]!.check.kind).toBe('Matches');
  });

  it('drops the null check of an element read in a loop or by a lookup', () => {
    const loop = mutationsAt(injector, SOURCE, 'totalLength', line('totalLength'));
    expect(loop.map((m) => m.source)).toEqual([
      SOURCE.replace(
        '            if (name == null) {\n                continue;\n            }\n',
        '',
      ),
    ]);
    const lookup = mutationsAt(injector, SOURCE, 'describe', line('describe'));
    expect(lookup.map((m) => m.source)).toEqual([
      SOURCE.replace(
        'return value == null ? "none" : value.toString();',
        'return value.toString();',
      ),
    ]);
    expect([...loop, ...lookup].every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
  });

  it('does not take a field read from a collection for a collection element', () => {
    const withField = SOURCE.replace(
      '    public int keyLength(final String key) {',
      '    private String last;\n\n    public int lastLength() {\n        last = order.get(0);\n        if (last == null) {\n            return 0;\n        }\n        return last.length();\n    }\n\n    public int keyLength(final String key) {',
    );
    const at = withField.split('\n').findIndex((l) => l.includes(' lastLength(')) + 1;
    expect(mutationsAt(injector, withField, 'lastLength', at)).toEqual([]);
  });

  it('offers nothing for a method without collection elements', () => {
    expect(mutationsAt(injector, SOURCE, 'keyLength', line('keyLength'))).toEqual([]);
  });

  it('accepts hand-written variants: another null element write, a cache placeholder', () => {
    const slot = SOURCE.replace(
      '        size--;\n',
      '        slots[size - 1] = null;\n        size--;\n',
    );
    expect(checkChange(injector, SOURCE, slot).kind).toBe('Matches');
    const placeholder = SOURCE.replace(
      'final Object value = entries.get(key);',
      'final Object value = entries.get(key);\n        entries.putIfAbsent(key, null);',
    );
    expect(checkChange(injector, SOURCE, placeholder).kind).toBe('Matches');
  });

  it('rejects near misses: a null guard of a plain parameter, an inverted element check, a field nulled', () => {
    const plainGuard = SOURCE.replace(
      '        if (key == null) {\n            return 0;\n        }\n',
      '',
    );
    expect(checkChange(injector, SOURCE, plainGuard).kind).toBe('Mismatch');
    const inverted = SOURCE.replace('if (name == null) {', 'if (name != null) {');
    expect(checkChange(injector, SOURCE, inverted).kind).toBe('Mismatch');
    const fieldNulled = SOURCE.replace(
      '        size--;\n',
      '        slots = null;\n        size--;\n',
    );
    expect(checkChange(injector, SOURCE, fieldNulled).kind).toBe('Mismatch');
    const commented = SOURCE.replace('order.clear();', 'order.clear(); // keep capacity');
    expect(checkChange(injector, SOURCE, commented).kind).toBe('Mismatch');
  });
});

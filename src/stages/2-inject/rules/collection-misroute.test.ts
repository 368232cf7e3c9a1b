import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { collectionMisrouteInjector as injector } from './collection-misroute.js';

const SOURCE = `package p;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

public class Columns {
    private final Map<String, Integer> positions;

    public List<String> names(String[] headers) {
        List<String> names = new ArrayList<>();
        for (String header : headers) {
            names.add(header.trim());
        }
        return names;
    }

    public int[] widths(String[] cells) {
        int[] widths = new int[cells.length];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = cells[i].length();
        }
        return widths;
    }

    public String initials(List<String> words) {
        StringBuilder out = new StringBuilder();
        for (String word : words) {
            out.append(word.charAt(0));
        }
        return out.toString();
    }

    public void index(List<String> names, int offset) {
        int[] slots = new int[names.size() + offset];
        for (int i = 0; i < names.size(); i++) {
            positions.put(names.get(i), i);
            slots[i + offset] = i;
        }
        names.add("end");
    }
}
`;

beforeAll(loadJavaGrammar);

describe('In-Bounds Collection Misrouting', () => {
  it('adds at the front of a list built in a loop', () => {
    const mutations = mutationsAt(injector, SOURCE, 'names', 10);
    expect(mutations.map((m) => m.description)).toEqual([
      'names.add(header.trim()) → names.add(0, header.trim()) in a loop',
    ]);
    expect(mutations[0]!.source).toBe(
      SOURCE.replace('names.add(header.trim());', 'names.add(0, header.trim());'),
    );
    expect(mutations[0]!).toMatchObject({ parses: true, check: { kind: 'Matches' } });
    expect(mutations[0]!.methodKey).toBe('Columns.names(String[])');
  });

  it('mirrors an array index bounded by the array, and prepends to a builder', () => {
    const [array] = mutationsAt(injector, SOURCE, 'widths', 18);
    expect(array!.source).toBe(
      SOURCE.replace(
        'widths[i] = cells[i].length();',
        'widths[widths.length - 1 - i] = cells[i].length();',
      ),
    );
    const [builder] = mutationsAt(injector, SOURCE, 'initials', 26);
    expect(builder!.source).toBe(
      SOURCE.replace('out.append(word.charAt(0));', 'out.insert(0, word.charAt(0));'),
    );
    expect([array, builder].every((m) => m!.parses && m!.check.kind === 'Matches')).toBe(true);
  });

  it('offers nothing where it cannot prove the new index legal', () => {
    // `slots[i + offset]`, a map keyed by value, and an add after the loop.
    expect(mutationsAt(injector, SOURCE, 'index', 34)).toEqual([]);
  });

  it('accepts hand-written misroutes that keep the written value', () => {
    for (const [from, to] of [
      ['widths[i] = cells[i]', 'widths[(i + 1) % widths.length] = cells[i]'],
      ['names.add(header.trim());', 'names.add(names.size() / 2, header.trim());'],
      ['positions.put(names.get(i), i);', 'positions.put(names.get(0), i);'],
      ['slots[i + offset] = i;', 'slots[i] = i;'],
    ] as const) {
      const verdict = checkChange(injector, SOURCE, SOURCE.replace(from, to));
      expect(verdict, `${from} → ${to}`).toMatchObject({ kind: 'Matches' });
    }
  });

  it('rejects near misses: a changed value, a read, a write outside a loop, another receiver', () => {
    const withCopy = SOURCE.replace(
      'List<String> names = new ArrayList<>();',
      'List<String> names = new ArrayList<>();\n        List<String> copy = new ArrayList<>();',
    );
    for (const [before, after] of [
      [
        SOURCE,
        SOURCE.replace('widths[i] = cells[i].length();', 'widths[i] = cells[i].length() + 1;'),
      ],
      [SOURCE, SOURCE.replace('widths[i] = cells[i].length();', 'widths[i] = cells[0].length();')],
      [SOURCE, SOURCE.replace('names.add("end");', 'names.add(0, "end");')],
      [withCopy, withCopy.replace('names.add(header.trim());', 'copy.add(header.trim());')],
      [SOURCE, SOURCE.replace('out.append(word.charAt(0));', 'out.append(word.charAt(1));')],
      [SOURCE, SOURCE.replace('names.add(header.trim());', 'names.add(header.trim()); // front?')],
    ] as const) {
      expect(before).not.toBe(after);
      expect(checkChange(injector, before, after).kind, after).toBe('Mismatch');
    }
  });
});

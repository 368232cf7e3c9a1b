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
    // A shared constant (jsoup's Element.EmptyChildren): never a misroute's target.
    private static final List<String> EmptyNames = new ArrayList<>();

    public List<String> names(String[] headers) {
        List<String> names = new ArrayList<>();
        List<String> blanks = new ArrayList<>();
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

    public int[] shifted(int[] values, String first, String last) {
        int[] row = new int[values.length + 1];
        for (int i = 0; i < values.length; i++) {
            row[i + 1] = values[i];
            positions.put(first, i);
        }
        for (int j = 1; j < values.length; j++) {
            row[j] = values[j];
        }
        return row;
    }
}
`;

/** The line a member is declared on in SOURCE. */
function lineOf(name: string): number {
  return SOURCE.split('\n').findIndex((line) => line.includes(` ${name}(`)) + 1;
}

beforeAll(loadJavaGrammar);

describe('In-Bounds Collection Misrouting', () => {
  it('routes a write in a loop to a sibling collection of the same type', () => {
    const mutations = mutationsAt(injector, SOURCE, 'names', lineOf('names'));
    expect(mutations.map((m) => m.description)).toEqual([
      'names.add(header.trim()) → blanks.add(…) in a loop',
    ]);
    expect(mutations[0]!.source).toBe(
      SOURCE.replace('names.add(header.trim());', 'blanks.add(header.trim());'),
    );
    expect(mutations[0]!).toMatchObject({
      parses: true,
      check: { kind: 'Matches' },
      plausibility: { rank: 1 },
    });
    expect(mutations[0]!.methodKey).toBe('Columns.names(String[])');
  });

  it('moves an index by one where it stays legal, and puts under a sibling key', () => {
    const mutations = mutationsAt(injector, SOURCE, 'shifted', lineOf('shifted'));
    expect(mutations.map((m) => [m.description, m.plausibility.rank])).toEqual([
      ['row[i + 1] = … → row[i] = … in a loop', 0],
      ['row[j] = … → row[j - 1] = … in a loop', 0],
      ['positions.put(first, i) → positions.put(last, …) in a loop', 1],
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
  });

  it.each([
    ['names', 'names.add(header.trim());', 'names.add(0, header.trim());'],
    ['initials', 'out.append(word.charAt(0));', 'out.insert(0, word.charAt(0));'],
    ['widths', 'widths[i] = cells[i]', 'widths[widths.length - 1 - i] = cells[i]'],
  ])('refuses the artificial form in %s: %s → %s', (member, from, to) => {
    const offered = mutationsAt(injector, SOURCE, member, lineOf(member)).map((m) => m.source);
    expect(offered).not.toContain(SOURCE.replace(from, to));
    expect(checkChange(injector, SOURCE, SOURCE.replace(from, to)).kind).toBe('Mismatch');
  });

  it('offers nothing where it cannot prove the new index legal', () => {
    // An index bounded by the array's own length, and an add after the loop.
    expect(mutationsAt(injector, SOURCE, 'widths', lineOf('widths'))).toEqual([]);
  });

  it('accepts hand-written misroutes that keep the written value', () => {
    for (const [from, to] of [
      ['widths[i] = cells[i]', 'widths[(i + 1) % widths.length] = cells[i]'],
      ['names.add(header.trim());', 'names.add(names.size() / 2, header.trim());'],
      ['names.add(header.trim());', 'blanks.add(header.trim());'],
      ['positions.put(names.get(i), i);', 'positions.put(names.get(0), i);'],
      ['slots[i + offset] = i;', 'slots[i] = i;'],
    ] as const) {
      const verdict = checkChange(injector, SOURCE, SOURCE.replace(from, to));
      expect(verdict, `${from} → ${to}`).toMatchObject({ kind: 'Matches' });
    }
  });

  it('rejects near misses: a changed value, a write outside a loop, another type of receiver', () => {
    const withCopy = SOURCE.replace(
      'List<String> names = new ArrayList<>();',
      'List<String> names = new ArrayList<>();\n        List<Object> copy = new ArrayList<>();',
    );
    for (const [before, after] of [
      [
        SOURCE,
        SOURCE.replace('widths[i] = cells[i].length();', 'widths[i] = cells[i].length() + 1;'),
      ],
      [SOURCE, SOURCE.replace('widths[i] = cells[i].length();', 'widths[i] = cells[0].length();')],
      [SOURCE, SOURCE.replace('names.add("end");', 'names.add(1, "end");')],
      [withCopy, withCopy.replace('names.add(header.trim());', 'copy.add(header.trim());')],
      [SOURCE, SOURCE.replace('out.append(word.charAt(0));', 'out.append(word.charAt(1));')],
      [SOURCE, SOURCE.replace('names.add(header.trim());', 'names.add(header.trim()); // front?')],
    ] as const) {
      expect(before).not.toBe(after);
      expect(checkChange(injector, before, after).kind, after).toBe('Mismatch');
    }
  });
});

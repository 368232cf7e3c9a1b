import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { hashCodeTypoInjector as injector } from './hashcode-typo.js';

const SOURCE = `package p;

import java.util.Arrays;

public final class Key {
    private final String name;
    private final int[] parts;

    Key(String name, int[] parts) {
        this.name = name;
        this.parts = parts;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof Key)) {
            return false;
        }
        Key other = (Key) o;
        return name.equals(other.name) && Arrays.equals(parts, other.parts);
    }

    @Override
    public int hashCode() {
        return name.hashCode() * 31 + hashCode(parts);
    }

    static int hashCode(int[] values) {
        return Arrays.hashCode(values);
    }
}
`;

const HEADER = '    @Override\n    public int hashCode() {';

beforeAll(loadJavaGrammar);

describe('Typo in hashCode', () => {
  it('renames hashCode() and drops its @Override', () => {
    const mutations = mutationsAt(injector, SOURCE, 'hashCode', 24);
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(HEADER, '    public int hashcode() {'),
      SOURCE.replace(HEADER, '    public int hasCode() {'),
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.check).toEqual({
      kind: 'Matches',
      evidence: 'Key no longer overrides hashCode(): it declares int hashcode() instead',
    });
  });

  it('offers nothing in equals or in a static hashCode helper', () => {
    expect(mutationsAt(injector, SOURCE, 'equals', 15)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'hashCode', 28)).toEqual([]);
  });

  it('accepts a hand-written variant: the right name with a parameter', () => {
    const overload = SOURCE.replace(HEADER, '    public int hashCode(int seed) {').replace(
      'return name.hashCode() * 31',
      'return seed + name.hashCode() * 31',
    );
    expect(checkChange(injector, SOURCE, overload).kind).toBe('Matches');
  });

  it('rejects near misses: hashCode deleted, equals renamed, body changed', () => {
    const start = SOURCE.indexOf(HEADER);
    const end = SOURCE.indexOf('    static int hashCode');
    expect(checkChange(injector, SOURCE, SOURCE.slice(0, start) + SOURCE.slice(end)).kind).toBe(
      'Mismatch',
    );
    expect(
      checkChange(injector, SOURCE, SOURCE.replace('equals(Object o)', 'equal(Object o)')).kind,
    ).toBe('Mismatch');
    expect(checkChange(injector, SOURCE, SOURCE.replace('* 31', '* 17')).kind).toBe('Mismatch');
  });
});

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

    public int hashCode() {
        return name.hashCode() * 31 + hashCode(parts);
    }

    static int hashCode(int[] values) {
        return Arrays.hashCode(values);
    }
}
`;

const HEADER = '    public int hashCode() {';
const ANNOTATED = SOURCE.replace(HEADER, `    @Override\n${HEADER}`);

beforeAll(loadJavaGrammar);

describe('Typo in hashCode', () => {
  it('renames a hashCode() without @Override and changes nothing else', () => {
    const mutations = mutationsAt(injector, SOURCE, 'hashCode', 23);
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

  // With @Override a slip does not compile: deleting the annotation with it is the tell.
  it('offers nothing in a hashCode() marked @Override, on its own line or inline', () => {
    expect(mutationsAt(injector, ANNOTATED, 'hashCode', 24)).toEqual([]);
    const inline = SOURCE.replace(HEADER, '    @Override public int hashCode() {');
    expect(mutationsAt(injector, inline, 'hashCode', 23)).toEqual([]);
  });

  // As compress's CPClass and CPUTF8 under ClassFileEntry's `public abstract int hashCode()`.
  describe('where a superclass of the project declares hashCode() abstract', () => {
    const entry = (body: string) => `package r;\n\npublic abstract class Entry {\n${body}}\n`;
    const poolEntry = 'package q;\n\npublic abstract class PoolEntry extends r.Entry {\n}\n';
    const key = SOURCE.replace(
      'public final class Key {',
      'public final class Key extends PoolEntry {',
    );

    it('offers nothing when the obligation reaches the class', () => {
      const obliging = entry('    public abstract int hashCode();\n');
      expect(mutationsAt(injector, key, 'hashCode', 23, [poolEntry, obliging])).toEqual([]);
    });

    it('offers the slips when a class in between implements it, or none declares it', () => {
      const implemented = entry('    public int hashCode() { return 1; }\n');
      expect(mutationsAt(injector, key, 'hashCode', 23, [poolEntry, implemented])).toHaveLength(2);
      expect(mutationsAt(injector, key, 'hashCode', 23, [poolEntry])).toHaveLength(2);
    });
  });

  it('offers nothing in equals or in a static hashCode helper', () => {
    expect(mutationsAt(injector, SOURCE, 'equals', 15)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'hashCode', 27)).toEqual([]);
  });

  it('accepts a hand-written variant: the right name with a parameter', () => {
    const overload = SOURCE.replace(HEADER, '    public int hashCode(int seed) {').replace(
      'return name.hashCode() * 31',
      'return seed + name.hashCode() * 31',
    );
    expect(checkChange(injector, SOURCE, overload).kind).toBe('Matches');
  });

  it('rejects near misses: hashCode deleted, @Override dropped with the slip, equals renamed, body changed', () => {
    const start = SOURCE.indexOf(HEADER);
    const end = SOURCE.indexOf('    static int hashCode');
    expect(checkChange(injector, SOURCE, SOURCE.slice(0, start) + SOURCE.slice(end)).kind).toBe(
      'Mismatch',
    );
    expect(
      checkChange(injector, SOURCE, SOURCE.replace('equals(Object o)', 'equal(Object o)')).kind,
    ).toBe('Mismatch');
    expect(checkChange(injector, SOURCE, SOURCE.replace('* 31', '* 17')).kind).toBe('Mismatch');
    const unannotated = ANNOTATED.replace(
      `    @Override\n${HEADER}`,
      '    public int hashcode() {',
    );
    expect(checkChange(injector, ANNOTATED, unannotated).kind).toBe('Mismatch');
  });
});

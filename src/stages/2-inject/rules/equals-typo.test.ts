import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { checkChange, mutationsAt } from './test-support.js';
import { equalsTypoInjector as injector } from './equals-typo.js';

const SOURCE = `package p;

import java.util.Objects;

public final class Point<T> {
    private final int x;
    private final T label;

    public Point(int x, T label) {
        this.x = x;
        this.label = label;
    }

    @Override
    public boolean equals(final Object obj) {
        if (obj == this) {
            return true;
        }
        if (!(obj instanceof Point)) {
            return false;
        }
        final Point<?> other = (Point<?>) obj;
        return x == other.x && Objects.equals(label, other.label);
    }

    @Override
    public int hashCode() {
        return 31 * x + Objects.hashCode(label);
    }
}
`;

const HEADER = '    @Override\n    public boolean equals(final Object obj) {';

beforeAll(loadJavaGrammar);

describe('Typo in equals', () => {
  it('renames equals or narrows its parameter, dropping @Override', () => {
    const mutations = mutationsAt(injector, SOURCE, 'equals', 15);
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(HEADER, '    public boolean equal(final Object obj) {'),
      SOURCE.replace(HEADER, '    public boolean Equals(final Object obj) {'),
      SOURCE.replace(HEADER, '    public boolean equals(final Point<T> obj) {'),
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.methodKey).toBe('Point.equals(Object)');
  });

  it('removes an @Override written on the same line as the method', () => {
    const inline = SOURCE.replace(
      HEADER,
      '    @Override public boolean equals(final Object obj) {',
    );
    const [first] = mutationsAt(injector, inline, 'equals', 14);
    expect(first!.source).toContain('\n    public boolean equal(final Object obj) {');
  });

  it('does not narrow a parameter the body still needs as an Object', () => {
    const reassigned = SOURCE.replace(
      'if (obj == this) {',
      'obj = Objects.requireNonNull(obj);\n        if (obj == this) {',
    );
    const descriptions = mutationsAt(injector, reassigned, 'equals', 15).map((m) => m.description);
    expect(descriptions).toHaveLength(2);
    expect(descriptions.join()).not.toContain('Point<T>');
  });

  it.each([
    [
      'declares',
      '    static boolean equal(Object a, Object b) {\n        return Objects.equals(a, b);\n    }\n',
    ],
    ['calls an inherited', '    boolean same(Object o) {\n        return equal(o);\n    }\n'],
  ])('refuses equals → equal where the class %s equal method', (_, member) => {
    const clashing = SOURCE.replace(
      '    @Override\n    public int hashCode',
      `${member}\n    @Override\n    public int hashCode`,
    );
    const names = mutationsAt(injector, clashing, 'equals', 15).map((m) => m.description);
    expect(names.join()).not.toContain('equal(Object)');
    expect(names.join()).toContain('Equals(Object)');
  });

  it('refuses a name a supertype in the same file declares', () => {
    const inherited =
      SOURCE.replace(
        'public final class Point<T> {',
        'public final class Point<T> extends Base {',
      ) + 'class Base {\n    public boolean equal(Object o) { return false; }\n}\n';
    const names = mutationsAt(injector, inherited, 'equals', 15).map((m) => m.description);
    expect(names.join()).not.toContain('equal(Object)');
  });

  it('offers nothing in other members', () => {
    expect(mutationsAt(injector, SOURCE, 'hashCode', 27)).toEqual([]);
    expect(mutationsAt(injector, SOURCE, 'Point', 9)).toEqual([]);
  });

  it('accepts hand-written variants: another slip of the name, a covariant parameter', () => {
    const renamed = SOURCE.replace(HEADER, '    public boolean isEqual(Object obj) {');
    expect(checkChange(injector, SOURCE, renamed).kind).toBe('Matches');
    const covariant = SOURCE.replace(HEADER, '    public boolean equals(Point<?> obj) {').replace(
      'final Point<?> other = (Point<?>) obj;',
      'final Point<?> other = obj;',
    );
    const verdict = checkChange(injector, SOURCE, covariant);
    expect(verdict).toEqual({
      kind: 'Matches',
      evidence:
        'Point no longer overrides equals(Object): it declares boolean equals(Point) instead',
    });
  });

  it('rejects near misses: equals deleted, hashCode renamed, layout only', () => {
    const start = SOURCE.indexOf(HEADER);
    const end = SOURCE.indexOf('    @Override\n    public int hashCode');
    const deleted = SOURCE.slice(0, start) + SOURCE.slice(end);
    expect(checkChange(injector, SOURCE, deleted).kind).toBe('Mismatch');
    const hashTypo = SOURCE.replace('int hashCode()', 'int hashcode()');
    expect(checkChange(injector, SOURCE, hashTypo).kind).toBe('Mismatch');
    const layout = SOURCE.replace('return x == other.x', '// same\n        return x ==  other.x');
    expect(checkChange(injector, SOURCE, layout).kind).toBe('Mismatch');
  });
});

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

const HEADER = '    public boolean equals(final Object obj) {';
const ANNOTATED = SOURCE.replace(HEADER, `    @Override\n${HEADER}`);

beforeAll(loadJavaGrammar);

describe('Typo in equals', () => {
  it('renames an equals without @Override or narrows its parameter, and changes nothing else', () => {
    const mutations = mutationsAt(injector, SOURCE, 'equals', 14);
    expect(mutations.map((m) => m.source)).toEqual([
      SOURCE.replace(HEADER, '    public boolean equal(final Object obj) {'),
      SOURCE.replace(HEADER, '    public boolean Equals(final Object obj) {'),
      SOURCE.replace(HEADER, '    public boolean equals(final Point<T> obj) {'),
    ]);
    expect(mutations.every((m) => m.parses && m.check.kind === 'Matches')).toBe(true);
    expect(mutations[0]!.methodKey).toBe('Point.equals(Object)');
  });

  // With @Override a slip does not compile: deleting the annotation with it is the tell.
  it('offers nothing in an equals marked @Override, on its own line or inline', () => {
    expect(mutationsAt(injector, ANNOTATED, 'equals', 15)).toEqual([]);
    const inline = SOURCE.replace(
      HEADER,
      '    @Override public boolean equals(final Object obj) {',
    );
    expect(mutationsAt(injector, inline, 'equals', 14)).toEqual([]);
    const qualified = SOURCE.replace(HEADER, `    @java.lang.Override\n${HEADER}`);
    expect(mutationsAt(injector, qualified, 'equals', 15)).toEqual([]);
  });

  describe('where a superclass of the project declares equals(Object) abstract', () => {
    const abstractBase =
      'package r;\n\npublic abstract class Base {\n    public abstract boolean equals(Object o);\n}\n';
    // Point reaches Base through Shape, each in a file of its own.
    const shape = (body = '') =>
      `package q;\n\npublic abstract class Shape<T> extends r.Base {\n${body}}\n`;
    const point = SOURCE.replace(
      'public final class Point<T> {',
      'public final class Point<T> extends Shape<T> {',
    );

    it('offers nothing when the obligation reaches the class (an abstract class)', () => {
      expect(mutationsAt(injector, point, 'equals', 14, [shape(), abstractBase])).toEqual([]);
    });

    // Object's equals implements an interface's redeclaration (as for java.util.Comparator).
    it('offers the slips where only an interface of the project redeclares equals(Object)', () => {
      const implementing = SOURCE.replace(
        'public final class Point<T> {',
        'public final class Point<T> implements Shape<T> {',
      );
      const interfaces = [
        'package q;\n\npublic interface Shape<T> extends Base {\n}\n',
        'package q;\n\ninterface Base {\n    boolean equals(Object o);\n}\n',
      ];
      expect(mutationsAt(injector, implementing, 'equals', 14, interfaces)).toHaveLength(3);
    });

    it('offers the slips when the declaration is outside the project or already implemented', () => {
      expect(mutationsAt(injector, point, 'equals', 14, [shape()])).toHaveLength(3);
      const implemented = shape(
        '    public boolean equals(Object o) { return super.equals(o); }\n',
      );
      expect(mutationsAt(injector, point, 'equals', 14, [implemented, abstractBase])).toHaveLength(
        3,
      );
    });
  });

  it('does not narrow a parameter the body still needs as an Object', () => {
    const reassigned = SOURCE.replace(
      'if (obj == this) {',
      'obj = Objects.requireNonNull(obj);\n        if (obj == this) {',
    );
    const descriptions = mutationsAt(injector, reassigned, 'equals', 14).map((m) => m.description);
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
    const names = mutationsAt(injector, clashing, 'equals', 14).map((m) => m.description);
    expect(names.join()).not.toContain('equal(Object)');
    expect(names.join()).toContain('Equals(Object)');
  });

  it('refuses a name a supertype in the same file declares', () => {
    const inherited =
      SOURCE.replace(
        'public final class Point<T> {',
        'public final class Point<T> extends Base {',
      ) + 'class Base {\n    public boolean equal(Object o) { return false; }\n}\n';
    const names = mutationsAt(injector, inherited, 'equals', 14).map((m) => m.description);
    expect(names.join()).not.toContain('equal(Object)');
  });

  it('offers nothing in other members', () => {
    expect(mutationsAt(injector, SOURCE, 'hashCode', 26)).toEqual([]);
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

  it('rejects near misses: equals deleted, @Override dropped with the slip, hashCode renamed, layout only', () => {
    const start = SOURCE.indexOf(HEADER);
    const end = SOURCE.indexOf('    @Override\n    public int hashCode');
    const deleted = SOURCE.slice(0, start) + SOURCE.slice(end);
    expect(checkChange(injector, SOURCE, deleted).kind).toBe('Mismatch');
    const hashTypo = SOURCE.replace('int hashCode()', 'int hashcode()');
    expect(checkChange(injector, SOURCE, hashTypo).kind).toBe('Mismatch');
    const unannotated = ANNOTATED.replace(
      `    @Override\n${HEADER}`,
      HEADER.replace('equals', 'equal'),
    );
    expect(checkChange(injector, ANNOTATED, unannotated)).toMatchObject({ kind: 'Mismatch' });
    const layout = SOURCE.replace('return x == other.x', '// same\n        return x ==  other.x');
    expect(checkChange(injector, SOURCE, layout).kind).toBe('Mismatch');
  });
});

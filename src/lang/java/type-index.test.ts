import { beforeAll, describe, expect, it } from 'vitest';
import { descendants, loadJavaGrammar, nameOf, withJavaTree } from './syntax.js';
import { ProjectTypes } from './type-index.js';

beforeAll(loadJavaGrammar);

/** The superclass obliging `class Leaf` of `source` to implement `signature`, given the others. */
function declaredAbove(source: string, others: string[], signature: string): string | undefined {
  const types = ProjectTypes.fromSources([source, ...others]);
  return withJavaTree(source, (root) => {
    const leaf = descendants(root, 'class_declaration').find((type) => nameOf(type) === 'Leaf')!;
    return types.obligingSuperclass(leaf, signature);
  });
}

describe('ProjectTypes', () => {
  const leaf = 'class Leaf extends Middle implements Marker {}';

  it('finds an abstract declaration up the superclass chain, through generics and nesting', () => {
    const middle = 'abstract class Middle extends Outer.Top<String> {}';
    const top = 'class Outer { abstract static class Top<T> { public abstract int hashCode(); } }';
    expect(declaredAbove(leaf, [middle, top], 'hashCode()')).toBe('Top');
    expect(declaredAbove(leaf, [middle, top], 'equals(Object)')).toBeUndefined();
  });

  it('stops at a class that implements the method', () => {
    const middle = 'abstract class Middle extends Top { public int hashCode() { return 1; } }';
    const top = 'abstract class Top { public abstract int hashCode(); }';
    expect(declaredAbove(leaf, [middle, top], 'hashCode()')).toBeUndefined();
  });

  it('takes every type of a shared simple name, so an ambiguity refuses', () => {
    const abstractOne =
      'package a; abstract class Middle { public abstract boolean equals(Object o); }';
    const plainOne = 'package b; class Middle {}';
    expect(declaredAbove(leaf, [plainOne, abstractOne], 'equals(Object)')).toBe('Middle');
  });

  it('takes no obligation from an interface: Object implements its redeclared methods', () => {
    const marker = 'interface Marker { boolean equals(Object o); }';
    const middle = 'abstract class Middle implements Marker {}';
    expect(declaredAbove(leaf, [marker, middle], 'equals(Object)')).toBeUndefined();
  });
});

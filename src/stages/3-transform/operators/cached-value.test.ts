import { beforeAll, describe, expect, it } from 'vitest';
import { descendants, loadJavaGrammar, withJavaTree } from '../../../lang/java/syntax.js';
import { evaluatedFirst } from './cached-value.js';

beforeAll(loadJavaGrammar);

/** Whether the first `s.length()` in `statement` is the first thing the statement evaluates. */
function first(statement: string): boolean {
  const source = `class C { int m(String s, int a, boolean b) { ${statement} } }`;
  return withJavaTree(source, (root) => {
    const call = descendants(root, 'method_invocation').find((c) => c.text === 's.length()')!;
    const body = descendants(root, 'block')[0]!;
    return evaluatedFirst(call, body.namedChildren[0]!);
  });
}

describe('evaluatedFirst', () => {
  it('holds where only reads of variables and literals run before the value', () => {
    expect(first('return s.length();')).toBe(true);
    expect(first('if (s.length() > a) { return 1; } return 0;')).toBe(true);
    expect(first('int n = a + s.length();')).toBe(true);
    expect(first('return Math.max(a, s.length());')).toBe(true);
    expect(first('while (s.length() > a) { a++; } return a;')).toBe(true);
    expect(first('for (int i = 0; i < s.length(); i++) { a++; } return a;')).toBe(true);
    expect(first('char[] copy = new char[s.length()]; return copy.length;')).toBe(true);
  });

  it('fails where the value is evaluated only under a condition, or after a call', () => {
    expect(first('return b && s.length() > a ? 1 : 0;')).toBe(false);
    expect(first('return b ? s.length() : a;')).toBe(false);
    expect(first('return m(s, a, b) + s.length();')).toBe(false);
    expect(first('return Math.max(m(s, a, b), s.length());')).toBe(false);
    expect(first('for (int i = m(s, a, b); i < s.length(); i++) { a++; } return a;')).toBe(false);
    expect(first('for (int i = 0; i < a; i += s.length()) { a++; } return a;')).toBe(false);
    expect(first('int[][] grid = new int[m(s, a, b)][s.length()]; return 0;')).toBe(false);
  });
});

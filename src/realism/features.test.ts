import { describe, expect, it } from 'vitest';
import { diffHunks } from '../core/diff-stats.js';
import { DENSE_FEATURES, normalisedTokens, patchFeatures } from './features.js';

const feature = (text: string, name: string) =>
  patchFeatures(diffHunks(text)).dense[DENSE_FEATURES.findIndex((one) => one.name === name)]!;

const diff = (lines: string[]) =>
  [
    '--- a/X.java',
    '+++ b/X.java',
    `@@ -1,1 +1,${lines.length + 1} @@`,
    ' class X {',
    ...lines,
    '',
  ].join('\n');

describe('normalisedTokens', () => {
  it('keeps keywords and operators and names only the class of identifiers and literals', () => {
    expect(
      normalisedTokens('if (name != null && count > 3) return "a" + foo(Bar.BAZ); // why'),
    ).toEqual([
      'if',
      '(',
      'id',
      '!=',
      'null',
      '&&',
      'id',
      '>',
      'NUM',
      ')',
      'return',
      'STR',
      '+',
      'id',
      '(',
      'Type',
      '.',
      'Type',
      ')',
      ';',
      'COMMENT',
    ]);
  });
});

describe('artefact features', () => {
  it('counts a forwarding method, a one-element holder, a new class and a comment on the added side', () => {
    const text = diff([
      '+    private int checkMapped(int value) {',
      '+        return checkName(value);',
      '+    }',
      '+    final State[] stateHolder = new State[1];',
      '+    private static final class HeaderState {',
      '+    // the index is off by one here',
    ]);
    const log = (count: number) => Math.log1p(count);
    expect(feature(text, 'added forwarding methods')).toBeCloseTo(log(1));
    expect(feature(text, 'added one-element holders')).toBeCloseTo(log(1));
    expect(feature(text, 'added class declarations')).toBeCloseTo(log(1));
    expect(feature(text, 'added comment lines')).toBeCloseTo(log(1));
    expect(feature(text, 'added method declarations')).toBeCloseTo(log(1));
    expect(feature(text, 'removed method declarations')).toBe(0);
  });

  it('does not take a call, a return or a control header for a method declaration', () => {
    const text = diff([
      '+        foo(bar);',
      '+        return compute(a, b);',
      '+        if (check(a)) {',
      '+        } else if (x) {',
    ]);
    expect(feature(text, 'added method declarations')).toBe(0);
    expect(feature(text, 'added forwarding methods')).toBe(0);
  });
});

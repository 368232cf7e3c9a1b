import { describe, expect, it } from 'vitest';
import {
  applyLineMutant,
  LINE_OPERATORS,
  lineMutants,
  type LineOperatorName,
} from './line-operators.js';

function apply(name: LineOperatorName, line: string): string | undefined {
  return LINE_OPERATORS.find((operator) => operator.name === name)!.apply(line);
}

describe('line operators', () => {
  // Per operator: a line it mutates (and how), and a near miss it leaves alone.
  const cases: [LineOperatorName, string, string, string][] = [
    ['conditional-boundary', 'if (a < b) {', 'if (a <= b) {', 'List<String> xs = f();'],
    ['negate-equality', 'same = a == b;', 'same = a != b;', 'same = a==b;'],
    ['swap-connective', 'ok = a && b;', 'ok = a || b;', 'bits = a & b;'],
    ['math', 'n = a * b;', 'n = a / b;', 'n += 1;'],
    ['increment', 'i++;', 'i--;', 'text = "++";'],
    ['flip-boolean-return', 'return false;', 'return true;', 'return truth;'],
    ['null-return', 'return size;', 'return null;', 'return null;'],
    ['negate-condition', 'if (a < b) {', 'if (!(a < b)) {', 'if (a < b) return;'],
  ];

  it('covers every operator', () => {
    expect(cases.map(([name]) => name)).toEqual(LINE_OPERATORS.map((operator) => operator.name));
  });

  it.each(cases)('%s: %j → %j, not %j', (name, line, mutated, nearMiss) => {
    expect(apply(name, line)).toBe(mutated);
    expect(apply(name, nearMiss)).toBeUndefined();
  });

  it('changes the first match only', () => {
    expect(apply('math', 'n = a + b - c;')).toBe('n = a - b - c;');
    expect(apply('conditional-boundary', 'ok = a >= b && c > d;')).toBe('ok = a > b && c > d;');
  });
});

describe('lineMutants', () => {
  const source = [
    'class Box {',
    '    int limit = a + b;',
    '    boolean fits(int n) {',
    '        // if (n < limit) {',
    '         * n < limit',
    '        if (n < limit) {',
    '            return true;',
    '        }',
    '        return name + " < none";',
    '    }',
    '}',
  ].join('\n');

  it('mutates body lines, with each operator that changes them, in order', () => {
    expect(lineMutants(source)).toEqual([
      {
        line: 6,
        operator: 'conditional-boundary',
        original: '        if (n < limit) {',
        mutated: '        if (n <= limit) {',
      },
      {
        line: 6,
        operator: 'negate-condition',
        original: '        if (n < limit) {',
        mutated: '        if (!(n < limit)) {',
      },
      {
        line: 7,
        operator: 'flip-boolean-return',
        original: '            return true;',
        mutated: '            return false;',
      },
      {
        line: 7,
        operator: 'null-return',
        original: '            return true;',
        mutated: '            return null;',
      },
      // Text, not syntax: the `<` inside the string literal is mutated too.
      {
        line: 9,
        operator: 'conditional-boundary',
        original: '        return name + " < none";',
        mutated: '        return name + " <= none";',
      },
      {
        line: 9,
        operator: 'math',
        original: '        return name + " < none";',
        mutated: '        return name - " < none";',
      },
      {
        line: 9,
        operator: 'null-return',
        original: '        return name + " < none";',
        mutated: '        return null;',
      },
    ]);
  });

  it('puts a mutant back into its file', () => {
    const [first] = lineMutants(source);
    const mutated = applyLineMutant(source, first!);
    expect(mutated.split('\n')[5]).toBe('        if (n <= limit) {');
    expect(mutated.replace('n <= limit) {', 'n < limit) {')).toBe(source);
  });
});

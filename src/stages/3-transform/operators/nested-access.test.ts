import { describe, expect, it } from 'vitest';
import { pairName } from './nested-access.js';

describe('pairName', () => {
  it('names the array of two values that belong together for the pair', () => {
    expect(pairName('start', 'end')).toBe('range');
    expect(pairName('dataOffset', 'dataLen')).toBe('dataSpan');
    expect(pairName('outOffset', 'outLength')).toBe('outSpan');
    expect(pairName('min', 'max')).toBe('limits');
  });

  it('takes no two values of different prefixes, the wrong order, or a word inside a name', () => {
    expect(pairName('dataOffset', 'outLen')).toBeUndefined();
    expect(pairName('end', 'start')).toBeUndefined();
    expect(pairName('restart', 'end')).toBeUndefined();
    expect(pairName('offset', 'size')).toBeUndefined();
  });
});

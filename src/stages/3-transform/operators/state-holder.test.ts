import { describe, expect, it } from 'vitest';
import { singleSlotArray } from './state-holder.js';

describe('singleSlotArray', () => {
  it('allocates one slot of the type, the slot first for array types', () => {
    expect(singleSlotArray('int')).toBe('new int[1]');
    expect(singleSlotArray('Map.Entry')).toBe('new Map.Entry[1]');
    expect(singleSlotArray('char[]')).toBe('new char[1][]');
    expect(singleSlotArray('String[][]')).toBe('new String[1][][]');
  });
});

import { describe, expect, it } from 'vitest';
import { wilsonInterval } from './interval.js';

describe('wilsonInterval', () => {
  it('matches the known 95% bounds', () => {
    const { low, high } = wilsonInterval(7, 10);
    expect(low).toBeCloseTo(0.3968, 4);
    expect(high).toBeCloseTo(0.8922, 4);
  });

  it('is not empty at 0/n and n/n, and stays inside [0, 1]', () => {
    const none = wilsonInterval(0, 10);
    expect(none.low).toBe(0);
    expect(none.high).toBeCloseTo(0.2775, 4);
    const all = wilsonInterval(10, 10);
    expect(all.low).toBeCloseTo(0.7225, 4);
    expect(all.high).toBe(1);
  });

  it('gives the whole range when there are no trials', () => {
    expect(wilsonInterval(0, 0)).toEqual({ low: 0, high: 1 });
  });
});

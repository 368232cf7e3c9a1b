import { describe, expect, it } from 'vitest';
import { seededRandom, shuffled } from './random.js';

describe('seeded randomness', () => {
  it('repeats for the same seed and differs for another', () => {
    const draw = (seed: number) => Array.from({ length: 5 }, seededRandom(seed));
    expect(draw(42)).toEqual(draw(42));
    expect(draw(42)).not.toEqual(draw(43));
    for (const value of draw(7)) expect(value).toBeGreaterThanOrEqual(0);
  });

  it('shuffles into a permutation without touching the input', () => {
    const input = [1, 2, 3, 4, 5, 6, 7, 8];
    const output = shuffled(input, seededRandom(1));
    expect([...output].sort()).toEqual(input);
    expect(input).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
    expect(shuffled(input, seededRandom(1))).toEqual(output);
  });
});

import { describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { inShard, parseShard } from './shard.js';

describe('parseShard', () => {
  it('reads i/N, 1-based', () => {
    expect(parseShard('2/4')).toEqual({ index: 2, count: 4 });
  });

  it('refuses 0/N, i above N and other shapes', () => {
    for (const text of ['0/4', '5/4', '2-4', '1/0', 'x/2']) {
      expect(() => parseShard(text)).toThrow(UserError);
    }
  });
});

describe('inShard', () => {
  it('puts every key in exactly one of N shards, spread over all of them', () => {
    const keys = Array.from({ length: 400 }, (_, index) => `case-${index} NoEC`);
    const count = 4;
    const sizes = Array.from({ length: count }, (_, index) =>
      keys.filter((key) => inShard({ index: index + 1, count }, key)),
    ).map((keysOfShard) => keysOfShard.length);
    expect(sizes.reduce((sum, size) => sum + size, 0)).toBe(keys.length);
    for (const size of sizes) expect(size).toBeGreaterThan(60);
  });

  it('decides by the key alone, so machines agree without talking', () => {
    expect(inShard({ index: 3, count: 5 }, 'commons-csv@1.9.0-abc WithEC')).toBe(
      inShard({ index: 3, count: 5 }, 'commons-csv@1.9.0-abc WithEC'),
    );
  });
});

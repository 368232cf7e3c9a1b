import { describe, expect, it } from 'vitest';
import { NO_FIX } from './mutants.js';
import { mutantHalf } from './stage-two.js';

describe('mutantHalf', () => {
  const ids = Array.from({ length: 200 }, (_, index) => `m${index}`);
  const halves = (operator: string, holdOut: number) =>
    ids.map((id) => mutantHalf(7, 'instance-1', { id, operator }, holdOut));

  it('holds out about the share asked, the same for the same seed', () => {
    const held = halves('ror', 0.5).filter((half) => half === 'held-out').length;
    expect(held).toBeGreaterThan(70);
    expect(held).toBeLessThan(130);
    expect(halves('ror', 0.5)).toEqual(halves('ror', 0.5));
    expect(halves('ror', 0).every((half) => half === 'generating')).toBe(true);
  });

  it('never holds out the bug itself (no-fix)', () => {
    expect(halves(NO_FIX, 1).every((half) => half === 'generating')).toBe(true);
    expect(halves('ror', 1).some((half) => half === 'generating')).toBe(false);
  });
});

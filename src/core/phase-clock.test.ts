import { describe, expect, it } from 'vitest';
import { PhaseClock } from './phase-clock.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('PhaseClock', () => {
  it('sums the wall time of each phase over its repeats, failures included', async () => {
    const clock = new PhaseClock();
    await clock.time('probes', () => pause(120));
    await expect(
      clock.time('kill gate', async () => {
        await pause(60);
        throw new Error('broken');
      }),
    ).rejects.toThrow('broken');
    expect(await clock.time('probes', async () => 'value')).toBe('value');
    const [probes, gate] = clock.summary().split(', ');
    expect(probes).toMatch(/^probes 0\.\d s$/);
    expect(Number(probes!.split(' ')[1])).toBeGreaterThanOrEqual(0.1);
    expect(gate).toMatch(/^kill gate 0\.\d s$/);
  });
});

import { describe, expect, it } from 'vitest';
import { TransformMemo } from './memo.js';

describe('TransformMemo', () => {
  it('computes a key once, for askers at once and after', async () => {
    const memo = new TransformMemo();
    let computed = 0;
    const compute = async () => {
      computed++;
      await new Promise((resolve) => setTimeout(resolve, 10));
      return 'model';
    };
    const both = await Promise.all([memo.remember('k', compute), memo.remember('k', compute)]);
    expect(both).toEqual(['model', 'model']);
    expect(await memo.remember('k', compute)).toBe('model');
    expect(computed).toBe(1);
  });

  it('asks again for a value it was told not to keep, or one that failed', async () => {
    const memo = new TransformMemo();
    let computed = 0;
    const failedAnalysis = async () => {
      computed++;
      return { kind: 'Failed' as const };
    };
    const keep = (value: { kind: string }) => value.kind !== 'Failed';
    await memo.remember('model', failedAnalysis, keep);
    await memo.remember('model', failedAnalysis, keep);
    expect(computed).toBe(2);
    await expect(
      memo.remember('run', () => Promise.reject(new Error('crashed'))),
    ).rejects.toThrow();
    expect(await memo.remember('run', async () => 'ran')).toBe('ran');
  });

  it('forgets the value asked for least recently once over its capacity', async () => {
    const memo = new TransformMemo(2);
    let computed = 0;
    const compute = async () => ++computed;
    await memo.remember('a', compute);
    await memo.remember('b', compute);
    await memo.remember('a', compute);
    await memo.remember('c', compute);
    expect(await memo.remember('a', compute)).toBe(1);
    expect(await memo.remember('b', compute)).toBe(4);
  });
});

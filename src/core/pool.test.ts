import { describe, expect, it } from 'vitest';
import { runPool } from './pool.js';

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe('runPool', () => {
  it('keeps the items’ order whatever order they finish in, with at most `workers` at once', async () => {
    let running = 0;
    let most = 0;
    const results = await runPool([30, 5, 20, 1, 10, 2], { workers: 3 }, async (ms) => {
      running++;
      most = Math.max(most, running);
      await pause(ms);
      running--;
      return ms * 2;
    });
    expect(results).toEqual([60, 10, 40, 2, 20, 4]);
    expect(most).toBe(3);
  });

  it('gives each worker its own index, one item at a time', async () => {
    const busy = new Set<number>();
    const used = new Set<number>();
    await runPool([3, 1, 2, 1, 3, 1], { workers: 2 }, async (ms, worker) => {
      expect(busy.has(worker)).toBe(false);
      busy.add(worker);
      used.add(worker);
      await pause(ms);
      busy.delete(worker);
    });
    expect([...used].sort()).toEqual([0, 1]);
  });

  it('starts no item after one throws, lets the running ones finish, and rejects with that error', async () => {
    const started: number[] = [];
    const finished: number[] = [];
    const run = runPool([0, 1, 2, 3, 4, 5], { workers: 2 }, async (item) => {
      started.push(item);
      if (item === 0) throw new Error('item 0 failed');
      await pause(20);
      finished.push(item);
    });
    await expect(run).rejects.toThrow('item 0 failed');
    // Worker 0 failed at once; worker 1 had item 1 running and took nothing after it.
    expect(started).toEqual([0, 1]);
    expect(finished).toEqual([1]);
  });

  it('starts no item once the signal aborts, and rejects with its reason', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    const run = runPool([0, 1, 2, 3], { workers: 1, signal: controller.signal }, async (item) => {
      started.push(item);
      if (item === 1) controller.abort(new Error('stopped'));
      await pause(1);
    });
    await expect(run).rejects.toThrow('stopped');
    expect(started).toEqual([0, 1]);
  });

  it('runs nothing for no items, and one worker when asked for none', async () => {
    expect(await runPool([], { workers: 4 }, async () => 1)).toEqual([]);
    expect(await runPool([1, 2], { workers: 0 }, async (item) => item)).toEqual([1, 2]);
  });
});

import { UserError } from '../core/errors.js';
import { sha256Text } from '../core/fs.js';

/*
 * `--shard i/N`: for clusters that run array jobs (Kubernetes indexed Jobs, CI matrices) instead
 * of a queue. Every unit's key decides its shard by hash, so N machines given 1/N to N/N split the
 * work without talking to each other, and `witnessgym merge` unites their stores.
 */

export interface Shard {
  /** 1-based, as `--shard 1/4` says it. */
  index: number;
  count: number;
}

export function parseShard(text: string): Shard {
  const match = /^(\d+)\/(\d+)$/.exec(text.trim());
  const index = Number(match?.[1]);
  const count = Number(match?.[2]);
  if (!match || count < 1 || index < 1 || index > count) {
    throw new UserError(
      `--shard must be i/N with 1 <= i <= N (the 2nd of 4 machines: --shard 2/4), not '${text}'`,
    );
  }
  return { index, count };
}

/** Whether the unit of `key` falls in `shard`. */
export function inShard(shard: Shard, key: string): boolean {
  return Number.parseInt(sha256Text(key).slice(0, 8), 16) % shard.count === shard.index - 1;
}

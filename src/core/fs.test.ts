import { readdir } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { cleanUpForStop, exists, makeTempDir } from './fs.js';
import { runProcess } from './process.js';

describe('a stop by signal', () => {
  it('kills the processes started, then removes the temporary trees they were writing into', async () => {
    const dir = await makeTempDir('stop');
    // Like a Maven build in a replay tree: it would recreate what is removed under it.
    const writer = runProcess(
      'sh',
      ['-c', `i=0; while :; do i=$((i+1)); mkdir -p "${dir}/d$i" && : > "${dir}/d$i/f"; done`],
      { timeoutMs: 60_000 },
    );
    while ((await readdir(dir)).length < 20)
      await new Promise((resolve) => setTimeout(resolve, 10));
    expect(() => cleanUpForStop()).not.toThrow();
    expect((await writer).signal).toBe('SIGKILL');
    expect(await exists(dir)).toBe(false);
  });
});

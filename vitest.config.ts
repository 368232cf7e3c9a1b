import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';

/** Tests never use the user's cache: every run of the suite shares its own. */
const env = {
  WITNESSGYM_CACHE:
    process.env.WITNESSGYM_TEST_CACHE || path.join(os.tmpdir(), 'witnessgym-test-cache'),
};

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
          env,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          env,
          // Real Maven builds: one at a time on a 2-core machine, minutes not seconds.
          fileParallelism: false,
          testTimeout: 900_000,
          hookTimeout: 1_800_000,
        },
      },
    ],
  },
});

import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['src/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          // Real Maven builds: one at a time on a 2-core machine, minutes not seconds.
          fileParallelism: false,
          testTimeout: 900_000,
          hookTimeout: 1_800_000,
        },
      },
    ],
  },
});

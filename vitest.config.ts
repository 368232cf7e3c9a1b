import os from 'node:os';
import path from 'node:path';
import { defineConfig } from 'vitest/config';
import { LongestFirstSequencer } from './test/sequencer.js';

/** Tests never use the user's cache: every run of the suite shares its own. */
const env = {
  WITNESSGYM_CACHE:
    process.env.WITNESSGYM_TEST_CACHE || path.join(os.tmpdir(), 'witnessgym-test-cache'),
};

/**
 * Integration files that run no Maven build: scripted agents, fake vendor CLIs, signals,
 * operators on source fixtures, and the operators on json-simple (compiled in a warm JVM; the
 * project is fetched under its lock, so a fetch by another file is waited for, not repeated).
 * They run side by side, and beside the serial Maven files.
 */
const MEDIUM = [
  'test/agent-engine.test.ts',
  'test/amplify.javac.test.ts',
  'test/cli.test.ts',
  'test/realism.judge.test.ts',
  'test/slicer.fixtures.test.ts',
  'test/temp-cleanup.test.ts',
  'test/transform-operators.bundles.test.ts',
  'test/transform-operators.dataflow.test.ts',
  'test/transform-operators.fixtures.test.ts',
  'test/transform-operators.json-simple.test.ts',
  'test/transform-operators.rare-gate.test.ts',
];

export default defineConfig({
  test: {
    // Two files at a time, whatever their project: one Maven or sandbox file alone leaves much
    // of two cores idle (JVM start-up, Maven's downloads, process spawning), and every file
    // works in its own directories, under the cache's locks where it shares a fetched project.
    // One pool size for all projects keeps them in one group, so they run side by side.
    maxWorkers: 2,
    sequence: { sequencer: LongestFirstSequencer },
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
          name: 'medium',
          include: MEDIUM,
          env,
          // A test here takes seconds (the json-simple operators set their own limit): two
          // minutes is a hang. A hook may wait for json-simple's first fetch (a minute or two).
          testTimeout: 120_000,
          hookTimeout: 600_000,
        },
      },
      {
        test: {
          name: 'integration',
          include: ['test/**/*.test.ts'],
          exclude: MEDIUM,
          env,
          // What several files share (json-simple fetched, injected, built into a benchmark) is
          // made once per run and handed to them through inject().
          globalSetup: ['test/global-setup.ts'],
          // Real Maven builds and sandboxed JVMs, minutes not seconds.
          testTimeout: 900_000,
          hookTimeout: 1_800_000,
        },
      },
    ],
  },
});

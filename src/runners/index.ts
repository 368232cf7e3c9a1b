import type { CacheLayout } from '../core/cache.js';
import type { JvmRunner } from '../toolchains/jvm/runner.js';
import type { Toolchain } from '../toolchains/types.js';
import { jvmTestRunner } from './jvm.js';
import { mavenTestRunner } from './maven.js';
import type { RunnerName, TestRunner } from './types.js';

/** What a runner may need to start: the cache, the build tool, a shared pool of warm JVMs. */
export interface RunnerContext {
  cache: CacheLayout;
  toolchain: Toolchain;
  /** Warm JVMs to share; a runner that needs them starts its own pool otherwise. */
  jvm?: JvmRunner;
  /** Keep disposable copies for inspection (Maven). */
  keep?: boolean;
}

/** A test runner as a plugin: a name users choose by, and how to make one. */
export interface RunnerPlugin {
  kind: 'runner';
  name: RunnerName;
  description: string;
  create(context: RunnerContext): TestRunner;
}

export const RUNNERS: readonly RunnerPlugin[] = [
  {
    kind: 'runner',
    name: 'maven',
    description: 'a disposable copy built and tested by Maven (the ground truth)',
    create: ({ toolchain, cache, keep }) =>
      mavenTestRunner(toolchain, cache, { keep: keep ?? false }),
  },
  {
    kind: 'runner',
    name: 'jvm',
    description:
      'the sources newer than their classes compiled into an overlay, the class run in a warm JVM',
    create: ({ cache, jvm }) => jvmTestRunner(cache, jvm),
  },
];

export function createTestRunner(name: RunnerName, context: RunnerContext): TestRunner {
  const plugin = RUNNERS.find((candidate) => candidate.name === name);
  if (!plugin) throw new Error(`no runner named ${name}`);
  return plugin.create(context);
}

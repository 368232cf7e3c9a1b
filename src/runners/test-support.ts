import type { SingleVerdict } from '../core/verdict.js';
import type { TestRunner } from './types.js';

/*
 * Runner fakes for unit specs of the code that judges a replay's outcome.
 */

/** A Maven runner whose replay of the witness ends in `verdict`. */
export function mavenEnding(verdict: SingleVerdict): TestRunner {
  return {
    kind: 'runner',
    name: 'maven',
    traces: false,
    targetOf: async (projectDir, build) => ({ projectDir, build, changed: [] }),
    compile: async (target) => ({
      kind: 'Compiled',
      durationMs: 0,
      copyMs: 0,
      offline: true,
      workDir: target.projectDir,
    }),
    run: async () => ({ verdict, testMs: 1, durationMs: 1, compileMs: 0 }),
    close: async () => undefined,
  };
}

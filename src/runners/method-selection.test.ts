import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { cacheLayout } from '../core/cache.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import type { SingleVerdict } from '../core/verdict.js';
import type { JvmRunner, JvmRunRequest, JvmRunResult } from '../toolchains/jvm/runner.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';
import type { Toolchain, TestRunRequest } from '../toolchains/types.js';
import { jvmTestRunner } from './jvm.js';
import { mavenTestRunner } from './maven.js';
import type { TestRequest } from './types.js';

const PASSED: SingleVerdict = {
  kind: 'Passed',
  counts: { tests: 1, failures: 0, errors: 0, skipped: 0 },
  testTimeMs: 1,
};
const build = { mavenArgs: [], jvmArgs: [], surefireVersion: '3.5.2', generators: [] };

function requestIn(projectDir: string, methods?: readonly string[]): TestRequest {
  return {
    target: { projectDir, build, changed: [] },
    testClass: 'p.ATest',
    timeoutMs: 1000,
    ...(methods ? { methods } : {}),
  };
}

describe('a method selection', () => {
  it('is written in Surefire syntax for Maven, and an empty one is refused', () => {
    expect(mavenToolchain.selectMethods('p.ATest', ['one', 'two'])).toBe('p.ATest#one+two');
    expect(() => mavenToolchain.selectMethods('p.ATest', [])).toThrow(/empty/);
  });

  it('reaches the runner JVM, and the whole class runs without one', async () => {
    const asked: JvmRunRequest[] = [];
    const jvm = {
      run: async (request: JvmRunRequest): Promise<JvmRunResult> => {
        asked.push(request);
        return {
          verdict: PASSED,
          timings: { compileMs: 0, loadMs: 0, testMs: 1, wallMs: 1 },
          started: false,
          buildReused: true,
          buildSteps: { rerun: 0, rerunMs: 0, learningMs: 0 },
        };
      },
    } as unknown as JvmRunner;
    const runner = jvmTestRunner(cacheLayout('/unused'), jvm);
    await runner.run(requestIn('/p', ['one', 'two']));
    await runner.run(requestIn('/p'));
    expect(asked.map((request) => request.methods)).toEqual([['one', 'two'], undefined]);
    await expect(runner.run(requestIn('/p', []))).rejects.toThrow(/empty/);
  });

  it('becomes the Maven runner’s -Dtest selection, the class’s own without one', async () => {
    const selections: (string | undefined)[] = [];
    const toolchain: Toolchain = {
      ...mavenToolchain,
      compile: async () => ({ kind: 'Compiled', durationMs: 0, offline: true }),
      runTests: async (_dir, _build, _context, request: TestRunRequest) => {
        selections.push(request.selection);
        return { verdict: PASSED, reports: [], durationMs: 1, command: 'mvn', log: '' };
      },
    };
    const root = await makeTempDir('selection');
    const projectDir = path.join(root, 'project');
    await mkdir(projectDir);
    const runner = mavenTestRunner(toolchain, cacheLayout('/unused'));
    try {
      await runner.run(requestIn(projectDir, ['one', 'two']));
      await runner.run(requestIn(projectDir));
    } finally {
      await runner.close();
      await removeTree(root);
    }
    expect(selections).toEqual(['p.ATest#one+two', 'p.ATest,p.ATest$*']);
  });
});

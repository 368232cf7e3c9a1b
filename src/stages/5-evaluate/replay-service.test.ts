import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { runProcess } from '../../core/process.js';
import { requestedTestClass } from './agent-replay.js';
import { startReplayService } from './replay-service.js';

describe('the replay service', () => {
  it("answers the shim's Maven command with the harness's output and exit code", async () => {
    const seen: string[][] = [];
    const service = await startReplayService(async (args) => {
      seen.push(args);
      return { exitCode: 3, output: 'Tests run: 1, Failures: 1\n' };
    });
    try {
      const run = await runProcess(
        path.join(service.binDir, 'mvn'),
        ['-q', '-Dtest=a.BTest', 'test', 'an argument with spaces'],
        { timeoutMs: 20_000 },
      );
      expect(run.exitCode).toBe(3);
      expect(run.stdout).toBe('Tests run: 1, Failures: 1\n');
      expect(seen).toEqual([['-q', '-Dtest=a.BTest', 'test', 'an argument with spaces']]);
      expect(service.answered()).toBe(1);
    } finally {
      await service.stop();
    }
  });

  it('reports a failing harness as exit code 2, not as a test result', async () => {
    const service = await startReplayService(async () => {
      throw new Error('disk full');
    });
    try {
      const run = await runProcess(path.join(service.binDir, 'mvn'), ['test'], {
        timeoutMs: 20_000,
      });
      expect(run.exitCode).toBe(2);
      expect(run.stdout).toContain('disk full');
    } finally {
      await service.stop();
    }
  });
});

describe('requestedTestClass', () => {
  it('reads the first class of the last -Dtest, without nested classes or methods', () => {
    expect(requestedTestClass(['-Dtest=a.BTest,a.BTest$*', 'test'])).toBe('a.BTest');
    expect(requestedTestClass(['-Dtest=a.CTest#one+two'])).toBe('a.CTest');
    expect(requestedTestClass(['-Dtest=x.A', '-Dtest=x.B'])).toBe('x.B');
    expect(requestedTestClass(['test'])).toBeUndefined();
  });
});

import { describe, expect, it } from 'vitest';
import { runProcess } from '../core/process.js';
import { controlGroupSupport, createControlGroup } from './cgroup.js';

// The caps need a writable control group (root on this machine and in CI); elsewhere the runs
// go on without them and say so, which the last test checks.
const support = await controlGroupSupport();

describe.runIf(support === 'limited')('a control group of its own', () => {
  it('stops a run that forks past its process cap', async () => {
    const group = await createControlGroup({ pids: 16, memoryBytes: 256 * 1024 * 1024 });
    if (group.kind !== 'Limited') throw new Error(group.reason);
    try {
      const bomb = group.enter('/bin/sh', [
        '-c',
        'for i in $(seq 64); do sleep 1 & done 2>/dev/null; wait; echo forked-all',
      ]);
      const run = await runProcess(bomb.file, bomb.args, { timeoutMs: 20_000 });
      expect(run.stdout).not.toContain('forked-all');
    } finally {
      await group.dispose();
    }
  });

  it('kills a run that allocates past its memory cap', async () => {
    const group = await createControlGroup({ pids: 64, memoryBytes: 64 * 1024 * 1024 });
    if (group.kind !== 'Limited') throw new Error(group.reason);
    try {
      const hog = group.enter('/usr/bin/env', [
        'node',
        '-e',
        'const kept = []; for (let i = 0; i < 64; i++) kept.push(Buffer.alloc(8 << 20, 1)); console.log("allocated")',
      ]);
      const run = await runProcess(hog.file, hog.args, { timeoutMs: 20_000 });
      expect(run.stdout).not.toContain('allocated');
      expect(run.signal ?? run.exitCode).toBeTruthy();
    } finally {
      await group.dispose();
    }
  });
});

describe('control group support', () => {
  it('is recorded as limited or with the reason it is not', () => {
    expect(support).toMatch(/^(limited|unavailable: .+)$/);
  });
});

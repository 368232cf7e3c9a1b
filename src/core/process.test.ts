import { describe, expect, it, vi } from 'vitest';
import { processGroupMembers, runProcess, shellJoin } from './process.js';

describe('runProcess', () => {
  it('returns the exit code and output of a command', async () => {
    const result = await runProcess('sh', ['-c', 'echo out; echo err >&2; exit 7']);
    expect(result).toMatchObject({
      exitCode: 7,
      timedOut: false,
      stdout: 'out\n',
      stderr: 'err\n',
    });
  });

  it('kills the whole process group on timeout, grandchildren included', async () => {
    // The shell starts a background grandchild that ignores SIGTERM.
    const script = `echo $$; sh -c 'trap "" TERM; while true; do sleep 1; done' & wait`;
    const result = await runProcess('sh', ['-c', script], { timeoutMs: 500, graceMs: 300 });
    expect(result.timedOut).toBe(true);
    const pgid = Number(result.stdout.trim().split('\n')[0]);
    expect(pgid).toBeGreaterThan(0);
    expect(processGroupMembers(pgid)).toEqual([]);
  });

  it('leaves no member of the group behind when the leader exits first', async () => {
    const started = Date.now();
    const result = await runProcess('sh', ['-c', 'sleep 30 & echo $$'], { graceMs: 200 });
    const pgid = Number(result.stdout.trim());
    expect(processGroupMembers(pgid)).toEqual([]);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('leaves no timer behind once the command ended: it would keep a CLI alive for the grace', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      await runProcess('true', []);
      expect(vi.getTimerCount()).toBe(0);
    } finally {
      vi.useRealTimers();
    }
  });

  it('keeps the head and tail of very long output', async () => {
    const result = await runProcess(
      'sh',
      ['-c', 'echo FIRST; head -c 300000 /dev/zero | tr "\\0" x; echo; echo LAST'],
      {
        maxOutputBytes: 1000,
      },
    );
    expect(result.truncated).toBe(true);
    expect(result.stdout.startsWith('FIRST')).toBe(true);
    expect(result.stdout.trimEnd().endsWith('LAST')).toBe(true);
    expect(result.stdout.length).toBeLessThan(1100);
  });

  it('quotes arguments for display', () => {
    expect(shellJoin(['mvn', '-DargLine=-Xmx1g --add-opens=a/b=ALL', "it's"])).toBe(
      `mvn '-DargLine=-Xmx1g --add-opens=a/b=ALL' 'it'\\''s'`,
    );
  });
});

describe('runProcess input', () => {
  it('survives a child that exits without reading its input', async () => {
    const result = await runProcess('sh', ['-c', 'exit 3'], { input: 'x'.repeat(1 << 20) });
    expect(result.exitCode).toBe(3);
  });
});

import { execFileSync } from 'node:child_process';
import { readdir, readFile, symlink, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeTempDir, readTextIfExists, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import { createSandbox } from '../../sandbox/bwrap.js';
import { requestedTestClass } from './agent-replay.js';
import { startReplayService, type ReplayAnswer, type ReplayService } from './replay-service.js';

/** A service that records what it was asked and answers every request with `reply`. */
async function recordingService(
  reply: ReplayAnswer,
): Promise<{ service: ReplayService; seen: string[][] }> {
  const seen: string[][] = [];
  const service = await startReplayService(async (args) => {
    seen.push(args);
    return reply;
  });
  return { service, seen };
}

/** The answer to request `id`, once its exit code is written. */
async function answerTo(
  service: ReplayService,
  id: string,
): Promise<{ exitCode: number; output: string }> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const code = await readTextIfExists(path.join(service.answers, `${id}.code`));
    if (code !== undefined) {
      const output = await readFile(path.join(service.answers, `${id}.out`), 'utf8');
      return { exitCode: Number(code), output };
    }
    if (Date.now() > deadline) throw new Error(`no answer to ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

function mvn(service: ReplayService, args: string[]) {
  return runProcess(path.join(service.binDir, 'mvn'), args, { timeoutMs: 20_000 });
}

/** A host file outside the service's directories, standing for one the agent must not touch. */
async function hostFile(text: string): Promise<{ dir: string; file: string }> {
  const dir = await makeTempDir('replay-host');
  const file = path.join(dir, 'victim.txt');
  await writeFile(file, text);
  return { dir, file };
}

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

  it('reports a failing harness as exit code 2, not as a test result, naming none of its files', async () => {
    const service = await startReplayService(async () => {
      throw new Error('disk full at /root/.cache/witnessgym/evaluation-builds');
    });
    try {
      const run = await runProcess(path.join(service.binDir, 'mvn'), ['test'], {
        timeoutMs: 20_000,
      });
      expect(run.exitCode).toBe(2);
      expect(run.stdout).toContain('the harness failed');
      // The harness's error names its own files: none of it reaches the sandbox.
      expect(run.stdout).not.toContain('.cache');
    } finally {
      await service.stop();
    }
  });
});

describe('the replay service against a hostile sandbox', () => {
  it('never writes into requests/: links planted under the names it once wrote stay untouched', async () => {
    const host = await hostFile('host content\n');
    const { service } = await recordingService({ exitCode: 1, output: 'agent-chosen text\n' });
    try {
      for (const name of ['7.1.out.tmp', '7.1.out', '7.1.code.tmp', '7.1.code']) {
        await symlink(host.file, path.join(service.requests, name));
      }
      await writeFile(path.join(service.requests, '7.1.args'), 'test\n');
      expect(await answerTo(service, '7.1')).toEqual({
        exitCode: 1,
        output: 'agent-chosen text\n',
      });
      expect(await readFile(host.file, 'utf8')).toBe('host content\n');
    } finally {
      await service.stop();
      await removeTree(host.dir);
    }
  });

  it('writes no answer through a link, should answers/ ever be writable by the sandbox', async () => {
    const host = await hostFile('host content\n');
    const { service } = await recordingService({ exitCode: 1, output: 'agent-chosen text\n' });
    try {
      for (const name of ['7.5.out.tmp', '7.5.out', '7.5.code.tmp', '7.5.code']) {
        await symlink(host.file, path.join(service.answers, name));
      }
      await writeFile(path.join(service.requests, '7.5.args'), 'test\n');
      const deadline = Date.now() + 10_000;
      while ((await readdir(service.requests)).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await service.stop(); // waits for the request in hand
      expect(await readFile(host.file, 'utf8')).toBe('host content\n');
    } finally {
      await service.stop();
      await removeTree(host.dir);
    }
  });

  it('refuses a request that is a link to a host file, without reading or changing it', async () => {
    const host = await hostFile('-Dtest=secret.FromTheHost\n');
    const { service, seen } = await recordingService({ exitCode: 0, output: 'ran\n' });
    try {
      await symlink(host.file, path.join(service.requests, '7.2.args'));
      const answer = await answerTo(service, '7.2');
      expect(answer.exitCode).toBe(2);
      expect(answer.output).toContain('the request is a link, not a regular file');
      expect(answer.output).not.toContain('secret');
      expect(seen).toEqual([]);
      expect(await readFile(host.file, 'utf8')).toBe('-Dtest=secret.FromTheHost\n');
    } finally {
      await service.stop();
      await removeTree(host.dir);
    }
  });

  it('does not hang on a FIFO named as a request, and answers the next request', async () => {
    const { service, seen } = await recordingService({ exitCode: 0, output: 'ran\n' });
    try {
      // Named to sort before any id the shim makes, so it is taken first.
      execFileSync('mkfifo', [path.join(service.requests, '1.1.args')]);
      const run = await mvn(service, ['-Dtest=a.BTest', 'test']);
      expect(run.exitCode).toBe(0);
      expect(run.stdout).toBe('ran\n');
      expect(seen).toEqual([['-Dtest=a.BTest', 'test']]);
      const refused = await answerTo(service, '1.1');
      expect(refused.exitCode).toBe(2);
      expect(refused.output).toContain('the request is a fifo');
    } finally {
      await service.stop();
    }
  });

  it('refuses a request over 64 KiB or over 200 arguments, and runs nothing', async () => {
    const { service, seen } = await recordingService({ exitCode: 0, output: 'ran\n' });
    try {
      await writeFile(path.join(service.requests, '7.3.args'), Buffer.alloc(10 * 1024 * 1024, 'a'));
      await writeFile(path.join(service.requests, '7.4.args'), 'x\n'.repeat(201));
      const large = await answerTo(service, '7.3');
      expect(large.exitCode).toBe(2);
      expect(large.output).toContain('over the limit of 65536');
      const many = await answerTo(service, '7.4');
      expect(many.exitCode).toBe(2);
      expect(many.output).toContain('201 arguments, over the limit of 200');
      expect(seen).toEqual([]);
      expect(await readdir(service.requests)).toEqual([]); // both requests deleted
    } finally {
      await service.stop();
    }
  });

  it('caps an answer of 1 MB to its head and tail, saying how much was left out', async () => {
    const output = `HEAD${'x'.repeat(1024 * 1024)}TAIL`;
    const { service } = await recordingService({ exitCode: 1, output });
    try {
      const run = await mvn(service, ['test']);
      expect(run.exitCode).toBe(1);
      expect(run.stdout.startsWith('HEAD')).toBe(true);
      expect(run.stdout.endsWith('TAIL')).toBe(true);
      expect(run.stdout).toContain(
        `[witnessgym: ${output.length - 64 * 1024} bytes of output left out]`,
      );
      expect(run.stdout.length).toBeLessThan(64 * 1024 + 100);
    } finally {
      await service.stop();
    }
  });

  it('removes an answer once the shim has read it', async () => {
    const { service } = await recordingService({ exitCode: 0, output: 'ran\n' });
    try {
      expect((await mvn(service, ['test'])).exitCode).toBe(0);
      const deadline = Date.now() + 10_000;
      while ((await readdir(service.answers)).length > 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(await readdir(service.answers)).toEqual([]);
      expect(await readdir(service.requests)).toEqual([]);
    } finally {
      await service.stop();
    }
  });

  it('inside bubblewrap: the shim is answered, and nothing can be created in answers/', async () => {
    const workspace = await makeTempDir('replay-workspace');
    const { service } = await recordingService({ exitCode: 3, output: 'Tests run: 1\n' });
    const sandbox = await createSandbox({
      workspace,
      binDirs: [service.binDir],
      readOnly: [service.answers],
      writable: [service.requests],
    });
    try {
      const script = [
        'mvn -Dtest=a.BTest test; echo "exit $?"',
        `ln -s /etc/passwd ${service.answers}/9.9.out && echo linked`,
        `touch ${service.answers}/9.9.code && echo touched`,
        `mkdir ${service.answers}/9.9.out.tmp && echo made`,
        `touch ${service.requests}/probe && echo requests-writable`,
      ].join('\n');
      const wrapped = sandbox.wrap('/bin/sh', ['-c', script], workspace);
      const run = await runProcess(wrapped.file, wrapped.args, {
        cwd: wrapped.cwd,
        env: sandbox.env(),
        timeoutMs: 30_000,
      });
      expect(run.stdout).toBe('Tests run: 1\nexit 3\nrequests-writable\n');
      expect(run.stderr).toContain('Read-only file system');
      expect((await readdir(service.answers)).filter((name) => name.startsWith('9.9'))).toEqual([]);
    } finally {
      await sandbox.dispose();
      await service.stop();
      await removeTree(workspace);
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

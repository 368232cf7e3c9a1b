import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:net';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess, type RunResult } from '../core/process.js';
import {
  createSandbox,
  sandboxAvailability,
  systemJavaArchiveDirs,
  WORKSPACE_IN_SANDBOX,
  type Sandbox,
  type SandboxPolicy,
} from './bwrap.js';

interface Fixture {
  root: string;
  workspace: string;
  /** Stand-ins for the witnessgym cache and a benchmark directory, each with a marker file. */
  cache: string;
  bench: string;
  marker: string;
}

/** A real, non-empty system directory to hide: Debian's jars if installed, else the docs. */
const HIDDEN = existsSync('/usr/share/java') ? '/usr/share/java' : '/usr/share/doc';

let fixture: Fixture;
const sandboxes: Sandbox[] = [];

beforeEach(async () => {
  const root = await makeTempDir('sandbox-test');
  const marker = `marker-${randomBytes(6).toString('hex')}`;
  fixture = {
    root,
    workspace: path.join(root, 'workspace'),
    cache: path.join(root, 'cache'),
    bench: path.join(root, 'bench'),
    marker,
  };
  for (const dir of [fixture.workspace, fixture.cache, fixture.bench]) {
    await mkdir(dir);
    await writeFile(path.join(dir, marker), `secret in ${dir}\n`);
  }
});

afterEach(async () => {
  for (const sandbox of sandboxes.splice(0)) await sandbox.dispose();
  await removeTree(fixture.root);
});

async function sandboxWith(policy: Partial<SandboxPolicy> = {}): Promise<Sandbox> {
  const sandbox = await createSandbox({ workspace: fixture.workspace, ...policy });
  sandboxes.push(sandbox);
  return sandbox;
}

async function inside(
  sandbox: Sandbox,
  script: string,
  extraEnv?: Record<string, string>,
): Promise<RunResult> {
  const wrapped = sandbox.wrap('/bin/sh', ['-c', script], sandbox.policy.workspace);
  return runProcess(wrapped.file, wrapped.args, {
    cwd: wrapped.cwd,
    env: sandbox.env(extraEnv),
    timeoutMs: 30_000,
  });
}

describe('sandbox', () => {
  it('is available here (bwrap installed, namespaces allowed)', async () => {
    expect(await sandboxAvailability()).toMatchObject({ kind: 'Available' });
  });

  it('shows nothing outside its binds: no cache, benchmark, /work or /root contents', async () => {
    const sandbox = await sandboxWith();
    // /usr (the host's read-only system tree, where no fixture lies), /proc and /sys are left out:
    // walking them took seconds on a loaded machine and cannot hold a fixture's marker.
    const found = await inside(
      sandbox,
      `find / \\( -path /usr -o -path /proc -o -path /sys \\) -prune -o -name ${fixture.marker} -print 2>/dev/null; true`,
    );
    // The workspace's copy is found, so the search did look: the others are not there.
    expect(found.stdout.trim().split('\n')).toEqual([`${WORKSPACE_IN_SANDBOX}/${fixture.marker}`]);
    for (const dir of [fixture.cache, fixture.bench]) {
      const read = await inside(sandbox, `cat ${path.join(dir, fixture.marker)}`);
      expect(read.exitCode).not.toBe(0);
      expect(read.stdout).toBe('');
    }
    const elsewhere = await inside(
      sandbox,
      `test -e /work || test -e ${resolveCacheDir()} || echo hidden; ls -A "$HOME"`,
    );
    expect(elsewhere.stdout).toBe('hidden\n'); // and the private home is empty
  });

  it('lets the workspace be written, and the host sees the writes', async () => {
    const sandbox = await sandboxWith();
    await mkdir(path.join(fixture.workspace, 'sub'));
    const wrapped = sandbox.wrap(
      '/bin/sh',
      ['-c', 'pwd; echo written > here.txt'],
      path.join(fixture.workspace, 'sub'),
    );
    const run = await runProcess(wrapped.file, wrapped.args, {
      cwd: wrapped.cwd,
      env: sandbox.env(),
    });
    expect(run.stdout.trim()).toBe(`${WORKSPACE_IN_SANDBOX}/sub`);
    expect(await readFile(path.join(fixture.workspace, 'sub', 'here.txt'), 'utf8')).toBe(
      'written\n',
    );
  });

  it('shows a hidden system directory empty and read-only, its parent readable, the mask fixed', async () => {
    const entries = readdirSync(HIDDEN);
    expect(entries.length, `${HIDDEN} on the host`).toBeGreaterThan(0);
    const sibling = readdirSync(path.dirname(HIDDEN)).find(
      (name) => name !== path.basename(HIDDEN),
    );
    const visible = await inside(await sandboxWith(), `ls -A ${HIDDEN} | wc -l`);
    expect(Number(visible.stdout), 'without the policy its entries are listed').toBe(
      entries.length,
    );
    const sandbox = await sandboxWith({ hiddenSystemDirs: [HIDDEN] });
    const run = await inside(
      sandbox,
      [
        `echo "hidden: $(ls -A ${HIDDEN})"`,
        `ls -A ${path.dirname(HIDDEN)} | grep -qx '${sibling}' && echo parent-readable`,
        `touch ${HIDDEN}/new 2>/dev/null && echo wrote-mask`,
        // Capabilities are dropped: the mask cannot be lifted.
        `umount ${HIDDEN} 2>/dev/null && echo unmounted`,
        `ls -A ${HIDDEN} | head -1`,
        'true',
      ].join('; '),
    );
    expect(run.stdout).toBe('hidden: \nparent-readable\n');
  });

  it('puts binDirs first on PATH: their mvn runs, not the system one', async () => {
    const bin = path.join(fixture.root, 'bin');
    await mkdir(bin);
    await writeFile(path.join(bin, 'mvn'), '#!/bin/sh\necho "harness mvn $*"\n');
    await chmod(path.join(bin, 'mvn'), 0o755);
    const plain = await inside(await sandboxWith(), 'command -v mvn; true');
    expect(plain.stdout).not.toContain(bin);
    const run = await inside(await sandboxWith({ binDirs: [bin] }), 'command -v mvn; mvn -q test');
    expect(run.stdout).toBe(`${path.join(bin, 'mvn')}\nharness mvn -q test\n`);
  });

  it('has its own network namespace: a TCP connect to a host server fails, allow-list or not', async () => {
    let connections = 0;
    const server: Server = createServer((socket) => {
      connections++;
      socket.end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as { port: number }).port;
    const connect = `exec bash -c 'exec 3<>/dev/tcp/127.0.0.1/${port} && echo connected'`;
    try {
      const offline = await inside(await sandboxWith(), connect);
      expect(offline.stdout).toBe('');
      const allowed = { kind: 'allow' as const, endpoints: [`127.0.0.1:${port}`] };
      const proxied = await inside(await sandboxWith({ network: allowed }), connect);
      expect(proxied.stdout).toBe('');
      expect(connections).toBe(0);
      // The same connect on the host does get through: the failures above are the namespace's.
      const host = await runProcess('bash', ['-c', connect.replace(/^exec bash -c /, 'eval ')]);
      expect(host.stdout).toBe('connected\n');
      expect(connections).toBe(1);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });

  it('hides host processes (own pid namespace)', async () => {
    const marker = `300.${randomBytes(4).readUInt32BE()}`;
    const host = spawn('sleep', [marker], { stdio: 'ignore' });
    try {
      const seenOnHost = await runProcess('pgrep', ['-f', `sleep ${marker}`]);
      expect(seenOnHost.stdout.trim()).toBe(String(host.pid));
      const run = await inside(await sandboxWith(), `cat /proc/[0-9]*/cmdline | tr '\\0' ' '`);
      expect(run.stdout).toContain('/proc/1/cmdline'); // its own processes are listed
      // Booleans, not the listing: on failure the host's command lines would flood the message.
      expect(run.stdout.includes(marker), 'host sleep visible').toBe(false);
      expect(run.stdout.includes('vitest'), 'host vitest visible').toBe(false);
    } finally {
      host.kill('SIGKILL');
    }
  });

  it('passes no host secrets: only the variables it sets and the ones given', async () => {
    process.env.FOO_API_KEY = 'fake-host-secret';
    try {
      const sandbox = await sandboxWith();
      const plain = await inside(sandbox, 'env');
      expect(plain.stdout).not.toContain('FOO_API_KEY');
      expect(plain.stdout).not.toContain('fake-host-secret');
      expect(plain.stdout).not.toContain('WITNESSGYM_');
      expect(plain.stdout).toContain(`HOME=${sandbox.home}\n`);
      const given = await inside(sandbox, 'echo "$FOO_API_KEY"', { FOO_API_KEY: 'passed' });
      expect(given.stdout).toBe('passed\n');
    } finally {
      delete process.env.FOO_API_KEY;
    }
  });

  it('leaves no process behind when runProcess times out', async () => {
    const marker = `1000.${randomBytes(4).readUInt32BE()}`;
    const sandbox = await sandboxWith();
    const wrapped = sandbox.wrap(
      '/bin/sh',
      ['-c', `sleep ${marker} & sleep ${marker}`],
      fixture.workspace,
    );
    const run = await runProcess(wrapped.file, wrapped.args, {
      cwd: wrapped.cwd,
      env: sandbox.env(),
      timeoutMs: 1000,
      graceMs: 500,
    });
    expect(run.timedOut).toBe(true);
    // --new-session puts the sleeps in their own group; the pid namespace's end takes them along.
    const left = await runProcess('pgrep', ['-f', marker]);
    expect(left.stdout).toBe('');
  });

  it('refuses paths it cannot show', async () => {
    await expect(sandboxWith({ workspace: path.join(fixture.root, 'missing') })).rejects.toThrow(
      UserError,
    );
    for (const dir of ['/etc/ssl', '/usr/../etc', '/usr', 'usr/share/java', '/home']) {
      const refused = sandboxWith({ hiddenSystemDirs: [dir] });
      await expect(refused, dir).rejects.toThrow(UserError);
      await expect(refused, dir).rejects.toThrow(/must be under \/usr/);
    }
    const sandbox = await sandboxWith();
    expect(() => sandbox.wrap('/bin/true', [], fixture.cache)).toThrow(/not visible/);
  });
});

describe('systemJavaArchiveDirs', () => {
  // It walks the host's /usr, whose size is the machine's: seconds on a loaded one, past the
  // 5 s default, so the limit is set for a slow walk rather than for a hang.
  it(
    'lists directories under /usr holding Java archives, none of the JDKs',
    { timeout: 60_000 },
    async () => {
      const dirs = await systemJavaArchiveDirs();
      for (const dir of dirs) {
        expect(dir.startsWith('/usr/')).toBe(true);
        expect(dir.startsWith('/usr/lib/jvm')).toBe(false);
        expect(readdirSync(dir).some((name) => /\.(jar|war|ear|class)$/.test(name))).toBe(true);
      }
      if (existsSync('/usr/share/java')) expect(dirs).toContain('/usr/share/java');
    },
  );
});

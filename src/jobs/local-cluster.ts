import { spawn, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import type { WorkerEvent } from './worker.js';

/*
 * A queue and its workers on this machine, as the tests and `bench:scale-out` run them: a
 * redis-server on a free loopback port, and `witnessgym worker --json` processes whose events
 * are read back.
 */

async function freeLoopbackPort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

async function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

export interface LocalRedis {
  url: string;
  stop(): void;
}

/** Starts redis-server (no persistence, no eviction) with `dir` as its directory. */
export async function startLocalRedis(dir: string): Promise<LocalRedis> {
  const port = await freeLoopbackPort();
  const server = spawn(
    'redis-server',
    [
      ...['--port', String(port), '--bind', '127.0.0.1', '--dir', dir],
      ...['--save', '', '--appendonly', 'no', '--maxmemory-policy', 'noeviction'],
    ],
    { stdio: 'ignore' },
  );
  const failed = new Promise<never>((_, reject) =>
    server.once('error', (error) =>
      reject(new Error(`redis-server did not start (${error.message}): install redis-server`)),
    ),
  );
  const deadline = Date.now() + 10_000;
  while (!(await Promise.race([accepts(port), failed]))) {
    if (Date.now() > deadline) throw new Error(`redis-server did not listen on ${port}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { url: `redis://127.0.0.1:${port}`, stop: () => server.kill('SIGKILL') };
}

export interface WorkerProcess {
  child: ChildProcess;
  /** What it printed so far, one event per line. */
  events: WorkerEvent[];
  exited: Promise<void>;
  ready(): Promise<void>;
}

/** Starts `node <cli> worker --json <args>` in a process group of its own. */
export function startWorkerProcess(cli: string, args: readonly string[]): WorkerProcess {
  const child = spawn(process.execPath, [cli, 'worker', '--json', ...args], {
    detached: true,
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const events: WorkerEvent[] = [];
  let buffered = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    const lines = buffered.split('\n');
    buffered = lines.pop()!;
    for (const line of lines) if (line.trim()) events.push(JSON.parse(line) as WorkerEvent);
  });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const ready = async () => {
    while (!events.some((event) => event.kind === 'WorkerReady')) {
      if (child.exitCode !== null) throw new Error(`the worker ended (${child.exitCode})`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  };
  return { child, events, exited, ready };
}

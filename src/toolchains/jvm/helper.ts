import { spawn, type ChildProcess } from 'node:child_process';
import { createServer, Socket, type Server } from 'node:net';
import path from 'node:path';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { processGroupMembers } from '../../core/process.js';
import type { RawTrace } from './runner.js';
import type { RunnerClasspath } from './setup.js';

/** One answer of the runner JVM, as written by witnessgym.runner.Main. */
export interface HelperResponse {
  id?: number;
  error?: string;
  compile?: {
    ok: boolean;
    scope?: 'main' | 'test';
    messages?: { file: string; line: number | null; column: number | null; message: string }[];
  };
  compileMs?: number;
  loadMs?: number;
  testMs?: number;
  results?: HelperTestResult[];
  notFound?: string;
  /** The test run threw a VirtualMachineError (out of memory, say) past the platform. */
  crashed?: string;
  generatorError?: string;
  buildSteps?: BuildStepsResponse;
  restart?: boolean;
  trace?: RawTrace;
}

/** What the recipe's build steps (generators) cost a compile request. */
export interface BuildStepsResponse {
  /** Steps rerun with the candidate's classes, and their time. */
  rerun: number;
  rerunMs: number;
  /** Time spent learning which methods a step executes (once per step and project). */
  learningMs: number;
  /** What was learnt, by the JVM's key for each step: the methods the step executes. */
  learnt: Record<string, string[]>;
}

export interface HelperTestResult {
  testClass: string;
  testMethod: string;
  outcome: 'passed' | 'failure' | 'error' | 'skipped';
  exceptionType?: string;
  message?: string;
  frames?: string[];
  traceIndex?: number;
}

export type HelperOutcome =
  | { kind: 'answered'; response: HelperResponse }
  | { kind: 'timeout'; startup?: boolean }
  | {
      kind: 'exited';
      code: number | null;
      signal: NodeJS.Signals | null;
      stderr: string;
      startup?: boolean;
    };

const STARTUP_TIMEOUT_MS = 60_000;
const MAX_STDERR = 64 * 1024;

/**
 * A long-lived runner JVM in its own process group. Requests and answers travel over a Unix
 * socket the harness listens on, because the JVM's standard streams belong to the code under
 * test. A request that exceeds its limit kills the whole group; the next request starts afresh.
 */
export class JvmHelper {
  private child: ChildProcess | undefined;
  private socket: Socket | undefined;
  private server: Server | undefined;
  private nextId = 1;
  private buffered = '';
  private stderr = '';
  private waiting: ((outcome: HelperOutcome) => void) | undefined;
  private exited = false;
  /** How many JVMs this helper has started, for reporting restarts. */
  starts = 0;

  constructor(
    private readonly workingDirectory: string,
    private readonly java: string,
    private readonly jvmArgs: string[],
    private readonly runnerClasspath: RunnerClasspath,
  ) {}

  get running(): boolean {
    return this.child !== undefined && !this.exited;
  }

  /** Starts the JVM and waits until it has connected back and answered a ping. */
  private async launch(): Promise<HelperOutcome> {
    this.buffered = '';
    this.stderr = '';
    this.exited = false;
    const socketDir = await makeTempDir('runner');
    const socketPath = path.join(socketDir, 'runner.sock');
    const server = createServer();
    this.server = server;
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const connected = new Promise<Socket>((resolve) => server.once('connection', resolve));

    const child = spawn(
      this.java,
      [
        ...this.jvmArgs,
        `-Xbootclasspath/a:${this.runnerClasspath.boot.join(':')}`,
        '-Djava.system.class.loader=witnessgym.runner.SystemLoader',
        '-cp',
        this.runnerClasspath.classpath.join(':'),
        'witnessgym.runner.Main',
        socketPath,
      ],
      { cwd: this.workingDirectory, detached: true, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    this.child = child;
    this.starts++;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-MAX_STDERR);
    });
    const died = new Promise<HelperOutcome>((resolve) => {
      const report = (code: number | null, signal: NodeJS.Signals | null) => {
        if (this.child !== child) return;
        this.exited = true;
        const outcome: HelperOutcome = { kind: 'exited', code, signal, stderr: this.stderr };
        this.settle(outcome);
        resolve(outcome);
      };
      child.on('exit', report);
      child.on('error', () => report(null, null));
    });
    const timeout = new Promise<HelperOutcome>((resolve) =>
      setTimeout(() => resolve({ kind: 'timeout' }), STARTUP_TIMEOUT_MS).unref(),
    );
    const first = await Promise.race([connected, died, timeout]);
    // The socket file is only needed to connect.
    await removeTree(socketDir);
    if (!(first instanceof Socket)) {
      await this.stop();
      return first;
    }
    this.socket = first;
    first.setEncoding('utf8');
    first.on('data', (chunk: string) => this.receive(chunk));
    first.on('error', () => undefined); // a dying JVM resets the socket; its exit is what counts
    return this.exchange({ op: 'ping' }, STARTUP_TIMEOUT_MS);
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      if (line.trim() === '') continue;
      this.settle({ kind: 'answered', response: JSON.parse(line) as HelperResponse });
    }
  }

  private settle(outcome: HelperOutcome): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.(outcome);
  }

  /** Sends one request and waits for its answer, the JVM's death, or the time limit. */
  async request(body: Record<string, unknown>, timeoutMs: number): Promise<HelperOutcome> {
    if (!this.running) {
      const ready = await this.launch();
      if (ready.kind !== 'answered') return { ...ready, startup: true };
    }
    return this.exchange(body, timeoutMs);
  }

  private exchange(body: Record<string, unknown>, timeoutMs: number): Promise<HelperOutcome> {
    const id = this.nextId++;
    return new Promise<HelperOutcome>((resolve) => {
      const timer = setTimeout(() => {
        this.waiting = undefined;
        void this.stop().then(() => resolve({ kind: 'timeout' }));
      }, timeoutMs);
      this.waiting = (outcome) => {
        clearTimeout(timer);
        resolve(outcome);
      };
      this.socket!.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  /** Kills the runner JVM's process group and waits until none of it is left. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    this.server?.close();
    this.server = undefined;
    if (!child?.pid) return;
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    for (
      let waited = 0;
      waited < 10_000 && processGroupMembers(child.pid).length > 0;
      waited += 20
    ) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
}

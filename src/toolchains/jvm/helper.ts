import { spawn, type ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { createServer, Socket, type Server } from 'node:net';
import path from 'node:path';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { processGroupMembers, trackProcessGroup, untrackProcessGroup } from '../../core/process.js';
import { readAnswer, type AnswerTo, type Op, type Request } from './protocol.js';
import type { RunnerClasspath } from './setup.js';

/** Why a request got no answer: the JVM did not start or answer in time, died, or garbled it. */
export type HelperFault =
  | { kind: 'Timeout'; startup?: boolean }
  | {
      kind: 'Exited';
      code: number | null;
      signal: NodeJS.Signals | null;
      stderr: string;
      startup?: boolean;
    }
  /** The JVM wrote something the protocol does not allow; it is stopped, as it is out of step. */
  | { kind: 'ProtocolFault'; reason: string; startup?: boolean };

export type HelperOutcome<Answer> = { kind: 'Answered'; answer: Answer } | HelperFault;

/** The request waiting for its answer line, and its time limit. */
interface Pending {
  op: Op;
  id: number;
  timer: NodeJS.Timeout;
  settle: (outcome: HelperOutcome<unknown>) => void;
}

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
  private pending: Pending | undefined;
  private exited = false;
  private tmpDir: string | undefined;
  /** How many JVMs this helper has started, for reporting restarts. */
  starts = 0;

  constructor(
    private readonly workingDirectory: string,
    private readonly java: string,
    private readonly jvmArgs: string[],
    private readonly runnerClasspath: RunnerClasspath,
    /** Idle, it does not keep the process alive (a JVM shared by the process, never stopped). */
    private readonly background = false,
  ) {}

  get running(): boolean {
    return this.child !== undefined && !this.exited;
  }

  /** Starts the JVM and waits until it has connected back and answered a ping; a fault if not. */
  private async launch(): Promise<HelperFault | undefined> {
    this.buffered = '';
    this.stderr = '';
    this.exited = false;
    const socketDir = await makeTempDir('runner');
    const socketPath = path.join(socketDir, 'runner.sock');
    const server = createServer();
    this.server = server;
    await new Promise<void>((resolve) => server.listen(socketPath, resolve));
    const connected = new Promise<Socket>((resolve) => server.once('connection', resolve));
    // Tests' temporary files go to a directory of this JVM's, removed when it stops (a recipe's
    // own java.io.tmpdir, given later, still wins).
    this.tmpDir = await makeTempDir('runner-tmp');

    const child = spawn(
      this.java,
      [
        `-Djava.io.tmpdir=${this.tmpDir}`,
        // Java agents attached at run time (byte-buddy-agent, for mockito-inline) attach from
        // inside: attaching from a helper process, as under Surefire, leaves the JDK's process
        // reaper thread holding the test loader, and the JVM would be restarted after each run.
        '-Djdk.attach.allowAttachSelf=true',
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
    if (child.pid !== undefined) trackProcessGroup(child.pid);
    this.starts++;
    child.stderr!.setEncoding('utf8');
    child.stderr!.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-MAX_STDERR);
    });
    const died = new Promise<HelperFault>((resolve) => {
      const report = (code: number | null, signal: NodeJS.Signals | null) => {
        if (child.pid !== undefined) untrackProcessGroup(child.pid);
        if (this.child !== child) return;
        this.exited = true;
        const outcome: HelperFault = { kind: 'Exited', code, signal, stderr: this.stderr };
        this.settle(outcome);
        resolve(outcome);
      };
      child.on('exit', report);
      child.on('error', () => report(null, null));
    });
    const timeout = new Promise<HelperFault>((resolve) =>
      setTimeout(() => resolve({ kind: 'Timeout' }), STARTUP_TIMEOUT_MS).unref(),
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
    const pinged = await this.exchange({ op: 'ping' }, STARTUP_TIMEOUT_MS);
    if (pinged.kind !== 'Answered') return pinged;
    if (pinged.answer.kind === 'Error') {
      await this.stop();
      return { kind: 'ProtocolFault', reason: `ping failed: ${pinged.answer.message}` };
    }
    if (this.background) {
      // A request waits on its ref'd time limit; between requests nothing here holds the process.
      for (const handle of [child, child.stderr as Socket, first, server]) handle.unref();
    }
    return undefined;
  }

  private receive(chunk: string): void {
    this.buffered += chunk;
    let newline: number;
    while ((newline = this.buffered.indexOf('\n')) >= 0) {
      const line = this.buffered.slice(0, newline);
      this.buffered = this.buffered.slice(newline + 1);
      if (line.trim() === '') continue;
      const pending = this.takePending();
      if (!pending) {
        // An answer nobody asked for: the JVM is out of step, so the next request starts afresh.
        void this.stop();
        return;
      }
      const read = readAnswer(pending.op, pending.id, line);
      if (read.kind === 'Read') {
        pending.settle({ kind: 'Answered', answer: read.answer });
      } else {
        void this.stop().then(() => pending.settle({ kind: 'ProtocolFault', reason: read.reason }));
        return;
      }
    }
  }

  /** The waiting request, no longer waiting nor timed. */
  private takePending(): Pending | undefined {
    const pending = this.pending;
    this.pending = undefined;
    if (pending) clearTimeout(pending.timer);
    return pending;
  }

  private settle(outcome: HelperFault): void {
    this.takePending()?.settle(outcome);
  }

  /** Sends one request and waits for its answer, the JVM's death, or the time limit. */
  async request<R extends Request>(
    body: R,
    timeoutMs: number,
  ): Promise<HelperOutcome<AnswerTo[R['op']]>> {
    if (!this.running) {
      const fault = await this.launch();
      if (fault) return { ...fault, startup: true };
    }
    return this.exchange(body, timeoutMs);
  }

  private exchange<R extends Request>(
    body: R,
    timeoutMs: number,
  ): Promise<HelperOutcome<AnswerTo[R['op']]>> {
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending = {
        op: body.op,
        id,
        timer: setTimeout(() => {
          this.pending = undefined;
          void this.stop().then(() => resolve({ kind: 'Timeout' }));
        }, timeoutMs),
        // readAnswer read the answer with the schema of `body.op`.
        settle: (outcome) => resolve(outcome as HelperOutcome<AnswerTo[R['op']]>),
      };
      this.socket!.write(`${JSON.stringify({ ...body, id })}\n`);
    });
  }

  /** Kills the runner JVM's process group and drops its temp files at once, for a process exiting. */
  stopNow(): void {
    if (this.child?.pid) {
      try {
        process.kill(-this.child.pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    if (this.tmpDir) rmSync(this.tmpDir, { recursive: true, force: true });
  }

  /** Kills the runner JVM's process group, waits until none of it is left, drops its temp files. */
  async stop(): Promise<void> {
    const child = this.child;
    this.child = undefined;
    this.socket?.destroy();
    this.socket = undefined;
    this.server?.close();
    this.server = undefined;
    if (child?.pid) {
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
    if (this.tmpDir) await removeTree(this.tmpDir);
    this.tmpDir = undefined;
  }
}

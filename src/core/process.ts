import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';

export interface RunOptions {
  cwd?: string;
  env?: NodeJS.ProcessEnv;
  /** Wall-clock limit; on expiry the whole process group is killed. */
  timeoutMs?: number;
  /** Time between SIGTERM and SIGKILL when the limit is hit. */
  graceMs?: number;
  /** Bytes kept from each of stdout and stderr (head and tail halves). */
  maxOutputBytes?: number;
  input?: string | Buffer;
}

export interface RunResult {
  command: string;
  exitCode: number | null;
  signal: NodeJS.Signals | null;
  timedOut: boolean;
  durationMs: number;
  stdout: string;
  stderr: string;
  /** True when the output was longer than maxOutputBytes and its middle was dropped. */
  truncated: boolean;
}

const DEFAULT_MAX_OUTPUT = 4 * 1024 * 1024;

/** Keeps the first and last halves of a stream so both the start and the verdict lines survive. */
class CappedBuffer {
  private head: Buffer[] = [];
  private headBytes = 0;
  private tail: Buffer[] = [];
  private tailBytes = 0;
  dropped = 0;

  constructor(private readonly limit: number) {}

  push(chunk: Buffer): void {
    const half = Math.floor(this.limit / 2);
    if (this.headBytes < half) {
      const take = chunk.subarray(0, half - this.headBytes);
      this.head.push(take);
      this.headBytes += take.length;
      chunk = chunk.subarray(take.length);
    }
    if (chunk.length === 0) return;
    this.tail.push(chunk);
    this.tailBytes += chunk.length;
    while (this.tailBytes > half && this.tail.length > 0) {
      const first = this.tail[0]!;
      const excess = this.tailBytes - half;
      if (first.length <= excess) {
        this.tail.shift();
        this.tailBytes -= first.length;
        this.dropped += first.length;
      } else {
        this.tail[0] = first.subarray(excess);
        this.tailBytes -= excess;
        this.dropped += excess;
      }
    }
  }

  toString(): string {
    const head = Buffer.concat(this.head).toString('utf8');
    const tail = Buffer.concat(this.tail).toString('utf8');
    return this.dropped > 0
      ? `${head}\n[... ${this.dropped} bytes dropped ...]\n${tail}`
      : head + tail;
  }
}

/**
 * Live (non-zombie) members of a process group, read from /proc. Zombies are ignored because an
 * init that does not reap (common in containers) would otherwise keep a dead group "alive".
 */
export function processGroupMembers(pgid: number): number[] {
  const members: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    let stat: string;
    try {
      stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
    } catch {
      continue; // exited while we looked
    }
    // Fields after the parenthesised command name: state ppid pgrp ...
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    if (Number(fields[2]) === pgid && fields[0] !== 'Z') members.push(Number(entry));
  }
  return members;
}

function isGroupAlive(pgid: number): boolean {
  return processGroupMembers(pgid).length > 0;
}

/** Process groups this process started that may still run: a stop by signal ends them first. */
const liveGroups = new Set<number>();

/** Marks a group this process started (its leader's pid) as one a stop must end. */
export function trackProcessGroup(pgid: number): void {
  liveGroups.add(pgid);
}

export function untrackProcessGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/**
 * Kills every group this process started and waits, blocking, until none has a live member or
 * `waitMs` passed: for a stop by signal, where no other code may run meanwhile (it would start
 * more), and a Maven still writing into a tree would keep it from being removed.
 */
export function killLiveProcessGroupsSync(waitMs = 5000): void {
  for (const pgid of liveGroups) killGroup(pgid, 'SIGKILL');
  const nap = new Int32Array(new SharedArrayBuffer(4));
  const deadline = Date.now() + waitMs;
  while ([...liveGroups].some(isGroupAlive) && Date.now() < deadline) Atomics.wait(nap, 0, 0, 20);
  liveGroups.clear();
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // The group is already gone.
  }
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a command in its own process group. Maven forks test JVMs, so a timeout must kill the
 * group, not just the direct child; the result is returned only once no process of the group
 * remains.
 */
export async function runProcess(
  file: string,
  args: readonly string[],
  options: RunOptions = {},
): Promise<RunResult> {
  const started = performance.now();
  const limit = options.maxOutputBytes ?? DEFAULT_MAX_OUTPUT;
  const stdout = new CappedBuffer(limit);
  const stderr = new CappedBuffer(limit);
  const child = spawn(file, args, {
    cwd: options.cwd,
    env: options.env ?? process.env,
    detached: true,
    stdio: [options.input === undefined ? 'ignore' : 'pipe', 'pipe', 'pipe'],
  });
  const pgid = child.pid;
  if (pgid !== undefined) trackProcessGroup(pgid);
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;

  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>(
    (resolve, reject) => {
      child.once('error', reject);
      child.once('exit', (code, signal) => resolve({ code, signal }));
    },
  );
  const streamsClosed = new Promise<void>((resolve) => child.once('close', () => resolve()));
  child.stdout!.on('data', (chunk: Buffer) => stdout.push(chunk));
  child.stderr!.on('data', (chunk: Buffer) => stderr.push(chunk));
  if (options.input !== undefined) {
    // A child that exits without reading its input must not crash this process with EPIPE.
    child.stdin!.on('error', () => {});
    child.stdin!.end(options.input);
  }

  const grace = options.graceMs ?? 3000;
  if (options.timeoutMs !== undefined && pgid !== undefined) {
    timer = setTimeout(() => {
      timedOut = true;
      killGroup(pgid, 'SIGTERM');
      setTimeout(() => killGroup(pgid, 'SIGKILL'), grace).unref();
    }, options.timeoutMs);
  }

  let outcome: { code: number | null; signal: NodeJS.Signals | null };
  try {
    outcome = await exited;
  } finally {
    if (timer) clearTimeout(timer);
  }
  if (pgid !== undefined && isGroupAlive(pgid)) {
    // The leader exited but descendants (e.g. a forked JVM) linger: they must not outlive the run.
    killGroup(pgid, 'SIGTERM');
    for (let waited = 0; waited < grace && isGroupAlive(pgid); waited += 50) await sleep(50);
    killGroup(pgid, 'SIGKILL');
    for (let waited = 0; waited < 10_000 && isGroupAlive(pgid); waited += 20) await sleep(20);
  }
  if (pgid !== undefined) untrackProcessGroup(pgid);
  // Descendants that escaped the group could hold the pipes open: do not wait on them forever.
  // The wait's timer is cleared once the pipes close, or it alone would keep a CLI alive.
  let pipesTimer: NodeJS.Timeout | undefined;
  await Promise.race([
    streamsClosed,
    new Promise((resolve) => {
      pipesTimer = setTimeout(resolve, grace);
    }),
  ]);
  clearTimeout(pipesTimer);

  return {
    command: [file, ...args].join(' '),
    exitCode: outcome.code,
    signal: outcome.signal,
    timedOut,
    durationMs: Math.round(performance.now() - started),
    stdout: stdout.toString(),
    stderr: stderr.toString(),
    truncated: stdout.dropped + stderr.dropped > 0,
  };
}

/** The last line of a process's output, for a one-line reason it failed. */
export function lastLine(text: string): string {
  return text.trim().split('\n').pop() ?? '';
}

/** Quotes arguments for display as a command a person can paste into a POSIX shell. */
export function shellJoin(args: readonly string[]): string {
  return args
    .map((arg) => (/^[\w@%+=:,./-]+$/.test(arg) ? arg : `'${arg.replace(/'/g, `'\\''`)}'`))
    .join(' ');
}

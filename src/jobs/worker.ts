import { randomBytes } from 'node:crypto';
import os from 'node:os';
import path from 'node:path';
import { UnrecoverableError, Worker, type Job } from 'bullmq';
import type { CacheLayout } from '../core/cache.js';
import { cleanUpForStop } from '../core/fs.js';
import {
  checkRedis,
  connectionOptions,
  KEY_PREFIX,
  parseRedisUrl,
  type QueueName,
} from './connection.js';
import type { JobRegistry } from './kind.js';
import { runInUnitProcess } from './unit-process.js';

/*
 * `witnessgym worker`: takes units from the queues it serves, each into a process of its own
 * (unit-process.ts), and hands the result back through BullMQ. It writes no store: the
 * coordinator does. Its lock on a job is renewed while the unit runs; when the worker dies, the
 * lock lapses and the stall check hands the job to another worker without counting an attempt.
 */

export interface WorkerOptions {
  redis: string;
  /** Units this worker runs at once, per queue. */
  concurrency: number;
  queues: readonly QueueName[];
  /** How long a job's lock lasts unrenewed: a dead worker's units move on after about this. */
  lockSeconds: number;
  cache: CacheLayout;
  /** Where each unit's fresh directory is made. */
  workRoot: string;
  registry: JobRegistry;
  /** How to start a unit's process (it serves one request over IPC). */
  unitCommand: readonly string[];
  report: (event: WorkerEvent) => void;
  /** Stops the worker: no job is taken after it; running units are killed and left to the stall check. */
  signal: AbortSignal;
}

/** What a worker reports, stamped with when (epoch ms, the worker's clock). */
export type WorkerEvent = WorkerEventBody & { at: number };

type WorkerEventBody =
  | { kind: 'WorkerReady'; worker: string; queues: readonly QueueName[]; concurrency: number }
  | {
      kind: 'UnitStarted';
      worker: string;
      job: string;
      name: string;
      label: string;
      /** Which start of the job this is (a dead worker's start counts). */
      start: number;
      /** The name this run's processes carry in UNIT_MARKER_ENV. */
      unit: string;
    }
  | { kind: 'UnitCompleted'; worker: string; job: string; name: string; durationMs: number }
  | {
      kind: 'UnitFailed';
      worker: string;
      job: string;
      name: string;
      reason: string;
      /** Whether the queue will try the unit again. */
      retried: boolean;
    }
  | { kind: 'WorkerStopped'; worker: string; reason: string };

/** Stall checks: a job whose lock lapsed this many times is failed, not handed on again. */
const MAX_STALLS = 3;

export async function runWorker(options: WorkerOptions): Promise<void> {
  const address = parseRedisUrl(options.redis, '--redis');
  await checkRedis(address);
  const workerName = `${os.hostname()}-${process.pid}`;
  const report = (event: WorkerEventBody) => options.report({ ...event, at: Date.now() });
  const lockMs = options.lockSeconds * 1000;
  // A unit is reported completed once the queue took its result (a worker whose lock lapsed
  // while it ran finishes too, but the queue refuses its result): how long it ran, until then.
  const finishedIn = new Map<string, number>();

  const processor = async (job: Job): Promise<unknown> => {
    const kind = options.registry.get(job.name);
    if (!kind) throw new UnrecoverableError(`this witnessgym has no job kind '${job.name}'`);
    const run = `${job.id}-${randomBytes(4).toString('hex')}`;
    const parsed = kind.payload.safeParse(job.data);
    report({
      kind: 'UnitStarted',
      worker: workerName,
      job: job.id!,
      name: job.name,
      label: parsed.success ? kind.label(parsed.data) : '(payload of another shape)',
      start: job.attemptsStarted,
      unit: run,
    });
    const started = performance.now();
    const response = await runInUnitProcess(
      options.unitCommand,
      {
        kind: job.name,
        payload: job.data,
        cacheRoot: options.cache.root,
        workDir: path.join(options.workRoot, run),
      },
      run,
    );
    switch (response.kind) {
      case 'Done':
        finishedIn.set(job.id!, Math.round(performance.now() - started));
        return response.result;
      case 'Refused':
        throw new UnrecoverableError(response.reason);
      case 'Fault':
        throw new Error(response.reason);
    }
  };

  const workers = options.queues.map(
    (queue) =>
      new Worker(queue, processor, {
        connection: connectionOptions(address),
        prefix: KEY_PREFIX,
        name: workerName,
        concurrency: options.concurrency,
        lockDuration: lockMs,
        stalledInterval: lockMs,
        maxStalledCount: MAX_STALLS,
      }),
  );
  for (const worker of workers) {
    worker.on('completed', (job) => {
      report({
        kind: 'UnitCompleted',
        worker: workerName,
        job: job.id!,
        name: job.name,
        durationMs: finishedIn.get(job.id!) ?? 0,
      });
      finishedIn.delete(job.id!);
    });
    worker.on('failed', (job, error) => {
      if (!job) return;
      report({
        kind: 'UnitFailed',
        worker: workerName,
        job: job.id!,
        name: job.name,
        reason: error.message,
        retried:
          !(error instanceof UnrecoverableError) && job.attemptsMade < (job.opts.attempts ?? 1),
      });
    });
    // A lost connection is retried by the client; say so rather than crash.
    worker.on('error', (error) => {
      process.stderr.write(`witnessgym worker: ${error.message}\n`);
    });
  }
  await Promise.all(workers.map((worker) => worker.waitUntilReady()));
  report({
    kind: 'WorkerReady',
    worker: workerName,
    queues: options.queues,
    concurrency: options.concurrency,
  });
  await new Promise<void>((resolve) => {
    if (options.signal.aborted) resolve();
    else options.signal.addEventListener('abort', () => resolve(), { once: true });
  });
  // Units still running are ended here: their jobs go to other workers once the locks lapse.
  cleanUpForStop();
  await Promise.all(workers.map((worker) => worker.close(true)));
  report({
    kind: 'WorkerStopped',
    worker: workerName,
    reason: String(options.signal.reason ?? 'stopped'),
  });
}

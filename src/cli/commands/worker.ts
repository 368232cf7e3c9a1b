import os from 'node:os';
import path from 'node:path';
import { Option, type Command } from 'commander';
import { UserError } from '../../core/errors.js';
import { QUEUE_NAMES, type QueueName } from '../../jobs/connection.js';
import { serveUnitRequest } from '../../jobs/unit-process.js';
import { runWorker, type WorkerEvent } from '../../jobs/worker.js';
import { JOB_KINDS } from '../../pipeline/job-kinds.js';
import { cacheFrom, positiveInteger } from '../common.js';

interface WorkerFlags {
  redis: string;
  concurrency: number;
  queues: string;
  lockSeconds: number;
  workDir?: string;
  json?: boolean;
}

function queuesOf(value: string): QueueName[] {
  const names = value
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  for (const name of names) {
    if (!(QUEUE_NAMES as readonly string[]).includes(name)) {
      throw new UserError(`--queues: unknown queue '${name}'; use ${QUEUE_NAMES.join(', ')}`);
    }
  }
  if (names.length === 0)
    throw new UserError(`--queues names no queue; use ${QUEUE_NAMES.join(', ')}`);
  return names as QueueName[];
}

function line(event: WorkerEvent): string {
  switch (event.kind) {
    case 'WorkerReady':
      return `worker ${event.worker} serves ${event.queues.join(', ')} (${event.concurrency} at once per queue)`;
    case 'UnitStarted':
      return `started ${event.name} ${event.label} (job ${event.job.slice(0, 12)}, start ${event.start})`;
    case 'UnitCompleted':
      return `completed ${event.name} job ${event.job.slice(0, 12)} in ${(event.durationMs / 1000).toFixed(1)} s`;
    case 'UnitFailed':
      return `failed ${event.name} job ${event.job.slice(0, 12)}: ${event.reason}${event.retried ? ' (tried again)' : ''}`;
    case 'WorkerStopped':
      return `worker ${event.worker} stopped: ${event.reason}`;
  }
}

async function worker(options: WorkerFlags, command: Command): Promise<void> {
  const queues = queuesOf(options.queues);
  const stop = new AbortController();
  const onSignal = (signal: NodeJS.Signals) => stop.abort(signal);
  process.once('SIGINT', onSignal);
  process.once('SIGTERM', onSignal);
  await runWorker({
    redis: options.redis,
    concurrency: options.concurrency,
    queues,
    lockSeconds: options.lockSeconds,
    cache: cacheFrom(command),
    workRoot: path.resolve(
      options.workDir ?? path.join(os.tmpdir(), `witnessgym-worker-${process.pid}`),
    ),
    registry: JOB_KINDS,
    unitCommand: [process.execPath, process.argv[1]!, 'unit'],
    report: (event) =>
      process.stdout.write(`${options.json ? JSON.stringify(event) : line(event)}\n`),
    signal: stop.signal,
  });
}

/** `witnessgym worker`, and the `unit` process each of its units runs in. */
export function register(program: Command): void {
  program
    .command('worker')
    .description(
      "run units of work from a Redis queue (BullMQ) until stopped: evaluation attempts, build units and strengthening instances that a coordinator ('evaluate', 'build' or 'strengthen' with --queue) submits; the benchmark and run directories must be at the same path on every host, the corpus cache is this host's own",
    )
    .requiredOption('--redis <url>', 'the queue server, redis://host:6379')
    .addOption(
      new Option('--concurrency <n>', 'units run at once, per queue')
        .argParser(positiveInteger('--concurrency'))
        .default(1),
    )
    .option(
      '--queues <names>',
      `the queues served, of ${QUEUE_NAMES.join(', ')}`,
      QUEUE_NAMES.join(','),
    )
    .addOption(
      new Option(
        '--lock-seconds <n>',
        "how long a job's lock lasts unrenewed: a dead worker's unit goes to another after about this",
      )
        .argParser(positiveInteger('--lock-seconds'))
        .default(60),
    )
    .option('--work-dir <dir>', "where units' scratch directories are made (default: the temp dir)")
    .option('--json', 'one JSON event per line')
    .action(worker);
  program
    .command('unit', { hidden: true })
    .description('runs one unit for a worker (internal)')
    .action(() => serveUnitRequest(JOB_KINDS));
}

import { Job, Queue, QueueEvents } from 'bullmq';
import { errorMessage } from '../core/errors.js';
import {
  checkRedis,
  connectionOptions,
  KEY_PREFIX,
  parseRedisUrl,
  type QueueName,
  type RedisAddress,
} from './connection.js';
import type { JobKind } from './kind.js';

/*
 * The coordinator's side of the queue: it submits units under their content-addressed keys and
 * waits for their results. A key already in the queue is not added again: a finished unit's result
 * is read back (a rerun resumes), one still running is waited for, one that failed is retried.
 */

/** Retries of a unit whose run failed for a reason other than its own (a worker's fault). */
const INFRASTRUCTURE_ATTEMPTS = 3;
/** Finished jobs stay this long, so a coordinator restarted within it reads their results. */
const KEEP_FINISHED_SECONDS = 14 * 24 * 3600;

/** A unit the queue gave up on: refused as given, or failed on every attempt. */
export class UnitFailed extends Error {
  constructor(
    readonly key: string,
    reason: string,
  ) {
    super(reason);
    this.name = 'UnitFailed';
  }
}

export interface CoordinatorOptions {
  /**
   * At most this many units of the evaluate queue run at once across all workers (the agent
   * API's spend); none when undefined, which also lifts one an earlier run set.
   */
  agentConcurrency?: number;
}

export class JobCoordinator {
  private readonly queues = new Map<QueueName, { queue: Queue; events: QueueEvents }>();

  private constructor(
    readonly address: RedisAddress,
    private readonly options: CoordinatorOptions,
  ) {}

  /** Connects to the queue's server, failing with what to do when it cannot. */
  static async open(url: string, options: CoordinatorOptions = {}): Promise<JobCoordinator> {
    const address = parseRedisUrl(url, '--queue');
    await checkRedis(address);
    return new JobCoordinator(address, options);
  }

  private async channel(name: QueueName): Promise<{ queue: Queue; events: QueueEvents }> {
    const known = this.queues.get(name);
    if (known) return known;
    const connection = connectionOptions(this.address);
    const queue = new Queue(name, { connection, prefix: KEY_PREFIX });
    const events = new QueueEvents(name, { connection, prefix: KEY_PREFIX });
    // Every unit waited for listens on both (BullMQ's waitUntilFinished): thousands at once.
    queue.setMaxListeners(0);
    events.setMaxListeners(0);
    const opened = { queue, events };
    this.queues.set(name, opened);
    await Promise.all([queue.waitUntilReady(), events.waitUntilReady()]);
    if (name === 'evaluate') {
      if (this.options.agentConcurrency === undefined) await queue.removeGlobalConcurrency();
      else await queue.setGlobalConcurrency(this.options.agentConcurrency);
    }
    return opened;
  }

  /** Runs a unit on some worker and returns its result, checked against the kind's schema. */
  async submit<P, R>(kind: JobKind<P, R>, key: string, payload: P): Promise<R> {
    const { queue, events } = await this.channel(kind.queue);
    await queue.add(kind.name, kind.payload.parse(payload), {
      jobId: key,
      attempts: INFRASTRUCTURE_ATTEMPTS,
      backoff: { type: 'exponential', delay: 5000 },
      removeOnComplete: { age: KEEP_FINISHED_SECONDS },
      removeOnFail: { age: KEEP_FINISHED_SECONDS },
    });
    const job = await Job.fromId(queue, key);
    if (!job) throw new UnitFailed(key, `the queue lost job ${key} as it was added`);
    if (job.name !== kind.name) {
      throw new UnitFailed(key, `job ${key} in the queue is a ${job.name}, not a ${kind.name}`);
    }
    // A unit that failed in an earlier run is given another chance by this one.
    if ((await job.getState()) === 'failed') await job.retry('failed');
    let value: unknown;
    try {
      value = await job.waitUntilFinished(events);
    } catch (error) {
      throw new UnitFailed(key, errorMessage(error));
    }
    const parsed = kind.result.safeParse(value);
    if (!parsed.success) {
      throw new UnitFailed(key, `job ${key} returned a result of another shape`);
    }
    return parsed.data;
  }

  async close(): Promise<void> {
    for (const { queue, events } of this.queues.values()) {
      await events.close();
      await queue.close();
    }
    this.queues.clear();
  }
}

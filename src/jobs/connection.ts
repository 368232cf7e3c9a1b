import { Redis } from 'ioredis';
import { UserError } from '../core/errors.js';

/*
 * Where the job queue lives: a Redis server every host reaches, named by a redis:// URL.
 */

export interface RedisAddress {
  /** The URL as given, for messages (its password, if any, masked). */
  shown: string;
  host: string;
  port: number;
  db: number;
  username?: string;
  password?: string;
}

/** `redis://[user:password@]host[:port][/db]`; anything else is a user error. */
export function parseRedisUrl(text: string, flag: string): RedisAddress {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UserError(`${flag} must be a redis:// URL (redis://host:6379), not '${text}'`);
  }
  if (url.protocol !== 'redis:' || url.hostname === '') {
    throw new UserError(`${flag} must be a redis:// URL (redis://host:6379), not '${text}'`);
  }
  const dbText = url.pathname.replace(/^\//, '');
  const db = dbText === '' ? 0 : Number(dbText);
  if (!Number.isInteger(db) || db < 0) {
    throw new UserError(`${flag}: the database after the host must be a number, not '${dbText}'`);
  }
  const port = url.port === '' ? 6379 : Number(url.port);
  const masked = new URL(url.href);
  if (masked.password) masked.password = '***';
  return {
    shown: masked.href,
    host: url.hostname,
    port,
    db,
    ...(url.username ? { username: decodeURIComponent(url.username) } : {}),
    ...(url.password ? { password: decodeURIComponent(url.password) } : {}),
  };
}

/** Options for BullMQ's connections: blocking commands must wait as long as they need to. */
export function connectionOptions(address: RedisAddress) {
  return {
    host: address.host,
    port: address.port,
    db: address.db,
    ...(address.username ? { username: address.username } : {}),
    ...(address.password ? { password: address.password } : {}),
    maxRetriesPerRequest: null,
  };
}

/**
 * Fails fast, with what to do, when the server cannot be reached: BullMQ's own clients would
 * retry for ever. Also refuses a server that may evict keys, which would lose jobs silently.
 */
export async function checkRedis(address: RedisAddress): Promise<void> {
  const client = new Redis({
    ...connectionOptions(address),
    lazyConnect: true,
    maxRetriesPerRequest: 1,
    retryStrategy: () => null,
    connectTimeout: 5000,
  });
  // The client reports the cause (ECONNREFUSED, a DNS failure) here; connect() only says it closed.
  let cause: Error | undefined;
  client.on('error', (error: Error) => {
    cause ??= error;
  });
  try {
    await client.connect();
    // Managed servers may refuse CONFIG: then the policy is the operator's to set, unchecked.
    const policy = ((await client.config('GET', 'maxmemory-policy').catch(() => [])) ??
      []) as string[];
    if (policy[1] !== undefined && policy[1] !== 'noeviction') {
      throw new UserError(
        `the Redis server at ${address.shown} may evict keys (maxmemory-policy ${policy[1]}), which loses jobs: set 'maxmemory-policy noeviction'`,
      );
    }
  } catch (error) {
    if (error instanceof UserError) throw error;
    throw new UserError(
      `cannot reach Redis at ${address.shown} (${(cause ?? (error as Error)).message}): start redis-server there or fix the URL`,
    );
  } finally {
    client.disconnect();
  }
}

/** BullMQ queue names: one per kind of work, so a worker can serve some kinds and not others. */
export const QUEUE_NAMES = ['evaluate', 'build', 'strengthen'] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/** Every key of witnessgym's queues starts with this, apart from other users of the server. */
export const KEY_PREFIX = 'witnessgym';

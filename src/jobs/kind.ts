import type { z } from 'zod';
import type { CacheLayout } from '../core/cache.js';
import type { QueueName } from './connection.js';

/*
 * A kind of job: a unit of a stage's work that a worker on any host can run from a payload of
 * keys and paths, returning a compact result the coordinator alone writes into its store.
 */

/** What a unit is given on the worker that runs it. */
export interface UnitContext {
  /** The worker's own cache (its corpus projects, Maven repository, warm JVM runtimes). */
  cache: CacheLayout;
  /** A directory made for this run of the unit alone, removed after it. */
  workDir: string;
}

/**
 * A unit that cannot run as given (a case that is not there, a malformed payload): running it
 * again elsewhere would not help, so it is not retried. Any other throw is an infrastructure
 * fault and is.
 */
export class UnitRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'UnitRefused';
  }
}

export interface JobKind<Payload, Result> {
  /** The job's name in the queue; also how a worker finds the kind. */
  readonly name: string;
  readonly queue: QueueName;
  readonly payload: z.ZodType<Payload>;
  readonly result: z.ZodType<Result>;
  /** One line naming the unit, for progress lines. */
  label(payload: Payload): string;
  run(payload: Payload, context: UnitContext): Promise<Result>;
}

// Kinds differ in payload and result; a registry holds them all.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyJobKind = JobKind<any, any>;

export type JobRegistry = ReadonlyMap<string, AnyJobKind>;

export function jobRegistry(kinds: readonly AnyJobKind[]): JobRegistry {
  return new Map(kinds.map((kind) => [kind.name, kind]));
}

export interface PoolOptions {
  /** Items running at once, at least 1. */
  workers: number;
  /** Once aborted, no further item starts; the pool then rejects with the signal's reason. */
  signal?: AbortSignal;
}

/**
 * Runs `work` on every item, at most `workers` at once, each worker taking the next item as it
 * finishes one; the results are in the items' order. `worker` (0 to workers - 1) names the
 * worker running an item, for resources held per worker. An item that throws stops the pool:
 * no further item starts, the running ones finish (so their resources can be released), and
 * the pool rejects with the first error.
 */
export async function runPool<T, R>(
  items: readonly T[],
  options: PoolOptions,
  work: (item: T, worker: number) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length);
  let next = 0;
  let failure: { error: unknown } | undefined;
  const stopped = () => failure !== undefined || options.signal?.aborted === true;
  const worker = async (index: number) => {
    while (!stopped() && next < items.length) {
      const position = next++;
      try {
        results[position] = await work(items[position]!, index);
      } catch (error) {
        failure ??= { error };
      }
    }
  };
  const count = Math.max(1, Math.min(options.workers, items.length));
  await Promise.all(Array.from({ length: count }, (_, index) => worker(index)));
  if (failure) throw failure.error;
  options.signal?.throwIfAborted();
  return results;
}

import type { CacheLayout } from '../../core/cache.js';
import type { EventSink } from '../../events/types.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { validateInstanceFile, type ValidationSummary } from './validate-file.js';

/* The strengthening stage's drivers: `witnessgym instances validate`, `witnessgym strengthen`. */

/** S0 over an instance file, `workers` instances at once, each with its own Maven runner. */
export async function validateInstances(
  instancesFile: string,
  options: { workers: number; again?: boolean },
  cache: CacheLayout,
  events: EventSink,
): Promise<ValidationSummary> {
  const mavens = Array.from({ length: options.workers }, () =>
    mavenTestRunner(mavenToolchain, cache),
  );
  try {
    return await validateInstanceFile(instancesFile, {
      cache,
      mavens,
      events,
      ...(options.again ? { again: true } : {}),
    });
  } finally {
    await Promise.all(mavens.map((maven) => maven.close()));
  }
}

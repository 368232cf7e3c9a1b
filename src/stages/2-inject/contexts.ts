import { projectCache, type CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { note, type EventSink } from '../../events/types.js';
import type { FetchedProjectRef } from '../../project/project.js';
import { baselineClass, isUsable } from '../../project/baseline.js';
import { traceFetchedProject, type ExecutionContextRecord } from '../1-trace/trace.js';

/**
 * Execution contexts of the candidate witnesses, from the project's map; classes the map lacks
 * are traced first into the project's cached map (it is resumed, not rewritten, unless traced from other inputs). Without
 * `tests`, every class the baseline marks usable is a candidate witness.
 */
export async function witnessContexts(
  project: FetchedProjectRef,
  cache: CacheLayout,
  events: EventSink,
  tests?: string[],
): Promise<ExecutionContextRecord[]> {
  const { baseline } = project;
  // A named class that cannot be a witness is skipped with its reason, not the end of the run.
  const skipped: string[] = [];
  const skip = (testClass: string, reason: string) => {
    skipped.push(`${testClass} (${reason})`);
    note(events, 'inject', `--test ${testClass} cannot be a witness, skipped: ${reason}`);
  };
  const wanted: string[] = [];
  for (const testClass of tests ?? baseline.classes.filter(isUsable).map((e) => e.testClass)) {
    const entry = baselineClass(baseline, testClass);
    if (!entry) {
      throw new UserError(`--test ${testClass}: not a test class of ${project.label}'s baseline`);
    }
    if (entry.usability.kind === 'Unusable') skip(testClass, entry.usability.reason);
    else wanted.push(testClass);
  }
  const { records: selected } = await traceFetchedProject(project, {
    cache,
    classes: wanted,
    map: projectCache(cache, project.base),
    perTest: false,
    events,
  });
  for (const record of selected) {
    if (record.status !== 'Passed') {
      skip(record.testClass, `it does not pass on clean code: ${record.detail}`);
    }
  }
  const witnesses = selected.filter((record) => record.status === 'Passed' && record.size > 0);
  if (tests && witnesses.length === 0) {
    throw new UserError(
      `none of the --test classes can be a witness: ${skipped.join('; ') || 'none reaches production code'}`,
    );
  }
  return witnesses;
}

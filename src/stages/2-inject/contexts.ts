import type { CacheLayout } from '../../core/cache.js';
import { note, type EventSink } from '../../events/types.js';
import { UserError } from '../../core/errors.js';
import type { ProjectRef } from '../../project/project.js';
import { readContextMap, traceProject, type ExecutionContextRecord } from '../1-trace/trace.js';

/**
 * Execution contexts of the candidate witnesses, from the project's map; classes the map lacks
 * are traced first (the map is resumed, not rewritten). Without `tests`, every class the
 * baseline marks usable is a candidate witness.
 */
export async function witnessContexts(
  project: ProjectRef,
  cache: CacheLayout,
  mapFile: string,
  tests: string[] | undefined,
  events: EventSink,
): Promise<ExecutionContextRecord[]> {
  const baseline = project.baseline;
  if (!tests && !baseline) {
    throw new UserError(
      `${project.label} has no baseline to choose witnesses from: pass --test <FQCN>, or fetch it with 'witnessgym corpus fetch'`,
    );
  }
  const wanted = tests ?? baseline!.classes.filter((entry) => entry.usable).map((e) => e.testClass);
  for (const testClass of wanted) {
    const entry = baseline?.classes.find((candidate) => candidate.testClass === testClass);
    if (baseline && !entry) {
      throw new UserError(`--test ${testClass}: not a test class of ${project.label}'s baseline`);
    }
    if (entry && !entry.usable) {
      throw new UserError(
        `--test ${testClass} cannot be a witness: ${entry.reason ?? entry.status} on clean code`,
      );
    }
  }
  let records = await readContextMap(mapFile);
  const missing = wanted.filter((testClass) => !records.has(testClass));
  if (missing.length > 0) {
    note(events, 'inject', `tracing ${missing.length} test classes missing from ${mapFile}`);
    await traceProject(project.root, {
      cache,
      build: project.build,
      classes: missing.map((testClass) => {
        const entry = baseline?.classes.find((candidate) => candidate.testClass === testClass);
        return entry ? { testClass, baseline: entry } : { testClass };
      }),
      out: mapFile,
      perTest: false,
      events,
    });
    records = await readContextMap(mapFile);
  }
  const selected = wanted.flatMap((testClass) => records.get(testClass) ?? []);
  const failing = selected.find((record) => record.status !== 'Passed');
  if (tests && failing) {
    throw new UserError(
      `--test ${failing.testClass} cannot be a witness: it does not pass on clean code (${failing.detail})`,
    );
  }
  return selected.filter((record) => record.status === 'Passed' && record.size > 0);
}

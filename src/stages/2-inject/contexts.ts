import path from 'node:path';
import { projectCache, type CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { note, type EventSink } from '../../events/types.js';
import type { FetchedProjectRef } from '../../project/project.js';
import { baselineClass, isUsable } from '../../project/baseline.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { productionClassNames, screenTestClass } from '../../sandbox/screen.js';
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
    note(
      events,
      'inject',
      `${tests ? '--test ' : ''}${testClass} cannot be a witness, skipped: ${reason}`,
    );
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
  const reaching = selected.filter((record) => record.status === 'Passed' && record.size > 0);
  // A witness must be a test an agent could have submitted: one the evaluation's screen refuses
  // (a `main` that calls `System.exit`, a test that reads the project's files) never gets judged.
  await loadJavaGrammar();
  const screened = {
    productionClasses: await productionClassNames(
      path.join(project.root, project.layout.mainSources),
    ),
  };
  const testSources = path.join(project.root, project.layout.testSources);
  const witnesses: ExecutionContextRecord[] = [];
  for (const record of reaching) {
    const findings = await screenTestClass(testSources, record.testClass, screened).catch(
      () => undefined,
    );
    const [finding] = findings ?? [];
    if (!findings) skip(record.testClass, 'its source is not in a file named after it');
    else if (finding) {
      skip(
        record.testClass,
        `the evaluation's screen would refuse it as a submission: ${finding.kind} (line ${finding.line}: ${finding.code})`,
      );
    } else witnesses.push(record);
  }
  if (tests && witnesses.length === 0) {
    throw new UserError(
      `none of the --test classes can be a witness: ${skipped.join('; ') || 'none reaches production code'}`,
    );
  }
  return witnesses;
}

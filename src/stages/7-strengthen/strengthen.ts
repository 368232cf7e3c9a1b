import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { pristineState } from '../../project/project.js';
import { WorkingCopy } from '../../project/working-copy.js';
import { instanceTestClasses } from '../../repair/instance.js';
import { withTests, type RepairSubject } from '../../repair/project.js';
import type { TestRunner } from '../../runners/types.js';
import { measureSliceCoverage, type SliceCoverage } from './coverage.js';
import { instanceSlice, type FileSlice } from './relevant.js';

/*
 * Stage I of strengthening one instance (SWE-ABS §3.2): the slice of gold's change, its coverage
 * by the instance's tests, then tests amplified from those tests where they miss relevant lines.
 */

export type SliceReport =
  | { kind: 'Sliced'; files: FileSlice[]; coverage: SliceCoverage }
  | { kind: 'NotSliced'; reason: string };

/** The slice of an instance and its coverage by the instance's own tests on the gold tree. */
export async function sliceAndCoverage(
  subject: RepairSubject,
  setup: { cache: CacheLayout; maven: TestRunner },
): Promise<SliceReport> {
  const copy = await WorkingCopy.create(
    subject.project.root,
    pristineState(subject.project),
    subject.project.layout,
    'strengthen',
  );
  try {
    const gold = withTests(subject, subject.gold);
    await copy.checkout(gold);
    const slice = await instanceSlice(subject, copy.root, setup.cache);
    if (slice.kind === 'NotSliced') return slice;
    const coverage = await measureSliceCoverage(subject, gold, slice.relevant, {
      ...setup,
      copy,
      testClasses: instanceTestClasses(subject.instance),
    });
    return { kind: 'Sliced', files: slice.files, coverage };
  } finally {
    await copy.close();
  }
}

/** Where an instance's strengthening files go under the output directory. */
export function instanceDir(out: string, instanceId: string): string {
  return path.join(out, 'instances', instanceId);
}

import path from 'node:path';
import { parsePatch } from 'diff';
import type { CacheLayout } from '../../core/cache.js';
import type { RepairSubject } from '../../repair/project.js';
import { prepareProjectRuntime } from '../../toolchains/jvm/setup.js';
import { analyseStatements } from '../../toolchains/jvm/slicer.js';
import { modifiedLines } from '../../repair/patch.js';
import { sliceOf, SWE_ABS_HOPS, type SliceOptions } from './slice.js';
import type { RelevantLines } from './coverage.js';

/*
 * An instance's relevant lines: for each production file gold changes, the slice of its changed
 * lines in the fixed file (javac's units of the file as gold leaves it).
 */

export interface FileSlice {
  file: string;
  changed: number[];
  anchors: number[];
  /** Executable lines of the slice, sorted. */
  relevant: number[];
}

export type InstanceSlice =
  | { kind: 'Sliced'; files: FileSlice[]; relevant: RelevantLines }
  | { kind: 'NotSliced'; reason: string };

/** Project-relative production sources the gold patch leaves in the tree. */
export function goldFiles(subject: RepairSubject): string[] {
  const { mainSources } = subject.project.layout;
  return parsePatch(subject.instance.patch)
    .map((filePatch) => filePatch.newFileName ?? '')
    .filter((name) => name !== '/dev/null')
    .map((name) => name.replace(/^[ab]\//, ''))
    .filter((file) => file.startsWith(`${mainSources}/`) && file.endsWith('.java'))
    .sort();
}

/** Slices gold's files as they stand in `goldRoot` (a tree holding the gold state). */
export async function instanceSlice(
  subject: RepairSubject,
  goldRoot: string,
  cache: CacheLayout,
  options: SliceOptions = SWE_ABS_HOPS,
): Promise<InstanceSlice> {
  const files = goldFiles(subject);
  if (files.length === 0) return { kind: 'NotSliced', reason: 'gold changes no production source' };
  const runtime = await prepareProjectRuntime(subject.project.root, subject.project.build, cache);
  const sliced: FileSlice[] = [];
  for (const file of files) {
    const analysed = await analyseStatements(
      {
        file: path.join(goldRoot, file),
        classpath: [runtime.classes, ...runtime.classpath],
        release: runtime.release,
      },
      cache,
    );
    if (analysed.kind === 'Failed') {
      return { kind: 'NotSliced', reason: `${file}: ${analysed.reason}` };
    }
    const seeds = modifiedLines(subject.instance.patch, file);
    const slice = sliceOf(analysed.units, seeds, options);
    sliced.push({ file, changed: seeds.changed, anchors: seeds.anchors, relevant: slice.relevant });
  }
  return {
    kind: 'Sliced',
    files: sliced,
    relevant: new Map(sliced.map((entry) => [entry.file, entry.relevant])),
  };
}

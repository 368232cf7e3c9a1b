import { readFile } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { sha256Text } from '../../core/fs.js';
import type { ProjectRef } from '../../project/project.js';
import { preparedTree, type PreparedSide } from '../../sandbox/prepared-tree.js';
import type { CaseRecord } from '../4-archive/case.js';
import type { Side } from './records.js';
import { writeTestTree } from './verify-submission.js';

/*
 * The harness's own build of one side of a case (see src/sandbox/prepared-tree.ts): the case's
 * tree with the witness left out, compiled by Maven, once per case side.
 */

export type { PreparedSide };

const CASE_SIDE_VERSION = 1;

export interface PrepareContext {
  caseDir: string;
  record: CaseRecord;
  project: ProjectRef;
  cache: CacheLayout;
}

function preparedRoot(context: PrepareContext, side: Side, caseText: string): string {
  const key = sha256Text(
    JSON.stringify([
      CASE_SIDE_VERSION,
      side,
      caseText,
      context.project.base,
      context.project.build,
    ]),
  ).slice(0, 16);
  return path.join(context.cache.root, 'evaluation-builds', `${context.record.id}-${key}`, side);
}

/** One side of a case, built by the harness once and then read from the cache. */
export async function preparedSide(context: PrepareContext, side: Side): Promise<PreparedSide> {
  const caseText = await readFile(path.join(context.caseDir, 'case.json'), 'utf8');
  return preparedTree({
    project: context.project,
    cache: context.cache,
    dir: preparedRoot(context, side, caseText),
    label: { id: context.record.id, side },
    write: (destination) => writeTestTree({ ...context, tests: [] }, side, destination),
  });
}

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { copyProjectTree, removeTree } from '../../core/fs.js';
import { git } from '../../core/git.js';
import type { ProjectRef } from '../../project/project.js';
import type { CaseRecord } from '../4-archive/case.js';
import { materialiseCase } from '../4-archive/materialise.js';

/*
 * The agent's workspace: the buggy tree only, the witness's file left out (with the co-witnesses
 * and the test resources only they name), no build output, and a
 * repository of its own whose one commit is that tree. No upstream, construction or clean history
 * exists in it (SWE-bench's agents read the fix from `git log --all`).
 */

/**
 * Writes the tree an agent is given (`given`, kept untouched as what its changes are measured
 * against) for one case: the buggy state without the witness and what is hidden with it.
 */
export async function writeGivenTree(
  caseDir: string,
  record: CaseRecord,
  project: ProjectRef,
  given: string,
): Promise<void> {
  await removeTree(given);
  const outcome = await materialiseCase(caseDir, record, project, given, {
    side: 'buggy',
    hideWitness: true,
    hideFixtures: true,
  });
  if (outcome.kind === 'Corrupt') throw new Error(`case ${record.id}: ${outcome.reason}`);
}

/**
 * A fresh workspace from the given tree, for one attempt: any earlier attempt's files are gone,
 * and `git status` shows the agent exactly what it changed.
 */
export async function freshWorkspace(given: string, workspace: string): Promise<void> {
  await removeTree(workspace);
  await mkdir(path.dirname(workspace), { recursive: true });
  await copyProjectTree(given, workspace);
  await git(workspace, ['init', '-q', '-b', 'main', '--template=']);
  await mkdir(path.join(workspace, '.git', 'info'), { recursive: true });
  await writeFile(path.join(workspace, '.git', 'info', 'exclude'), 'target/\n');
  await git(workspace, ['add', '-A']);
  await git(workspace, ['commit', '-q', '--no-gpg-sign', '--no-verify', '-m', 'buggy tree']);
}

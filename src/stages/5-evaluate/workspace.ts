import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { copyProjectTree, removeTree } from '../../core/fs.js';
import { runProcess } from '../../core/process.js';
import type { ProjectRef } from '../../project/project.js';
import type { CaseRecord } from '../4-archive/case.js';
import { materialiseCase } from '../4-archive/materialize.js';

/*
 * The agent's workspace: the buggy tree only, the witness's file left out, no build output, and a
 * repository of its own whose one commit is that tree. No upstream, construction or clean history
 * exists in it (SWE-bench's agents read the fix from `git log --all`).
 */

/** Fixed, so two workspaces of one case are the same commit and nothing dates the case. */
const COMMIT_ENV = {
  GIT_AUTHOR_NAME: 'witnessgym',
  GIT_AUTHOR_EMAIL: 'witnessgym@localhost',
  GIT_AUTHOR_DATE: '2000-01-01T00:00:00Z',
  GIT_COMMITTER_NAME: 'witnessgym',
  GIT_COMMITTER_EMAIL: 'witnessgym@localhost',
  GIT_COMMITTER_DATE: '2000-01-01T00:00:00Z',
  // The host's git configuration (hooks, templates, signing) must not reach the workspace.
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_CONFIG_NOSYSTEM: '1',
};

async function git(cwd: string, args: string[]): Promise<void> {
  const result = await runProcess('git', args, {
    cwd,
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: cwd, ...COMMIT_ENV },
    timeoutMs: 300_000,
  });
  if (result.exitCode !== 0) throw new Error(`git ${args[0]} failed: ${result.stderr.trim()}`);
}

/**
 * Writes the tree an agent is given (`given`, kept untouched as what its changes are measured
 * against) for one case: the buggy state without the witness.
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

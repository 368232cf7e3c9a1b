import path from 'node:path';
import { errorMessage } from '../../../core/errors.js';
import { makeTempDir, removeTree } from '../../../core/fs.js';
import { patchOf } from '../../../project/state.js';
import type { AgentAdapter } from '../../../agents/types.js';
import { workspaceChanges } from '../../../agents/workspace-changes.js';
import { buildlessSandbox } from '../../../agents/sandboxed.js';
import type { NetworkPolicy } from '../../../sandbox/bwrap.js';
import { freshWorkspace } from '../workspace.js';
import type { RepairAgent } from './agents.js';

/*
 * A coding agent on the repair task: it gets the instance's base tree (without the test patch's
 * tests, as SWE-bench's agents do) in a fresh repository of its own, and the problem statement,
 * and runs in the bubblewrap sandbox. Its patch is what changed in the workspace, found by
 * comparing trees (never by asking the agent); the verifier applies only its production-source
 * changes. It cannot run the project's build: the sandbox holds no Maven and no dependencies.
 */

export function repairSystemPrompt(mainSources: string): string {
  return `You are an autonomous code agent operating inside a Java repository.
Your job is to fix the bug described in the task by editing the production code.

HARD CONSTRAINTS:
1. Only edit Java files under ${mainSources}.
2. Never modify tests, build files (pom.xml), configuration or CI files: such edits are discarded.
3. Make the smallest change that fixes the described behaviour; keep the project compiling.
4. Directly edit files in the repository workspace; do not print patches for an external parser.`;
}

export function repairTaskPrompt(problemStatement: string): string {
  return `Fix this issue in the repository.

${problemStatement.trim()}

When you are done, stop; the harness reads your changes from the workspace.`;
}

export function processRepairAgent(
  name: string,
  adapter: AgentAdapter,
  sandbox: { network: NetworkPolicy; readOnly: string[]; writable: string[]; timeoutMs: number },
): RepairAgent {
  return {
    kind: 'agent',
    name,
    async propose({ instance, writeBase, mainSources }) {
      const dir = await makeTempDir('repair-agent');
      const given = path.join(dir, 'given');
      const workspace = path.join(dir, 'workspace');
      try {
        await writeBase(given);
        await freshWorkspace(given, workspace);
        const box = await buildlessSandbox(workspace, sandbox);
        try {
          const run = await adapter.run({
            workspace,
            systemPrompt: repairSystemPrompt(mainSources),
            userPrompt: repairTaskPrompt(instance.problem_statement),
            replayCommand: '',
            timeoutMs: sandbox.timeoutMs,
            log: () => undefined,
            sandbox: box,
          });
          if (run.outcome.kind === 'FailedToStart' || run.outcome.kind === 'Failed') {
            return { kind: 'NoPatch', reason: `the agent failed: ${run.outcome.reason}` };
          }
        } finally {
          await box.dispose();
        }
        const changes = await workspaceChanges(given, workspace, ['.git']);
        const unread = changes.find((change) => change.finding !== undefined);
        if (unread) return { kind: 'NoPatch', reason: `the workspace holds ${unread.after}` };
        return {
          kind: 'Patch',
          diff: changes.length === 0 ? '' : patchOf(changes).diff,
          family: null,
        };
      } catch (error) {
        return {
          kind: 'NoPatch',
          reason: `the agent's run could not be made: ${errorMessage(error)}`,
        };
      } finally {
        await removeTree(dir);
      }
    },
  };
}

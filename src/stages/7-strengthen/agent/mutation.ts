import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import {
  runAgentTask,
  type AgentTaskResult,
  type AttemptJudgement,
  type AttemptPosition,
} from '../../../agents/engine.js';
import type { ReportFormat } from '../../../agents/report.js';
import { buildlessSandbox } from '../../../agents/sandboxed.js';
import type { AgentAdapter } from '../../../agents/types.js';
import { describeFinding, workspaceChanges } from '../../../agents/workspace-changes.js';
import type { CacheLayout } from '../../../core/cache.js';
import { makeTempDir, removeTree, sha256Text } from '../../../core/fs.js';
import { describeVerdict } from '../../../core/verdict.js';
import { materialiseTree, withTests, type RepairSubject } from '../../../repair/project.js';
import { judgedOnTree, patchedTree, preparedInstanceTree } from '../../../repair/verify-patch.js';
import type { NetworkPolicy } from '../../../sandbox/bwrap.js';
import { isolatedJavaSetup } from '../../../sandbox/java-runs.js';
import { freshWorkspace } from '../../5-evaluate/workspace.js';
import { goldLinesChangedBy, type GoldFile, type MutantCandidate } from '../mutants.js';
import { mutantPatch, type MutantSource } from '../stage-two.js';
import {
  countedVotes,
  equivalencePrompt,
  equivalenceReportFormat,
  equivalenceSystemPrompt,
  readOnlyJudgement,
  VOTES,
  type EquivalenceReport,
} from './equivalence.js';

/*
 * Stage II's agent engine: SWE-ABS's mutant prompt (Appendix A.2). In the sandbox, on the gold
 * tree with the instance's tests and no build, an agent rewrites the fix into a plausible but wrong
 * variant the existing tests would still pass, and says why it evades them. The harness reads its
 * change to one of gold's files as a mutant; for feedback it compiles it and runs the instance's
 * tests on it once, in the sandbox (a mutant they catch is sent back), up to `attempts` times per
 * mutant. Stage II then judges every mutant as it judges the rules' ones. The rationale is kept for
 * people; nothing the agent says decides anything.
 */

export const MUTANT_PROMPT_VERSION = 1;

const MutantReportSchema = z.strictObject({
  file: z.string(),
  /** Why the existing tests miss the mutant: SWE-ABS's "why it evades the tests". */
  rationale: z.string(),
});
export type MutantReport = z.infer<typeof MutantReportSchema>;

export const MUTANT_REPORT_PREFIX = 'MUTANT_REPORT_JSON:';

const mutantReportFormat: ReportFormat<MutantReport> = {
  prefix: MUTANT_REPORT_PREFIX,
  schema: MutantReportSchema,
  mismatches: () => [],
};

export interface AgentMutantSetup {
  cache: CacheLayout;
  adapter: AgentAdapter;
  /** Attempts per mutant. */
  attempts: number;
  /** Mutants asked for per instance (2 in the paper). */
  count: number;
  timeoutMs: number;
  network: NetworkPolicy;
  readOnly: string[];
  writable: string[];
  /** Keeps each mutant's agent run, whatever came of it. */
  saveRun: (index: number, result: AgentTaskResult<MutantReport>) => Promise<void>;
  /** Keeps each vote of the equivalence judge. */
  saveJudgeRun: (
    mutantId: string,
    vote: number,
    result: AgentTaskResult<EquivalenceReport>,
  ) => Promise<void>;
  log: (line: string) => void;
}

function systemPrompt(mainSources: string): string {
  return `You are a mutation-testing engineer operating inside a Java repository whose bug has already been fixed.
Your job is to write a plausible but WRONG version of the fix: code a developer could have written while fixing the issue, that does not fully resolve it (an incomplete fix, a wrong boundary, a missed case, a check in the wrong place), yet that the existing tests would still pass.

HARD CONSTRAINTS:
1. Edit exactly one of the files the fix changed, under ${mainSources}, and nothing else: edits to tests or other files are discarded.
2. Keep it compiling, keep the project's style, and make it read like a real developer's code: no comments that give it away.
3. It must behave differently from the fix for some input the issue is about; an equivalent rewrite is worthless.
4. You cannot run the project's build here; read the code and tests carefully instead.
5. End your final message with one line: ${MUTANT_REPORT_PREFIX} {"file": "<the file you changed, repository-relative>", "rationale": "<why the existing tests do not catch it>"}`;
}

function mutantPrompt(
  subject: RepairSubject,
  files: readonly GoldFile[],
  earlier: readonly MutantCandidate[],
  attempt: AttemptPosition,
): string {
  const others =
    earlier.length === 0
      ? ''
      : `\n\nWrong versions already written (write a different one):\n${earlier.map((mutant) => `- ${mutant.file}: ${mutant.detail}`).join('\n')}`;
  const feedback = attempt.previous
    ? `\n\nYour previous attempt (${attempt.previous.attempt}) was not kept:\n${attempt.previous.feedback}`
    : '';
  return `The issue below was fixed by the patch shown (already applied in the repository; it changed ${files.map((file) => file.file).join(', ')}).

Write one plausible but wrong variant of this fix that the existing tests would still pass, by editing one of those files (see the constraints), and explain why the tests miss it.

Issue:
${subject.instance.problem_statement.trim()}

Fix:
${subject.instance.patch.trim()}${others}${feedback}`;
}

/** The mutant an attempt left: one gold file changed, or why there is none. */
async function writtenMutant(
  given: string,
  workspace: string,
  files: readonly GoldFile[],
): Promise<{ file: GoldFile; source: string } | { problem: string }> {
  const changes = await workspaceChanges(given, workspace, ['.git']);
  const unreadable = changes.find((change) => change.finding !== undefined);
  if (unreadable?.finding) {
    return { problem: `${unreadable.file}: ${describeFinding(unreadable.finding)}` };
  }
  const onGold = changes.filter((change) => files.some((file) => file.file === change.file));
  const elsewhere = changes.filter((change) => !onGold.includes(change));
  if (onGold.length !== 1) {
    return {
      problem: `change exactly one of the files the fix changed (${files.map((file) => file.file).join(', ')}); you changed ${onGold.length}${elsewhere.length > 0 ? `, and edits to ${elsewhere.map((change) => change.file).join(', ')} are discarded` : ''}`,
    };
  }
  const [change] = onGold;
  const file = files.find((entry) => entry.file === change!.file)!;
  if (change!.after === file.gold) return { problem: 'the file is as the fix left it' };
  return { file, source: change!.after };
}

interface GoldWorkspace {
  /** The gold tree with the instance's tests, as the agent is given it. */
  given: string;
  workspace: string;
  box: Awaited<ReturnType<typeof buildlessSandbox>>;
}

/** A sandbox without a build on a copy of the gold tree with the instance's tests. */
async function withGoldWorkspace<T>(
  subject: RepairSubject,
  setup: AgentMutantSetup,
  use: (gold: GoldWorkspace) => Promise<T>,
): Promise<T> {
  const dir = await makeTempDir('mutants-agent');
  try {
    const given = path.join(dir, 'given');
    const workspace = path.join(dir, 'workspace');
    await materialiseTree(withTests(subject, subject.gold), subject.project, given);
    await mkdir(workspace, { recursive: true });
    const box = await buildlessSandbox(workspace, setup);
    try {
      return await use({ given, workspace, box });
    } finally {
      await box.dispose();
    }
  } finally {
    await removeTree(dir);
  }
}

/**
 * The agent as Stage II's source of mutants, and as its equivalence judge of the survivors no
 * probe told from gold (equivalence.ts).
 */
export function agentMutantSource(setup: AgentMutantSetup): MutantSource {
  return {
    kind: 'agent',
    async judge(subject, file, source, mutantId) {
      return withGoldWorkspace(subject, setup, async ({ given, workspace, box }) => {
        const runs: AgentTaskResult<EquivalenceReport>[] = [];
        for (let vote = 1; vote <= VOTES; vote++) {
          const result = await runAgentTask({
            task: {
              runId: `${subject.instance.instance_id}-judge-${mutantId}-${vote}`,
              workspace,
              replayCommand: '',
              systemPrompt: equivalenceSystemPrompt(),
              userPrompt: () => equivalencePrompt(subject, file, source),
              report: equivalenceReportFormat,
              acceptedWithUnsoundReport:
                'Without a sound final report line the vote is not counted.',
            },
            adapter: setup.adapter,
            attempts: 1,
            reset: () => freshWorkspace(given, workspace),
            judge: async () => readOnlyJudgement,
            timeoutMs: setup.timeoutMs,
            log: setup.log,
            sandbox: box,
          });
          await setup.saveJudgeRun(mutantId, vote, result);
          runs.push(result);
        }
        return countedVotes(runs);
      });
    },
    async generate(subject, files) {
      const { instance } = subject;
      const { layout } = subject.project;
      const java = await isolatedJavaSetup();
      const base = await preparedInstanceTree(subject, 'base', setup.cache);
      const mutants: MutantCandidate[] = [];
      return withGoldWorkspace(subject, setup, async ({ given, workspace, box }) => {
        for (let index = 0; index < setup.count; index++) {
          let written: MutantCandidate | undefined;
          const result = await runAgentTask({
            task: {
              runId: `${instance.instance_id}-mutant-${index + 1}`,
              workspace,
              replayCommand: '',
              systemPrompt: systemPrompt(layout.mainSources),
              userPrompt: (attempt) => mutantPrompt(subject, files, mutants, attempt),
              report: mutantReportFormat,
              acceptedWithUnsoundReport:
                'The mutant passed the tests, but it does not count without a sound final report line.',
            },
            adapter: setup.adapter,
            attempts: setup.attempts,
            reset: () => freshWorkspace(given, workspace),
            judge: async (attempt): Promise<AttemptJudgement> => {
              const found = await writtenMutant(given, workspace, files);
              if ('problem' in found) {
                return { kind: 'Rejected', reason: 'no mutant', feedback: found.problem };
              }
              const rationale = (
                attempt.report.kind === 'Parsed' ? attempt.report.report.rationale : ''
              )
                .replace(/\s+/g, ' ')
                .trim()
                .slice(0, 300);
              const candidate: MutantCandidate = {
                id: sha256Text(`${found.file.file}\0${found.source}`).slice(0, 12),
                family: 'agent',
                operator: 'agent',
                detail: rationale || 'no rationale given',
                file: found.file.file,
                source: found.source,
                goldLines: goldLinesChangedBy(found.file.gold, found.source),
              };
              if (mutants.some((mutant) => mutant.id === candidate.id)) {
                return {
                  kind: 'Rejected',
                  reason: 'a mutant already written',
                  feedback: 'This is the same code as a wrong version already written.',
                };
              }
              const patched = await patchedTree(mutantPatch(candidate, files), base, layout, java);
              if (patched.kind !== 'Patched') {
                const detail =
                  patched.kind === 'CompileFailed'
                    ? patched.messages
                        .slice(0, 3)
                        .map(
                          (message) => `${message.file}:${message.line ?? '?'}: ${message.message}`,
                        )
                        .join('\n')
                    : patched.kind;
                return {
                  kind: 'Rejected',
                  reason: 'does not build',
                  feedback: `It does not compile:\n${detail}`,
                };
              }
              try {
                const judged = await judgedOnTree(instance, patched.tree, base, layout, java);
                if (judged.kind !== 'Judged') {
                  return {
                    kind: 'Rejected',
                    reason: 'tests not run',
                    feedback: `The tests could not run on it: ${judged.kind}.`,
                  };
                }
                if (judged.judgement.kind === 'Unresolved') {
                  const failing = [...judged.judgement.stillFailing, ...judged.judgement.broken];
                  const why =
                    failing.length > 0
                      ? `These existing tests fail on it, so they already catch it: ${failing.slice(0, 10).join(', ')}`
                      : `The tests could not judge it: ${judged.classes.map((run) => describeVerdict(run.verdict)).join('; ')}`;
                  return { kind: 'Rejected', reason: 'caught by the tests', feedback: why };
                }
              } finally {
                await removeTree(path.dirname(patched.tree.productionJar));
              }
              written = candidate;
              return {
                kind: 'Accepted',
                summary: `${candidate.file}: passes the existing tests once`,
              };
            },
            timeoutMs: setup.timeoutMs,
            log: setup.log,
            sandbox: box,
          });
          await setup.saveRun(index + 1, result);
          if (result.acceptedAttempt !== null && written) mutants.push(written);
        }
        return mutants;
      });
    },
  };
}

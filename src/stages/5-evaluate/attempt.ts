import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { hiddenBuildDirs } from '../../agents/sandboxed.js';
import type { AgentAdapter, AgentRunResult } from '../../agents/types.js';
import { specText } from '../../agents/types.js';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage } from '../../core/errors.js';
import { removeTree, sha256Text } from '../../core/fs.js';
import { createSandbox, type Sandbox } from '../../sandbox/bwrap.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import type { CaseRecord } from '../4-archive/case.js';
import { caseProject } from '../4-archive/materialise.js';
import { payloadFile, readPayloadDocument } from '../4-archive/payloads.js';
import { agentReplay } from './agent-replay.js';
import type { CaseContext, EvaluationAgent } from './offline-agents.js';
import type { AttemptRow, CaseDimensions, Diagnosis, Setting } from './records.js';
import { startReplayService, type ReplayService } from './replay-service.js';
import { scoreSubmission } from './score.js';
import { workspaceSubmission } from './submission.js';
import type { SubmissionVerdict } from './verify-submission.js';
import { freshWorkspace, writeGivenTree } from './workspace.js';

/*
 * One attempt of an agent on an item (case, setting): a fresh workspace, one agent run (in the
 * sandbox for process agents), and the verifier's diagnosis of what the agent left. The same code
 * runs an attempt in the evaluating process and on a queue's worker; only the store is apart.
 */

/** What every attempt of a run shares. */
export interface AttemptSettings {
  cache: CacheLayout;
  agent: EvaluationAgent;
  /** The attempts the item is given. */
  attempts: number;
  agentTimeoutMs: number;
  verifyTimeoutMs: number;
  /** Fresh runs per side in verification. */
  runs: number;
  screen: boolean;
  /** Times a harness fault is retried before the attempt is recorded as one. */
  faultRetries: number;
  /** The scorer's tool versions, recorded in every row. */
  tools: Record<string, string>;
}

export interface AttemptInput {
  attempt: number;
  /** The item's finished attempts, whose feedback the prompt carries. */
  previous: readonly AttemptRow[];
  /** Epoch ms by which the item's attempts must end. */
  deadline: number;
  /** Harness faults earlier runs of this attempt met. */
  faultsBefore: number;
  /** Called with the agent's spec hash before it runs: may refuse by throwing. */
  beforeAgent: (agentSpec: string) => void;
}

export interface AttemptOutcome {
  row: AttemptRow;
  /** The texts the row names by hash: transcript, prompt, test files. */
  texts: string[];
  /** Harness faults met while judging, each retried. */
  faults: string[];
}

export interface ItemSession {
  attempt(input: AttemptInput): Promise<AttemptOutcome>;
  dispose(): Promise<void>;
}

export function dimensionsOf(record: CaseRecord): CaseDimensions {
  return {
    caseId: record.id,
    project: record.project.name,
    bugType: record.bugType,
    bucket: record.trace.bucket,
    depth: record.transforms.depth,
  };
}

/** The archived prompts of a case's setting: the system prompt and the task payload. */
async function casePrompts(
  caseDir: string,
  setting: Setting,
): Promise<{ system: string; payload: string }> {
  const file = path.join(caseDir, payloadFile(setting));
  const prompts = readPayloadDocument(await readFile(file, 'utf8'));
  if (!prompts) throw new Error(`${file} is not a task document`);
  return prompts;
}

function userPrompt(
  payload: string,
  attempt: number,
  of: number,
  previous: readonly AttemptRow[],
): string {
  const feedback = previous.map(
    (row) => `Attempt ${row.attempt} of ${of} was not accepted.\n${row.feedback}`,
  );
  return [
    payload,
    ...(feedback.length > 0
      ? [`\nEXECUTION FEEDBACK FROM EARLIER ATTEMPTS:\n${feedback.join('\n\n')}`]
      : []),
    `\nThis is attempt ${attempt} of ${of}.`,
  ].join('\n');
}

/**
 * What the next attempt is told about this one: the harness's verdict, from the buggy tree's runs
 * only. Of the clean tree it hears at most the diagnosis ("fails without the bug too"), never a
 * message, frame, output, path or line: those could quote the fixed code.
 */
export function feedbackFor(diagnosis: Diagnosis, verdict?: SubmissionVerdict): string {
  const buggyRuns = verdict?.runs.filter((run) => run.side === 'buggy') ?? [];
  const ran =
    verdict && buggyRuns.length > 0
      ? ` (ran ${verdict.testClass} on the buggy code: ${[...new Set(buggyRuns.map((r) => r.verdict))].join('; ')})`
      : '';
  switch (diagnosis.kind) {
    case 'Success':
      return `The test exposes the bug${ran}.`;
    case 'NoTest':
      return 'No Java test file under the test sources was created or changed.';
    case 'Violation': {
      const screened = diagnosis.violations.filter((v) => v.line !== undefined);
      const files = diagnosis.violations.filter((v) => v.line === undefined);
      return [
        ...(files.length > 0
          ? [
              `Files outside the test sources were changed, so nothing was run: ${files
                .map((v) => `${v.file} (${v.what}, ${v.edit})`)
                .join(', ')}. Only create or edit Java test files.`,
            ]
          : []),
        ...(screened.length > 0
          ? [
              `The test was not run: it must expose the bug through the production code's behaviour, not through ${screened
                .map((v) => `${v.file}:${v.line} (${v.what}: ${v.code})`)
                .join(', ')}.`,
            ]
          : []),
      ].join(' ');
    }
    case 'DoesNotCompile':
      return `The test does not compile:\n${diagnosis.messages.slice(0, 10).join('\n')}`;
    case 'NotReached':
      return `The test passes on the buggy code and never executes the buggy location${ran}.`;
    case 'NotTriggered':
      return `The test executes the buggy location but passes: its inputs or assertions do not expose the bug${ran}.`;
    case 'FailsOnClean':
      return `The test fails, but it would fail without the bug too: its oracle is wrong${ran}.`;
    case 'Flaky':
      return `The test's outcome changes between fresh runs (${diagnosis.kinds.join(', ')})${ran}.`;
    case 'BugNotExecuted':
      return `The test fails without executing the buggy location: it must expose the bug by running it${ran}.`;
    case 'NoTestsRan':
      return diagnosis.side === 'buggy'
        ? `No test ran: ${diagnosis.reason}${ran}.`
        : `No test ran on the fixed code${ran}.`;
    case 'TestTimeout':
      return `The test run hit its time limit${ran}.`;
    case 'TestCrashed':
      return diagnosis.side === 'buggy'
        ? `The test JVM crashed: ${diagnosis.reason}${ran}.`
        : `The test JVM crashed on the fixed code${ran}.`;
    case 'AgentTimeout':
      return 'The agent run hit its time limit and was stopped.';
    case 'AgentFailed':
      return `The agent run failed: ${diagnosis.reason}`;
    case 'HarnessFault':
      // The reason names the harness's own files; the agent needs none of it.
      return 'The harness could not judge the attempt (a fault of the harness, not of the test).';
  }
}

async function runAgent(
  adapter: AgentAdapter,
  input: Parameters<AgentAdapter['run']>[0],
): Promise<AgentRunResult> {
  try {
    return await adapter.run(input);
  } catch (error) {
    return {
      outcome: { kind: 'Failed', reason: errorMessage(error) },
      finalText: '',
      transcript: `the agent adapter threw: ${errorMessage(error)}`,
      durationMs: 0,
    };
  }
}

/** The diagnosis of an agent run that ended badly, before anything it wrote is looked at. */
function agentDiagnosis(run: AgentRunResult): Diagnosis | undefined {
  switch (run.outcome.kind) {
    case 'Timeout':
      return { kind: 'AgentTimeout' };
    case 'FailedToStart':
    case 'Failed':
      return { kind: 'AgentFailed', reason: run.outcome.reason };
    default:
      return undefined;
  }
}

/**
 * Sets up an item's trees in `itemDir` (the given tree, and for a sandboxed agent its replay
 * service and sandbox), for any number of its attempts; dispose removes them.
 */
export async function openItemSession(
  bench: string,
  caseDir: string,
  record: CaseRecord,
  setting: Setting,
  itemDir: string,
  settings: AttemptSettings,
): Promise<ItemSession> {
  const toolchain = mavenToolchain;
  const given = path.join(itemDir, 'given');
  const workspace = path.join(itemDir, 'workspace');
  let sandbox: Sandbox | undefined;
  let replays: ReplayService | undefined;
  const dispose = async () => {
    await sandbox?.dispose();
    await replays?.stop();
    await removeTree(itemDir);
  };
  try {
    const project = await caseProject(record, settings.cache);
    const context: CaseContext = { bench, caseDir, record, project, cache: settings.cache };
    const archived = await casePrompts(caseDir, setting);
    // Cases archived before the replay named the harness's Surefire quote a command that may not
    // run offline; the agent is given the one that does.
    const replayCommand = toolchain.replayCommand(project.build, record.officialTest.class);
    const payload = archived.payload.replace(record.verifyCommand, replayCommand);
    await writeGivenTree(caseDir, record, project, given);
    if (settings.agent.sandboxed) {
      replays = await startReplayService((args) =>
        agentReplay(args, { caseDir, record, project, cache: settings.cache, given, workspace }),
      );
      // Bound by path at each run; each attempt's fresh workspace takes its place.
      await mkdir(workspace, { recursive: true });
      sandbox = await createSandbox({
        workspace,
        network: settings.agent.network,
        binDirs: [replays.binDir],
        hiddenSystemDirs: await hiddenBuildDirs(),
        readOnly: [replays.answers, ...(settings.agent.readOnly ?? [])],
        writable: [replays.requests, ...(settings.agent.writable ?? [])],
      });
    }

    /** The attempt's diagnosis; a harness fault is noted and the verification retried. */
    const judgeAttempt = async (
      run: AgentRunResult,
      faultsBefore: number,
      faults: string[],
    ): Promise<{
      diagnosis: Diagnosis;
      verdict?: SubmissionVerdict;
      tests: { file: string; content: string }[];
    }> => {
      let entries: Awaited<ReturnType<typeof workspaceSubmission>>;
      try {
        entries = await workspaceSubmission(given, workspace, project.layout);
      } catch (error) {
        // What the agent left is reported as violations; a throw here is ours, and still a row.
        const reason = `reading the workspace: ${errorMessage(error)}`;
        return { diagnosis: { kind: 'HarnessFault', reason }, tests: [] };
      }
      const tests = entries.flatMap((entry) => (entry.kind === 'Test' ? [entry] : []));
      const failedRun = agentDiagnosis(run);
      if (failedRun) return { diagnosis: failedRun, tests };
      const violations = entries.flatMap((entry) =>
        entry.kind === 'Violation'
          ? [{ file: entry.file, edit: entry.edit, what: entry.what }]
          : [],
      );
      if (violations.length > 0) return { diagnosis: { kind: 'Violation', violations }, tests };
      if (tests.length === 0) return { diagnosis: { kind: 'NoTest' }, tests };
      for (;;) {
        const verdict = await scoreSubmission({
          caseDir,
          record,
          project,
          cache: settings.cache,
          tests,
          runs: settings.runs,
          timeoutMs: settings.verifyTimeoutMs,
          screen: settings.screen,
        });
        if (
          verdict.diagnosis.kind !== 'HarnessFault' ||
          faultsBefore + faults.length >= settings.faultRetries
        ) {
          return { diagnosis: verdict.diagnosis, verdict, tests };
        }
        faults.push(verdict.diagnosis.reason);
      }
    };

    const attempt = async (input: AttemptInput): Promise<AttemptOutcome> => {
      await freshWorkspace(given, workspace);
      const adapter = await settings.agent.forAttempt(context, input.attempt);
      const agentSpec = sha256Text(specText(adapter.spec)).slice(0, 16);
      input.beforeAgent(agentSpec);
      const prompt = userPrompt(payload, input.attempt, settings.attempts, input.previous);
      const agentTimeoutMs = Math.max(
        1000,
        Math.min(settings.agentTimeoutMs, input.deadline - Date.now()),
      );
      const run = await runAgent(adapter, {
        workspace,
        systemPrompt: archived.system,
        userPrompt: prompt,
        replayCommand,
        timeoutMs: agentTimeoutMs,
        log: () => undefined,
        ...(sandbox ? { sandbox } : {}),
      });
      const verifyStarted = performance.now();
      const faults: string[] = [];
      const judged = await judgeAttempt(run, input.faultsBefore, faults);
      const row: AttemptRow = {
        case: dimensionsOf(record),
        agent: settings.agent.name,
        agentSpec,
        setting,
        attempt: input.attempt,
        diagnosis: judged.diagnosis,
        paperSuccess: judged.verdict?.paperSuccess ?? false,
        coverage: judged.verdict?.coverage ?? null,
        agentOutcome: run.outcome,
        agentMs: run.durationMs,
        verifyMs: Math.round(performance.now() - verifyStarted),
        // Prices differ by provider and date: tokens are recorded, a cost only when an adapter knows it.
        usage: run.usage ? { ...run.usage, costUsd: null } : null,
        prompt: sha256Text(prompt),
        transcript: sha256Text(run.transcript),
        testFiles: judged.tests.map((test) => ({
          path: test.file,
          sha256: sha256Text(test.content),
        })),
        feedback: feedbackFor(judged.diagnosis, judged.verdict),
        tools: settings.tools,
        finishedAt: new Date().toISOString(),
      };
      return {
        row,
        texts: [run.transcript, prompt, ...judged.tests.map((test) => test.content)],
        faults,
      };
    };
    return { attempt, dispose };
  } catch (error) {
    await dispose();
    throw error;
  }
}

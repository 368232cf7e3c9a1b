import { UserError } from '../../../core/errors.js';
import { injectionSystemPrompt, injectionTaskPayload, type PreviousAttempt } from './prompts.js';
import { parseInjectReport, reportProblems, type ReportParse } from './report.js';
import type { AgentAdapter, AgentOutcome, InjectionTask } from './types.js';

export type {
  AgentAdapter,
  AgentOutcome,
  AgentRunInput,
  AgentRunResult,
  InjectionTask,
} from './types.js';
export type { InjectReport, ReportParse } from './report.js';

export type AttemptJudgement =
  | { accepted: true; summary: string }
  /** `feedback` goes into the next attempt's prompt. */
  | { accepted: false; reason: string; feedback: string };

/** An attempt as the agent left it, before the harness looked at the workspace. */
export interface AttemptRecordWithoutJudgement {
  attempt: number;
  adapter: string;
  outcome: AgentOutcome;
  durationMs: number;
  /** The parsed INJECT_REPORT_JSON line, or why there is none. */
  report: ReportParse;
  /** Missing, malformed or inconsistent report, in words; [] when the report is sound. */
  reportProblems: string[];
  userPrompt: string;
  finalText: string;
  transcript: string;
}

export interface AttemptRecord extends AttemptRecordWithoutJudgement {
  /** The harness's verdict on the workspace; null when the agent never started. */
  harness: AttemptJudgement | null;
  /**
   * The attempt's verdict: the harness's, except that a sound report line is also required
   * (the paper makes it part of the deliverable). The agent's claims never make an attempt pass.
   */
  judgement: AttemptJudgement;
}

export interface AgentInjectionResult {
  runId: string;
  adapter: string;
  systemPrompt: string;
  attempts: AttemptRecord[];
  acceptedAttempt: number | null;
  /** Why the loop ended. */
  stop: 'accepted' | 'attemptsExhausted' | 'agentFailedToStart';
}

export interface AgentInjectionOptions {
  task: InjectionTask;
  adapter: AgentAdapter;
  /** 3 in the paper. */
  attempts: number;
  /** Restores the workspace to clean sources; called before every attempt. */
  reset: () => Promise<void>;
  /** Validates the workspace as the agent left it. */
  judge: (attempt: AttemptRecordWithoutJudgement) => Promise<AttemptJudgement>;
  /** Per agent run. */
  timeoutMs: number;
  log: (line: string) => void;
}

export const DEFAULT_ATTEMPTS = 3;

function describeOutcome(outcome: AgentOutcome, timeoutMs: number): string {
  switch (outcome.kind) {
    case 'exited':
      return outcome.code === null
        ? `the agent was ended by signal ${outcome.signal ?? 'unknown'}`
        : `the agent exited with code ${outcome.code}`;
    case 'completed':
      return 'the agent finished its conversation';
    case 'timeout':
      return `the agent hit the time limit of ${Math.round(timeoutMs / 1000)} s and was stopped`;
    case 'failedToStart':
      return `the agent failed to start: ${outcome.reason}`;
    case 'failed':
      return `the agent run broke off: ${outcome.reason}`;
  }
}

function verdictText(judgement: AttemptJudgement): string {
  return judgement.accepted
    ? `accepted (${judgement.summary})`
    : `rejected: ${judgement.reason}\n${judgement.feedback}`;
}

/**
 * The attempt's verdict. The workspace is judged even when the report is missing or broken, so
 * the feedback can say both what the harness saw and what was wrong with the report; a rejection's
 * feedback is the text the next attempt's prompt quotes.
 */
function finalJudgement(
  harness: AttemptJudgement,
  problems: string[],
  outcome: AgentOutcome,
  timeoutMs: number,
): AttemptJudgement {
  if (harness.accepted && problems.length === 0) return harness;
  const feedback = [
    `Agent run: ${describeOutcome(outcome, timeoutMs)}.`,
    problems.length > 0 ? `Report: ${problems.join('; ')}.` : '',
    `Harness verdict on the workspace: ${verdictText(harness)}`,
    harness.accepted
      ? 'The bug was exposed, but the attempt does not count without a sound final report line.'
      : '',
  ]
    .filter(Boolean)
    .join('\n');
  const reasons = [
    harness.accepted ? '' : harness.reason,
    problems.length > 0 ? `report: ${problems.join('; ')}` : '',
  ].filter(Boolean);
  return { accepted: false, reason: reasons.join('; '), feedback };
}

/**
 * The paper's execution-guided injection loop (§3.2, Appendix C): up to `attempts` agent runs,
 * each on a freshly reset workspace, each judged by the harness, the verdict fed back into the
 * next prompt; stops at the first accepted attempt.
 */
export async function runAgentInjection(
  options: AgentInjectionOptions,
): Promise<AgentInjectionResult> {
  const { task, adapter, log, timeoutMs } = options;
  if (!Number.isInteger(options.attempts) || options.attempts < 1) {
    throw new UserError(`attempts must be a positive integer, not ${options.attempts}`);
  }
  const systemPrompt = injectionSystemPrompt();
  const attempts: AttemptRecord[] = [];
  const result = (
    acceptedAttempt: number | null,
    stop: AgentInjectionResult['stop'],
  ): AgentInjectionResult => ({
    runId: task.runId,
    adapter: adapter.name,
    systemPrompt,
    attempts,
    acceptedAttempt,
    stop,
  });
  let previous: PreviousAttempt | undefined;

  for (let number = 1; number <= options.attempts; number++) {
    await options.reset();
    const userPrompt = injectionTaskPayload(task, { number, of: options.attempts, previous });
    log(`attempt ${number}/${options.attempts}: running agent ${adapter.name}`);
    const run = await adapter.run({
      workspace: task.workspace,
      systemPrompt,
      userPrompt,
      replayCommand: task.replayCommand,
      timeoutMs,
      log,
    });
    const report = parseInjectReport(run.finalText, {
      replayCommand: task.replayCommand,
      typeId: task.spec.id,
    });
    const unjudged: AttemptRecordWithoutJudgement = {
      attempt: number,
      adapter: adapter.name,
      outcome: run.outcome,
      durationMs: run.durationMs,
      report,
      reportProblems: reportProblems(report),
      userPrompt,
      finalText: run.finalText,
      transcript: run.transcript,
    };
    log(
      `attempt ${number}: ${describeOutcome(run.outcome, timeoutMs)} after ${run.durationMs} ms; report ${report.status}`,
    );

    if (run.outcome.kind === 'failedToStart') {
      // Nothing ran, and a missing executable or refused endpoint will not fix itself.
      const reason = describeOutcome(run.outcome, timeoutMs);
      attempts.push({
        ...unjudged,
        harness: null,
        judgement: { accepted: false, reason, feedback: reason },
      });
      log(`attempt ${number}: stopping: ${reason}`);
      return result(null, 'agentFailedToStart');
    }

    const harness = await options.judge(unjudged);
    const judgement = finalJudgement(harness, unjudged.reportProblems, run.outcome, timeoutMs);
    const record: AttemptRecord = { ...unjudged, harness, judgement };
    attempts.push(record);
    if (judgement.accepted) {
      log(`attempt ${number}: accepted: ${judgement.summary}`);
      return result(number, 'accepted');
    }
    log(`attempt ${number}: rejected: ${judgement.reason}`);
    previous = { attempt: number, feedback: judgement.feedback };
  }
  return result(null, 'attemptsExhausted');
}

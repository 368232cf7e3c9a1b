import { UserError } from '../core/errors.js';
import type { Sandbox } from '../sandbox/bwrap.js';
import { parseReport, reportProblems, type ReportFormat, type ReportParse } from './report.js';
import type { AgentAdapter, AgentOutcome, AgentSpec } from './types.js';

export type AttemptJudgement =
  | { kind: 'Accepted'; summary: string }
  /** `feedback` goes into the next attempt's prompt. */
  | { kind: 'Rejected'; reason: string; feedback: string };

/** What the harness tells the agent about the previous attempt. */
export interface PreviousAttempt {
  attempt: number;
  feedback: string;
}

/** Which attempt a prompt is written for. */
export interface AttemptPosition {
  number: number;
  of: number;
  previous?: PreviousAttempt;
}

/** One job for an agent as a stage poses it: its prompts, its report line and where it works. */
export interface AgentTask<Report> {
  runId: string;
  /** Absolute path of the directory the agent works in. */
  workspace: string;
  /** Run verbatim from the workspace; the built-in agent runs it as its run_replay tool. */
  replayCommand: string;
  systemPrompt: string;
  userPrompt: (attempt: AttemptPosition) => string;
  report: ReportFormat<Report>;
  /** The feedback's closing words when the harness accepted the workspace but not the report. */
  acceptedWithUnsoundReport: string;
}

/** An attempt as the agent left it, before the harness looked at the workspace. */
export interface AttemptRecordWithoutJudgement<Report> {
  attempt: number;
  adapter: string;
  outcome: AgentOutcome;
  durationMs: number;
  /** The parsed report line, or why there is none. */
  report: ReportParse<Report>;
  /** Missing, malformed or inconsistent report, in words; [] when the report is sound. */
  reportProblems: string[];
  userPrompt: string;
  finalText: string;
  transcript: string;
}

export interface AttemptRecord<Report> extends AttemptRecordWithoutJudgement<Report> {
  /** The harness's verdict on the workspace; null when the agent never started. */
  harness: AttemptJudgement | null;
  /**
   * The attempt's verdict: the harness's, except that a sound report line is also required
   * (the paper makes it part of the deliverable). The agent's claims never make an attempt pass.
   */
  judgement: AttemptJudgement;
}

export interface AgentTaskResult<Report> {
  runId: string;
  /** Everything that decided what the agent did, for the record. */
  adapter: AgentSpec;
  systemPrompt: string;
  attempts: AttemptRecord<Report>[];
  acceptedAttempt: number | null;
  /** Why the loop ended. */
  stop: 'accepted' | 'attemptsExhausted' | 'agentFailedToStart';
}

export interface AgentTaskOptions<Report> {
  task: AgentTask<Report>;
  adapter: AgentAdapter;
  /** 3 in the paper. */
  attempts: number;
  /** Restores the workspace to clean sources; called before every attempt. */
  reset: () => Promise<void>;
  /** Judges the workspace as the agent left it. */
  judge: (attempt: AttemptRecordWithoutJudgement<Report>) => Promise<AttemptJudgement>;
  /** Per agent run. */
  timeoutMs: number;
  log: (line: string) => void;
  /** Where the agent's processes run, when its work is untrusted (see AgentRunInput). */
  sandbox?: Sandbox;
}

export const DEFAULT_ATTEMPTS = 3;

function describeOutcome(outcome: AgentOutcome, timeoutMs: number): string {
  switch (outcome.kind) {
    case 'Exited':
      return outcome.code === null
        ? `the agent was ended by signal ${outcome.signal ?? 'unknown'}`
        : `the agent exited with code ${outcome.code}`;
    case 'Completed':
      return 'the agent finished its conversation';
    case 'Timeout':
      return `the agent hit the time limit of ${Math.round(timeoutMs / 1000)} s and was stopped`;
    case 'FailedToStart':
      return `the agent failed to start: ${outcome.reason}`;
    case 'Failed':
      return `the agent run broke off: ${outcome.reason}`;
  }
}

function verdictText(judgement: AttemptJudgement): string {
  return judgement.kind === 'Accepted'
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
  acceptedWithUnsoundReport: string,
): AttemptJudgement {
  if (harness.kind === 'Accepted' && problems.length === 0) return harness;
  const feedback = [
    `Agent run: ${describeOutcome(outcome, timeoutMs)}.`,
    problems.length > 0 ? `Report: ${problems.join('; ')}.` : '',
    `Harness verdict on the workspace: ${verdictText(harness)}`,
    harness.kind === 'Accepted' ? acceptedWithUnsoundReport : '',
  ]
    .filter(Boolean)
    .join('\n');
  const reasons = [
    harness.kind === 'Rejected' ? harness.reason : '',
    problems.length > 0 ? `report: ${problems.join('; ')}` : '',
  ].filter(Boolean);
  return { kind: 'Rejected', reason: reasons.join('; '), feedback };
}

/**
 * The paper's execution-guided loop (§3.2, Appendix C): up to `attempts` agent runs, each on a
 * freshly reset workspace, each judged by the harness, the verdict fed back into the next
 * prompt; stops at the first accepted attempt.
 */
export async function runAgentTask<Report>(
  options: AgentTaskOptions<Report>,
): Promise<AgentTaskResult<Report>> {
  const { task, adapter, log, timeoutMs } = options;
  const agentName = adapter.spec.name;
  if (!Number.isInteger(options.attempts) || options.attempts < 1) {
    throw new UserError(`attempts must be a positive integer, not ${options.attempts}`);
  }
  const attempts: AttemptRecord<Report>[] = [];
  const result = (
    acceptedAttempt: number | null,
    stop: AgentTaskResult<Report>['stop'],
  ): AgentTaskResult<Report> => ({
    runId: task.runId,
    adapter: adapter.spec,
    systemPrompt: task.systemPrompt,
    attempts,
    acceptedAttempt,
    stop,
  });
  let previous: PreviousAttempt | undefined;

  for (let number = 1; number <= options.attempts; number++) {
    await options.reset();
    const userPrompt = task.userPrompt({ number, of: options.attempts, previous });
    log(`attempt ${number}/${options.attempts}: running agent ${agentName}`);
    const run = await adapter.run({
      workspace: task.workspace,
      systemPrompt: task.systemPrompt,
      userPrompt,
      replayCommand: task.replayCommand,
      timeoutMs,
      log,
      ...(options.sandbox ? { sandbox: options.sandbox } : {}),
    });
    const report = parseReport(run.finalText, task.report);
    const unjudged: AttemptRecordWithoutJudgement<Report> = {
      attempt: number,
      adapter: agentName,
      outcome: run.outcome,
      durationMs: run.durationMs,
      report,
      reportProblems: reportProblems(report, task.report.prefix),
      userPrompt,
      finalText: run.finalText,
      transcript: run.transcript,
    };
    log(
      `attempt ${number}: ${describeOutcome(run.outcome, timeoutMs)} after ${run.durationMs} ms; report ${report.kind}`,
    );

    if (run.outcome.kind === 'FailedToStart') {
      // Nothing ran, and a missing executable or refused endpoint will not fix itself.
      const reason = describeOutcome(run.outcome, timeoutMs);
      attempts.push({
        ...unjudged,
        harness: null,
        judgement: { kind: 'Rejected', reason, feedback: reason },
      });
      log(`attempt ${number}: stopping: ${reason}`);
      return result(null, 'agentFailedToStart');
    }

    const harness = await options.judge(unjudged);
    const judgement = finalJudgement(
      harness,
      unjudged.reportProblems,
      run.outcome,
      timeoutMs,
      task.acceptedWithUnsoundReport,
    );
    attempts.push({ ...unjudged, harness, judgement });
    if (judgement.kind === 'Accepted') {
      log(`attempt ${number}: accepted: ${judgement.summary}`);
      return result(number, 'accepted');
    }
    log(`attempt ${number}: rejected: ${judgement.reason}`);
    previous = { attempt: number, feedback: judgement.feedback };
  }
  return result(null, 'attemptsExhausted');
}

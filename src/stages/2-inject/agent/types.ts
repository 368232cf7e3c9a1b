import type { BugTypeSpec } from '../spec.js';

/** One injection job for an agent: a bug type, a witness test and the context it reaches. */
export interface InjectionTask {
  spec: BugTypeSpec;
  /** e.g. "commons-csv@1.9.0" */
  projectLabel: string;
  /** Absolute path of the project copy the agent edits (its working directory). */
  workspace: string;
  /** `testFile` is project-relative. */
  witness: { testClass: string; testFile: string };
  /** Trace summary; `anchors` are the candidate methods, file paths project-relative. */
  context: { size: number; bucket: string; anchors: { method: string; file: string }[] };
  /** Run verbatim from the workspace; an exit code other than 0 means the witness fails. */
  replayCommand: string;
  runId: string;
}

/** How an agent run ended. */
export type AgentOutcome =
  /** A CLI agent's process ended by itself (code null when a signal ended it). */
  | { kind: 'exited'; code: number | null; signal: string | null }
  /** The built-in loop received a final assistant message. */
  | { kind: 'completed' }
  /** The run hit its time limit; a process agent's whole process group was killed. */
  | { kind: 'timeout' }
  /** The agent never ran: missing executable, unreachable or refusing endpoint. */
  | { kind: 'failedToStart'; reason: string }
  /** The run broke off after starting: endpoint error mid-run, turn budget exhausted. */
  | { kind: 'failed'; reason: string };

export interface AgentRunInput {
  workspace: string;
  systemPrompt: string;
  userPrompt: string;
  /** The exact replay command; the built-in loop runs it as its run_replay tool. */
  replayCommand: string;
  timeoutMs: number;
  log: (line: string) => void;
}

export interface AgentRunResult {
  outcome: AgentOutcome;
  /** The agent's final message (capped, tail kept): where the report line is looked for. */
  finalText: string;
  /** Everything the run printed or exchanged (capped, head and tail kept). */
  transcript: string;
  durationMs: number;
}

export interface AgentAdapter {
  kind: 'agent';
  name: string;
  run(input: AgentRunInput): Promise<AgentRunResult>;
}

export const FINAL_TEXT_LIMIT = 64 * 1024;
export const TRANSCRIPT_LIMIT = 256 * 1024;

/** Keeps the end of a text: a final message's last line is the report. */
export function capTail(text: string, limit: number): string {
  return text.length <= limit
    ? text
    : `[... ${text.length - limit} chars dropped ...]\n${text.slice(-limit)}`;
}

/** Keeps the start and the end of a text, as runProcess does for output. */
export function capMiddle(text: string, limit: number): string {
  if (text.length <= limit) return text;
  const half = Math.floor(limit / 2);
  return `${text.slice(0, half)}\n[... ${text.length - 2 * half} chars dropped ...]\n${text.slice(-half)}`;
}

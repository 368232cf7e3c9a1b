import type { Sandbox } from '../sandbox/bwrap.js';

/** How an agent run ended. */
export type AgentOutcome =
  /** A CLI agent's process ended by itself (code null when a signal ended it). */
  | { kind: 'Exited'; code: number | null; signal: string | null }
  /** The built-in loop received a final assistant message. */
  | { kind: 'Completed' }
  /** The run hit its time limit; a process agent's whole process group was killed. */
  | { kind: 'Timeout' }
  /** The agent never ran: missing executable, unreachable or refusing endpoint. */
  | { kind: 'FailedToStart'; reason: string }
  /** The run broke off after starting: endpoint error mid-run, turn budget exhausted. */
  | { kind: 'Failed'; reason: string };

export interface AgentRunInput {
  workspace: string;
  systemPrompt: string;
  userPrompt: string;
  /** The exact replay command; the built-in loop runs it as its run_replay tool. */
  replayCommand: string;
  timeoutMs: number;
  log: (line: string) => void;
  /**
   * When given, the agent's processes run inside it: a process agent as a whole, the built-in
   * loop's replay command (its file tools stay on the host, confined to the workspace).
   */
  sandbox?: Sandbox;
}

export interface AgentRunResult {
  outcome: AgentOutcome;
  /** The agent's final message (capped, tail kept): where the report line is looked for. */
  finalText: string;
  /** Everything the run printed or exchanged (capped, head and tail kept). */
  transcript: string;
  durationMs: number;
  /** Tokens the model used, when the adapter sees them (the built-in loop reads each response's). */
  usage?: { inputTokens: number; outputTokens: number };
}

/** One argument of an adapter, as JSON. */
export type AgentSpecValue = string | number | boolean | null | readonly string[];

/**
 * Everything that changes what an adapter's agent does: its name and its arguments (model,
 * executable, flags, endpoint, sampling, budgets), defaults filled in. Credentials stay out: the
 * spec is recorded and hashed into ids.
 */
export interface AgentSpec {
  readonly name: string;
  readonly [argument: string]: AgentSpecValue;
}

/** A spec as text with its arguments in name order: equal specs give equal text. */
export function specText(spec: AgentSpec): string {
  return JSON.stringify(
    Object.fromEntries(Object.entries(spec).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))),
  );
}

export interface AgentAdapter {
  kind: 'agent';
  spec: AgentSpec;
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

/**
 * Runs of the replay command an agent may spend in one attempt (paper, Appendix I.1): what the
 * prompts state and the built-in agent's run_replay tool enforces.
 */
export const REPLAY_BUDGET = 3;

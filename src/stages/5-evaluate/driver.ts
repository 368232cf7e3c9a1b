import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import type { EventSink } from '../../events/types.js';
import type { SandboxFlags } from '../../agents/sandboxed.js';
import { JobCoordinator } from '../../jobs/coordinator.js';
import { parseShard } from '../../jobs/shard.js';
import { agentRequestOf, evaluationAgent } from './agent-request.js';
import { runEvaluation, type EvaluateResult } from './evaluate.js';
import { runRescore, type RescoreResult } from './rescore.js';
import { OFFLINE_AGENTS } from './offline-agents.js';
import { SETTINGS, type Setting } from './records.js';
import { DEFAULT_RUN_DIR } from './store.js';
import { AGENT_NAMES } from '../../agents/adapters/index.js';
import { type AgentFlags, type NetworkFlags } from '../../agents/flags.js';

/** What `witnessgym evaluate` is asked: the agent, the settings, the budget, the sandbox. */
export interface EvaluateStageOptions extends AgentFlags, NetworkFlags, SandboxFlags {
  agent: string;
  setting: string;
  attempts: number;
  cases?: string[];
  concurrency: number;
  run?: string;
  script?: string;
  /** Seconds. */
  verifyTimeout: number;
  caseTimeout: number;
  runs: number;
  /** False (`--no-screen`): submissions are judged without the static screen. */
  screen?: boolean;
  /** A redis:// URL: the attempts run as jobs on that queue's workers. */
  queue?: string;
  /** At most this many attempts at once across the queue's workers (the agent API's spend). */
  agentConcurrency?: number;
  /** `--shard i/N`: only this machine's share of the items. */
  shard?: string;
}

export interface EvaluateStageResult extends EvaluateResult {
  agent: string;
  settings: Setting[];
}

function settingsOf(value: string): Setting[] {
  if (value === 'both') return [...SETTINGS];
  if ((SETTINGS as readonly string[]).includes(value)) return [value as Setting];
  throw new UserError(`--setting must be NoEC, WithEC or both, not '${value}'`);
}

/** The evaluate stage: an agent's attempts on a benchmark's cases, and their tables. */
export async function runEvaluate(
  bench: string,
  options: EvaluateStageOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<EvaluateStageResult> {
  if (!(await exists(path.join(bench, 'cases.jsonl')))) {
    throw new UserError(
      `${bench} is not a benchmark (no cases.jsonl): build one with 'witnessgym build'`,
    );
  }
  const known = [...OFFLINE_AGENTS, ...AGENT_NAMES];
  if (!options.agent || !(known as readonly string[]).includes(options.agent)) {
    throw new UserError(
      `${options.agent ? `unknown agent '${options.agent}'` : '--agent is required'}: use one of ${known.join(', ')}`,
    );
  }
  const settings = settingsOf(options.setting);
  if (options.agentConcurrency !== undefined && !options.queue) {
    throw new UserError('--agent-concurrency applies with --queue: without it, use --concurrency');
  }
  const request = agentRequestOf(options);
  const agent = await evaluationAgent(request);
  const coordinator = options.queue
    ? await JobCoordinator.open(options.queue, {
        ...(options.agentConcurrency !== undefined
          ? { agentConcurrency: options.agentConcurrency }
          : {}),
      })
    : undefined;
  const result = await runEvaluation({
    bench,
    runDir: path.resolve(options.run ?? path.join(bench, DEFAULT_RUN_DIR)),
    cache,
    agent,
    settings,
    attempts: options.attempts,
    cases: options.cases ?? [],
    concurrency: options.concurrency,
    agentTimeoutMs: options.agentTimeout * 1000,
    verifyTimeoutMs: options.verifyTimeout * 1000,
    caseTimeoutMs: options.caseTimeout * 1000,
    runs: options.runs,
    screen: options.screen,
    events,
    ...(coordinator ? { queue: { coordinator, agent: request } } : {}),
    ...(options.shard ? { shard: parseShard(options.shard) } : {}),
  }).finally(() => coordinator?.close());
  return { ...result, agent: agent.name, settings };
}

export interface RescoreStageOptions {
  /** The benchmark, for runs that do not record theirs. */
  bench?: string;
  again?: boolean;
  runs: number;
  /** Seconds. */
  verifyTimeout: number;
}

/** Every stored submission of a run judged again by this verifier. */
export async function rescoreRun(
  runDir: string,
  options: RescoreStageOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<RescoreResult> {
  return runRescore({
    runDir: path.resolve(runDir),
    ...(options.bench !== undefined ? { bench: path.resolve(options.bench) } : {}),
    cache,
    again: options.again ?? false,
    runs: options.runs,
    verifyTimeoutMs: options.verifyTimeout * 1000,
    events,
  });
}

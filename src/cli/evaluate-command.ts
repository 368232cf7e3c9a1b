import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { exists } from '../core/fs.js';
import type { EventSink } from '../events/types.js';
import { sandboxAvailability, type NetworkPolicy } from '../sandbox/bwrap.js';
import { parseEndpoint } from '../sandbox/egress-proxy.js';
import { runEvaluation, type EvaluateResult } from '../stages/5-evaluate/evaluate.js';
import {
  loadScript,
  offlineAgent,
  OFFLINE_AGENTS,
  type EvaluationAgent,
  type OfflineAgentName,
} from '../stages/5-evaluate/offline-agents.js';
import { SETTINGS, type Setting } from '../stages/5-evaluate/records.js';
import { EvaluationStore, STORE_FILE } from '../stages/5-evaluate/store.js';
import { renderTables, resultTables, type ResultTables } from '../stages/6-report/tables.js';
import { AGENT_NAMES } from '../agents/adapters/index.js';
import { VENDOR_ENDPOINTS } from '../agents/adapters/cli.js';
import { agentAdapterFrom, type AgentFlags } from './agent-flags.js';

export interface EvaluateCommandOptions extends AgentFlags {
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
  /**
   * The host:port endpoints the sandboxed agent may reach through the egress proxy (replacing
   * its default list); default: a vendor CLI's own (VENDOR_ENDPOINTS), none for `command`.
   */
  allowEndpoint?: string[];
  /** False (`--no-network`): the sandboxed agent reaches nothing, not even its model. */
  network?: boolean;
  /** False (`--no-screen`): submissions are judged without the static screen. */
  screen?: boolean;
  /** Host paths the sandboxed agent may read, or read and write, at their own path. */
  sandboxRead?: string[];
  sandboxWrite?: string[];
  json?: boolean;
}

export interface EvaluateSummary extends Omit<EvaluateResult, 'rows'> {
  agent: string;
  settings: Setting[];
  tables: ResultTables;
}

/** What the sandboxed agent may reach; a malformed endpoint is a UserError. */
export function agentNetwork(options: EvaluateCommandOptions): NetworkPolicy {
  if (options.network === false) {
    if (options.allowEndpoint?.length) {
      throw new UserError('--no-network and --allow-endpoint contradict each other');
    }
    return { kind: 'none' };
  }
  const endpoints = options.allowEndpoint ?? VENDOR_ENDPOINTS[options.agent] ?? [];
  for (const endpoint of endpoints) parseEndpoint(endpoint);
  return endpoints.length > 0 ? { kind: 'allow', endpoints } : { kind: 'none' };
}

function settingsOf(value: string): Setting[] {
  if (value === 'both') return [...SETTINGS];
  if ((SETTINGS as readonly string[]).includes(value)) return [value as Setting];
  throw new UserError(`--setting must be NoEC, WithEC or both, not '${value}'`);
}

async function evaluationAgent(options: EvaluateCommandOptions): Promise<EvaluationAgent> {
  if ((OFFLINE_AGENTS as readonly string[]).includes(options.agent)) {
    const script = options.script ? await loadScript(options.script) : undefined;
    if (script && options.agent !== 'scripted') {
      throw new UserError(`--script applies to --agent scripted only`);
    }
    return offlineAgent(options.agent as OfflineAgentName, script);
  }
  if (options.script) throw new UserError(`--script applies to --agent scripted only`);
  for (const dir of [...(options.sandboxRead ?? []), ...(options.sandboxWrite ?? [])]) {
    if (!(await exists(dir)))
      throw new UserError(`--sandbox-read/--sandbox-write: ${dir} does not exist`);
  }
  const adapter = agentAdapterFrom(options);
  const availability = await sandboxAvailability();
  if (availability.kind === 'Unavailable') {
    throw new UserError(
      `agent ${options.agent} runs in a bubblewrap sandbox, which is unavailable (${availability.reason}): install it with 'apt-get install bubblewrap'`,
    );
  }
  return {
    name: options.agent,
    sandboxed: true,
    network: agentNetwork(options),
    readOnly: (options.sandboxRead ?? []).map((dir) => path.resolve(dir)),
    writable: (options.sandboxWrite ?? []).map((dir) => path.resolve(dir)),
    forAttempt: async () => adapter,
  };
}

export async function runEvaluateCommand(
  bench: string,
  options: EvaluateCommandOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<EvaluateSummary> {
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
  const agent = await evaluationAgent(options);
  const result = await runEvaluation({
    bench,
    runDir: path.resolve(options.run ?? path.join(bench, 'evaluation')),
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
  });
  const { rows, ...rest } = result;
  return { ...rest, agent: agent.name, settings, tables: resultTables(rows) };
}

/** `witnessgym report <run>`: the tables of a run directory's finished attempts, every agent's. */
export async function runReportCommand(runDir: string): Promise<ResultTables> {
  if (!(await exists(path.join(runDir, STORE_FILE)))) {
    throw new UserError(
      `${runDir} holds no evaluation results (no ${STORE_FILE}): run 'witnessgym evaluate' with --run ${runDir}`,
    );
  }
  const store = EvaluationStore.open(runDir);
  try {
    return resultTables(store.allAttempts());
  } finally {
    store.close();
  }
}

export function formatEvaluateSummary(summary: EvaluateSummary): string {
  const lines = [
    `evaluated ${summary.agent} (${summary.settings.join(', ')}) on ${summary.items} items: ${summary.attemptsRun} attempts run, ${summary.alreadyDone} items done earlier; results in ${summary.runDir}`,
  ];
  if (summary.interruptedBefore > 0) {
    lines.push(`${summary.interruptedBefore} attempts an earlier run left in flight were redone`);
  }
  if (summary.harnessFaults > 0) {
    lines.push(
      `${summary.harnessFaults} harness faults (retried; counted apart from the agent's failures)`,
    );
  }
  for (const missed of summary.notEvaluated)
    lines.push(`not evaluated: ${missed.item}: ${missed.reason}`);
  lines.push('', renderTables(summary.tables));
  return lines.join('\n');
}

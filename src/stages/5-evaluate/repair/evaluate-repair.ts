import path from 'node:path';
import type { CacheLayout } from '../../../core/cache.js';
import { UserError } from '../../../core/errors.js';
import { sha256Text, writeFileAtomic } from '../../../core/fs.js';
import { describeVerdict } from '../../../core/verdict.js';
import type { EventSink } from '../../../events/types.js';
import { treeReader } from '../../../project/state.js';
import type { RepairInstance } from '../../../repair/instance.js';
import { materialiseTree, resolveInstance } from '../../../repair/project.js';
import { readInstanceFile } from '../../../repair/read.js';
import {
  preparedInstanceTree,
  verifyRepairPatch,
  type PatchVerdict,
} from '../../../repair/verify-patch.js';
import { isolatedJavaSetup } from '../../../sandbox/java-runs.js';
import { recordedValidity } from '../../7-strengthen/validate-file.js';
import { AGENT_NAMES } from '../../../agents/adapters/index.js';
import {
  agentAdapterFrom,
  agentNetwork,
  type AgentFlags,
  type NetworkFlags,
} from '../../../agents/flags.js';
import { sandboxAvailability } from '../../../sandbox/bwrap.js';
import { REPAIR_AGENTS, type RepairAgent } from './agents.js';
import { processRepairAgent } from './process-agent.js';
import { RepairStore, testsIdOf, type RepairAttemptRow, type RepairVerdict } from './store.js';

/*
 * `witnessgym evaluate <instances.jsonl> --task repair`: an agent proposes a patch for each
 * instance; the patch is judged in the sandbox (verify-patch.ts) against the instance's tests.
 * Results go to a SQLite database in the run directory, with SWE-bench's predictions file
 * (`predictions.jsonl`: instance_id, model_name_or_path, model_patch) beside it. An instance that
 * S0 found broken or flaky is not evaluated (its verdicts would say nothing about the agent).
 */

export interface RepairEvaluateOptions extends AgentFlags, NetworkFlags {
  agent: string;
  /** Attempts a process agent gets per instance (an offline agent's one says all it will do). */
  attempts: number;
  run: string;
  seed: number;
  /** Seconds one agent run may take. */
  agentTimeout: number;
  sandboxRead?: string[];
  sandboxWrite?: string[];
}

export interface RepairEvaluationSummary {
  agent: string;
  runDir: string;
  predictions: string;
  instances: number;
  resolved: number;
  attemptsRun: number;
  alreadyDone: number;
  interruptedBefore: number;
  notEvaluated: { instanceId: string; reason: string }[];
  rows: RepairAttemptRow[];
}

/** The agent of a repair evaluation, and how many attempts it gets per instance. */
export async function repairAgent(
  options: RepairEvaluateOptions,
): Promise<{ agent: RepairAgent; attempts: number }> {
  const offline = REPAIR_AGENTS.find((candidate) => candidate.name === options.agent);
  if (offline) return { agent: offline, attempts: 1 };
  if (!(AGENT_NAMES as readonly string[]).includes(options.agent)) {
    throw new UserError(
      `unknown agent '${options.agent}' for --task repair: use one of ${[...REPAIR_AGENTS.map((known) => known.name), ...AGENT_NAMES].join(', ')}`,
    );
  }
  const availability = await sandboxAvailability();
  if (availability.kind === 'Unavailable') {
    throw new UserError(
      `agent ${options.agent} runs in a bubblewrap sandbox, which is unavailable (${availability.reason}): install it with 'apt-get install bubblewrap'`,
    );
  }
  const agent = processRepairAgent(options.agent, agentAdapterFrom(options), {
    network: agentNetwork(options),
    readOnly: (options.sandboxRead ?? []).map((dir) => path.resolve(dir)),
    writable: (options.sandboxWrite ?? []).map((dir) => path.resolve(dir)),
    timeoutMs: options.agentTimeout * 1000,
  });
  return { agent, attempts: options.attempts };
}

function storedVerdict(verdict: PatchVerdict): RepairVerdict {
  switch (verdict.kind) {
    case 'Judged':
      return verdict.judgement;
    case 'DoesNotApply':
      return { kind: 'DoesNotApply', reason: verdict.reason };
    case 'CompileFailed':
      return {
        kind: 'CompileFailed',
        scope: verdict.scope,
        messages: verdict.messages.map((m) => `${m.file}:${m.line ?? '?'}: ${m.message}`),
      };
    case 'Timeout':
      return { kind: 'Timeout', limitMs: verdict.limitMs };
  }
}

/** An attempt's seed: the run's seed, the instance and the attempt, so reruns choose alike. */
function attemptSeed(seed: number, instanceId: string, attempt: number): number {
  return Number.parseInt(sha256Text(`${seed}:${instanceId}:${attempt}`).slice(0, 8), 16);
}

export async function runRepairEvaluation(
  instancesFile: string,
  options: RepairEvaluateOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<RepairEvaluationSummary> {
  const { agent, attempts } = await repairAgent(options);
  const instances = await readInstanceFile(instancesFile);
  const fileDir = path.dirname(path.resolve(instancesFile));
  const validity = await recordedValidity(instancesFile);
  const store = RepairStore.open(options.run);
  const setup = await isolatedJavaSetup();
  const summary: RepairEvaluationSummary = {
    agent: agent.name,
    runDir: path.resolve(options.run),
    predictions: path.join(path.resolve(options.run), 'predictions.jsonl'),
    instances: instances.length,
    resolved: 0,
    attemptsRun: 0,
    alreadyDone: 0,
    interruptedBefore: store.interrupted,
    notEvaluated: [],
    rows: [],
  };
  const queue: RepairInstance[] = [];
  for (const instance of instances) {
    const recorded = validity.get(instance.instance_id)?.outcome;
    if (recorded && recorded.kind !== 'Valid') {
      summary.notEvaluated.push({
        instanceId: instance.instance_id,
        reason: `S0 found it ${recorded.kind.toLowerCase()} on the ${recorded.side} tree`,
      });
    } else if (store.done(instance.instance_id, agent.name).length >= attempts) {
      summary.alreadyDone++;
    } else queue.push(instance);
  }
  events.emit({
    kind: 'StageStarted',
    stage: 'evaluate',
    subject: agent.name,
    total: queue.length,
    unit: 'instances',
  });
  const started = Date.now();
  try {
    let done = 0;
    for (const instance of queue) {
      const subject = await resolveInstance(instance, fileDir, cache);
      const prepared = await preparedInstanceTree(subject, 'base', cache);
      const judge = (diff: string) =>
        verifyRepairPatch(instance, diff, prepared, subject.project.layout, setup);
      const readSources = treeReader(prepared.sourcesDir);
      const readTree = treeReader(prepared.template);
      const { mainSources } = subject.project.layout;
      const readBase = (file: string) =>
        file.startsWith(`${mainSources}/`)
          ? readSources(file.slice(mainSources.length + 1))
          : readTree(file);
      for (
        let attempt = store.done(instance.instance_id, agent.name).length + 1;
        attempt <= attempts;
        attempt++
      ) {
        const attemptStarted = Date.now();
        store.started(instance.instance_id, agent.name, attempt);
        const proposal = await agent.propose({
          instance,
          readBase,
          seed: attemptSeed(options.seed, instance.instance_id, attempt),
          judge,
          writeBase: (destination) => materialiseTree(subject.base, subject.project, destination),
          mainSources,
        });
        let row: RepairAttemptRow;
        if (proposal.kind === 'NoPatch') {
          row = {
            instanceId: instance.instance_id,
            agent: agent.name,
            attempt,
            patch: '',
            family: null,
            verdict: { kind: 'NoPatch', reason: proposal.reason },
            stripped: [],
            classes: [],
            durationMs: Date.now() - attemptStarted,
            finishedAt: new Date().toISOString(),
          };
        } else {
          const verdict = await judge(proposal.diff);
          row = {
            instanceId: instance.instance_id,
            agent: agent.name,
            attempt,
            patch: proposal.diff,
            family: proposal.family,
            verdict: storedVerdict(verdict),
            stripped: verdict.stripped,
            classes:
              verdict.kind === 'Judged'
                ? verdict.classes.map((run) => ({
                    testClass: run.testClass,
                    verdict: describeVerdict(run.verdict),
                  }))
                : [],
            testsId: testsIdOf(instance),
            durationMs: Date.now() - attemptStarted,
            finishedAt: new Date().toISOString(),
          };
        }
        store.finished(row);
        summary.attemptsRun++;
        if (row.verdict.kind === 'Resolved') break;
      }
      done++;
      const rows = store.done(instance.instance_id, agent.name);
      events.emit({
        kind: 'ItemDone',
        stage: 'evaluate',
        done,
        total: queue.length,
        item: instance.instance_id,
        outcome: rows.some((row) => row.verdict.kind === 'Resolved')
          ? 'resolved'
          : (rows.at(-1)?.verdict.kind ?? 'none'),
      });
    }
    summary.rows = store.all().filter((row) => row.agent === agent.name);
  } finally {
    store.close();
  }
  events.emit({
    kind: 'StageFinished',
    stage: 'evaluate',
    subject: agent.name,
    durationMs: Date.now() - started,
  });
  const byInstance = new Map<string, RepairAttemptRow[]>();
  for (const row of summary.rows)
    byInstance.set(row.instanceId, [...(byInstance.get(row.instanceId) ?? []), row]);
  const predictions: string[] = [];
  for (const [instanceId, rows] of [...byInstance].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const chosen = rows.find((row) => row.verdict.kind === 'Resolved') ?? rows.at(-1)!;
    if (chosen.verdict.kind === 'Resolved') summary.resolved++;
    predictions.push(
      JSON.stringify({
        instance_id: instanceId,
        model_name_or_path: agent.name,
        model_patch: chosen.patch,
      }),
    );
  }
  await writeFileAtomic(summary.predictions, predictions.map((line) => `${line}\n`).join(''));
  return summary;
}

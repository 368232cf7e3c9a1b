import { rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage, UserError } from '../../core/errors.js';
import { removeAtStop, removeTree } from '../../core/fs.js';
import { globToRegExp } from '../../core/glob.js';
import { runPool } from '../../core/pool.js';
import type { EventSink } from '../../events/types.js';
import type { JobCoordinator } from '../../jobs/coordinator.js';
import { inShard, type Shard } from '../../jobs/shard.js';
import { benchLayout, caseIds, readCaseFile } from '../4-archive/archive.js';
import type { CaseRecord } from '../4-archive/case.js';
import { caseProject } from '../4-archive/materialise.js';
import type { AgentRequest } from './agent-request.js';
import { openItemSession } from './attempt.js';
import {
  attemptArtefacts,
  attemptJobKey,
  evaluateAttemptJob,
  type AttemptJobPayload,
} from './attempt-job.js';
import type { AttemptLimit, EvaluationAgent } from './offline-agents.js';
import { itemSucceeded, type AttemptRow, type Setting } from './records.js';
import { scorerTools } from './score.js';
import { EvaluationStore, type AttemptKey, type ItemKey } from './store.js';

/*
 * `witnessgym evaluate`: every (case, agent, setting) item gets up to `attempts` attempts; each
 * attempt is a fresh workspace, one agent run (in the sandbox for process agents), and the
 * verifier's diagnosis of what the agent left, fed back into the next attempt's prompt (attempt.ts).
 * Each finished attempt is one row of the run's store; a rerun skips what is done. With a queue,
 * the attempts run as jobs on workers (attempt-job.ts) and this process alone writes the store.
 */

export interface EvaluateOptions {
  bench: string;
  runDir: string;
  cache: CacheLayout;
  agent: EvaluationAgent;
  /** Hash of the agent's spec, recorded in every row and checked on resume. */
  settings: readonly Setting[];
  attempts: number;
  /** Case filters (see selectCases); all cases when empty. */
  cases: readonly string[];
  concurrency: number;
  agentTimeoutMs: number;
  verifyTimeoutMs: number;
  caseTimeoutMs: number;
  /** Fresh runs per side in verification. */
  runs: number;
  events: EventSink;
  /** Times a harness fault is retried before the attempt is recorded as one. */
  faultRetries?: number;
  /** Attempts run as jobs on a queue's workers instead of here. */
  queue?: QueueRun;
  /** Only the items of this shard (by their case and setting). */
  shard?: Shard;
  /** The static screen before each verification (default on; see score.ts). */
  screen?: boolean;
}

/** A queue to run attempts on, and the agent's flags, which each worker builds its agent from. */
export interface QueueRun {
  coordinator: JobCoordinator;
  agent: AgentRequest;
}

/** A run directory holds one spec per agent name: rows of two specs would be mixed in tables. */
class AgentSpecMismatch extends UserError {}

export interface EvaluateResult {
  runDir: string;
  items: number;
  /** Items skipped because an earlier run finished them. */
  alreadyDone: number;
  attemptsRun: number;
  interruptedBefore: number;
  harnessFaults: number;
  /** The agent's attempts per item, and why one when it is given one (kept in the store too). */
  attemptLimit: AttemptLimit;
  /** Items that could not be set up (project not fetched, corrupt case), with why. */
  notEvaluated: { item: string; reason: string }[];
  rows: AttemptRow[];
}

interface Item {
  caseId: string;
  setting: Setting;
}

/**
 * Which cases a filter list picks: an id glob (`commons-csv@*`) picks by id; `key=value` terms
 * (type, bucket, depth, project, category) must all hold. Ids are ORed, then the terms ANDed.
 */
export function caseMatcher(filters: readonly string[]): (record: CaseRecord) => boolean {
  const ids: RegExp[] = [];
  const terms: [string, string][] = [];
  for (const filter of filters
    .flatMap((f) => f.split(','))
    .map((f) => f.trim())
    .filter(Boolean)) {
    const equals = filter.indexOf('=');
    if (equals < 0) {
      ids.push(globToRegExp(filter));
      continue;
    }
    const key = filter.slice(0, equals);
    if (!['type', 'bucket', 'depth', 'project', 'category'].includes(key)) {
      throw new UserError(
        `--cases: unknown key '${key}' in '${filter}'; use type, bucket, depth, project or category`,
      );
    }
    terms.push([key, filter.slice(equals + 1)]);
  }
  const valueOf = (record: CaseRecord, key: string): string => {
    switch (key) {
      case 'type':
        return record.bugType.id;
      case 'bucket':
        return record.trace.bucket;
      case 'depth':
        return String(record.transforms.depth);
      case 'project':
        return record.project.name;
      default:
        return record.bugType.category;
    }
  };
  return (record) =>
    (ids.length === 0 || ids.some((id) => id.test(record.id))) &&
    terms.every(([key, value]) => valueOf(record, key) === value);
}

/** The attempts an item of an agent gets: those asked for, or one (see AttemptLimit). */
export function attemptsGiven(limit: AttemptLimit, asked: number): number {
  return limit.kind === 'Once' ? 1 : asked;
}

/** An item is over once an attempt succeeded or the attempts it is given are used. */
export function itemOver(
  rows: readonly Pick<AttemptRow, 'diagnosis'>[],
  attempts: number,
): boolean {
  return itemSucceeded(rows) || rows.length >= attempts;
}

export async function runEvaluation(options: EvaluateOptions): Promise<EvaluateResult> {
  const bench = benchLayout(options.bench);
  const matches = caseMatcher(options.cases);
  const records = new Map<string, CaseRecord>();
  for (const id of await caseIds(bench.root)) {
    const record = await readCaseFile(bench.caseDir(id));
    if (matches(record)) records.set(id, record);
  }
  if (records.size === 0) {
    throw new UserError(
      `no case of ${bench.root} matches${options.cases.length ? ` --cases ${options.cases.join(',')}` : ''}: build one with 'witnessgym build' or widen the filter`,
    );
  }
  const store = EvaluationStore.open(options.runDir);
  // Rescore finds the benchmark of a run from here.
  if (store.meta('bench') === undefined) store.setMeta('bench', bench.root);
  const screen = options.screen ?? true;
  const faultRetries = options.faultRetries ?? 2;
  const items: Item[] = [...records.keys()]
    .flatMap((caseId) => options.settings.map((setting) => ({ caseId, setting })))
    .filter((item) => !options.shard || inShard(options.shard, `${item.caseId} ${item.setting}`));
  const agentName = options.agent.name;
  let alreadyDone = 0;
  let attemptsRun = 0;
  let done = 0;
  options.events.emit({
    kind: 'StageStarted',
    stage: 'evaluate',
    subject: `${agentName} on ${bench.root}`,
    total: items.length,
    unit: 'items',
  });
  const started = performance.now();

  // The items' trees: scratch like a temporary directory, though in the run directory, so a stop
  // by signal removes it too.
  const workDir = path.join(options.runDir, 'work');
  removeAtStop(workDir);
  const limit = options.agent.attempts;
  const attempts = attemptsGiven(limit, options.attempts);
  // Beside the rows, so a reader of the run sees why an item has fewer attempts than asked.
  store.setMeta(`attempts:${agentName}`, JSON.stringify(limit));
  const finishedItem = (rows: AttemptRow[]) => itemOver(rows, attempts);
  // The scorer's tools as this machine has them, asked once (a queue's workers ask their own).
  let tools: Promise<Record<string, string>> | undefined;
  const localTools = () =>
    (tools ??= scorerTools().then((found) => ({ ...found, screen: screen ? 'on' : 'off' })));
  // No sandbox here stops the run with what to do, before any item is tried.
  if (!options.queue) await localTools();
  const checkSpec = (agentSpec: string) => {
    const knownSpec = store.meta(`agent:${agentName}`);
    if (knownSpec === undefined) store.setMeta(`agent:${agentName}`, agentSpec);
    else if (knownSpec !== agentSpec) {
      throw new AgentSpecMismatch(
        `${options.runDir} holds results of agent ${agentName} with other settings (spec ${knownSpec}, now ${agentSpec}): use another --run directory`,
      );
    }
  };
  const keep = (
    key: AttemptKey,
    outcome: { row: AttemptRow; faults: string[] },
    texts: string[],
  ) => {
    for (const fault of outcome.faults) store.recordFault(key, fault);
    store.finish(outcome.row, texts);
    attemptsRun++;
  };

  async function runItemHere(item: Item, record: CaseRecord, rows: AttemptRow[]): Promise<void> {
    const itemDir = path.join(workDir, item.caseId, item.setting);
    const session = await openItemSession(
      bench.root,
      bench.caseDir(item.caseId),
      record,
      item.setting,
      itemDir,
      {
        cache: options.cache,
        agent: options.agent,
        attempts,
        agentTimeoutMs: options.agentTimeoutMs,
        verifyTimeoutMs: options.verifyTimeoutMs,
        runs: options.runs,
        screen,
        faultRetries,
        tools: await localTools(),
      },
    );
    const deadline = Date.now() + options.caseTimeoutMs;
    try {
      while (!finishedItem(rows)) {
        const key: AttemptKey = { ...itemKey(item), attempt: rows.length + 1 };
        const outcome = await session.attempt({
          attempt: key.attempt,
          previous: rows,
          deadline,
          faultsBefore: store.faultCount(key),
          beforeAgent: (agentSpec) => {
            checkSpec(agentSpec);
            store.begin(key);
          },
        });
        keep(key, outcome, outcome.texts);
        rows.push(outcome.row);
      }
    } finally {
      await session.dispose();
      await removeIfEmpty(path.dirname(itemDir));
    }
  }

  /** The item's attempts as jobs, one after another (each prompt carries the earlier feedback). */
  async function runItemOnQueue(
    item: Item,
    record: CaseRecord,
    queue: QueueRun,
    rows: AttemptRow[],
  ): Promise<void> {
    const artefacts = attemptArtefacts(options.runDir);
    const { recipe } = await caseProject(record, options.cache);
    while (!finishedItem(rows)) {
      const key: AttemptKey = { ...itemKey(item), attempt: rows.length + 1 };
      const payload: AttemptJobPayload = {
        bench: bench.root,
        runDir: options.runDir,
        caseId: item.caseId,
        recipe,
        setting: item.setting,
        attempt: key.attempt,
        attempts,
        previous: rows,
        agent: queue.agent,
        agentTimeoutMs: options.agentTimeoutMs,
        verifyTimeoutMs: options.verifyTimeoutMs,
        caseTimeoutMs: options.caseTimeoutMs,
        runs: options.runs,
        screen,
        faultRetries,
        faultsBefore: store.faultCount(key),
      };
      const result = await queue.coordinator.submit(
        evaluateAttemptJob,
        attemptJobKey(store.runId(), payload),
        payload,
      );
      checkSpec(result.row.agentSpec);
      keep(key, result, await Promise.all(result.texts.map((hash) => artefacts.get(hash))));
      rows.push(result.row);
    }
  }

  async function runItem(item: Item): Promise<string> {
    const record = records.get(item.caseId)!;
    const rows = store.attempts(itemKey(item));
    if (finishedItem(rows)) {
      alreadyDone++;
      return `done earlier: ${rows[rows.length - 1]!.diagnosis.kind}`;
    }
    if (options.queue) await runItemOnQueue(item, record, options.queue, rows);
    else await runItemHere(item, record, rows);
    const last = rows[rows.length - 1]!;
    const once = limit.kind === 'Once' ? ` (one attempt: ${limit.reason})` : '';
    return `${last.diagnosis.kind} after ${rows.length} attempt${rows.length === 1 ? '' : 's'}${once}`;
  }

  function itemKey(item: Item): ItemKey {
    return { caseId: item.caseId, agent: agentName, setting: item.setting };
  }

  const notEvaluated: EvaluateResult['notEvaluated'] = [];
  const evaluateItem = async (item: Item) => {
    let outcome: string;
    try {
      outcome = await runItem(item);
    } catch (error) {
      // An agent unlike the one the run recorded stops the run (the pool starts no more items).
      if (error instanceof AgentSpecMismatch) throw error;
      // A case that cannot be set up (not fetched, corrupt) is reported; the run goes on.
      outcome = `not evaluated: ${errorMessage(error)}`;
      notEvaluated.push({ item: `${item.caseId} ${item.setting}`, reason: errorMessage(error) });
    }
    done++;
    options.events.emit({
      kind: 'ItemDone',
      stage: 'evaluate',
      done,
      total: items.length,
      item: `${item.caseId} ${item.setting}`,
      outcome,
    });
  };
  try {
    // On a queue every item is in flight at once: the workers decide how many run.
    const workers = options.queue ? items.length : options.concurrency;
    await runPool(items, { workers }, evaluateItem);
    options.events.emit({
      kind: 'StageFinished',
      stage: 'evaluate',
      subject: agentName,
      durationMs: Math.round(performance.now() - started),
    });
    const rows = store.allAttempts().filter((row) => records.has(row.case.caseId));
    return {
      runDir: options.runDir,
      items: items.length,
      alreadyDone,
      attemptsRun,
      interruptedBefore: store.interrupted,
      harnessFaults: store.counts().faults,
      attemptLimit: limit,
      notEvaluated,
      rows,
    };
  } finally {
    store.close();
    await removeTree(workDir);
  }
}

/** Removes `dir` if it is empty; one that another item still works in is left. */
async function removeIfEmpty(dir: string): Promise<void> {
  try {
    await rmdir(dir);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOENT') throw error;
  }
}

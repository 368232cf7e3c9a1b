import { hiddenBuildDirs } from '../../agents/sandboxed.js';
import { payloadFile, readPayloadDocument } from '../4-archive/payloads.js';
import { mkdir, readFile, rmdir } from 'node:fs/promises';
import path from 'node:path';
import type { AgentAdapter, AgentRunResult } from '../../agents/types.js';
import { specText } from '../../agents/types.js';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage, UserError } from '../../core/errors.js';
import { removeAtStop, removeTree, sha256Text } from '../../core/fs.js';
import { globToRegExp } from '../../core/glob.js';
import { runPool } from '../../core/pool.js';
import type { EventSink } from '../../events/types.js';
import { createSandbox, type Sandbox } from '../../sandbox/bwrap.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { benchLayout, caseIds, readCaseFile } from '../4-archive/archive.js';
import type { CaseRecord } from '../4-archive/case.js';
import { caseProject } from '../4-archive/materialise.js';
import type { AttemptLimit, CaseContext, EvaluationAgent } from './offline-agents.js';
import {
  itemSucceeded,
  type AttemptRow,
  type CaseDimensions,
  type Diagnosis,
  type Setting,
} from './records.js';
import { workspaceSubmission } from './submission.js';
import { EvaluationStore, type AttemptKey } from './store.js';
import type { SubmissionVerdict } from './verify-submission.js';
import { scoreSubmission, scorerTools } from './score.js';
import { freshWorkspace, writeGivenTree } from './workspace.js';
import { agentReplay } from './agent-replay.js';
import { startReplayService, type ReplayService } from './replay-service.js';

/*
 * `witnessgym evaluate`: every (case, agent, setting) item gets up to `attempts` attempts; each
 * attempt is a fresh workspace, one agent run (in the sandbox for process agents), and the
 * verifier's diagnosis of what the agent left, fed back into the next attempt's prompt. Each
 * finished attempt is one row of the run's store; a rerun skips what is done.
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
  /** The static screen before each verification (default on; see score.ts). */
  screen?: boolean;
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

function userPrompt(payload: string, attempt: number, of: number, previous: AttemptRow[]): string {
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
  const toolchain = mavenToolchain;
  // Rescore finds the benchmark of a run from here.
  if (store.meta('bench') === undefined) store.setMeta('bench', bench.root);
  const screen = options.screen ?? true;
  const tools = { ...(await scorerTools()), screen: screen ? 'on' : 'off' };
  const faultRetries = options.faultRetries ?? 2;
  const items: Item[] = [...records.keys()].flatMap((caseId) =>
    options.settings.map((setting) => ({ caseId, setting })),
  );
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

  async function runItem(item: Item): Promise<string> {
    const record = records.get(item.caseId)!;
    const caseDir = bench.caseDir(item.caseId);
    const key = { caseId: item.caseId, agent: agentName, setting: item.setting };
    const rows = store.attempts(key);
    if (finishedItem(rows)) {
      alreadyDone++;
      return `done earlier: ${rows[rows.length - 1]!.diagnosis.kind}`;
    }
    const project = await caseProject(record, options.cache);
    const context: CaseContext = {
      bench: bench.root,
      caseDir,
      record,
      project,
      cache: options.cache,
    };
    const archived = await casePrompts(caseDir, item.setting);
    // Cases archived before the replay named the harness's Surefire quote a command that may not
    // run offline; the agent is given the one that does.
    const replayCommand = toolchain.replayCommand(project.build, record.officialTest.class);
    const prompts = {
      ...archived,
      payload: archived.payload.replace(record.verifyCommand, replayCommand),
    };
    const itemDir = path.join(workDir, item.caseId, item.setting);
    const given = path.join(itemDir, 'given');
    const workspace = path.join(itemDir, 'workspace');
    const caseDeadline = Date.now() + options.caseTimeoutMs;
    let sandbox: Sandbox | undefined;
    let replays: ReplayService | undefined;
    try {
      await writeGivenTree(caseDir, record, project, given);
      if (options.agent.sandboxed) {
        replays = await startReplayService((args) =>
          agentReplay(args, { caseDir, record, project, cache: options.cache, given, workspace }),
        );
        // Bound by path at each run; each attempt's fresh workspace takes its place.
        await mkdir(workspace, { recursive: true });
        sandbox = await createSandbox({
          workspace,
          network: options.agent.network,
          binDirs: [replays.binDir],
          hiddenSystemDirs: await hiddenBuildDirs(),
          readOnly: [replays.answers, ...(options.agent.readOnly ?? [])],
          writable: [replays.requests, ...(options.agent.writable ?? [])],
        });
      }
      while (!finishedItem(rows)) {
        const attempt = rows.length + 1;
        const attemptKey: AttemptKey = { ...key, attempt };
        await freshWorkspace(given, workspace);
        const adapter = await options.agent.forAttempt(context, attempt);
        const agentSpec = sha256Text(specText(adapter.spec)).slice(0, 16);
        const knownSpec = store.meta(`agent:${agentName}`);
        if (knownSpec === undefined) store.setMeta(`agent:${agentName}`, agentSpec);
        else if (knownSpec !== agentSpec) {
          throw new AgentSpecMismatch(
            `${options.runDir} holds results of agent ${agentName} with other settings (spec ${knownSpec}, now ${agentSpec}): use another --run directory`,
          );
        }
        store.begin(attemptKey);
        const prompt = userPrompt(prompts.payload, attempt, attempts, rows);
        const agentTimeoutMs = Math.max(
          1000,
          Math.min(options.agentTimeoutMs, caseDeadline - Date.now()),
        );
        const run = await runAgent(adapter, {
          workspace,
          systemPrompt: prompts.system,
          userPrompt: prompt,
          replayCommand,
          timeoutMs: agentTimeoutMs,
          log: () => undefined,
          ...(sandbox ? { sandbox } : {}),
        });
        const verifyStarted = performance.now();
        const judged = await judgeAttempt(run, given, workspace, context, attemptKey);
        const row: AttemptRow = {
          case: dimensionsOf(record),
          agent: agentName,
          agentSpec,
          setting: item.setting,
          attempt,
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
          tools,
          finishedAt: new Date().toISOString(),
        };
        store.finish(row, [run.transcript, prompt, ...judged.tests.map((test) => test.content)]);
        rows.push(row);
        attemptsRun++;
      }
    } finally {
      await sandbox?.dispose();
      await replays?.stop();
      await removeTree(itemDir);
      await removeIfEmpty(path.dirname(itemDir));
    }
    const last = rows[rows.length - 1]!;
    const once = limit.kind === 'Once' ? ` (one attempt: ${limit.reason})` : '';
    return `${last.diagnosis.kind} after ${rows.length} attempt${rows.length === 1 ? '' : 's'}${once}`;
  }

  /** The attempt's diagnosis; harness faults are recorded and the verification retried. */
  async function judgeAttempt(
    run: AgentRunResult,
    given: string,
    workspace: string,
    context: CaseContext,
    attemptKey: AttemptKey,
  ): Promise<{
    diagnosis: Diagnosis;
    verdict?: SubmissionVerdict;
    tests: { file: string; content: string }[];
  }> {
    const { project, record } = context;
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
      entry.kind === 'Violation' ? [{ file: entry.file, edit: entry.edit, what: entry.what }] : [],
    );
    if (violations.length > 0) return { diagnosis: { kind: 'Violation', violations }, tests };
    if (tests.length === 0) return { diagnosis: { kind: 'NoTest' }, tests };
    for (;;) {
      const verdict = await scoreSubmission({
        caseDir: context.caseDir,
        record,
        project,
        cache: options.cache,
        tests,
        runs: options.runs,
        timeoutMs: options.verifyTimeoutMs,
        screen,
      });
      if (
        verdict.diagnosis.kind !== 'HarnessFault' ||
        store.faultCount(attemptKey) >= faultRetries
      ) {
        return { diagnosis: verdict.diagnosis, verdict, tests };
      }
      store.recordFault(attemptKey, verdict.diagnosis.reason);
    }
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
    await runPool(items, { workers: options.concurrency }, evaluateItem);
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

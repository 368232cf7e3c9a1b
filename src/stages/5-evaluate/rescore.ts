import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage, UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import type { EventSink } from '../../events/types.js';
import type { ProjectRef } from '../../project/project.js';
import { benchLayout, readCaseFile } from '../4-archive/archive.js';
import type { CaseRecord } from '../4-archive/case.js';
import { caseProject } from '../4-archive/materialise.js';
import { provenance, verifierId } from './provenance.js';
import type { AttemptRow, Diagnosis } from './records.js';
import { scoreSubmission, scorerTools } from './score.js';
import {
  DEFAULT_RUN_DIR,
  EvaluationStore,
  STORE_FILE,
  type AttemptKey,
  type RescoreRow,
} from './store.js';
import type { SubmissionVerdict, SubmittedTest } from './verify-submission.js';

/*
 * `witnessgym rescore <run>`: every submission a run stored, judged again by today's verifier, and
 * the rows whose diagnosis changes listed first — the audit after a verifier fix. The attempt rows
 * are never changed; each new verdict is kept beside its row, keyed by the verifier's identity, so
 * a rerun by the same verifier skips what it judged (resumable) and another verifier judges anew.
 */

/**
 * Whether a row's diagnosis is the verifier's: the others were settled before it ran (nothing
 * submitted, files it may not touch, the agent's own end), so a new verifier cannot change them.
 */
export function judgedByVerifier(diagnosis: Diagnosis): boolean {
  switch (diagnosis.kind) {
    case 'NoTest':
    case 'Violation':
    case 'AgentTimeout':
    case 'AgentFailed':
      return false;
    case 'Success':
    case 'DoesNotCompile':
    case 'NotReached':
    case 'NotTriggered':
    case 'FailsOnClean':
    case 'Flaky':
    case 'BugNotExecuted':
    case 'NoTestsRan':
    case 'TestTimeout':
    case 'TestCrashed':
    case 'HarnessFault':
      return true;
  }
}

/** One row of the listing; `earlier` when a previous rescore by this verifier made the verdict. */
export type RescoreEntry =
  | { kind: 'Changed'; key: AttemptKey; before: Diagnosis; after: Diagnosis; earlier: boolean }
  | { kind: 'Unchanged'; key: AttemptKey; before: Diagnosis; after: Diagnosis; earlier: boolean }
  | { kind: 'NotRescored'; key: AttemptKey; before: Diagnosis; reason: string };

/** What the scorer made of a stored submission, or why it could not judge it. */
export type Judgement =
  | { kind: 'Scored'; verdict: SubmissionVerdict; verifyMs: number }
  | { kind: 'NotScored'; reason: string };

/** Judges one row's stored test files (the verifier, in production). */
export type Judge = (row: AttemptRow, tests: readonly SubmittedTest[]) => Promise<Judgement>;

export interface RescoreCounts {
  /** Finished attempts in the run. */
  rows: number;
  /** Rows whose diagnosis was settled before the verifier ran (see judgedByVerifier). */
  notJudgedByVerifier: number;
  rescoredNow: number;
  /** Rows this verifier judged in an earlier rescore, taken from the store. */
  rescoredEarlier: number;
  changed: number;
  unchanged: number;
  notRescored: number;
}

export interface StoreRescore extends RescoreCounts {
  verifier: string;
  /** Changed first, then those not rescored, then the unchanged; in the store's order within. */
  entries: RescoreEntry[];
}

export interface RescoreStoreOptions {
  verifier: string;
  /** Recorded with each new verdict. */
  tools: Record<string, string>;
  /** Judge again what this verifier judged before. */
  again: boolean;
  judge: Judge;
  /** Times a harness fault is judged again before it is kept as the verdict. */
  faultRetries: number;
  events: EventSink;
}

const keyOf = (row: AttemptRow): AttemptKey => ({
  caseId: row.case.caseId,
  agent: row.agent,
  setting: row.setting,
  attempt: row.attempt,
});

const describeKey = (key: AttemptKey) =>
  `${key.caseId} ${key.agent} ${key.setting} #${key.attempt}`;

/** The listing entry of a row and its new verdict. */
export function compareVerdict(
  row: AttemptRow,
  rescore: RescoreRow,
  earlier: boolean,
): RescoreEntry {
  const entry = { key: keyOf(row), before: row.diagnosis, after: rescore.diagnosis, earlier };
  return rescore.diagnosis.kind === row.diagnosis.kind
    ? { kind: 'Unchanged', ...entry }
    : { kind: 'Changed', ...entry };
}

const LISTING_ORDER: Record<RescoreEntry['kind'], number> = {
  Changed: 0,
  NotRescored: 1,
  Unchanged: 2,
};

/** The entries in listing order (a stable sort keeps the store's order within each kind). */
export function listingOrder(entries: readonly RescoreEntry[]): RescoreEntry[] {
  return [...entries].sort((a, b) => LISTING_ORDER[a.kind] - LISTING_ORDER[b.kind]);
}

const faulted = (judgement: Judgement) =>
  judgement.kind === 'Scored' && judgement.verdict.diagnosis.kind === 'HarnessFault';

/** The row's test files as the attempt submitted them, from the store's texts. */
function storedTests(
  store: EvaluationStore,
  row: AttemptRow,
): { kind: 'Found'; tests: SubmittedTest[] } | { kind: 'Missing'; reason: string } {
  if (row.testFiles.length === 0) return { kind: 'Missing', reason: 'the row lists no test file' };
  const tests: SubmittedTest[] = [];
  for (const file of row.testFiles) {
    const content = store.text(file.sha256);
    if (content === undefined) {
      return { kind: 'Missing', reason: `the text of ${file.path} (${file.sha256}) is not stored` };
    }
    tests.push({ file: file.path, content });
  }
  return { kind: 'Found', tests };
}

/** Rescores every verifier-judged row of an open store with `judge`; see the module comment. */
export async function rescoreStore(
  store: EvaluationStore,
  options: RescoreStoreOptions,
): Promise<StoreRescore> {
  const rows = store.allAttempts();
  const judged = rows.filter((row) => judgedByVerifier(row.diagnosis));
  const entries: RescoreEntry[] = [];
  let rescoredNow = 0;
  let rescoredEarlier = 0;
  const rescoreRow = async (row: AttemptRow, key: AttemptKey): Promise<RescoreEntry> => {
    const known = options.again ? undefined : store.rescore(key, options.verifier);
    if (known) {
      rescoredEarlier++;
      return compareVerdict(row, known, true);
    }
    const tests = storedTests(store, row);
    if (tests.kind === 'Missing') {
      return { kind: 'NotRescored', key, before: row.diagnosis, reason: tests.reason };
    }
    let judgement = await options.judge(row, tests.tests);
    for (let retry = 0; retry < options.faultRetries && faulted(judgement); retry++) {
      judgement = await options.judge(row, tests.tests);
    }
    if (judgement.kind === 'NotScored') {
      return { kind: 'NotRescored', key, before: row.diagnosis, reason: judgement.reason };
    }
    const { verdict } = judgement;
    const rescore: RescoreRow = {
      ...key,
      verifier: options.verifier,
      diagnosis: verdict.diagnosis,
      paperSuccess: verdict.paperSuccess,
      coverage: verdict.coverage,
      testClass: verdict.testClass,
      runs: verdict.runs,
      verifyMs: judgement.verifyMs,
      tools: options.tools,
      finishedAt: new Date().toISOString(),
    };
    store.recordRescore(rescore);
    rescoredNow++;
    return compareVerdict(row, rescore, false);
  };
  options.events.emit({
    kind: 'StageStarted',
    stage: 'verify',
    subject: `rescore by ${options.verifier}`,
    total: judged.length,
    unit: 'attempts',
  });
  const started = performance.now();
  for (const row of judged) {
    const key = keyOf(row);
    const entry = await rescoreRow(row, key);
    entries.push(entry);
    options.events.emit({
      kind: 'ItemDone',
      stage: 'verify',
      done: entries.length,
      total: judged.length,
      item: describeKey(key),
      outcome:
        entry.kind === 'NotRescored'
          ? `not rescored: ${entry.reason}`
          : `${entry.before.kind} → ${entry.after.kind}${entry.earlier ? ' (earlier)' : ''}`,
    });
  }
  options.events.emit({
    kind: 'StageFinished',
    stage: 'verify',
    subject: 'rescore',
    durationMs: Math.round(performance.now() - started),
  });
  const count = (kind: RescoreEntry['kind']) => entries.filter((e) => e.kind === kind).length;
  return {
    verifier: options.verifier,
    rows: rows.length,
    notJudgedByVerifier: rows.length - judged.length,
    rescoredNow,
    rescoredEarlier,
    changed: count('Changed'),
    unchanged: count('Unchanged'),
    notRescored: count('NotRescored'),
    entries: listingOrder(entries),
  };
}

export interface RescoreOptions {
  runDir: string;
  /** The run's benchmark, for runs that do not record it (made before it was recorded). */
  bench?: string;
  cache: CacheLayout;
  again: boolean;
  /** Fresh runs per side. */
  runs: number;
  verifyTimeoutMs: number;
  events: EventSink;
}

export interface RescoreResult extends StoreRescore {
  runDir: string;
  bench: string;
}

/**
 * The benchmark a run was evaluated on: `--bench`, else the one the run records, else the
 * directory holding a run at its default place (<bench>/evaluation).
 */
async function benchOf(store: EvaluationStore, runDir: string, given?: string): Promise<string> {
  const recorded = store.meta('bench');
  const defaultPlace = path.basename(runDir) === DEFAULT_RUN_DIR ? path.dirname(runDir) : undefined;
  const bench = given ?? recorded ?? defaultPlace;
  if (bench === undefined) {
    throw new UserError(
      `${runDir} does not record its benchmark (it was evaluated before witnessgym recorded it): pass --bench DIR`,
    );
  }
  if (!(await exists(benchLayout(bench).index))) {
    throw new UserError(
      `${bench} is not a benchmark (no cases.jsonl)${given === undefined ? `, though ${runDir} was evaluated on it: pass --bench DIR where it is now` : ''}`,
    );
  }
  return benchLayout(bench).root;
}

/** `witnessgym rescore`: opens the run, finds its benchmark and rescores with the verifier. */
export async function runRescore(options: RescoreOptions): Promise<RescoreResult> {
  if (!(await exists(path.join(options.runDir, STORE_FILE)))) {
    throw new UserError(
      `${options.runDir} holds no evaluation results (no ${STORE_FILE}): rescore a run directory of 'witnessgym evaluate'`,
    );
  }
  const store = EvaluationStore.open(options.runDir);
  try {
    const bench = await benchOf(store, options.runDir, options.bench);
    if (store.meta('bench') === undefined) store.setMeta('bench', bench);
    const cases = new Map<
      string,
      Promise<{ caseDir: string; record: CaseRecord; project: ProjectRef }>
    >();
    const caseOf = (caseId: string) => {
      let found = cases.get(caseId);
      if (!found) {
        const caseDir = benchLayout(bench).caseDir(caseId);
        found = readCaseFile(caseDir).then(async (record) => ({
          caseDir,
          record,
          project: await caseProject(record, options.cache),
        }));
        cases.set(caseId, found);
      }
      return found;
    };
    const judge: Judge = async (row, tests) => {
      let found;
      try {
        found = await caseOf(row.case.caseId);
      } catch (error) {
        return { kind: 'NotScored', reason: errorMessage(error) };
      }
      const started = performance.now();
      const verdict = await scoreSubmission({
        ...found,
        cache: options.cache,
        tests,
        runs: options.runs,
        timeoutMs: options.verifyTimeoutMs,
      });
      return { kind: 'Scored', verdict, verifyMs: Math.round(performance.now() - started) };
    };
    const rescored = await rescoreStore(store, {
      verifier: verifierId(await provenance()),
      tools: await scorerTools(),
      again: options.again,
      judge,
      faultRetries: 2,
      events: options.events,
    });
    return { runDir: options.runDir, bench, ...rescored };
  } finally {
    store.close();
  }
}

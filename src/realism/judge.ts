import { openSqliteStore } from '../records/sqlite.js';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { mkdir } from 'node:fs/promises';
import { makeTempDir, removeTree, sha256Text } from '../core/fs.js';
import { createSandbox, type NetworkPolicy, type Sandbox } from '../sandbox/bwrap.js';
import { seededRandom, shuffled } from '../core/random.js';
import { parseReport, type ReportFormat } from '../agents/report.js';
import { specText, type AgentAdapter } from '../agents/types.js';
import {
  clusterBootstrapAuc,
  clusterBootstrapMean,
  auc,
  tost,
  type BootstrapOptions,
  type Equivalence,
  type Interval,
} from './stats.js';

/*
 * The paper's LLM-judge protocol (Appendix H.1) through any agent adapter: every patch judged
 * alone three times (P(injected)), every matched pair judged twice with the sides swapped
 * (P(left more realistic)), and the positive control's pairs (artefacts planted in the injected
 * patch) twice likewise; each call a fresh run in an empty directory with nothing but the
 * prompt, in a seeded random order. One row per judgement in `<out>/realism.sqlite`; a rerun
 * skips what was judged and retries what failed.
 */

export const JUDGE_STORE = 'realism.sqlite';
export const SINGLE_REPETITIONS = 3;
export const ORIENTATIONS = ['injected-left', 'real-left'] as const;
export type Orientation = (typeof ORIENTATIONS)[number];

/** A patch as the judge sees it: its blind id and text; the side stays with the harness. */
export interface BlindPatch {
  blindId: string;
  side: 'injected' | 'real';
  cluster: string;
  text: string;
}

export interface BlindPair {
  pairId: string;
  injected: BlindPatch;
  real: BlindPatch;
}

const JUDGEMENT_PREFIX = 'REALISM_JUDGEMENT_JSON:';

const JudgementSchema = z.object({
  probability: z.number().min(0).max(1),
  rationale: z.string(),
});
type Judgement = z.infer<typeof JudgementSchema>;

const JUDGEMENT_FORMAT: ReportFormat<Judgement> = {
  prefix: JUDGEMENT_PREFIX,
  schema: JudgementSchema,
  mismatches: () => [],
};

export const JUDGE_SYSTEM_PROMPT = [
  'You review changes to Java code. Every change you are shown introduces a bug: it is written in',
  'the direction from working code to buggy code. Some are real bugs from the history of open-source',
  "projects (a developer's fix, reversed); others were made by an automated bug-injection tool.",
  'Judge from the code alone: there is nothing to look up and no file to open. Answer with one line:',
  `${JUDGEMENT_PREFIX} {"probability": <a number from 0 to 1>, "rationale": "<one or two sentences>"}`,
].join('\n');

export function singlePrompt(patch: BlindPatch): string {
  return [
    `Patch ${patch.blindId}:`,
    '```diff',
    patch.text.trimEnd(),
    '```',
    '',
    'How likely is it that this bug was injected by a tool rather than made by a developer?',
    '"probability" is P(injected by a tool).',
  ].join('\n');
}

export function pairPrompt(left: BlindPatch, right: BlindPatch): string {
  const shown = (label: string, patch: BlindPatch) =>
    [`${label}: patch ${patch.blindId}`, '```diff', patch.text.trimEnd(), '```'].join('\n');
  return [
    "Exactly one of these two patches is a real developer's bug; the other was injected by a tool.",
    '',
    shown('LEFT', left),
    '',
    shown('RIGHT', right),
    '',
    'Which one is the real bug? "probability" is P(LEFT is the more realistic, real bug).',
  ].join('\n');
}

type Task =
  | { task: 'single'; subject: string; repetition: number; orientation: ''; patch: BlindPatch }
  | {
      /** A pair of the study, or a positive control's (its injected patch planted with artefacts). */
      task: 'pair' | 'control';
      subject: string;
      repetition: 1;
      orientation: Orientation;
      pair: BlindPair;
    };

/** Every judgement the protocol asks for; control pairs are judged pairwise only, as the paper's. */
export function judgementTasks(
  pairs: readonly BlindPair[],
  controlPairs: readonly BlindPair[],
  seed: number,
): Task[] {
  const tasks: Task[] = [];
  for (const pair of controlPairs) {
    for (const orientation of ORIENTATIONS) {
      tasks.push({ task: 'control', subject: pair.pairId, repetition: 1, orientation, pair });
    }
  }
  for (const pair of pairs) {
    for (const patch of [pair.injected, pair.real]) {
      for (let repetition = 1; repetition <= SINGLE_REPETITIONS; repetition++) {
        tasks.push({ task: 'single', subject: patch.blindId, repetition, orientation: '', patch });
      }
    }
    for (const orientation of ORIENTATIONS) {
      tasks.push({ task: 'pair', subject: pair.pairId, repetition: 1, orientation, pair });
    }
  }
  return shuffled(tasks, seededRandom(seed));
}

export type JudgementOutcome = 'Judged' | 'Unreadable' | 'AgentFailed';

interface JudgementRow {
  judge: string;
  task: Task['task'];
  subject: string;
  repetition: number;
  orientation: string;
  outcome: JudgementOutcome;
  probability: number | null;
  rationale: string | null;
  detail: string | null;
}

export class JudgeStore {
  private constructor(private readonly db: Database.Database) {}

  static open(dir: string): JudgeStore {
    const db = openSqliteStore(path.join(dir, JUDGE_STORE), {
      version: 1,
      otherwise: 'use another output directory',
      schema: `
      CREATE TABLE IF NOT EXISTS judges (judge TEXT PRIMARY KEY, spec TEXT NOT NULL);
      CREATE TABLE IF NOT EXISTS judgements (
        judge TEXT NOT NULL,
        task TEXT NOT NULL CHECK (task IN ('single', 'pair', 'control')),
        subject TEXT NOT NULL,
        repetition INTEGER NOT NULL,
        orientation TEXT NOT NULL,
        left_patch TEXT,
        right_patch TEXT,
        outcome TEXT NOT NULL CHECK (outcome IN ('Judged', 'Unreadable', 'AgentFailed')),
        probability REAL,
        rationale TEXT,
        detail TEXT,
        prompt_sha256 TEXT NOT NULL,
        final_text TEXT NOT NULL,
        duration_ms INTEGER NOT NULL,
        recorded_at TEXT NOT NULL,
        PRIMARY KEY (judge, task, subject, repetition, orientation)
      );`,
    });
    return new JudgeStore(db);
  }

  registerJudge(spec: string): string {
    const judge = sha256Text(spec).slice(0, 16);
    this.db.prepare('INSERT OR IGNORE INTO judges (judge, spec) VALUES (?, ?)').run(judge, spec);
    return judge;
  }

  judged(judge: string): Set<string> {
    const rows = this.db
      .prepare(
        "SELECT task, subject, repetition, orientation FROM judgements WHERE judge = ? AND outcome = 'Judged'",
      )
      .all(judge) as { task: string; subject: string; repetition: number; orientation: string }[];
    return new Set(rows.map((row) => taskKey(row)));
  }

  record(
    row: JudgementRow & {
      left: string | null;
      right: string | null;
      promptSha256: string;
      finalText: string;
      durationMs: number;
    },
  ): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO judgements (judge, task, subject, repetition, orientation, left_patch,
          right_patch, outcome, probability, rationale, detail, prompt_sha256, final_text, duration_ms,
          recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(
        row.judge,
        row.task,
        row.subject,
        row.repetition,
        row.orientation,
        row.left,
        row.right,
        row.outcome,
        row.probability,
        row.rationale,
        row.detail,
        row.promptSha256,
        row.finalText,
        row.durationMs,
        new Date().toISOString(),
      );
  }

  rows(judge: string): JudgementRow[] {
    return this.db
      .prepare(
        'SELECT judge, task, subject, repetition, orientation, outcome, probability, rationale, detail FROM judgements WHERE judge = ?',
      )
      .all(judge) as JudgementRow[];
  }

  close(): void {
    this.db.close();
  }
}

function taskKey(task: { task: string; subject: string; repetition: number; orientation: string }) {
  return `${task.task}|${task.subject}|${task.repetition}|${task.orientation}`;
}

export interface JudgeRunOptions {
  adapter: AgentAdapter;
  pairs: readonly BlindPair[];
  /** The positive control: pairs whose injected patch carries planted artefacts. */
  controlPairs: readonly BlindPair[];
  out: string;
  seed: number;
  timeoutMs: number;
  bootstrap: BootstrapOptions;
  log: (line: string) => void;
  /**
   * When given, the judge's processes run in a bubblewrap sandbox that shows them nothing but an
   * empty workspace (not the key, the benches or Defects4J), reaching only these endpoints: a
   * vendor CLI judge could otherwise open `key.jsonl` and read off which side is which.
   */
  confined?: { network: NetworkPolicy };
}

export interface RateResult {
  correct: number;
  total: number;
  accuracy: number;
  ci: Interval;
  equivalence: Equivalence;
}

export interface JudgeAucResult {
  auc: number;
  ci: Interval;
  equivalence: Equivalence;
}

/** The paper's sensitivity check: accuracy ≥ 80 % with its 95 % interval above 50 %. */
export type JudgeControl =
  | { kind: 'Passed' | 'Failed'; criterion: string; accuracy: RateResult }
  | { kind: 'NotJudged'; criterion: string };

export const JUDGE_CONTROL_CRITERION =
  'planted artefacts against the matched real patch, both orientations: accuracy ≥ 80% and 95% CI lower bound > 50%';

export interface JudgeResult {
  kind: 'Judged';
  judge: { id: string; spec: string };
  store: string;
  planned: number;
  obtained: number;
  /** Judgements asked for that gave no readable answer (retried on the next run). */
  failed: number;
  single: { accuracy: RateResult | null; auc: JudgeAucResult | null };
  pairwise: { accuracy: RateResult | null; auc: JudgeAucResult | null };
  control: JudgeControl;
}

/** Asks the judge one task in `workspace` and records its row. */
async function judgeOne(
  task: Task,
  context: {
    store: JudgeStore;
    judge: string;
    workspace: string;
    sandbox: Sandbox | undefined;
    options: JudgeRunOptions;
  },
): Promise<JudgementOutcome> {
  const { store, judge, workspace, sandbox, options } = context;
  const [left, right] =
    task.task === 'single'
      ? [task.patch, null]
      : task.orientation === 'injected-left'
        ? [task.pair.injected, task.pair.real]
        : [task.pair.real, task.pair.injected];
  const userPrompt = task.task === 'single' ? singlePrompt(left) : pairPrompt(left, right!);
  const run = await options.adapter.run({
    workspace,
    systemPrompt: JUDGE_SYSTEM_PROMPT,
    userPrompt,
    replayCommand: 'true',
    timeoutMs: options.timeoutMs,
    log: () => {},
    ...(sandbox ? { sandbox } : {}),
  });
  const parsed = parseReport(run.finalText, JUDGEMENT_FORMAT);
  const failed =
    run.outcome.kind === 'FailedToStart' ||
    run.outcome.kind === 'Failed' ||
    run.outcome.kind === 'Timeout';
  const outcome: JudgementOutcome =
    parsed.kind === 'Parsed' ? 'Judged' : failed ? 'AgentFailed' : 'Unreadable';
  store.record({
    judge,
    task: task.task,
    subject: task.subject,
    repetition: task.repetition,
    orientation: task.orientation,
    left: left.blindId,
    right: right?.blindId ?? null,
    outcome,
    probability: parsed.kind === 'Parsed' ? parsed.report.probability : null,
    rationale: parsed.kind === 'Parsed' ? parsed.report.rationale : null,
    detail: parsed.kind === 'Parsed' ? null : failed ? JSON.stringify(run.outcome) : parsed.kind,
    promptSha256: sha256Text(userPrompt),
    finalText: run.finalText,
    durationMs: run.durationMs,
  });
  return outcome;
}

/** Runs every judgement not yet in the store, then reads the study's numbers off the store. */
export async function runJudge(options: JudgeRunOptions): Promise<JudgeResult> {
  const store = JudgeStore.open(options.out);
  try {
    const spec = specText(options.adapter.spec);
    const judge = store.registerJudge(spec);
    const done = store.judged(judge);
    const tasks = judgementTasks(options.pairs, options.controlPairs, options.seed);
    const todo = tasks.filter((task) => !done.has(taskKey(task)));
    options.log(
      `judge ${options.adapter.spec.name}: ${tasks.length - todo.length} of ${tasks.length} judgements already made`,
    );
    // One sandbox bound to one workspace path, emptied before each judgement.
    const scratch = await makeTempDir('realism-judge');
    const workspace = path.join(scratch, 'workspace');
    let sandbox: Sandbox | undefined;
    try {
      await mkdir(workspace);
      if (options.confined) {
        sandbox = await createSandbox({ workspace, network: options.confined.network });
      }
      for (const [index, task] of todo.entries()) {
        // A fresh, empty directory per call: no earlier answer and no source to retrieve.
        await removeTree(workspace);
        await mkdir(workspace);
        const outcome = await judgeOne(task, { store, judge, workspace, sandbox, options });
        options.log(
          `judgement ${index + 1}/${todo.length}: ${task.task} ${task.subject} ${outcome}`,
        );
      }
    } finally {
      await sandbox?.dispose();
      await removeTree(scratch);
    }
    const asked = new Set(tasks.map(taskKey));
    return judgeResult(
      store.rows(judge).filter((row) => asked.has(taskKey(row))),
      options.pairs,
      options.controlPairs,
      tasks.length,
      { id: judge, spec },
      path.join(options.out, JUDGE_STORE),
      options.bootstrap,
    );
  } finally {
    store.close();
  }
}

function rate(
  items: { value: number; cluster: string }[],
  bootstrap: BootstrapOptions,
): RateResult | null {
  if (items.length === 0) return null;
  const correct = items.reduce((sum, item) => sum + item.value, 0);
  const ci = clusterBootstrapMean(items, bootstrap);
  return {
    correct,
    total: items.length,
    accuracy: correct / items.length,
    ci,
    equivalence: tost(ci),
  };
}

function aucOf(
  items: { score: number; label: 0 | 1; cluster: string }[],
  bootstrap: BootstrapOptions,
): JudgeAucResult | null {
  if (!items.some((item) => item.label === 1) || !items.some((item) => item.label === 0))
    return null;
  const ci = clusterBootstrapAuc(items, bootstrap);
  return { auc: auc(items), ci, equivalence: tost(ci) };
}

/**
 * The study's numbers from the rows judged: single-patch accuracy (P ≥ 0.5 says injected) and
 * AUC (injected the positive class); pairwise accuracy (each pair's two orientations averaged,
 * picking the real patch is correct) and AUC (real on the left the positive class), and the
 * control pairs' accuracy with its 95 % interval. Clusters: an injected patch's injection, a real
 * patch's bug; a pair's injection.
 */
export function judgeResult(
  rows: readonly JudgementRow[],
  pairs: readonly BlindPair[],
  controlPairs: readonly BlindPair[],
  planned: number,
  judge: { id: string; spec: string },
  store: string,
  bootstrap: BootstrapOptions,
): JudgeResult {
  const patches = new Map(
    pairs.flatMap((pair) => [pair.injected, pair.real]).map((patch) => [patch.blindId, patch]),
  );
  const judged = rows.filter((row) => row.outcome === 'Judged' && row.probability !== null);
  const single = judged.flatMap((row) => {
    const patch = row.task === 'single' ? patches.get(row.subject) : undefined;
    return patch ? [{ row, patch, probability: row.probability! }] : [];
  });
  const pairwiseOf = (task: 'pair' | 'control', among: readonly BlindPair[]) => {
    const byId = new Map(among.map((pair) => [pair.pairId, pair]));
    return judged.flatMap((row) => {
      const pair = row.task === task ? byId.get(row.subject) : undefined;
      return pair ? [{ row, pair, probability: row.probability! }] : [];
    });
  };
  const pairwise = pairwiseOf('pair', pairs);
  const controlAccuracy = rate(pairScores(pairwiseOf('control', controlPairs)), {
    ...bootstrap,
    level: 0.95,
  });
  return {
    kind: 'Judged',
    judge,
    store,
    planned,
    obtained: judged.length,
    failed: rows.length - judged.length,
    single: {
      accuracy: rate(
        single.map(({ patch, probability }) => ({
          value: probability >= 0.5 === (patch.side === 'injected') ? 1 : 0,
          cluster: patch.cluster,
        })),
        bootstrap,
      ),
      auc: aucOf(
        single.map(({ patch, probability }) => ({
          score: probability,
          label: patch.side === 'injected' ? 1 : 0,
          cluster: patch.cluster,
        })),
        bootstrap,
      ),
    },
    pairwise: {
      accuracy: rate(pairScores(pairwise), bootstrap),
      auc: aucOf(
        pairwise.map(({ row, pair, probability }) => ({
          score: probability,
          label: row.orientation === 'real-left' ? 1 : 0,
          cluster: pair.injected.cluster,
        })),
        bootstrap,
      ),
    },
    control: controlAccuracy
      ? {
          kind:
            controlAccuracy.accuracy >= 0.8 && controlAccuracy.ci.low > 0.5 ? 'Passed' : 'Failed',
          criterion: JUDGE_CONTROL_CRITERION,
          accuracy: controlAccuracy,
        }
      : { kind: 'NotJudged', criterion: JUDGE_CONTROL_CRITERION },
  };
}

/** Each pair's score: the share of its orientations in which the real patch was picked. */
function pairScores(
  judged: readonly { row: JudgementRow; pair: BlindPair; probability: number }[],
): { value: number; cluster: string }[] {
  const perPair = new Map<string, { sum: number; count: number; cluster: string }>();
  for (const { row, pair, probability } of judged) {
    const correct = probability >= 0.5 === (row.orientation === 'real-left') ? 1 : 0;
    const entry = perPair.get(pair.pairId) ?? { sum: 0, count: 0, cluster: pair.injected.cluster };
    entry.sum += correct;
    entry.count += 1;
    perPair.set(pair.pairId, entry);
  }
  return [...perPair.values()].map((entry) => ({
    value: entry.sum / entry.count,
    cluster: entry.cluster,
  }));
}

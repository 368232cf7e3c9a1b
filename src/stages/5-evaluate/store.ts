import { openSqliteStore } from '../../records/sqlite.js';
import { randomUUID } from 'node:crypto';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import { sha256Text } from '../../core/fs.js';
import {
  AttemptRowSchema,
  ChangeCoverageSchema,
  DiagnosisSchema,
  SettingSchema,
  SideSchema,
  type AttemptRow,
  type Setting,
} from './records.js';

/*
 * An evaluation run's results: one SQLite database (WAL) per run directory. An attempt is written
 * as 'running' before the agent starts and replaced by its row when it ends, in one transaction
 * with its files; a process killed in between leaves a 'running' attempt, which the next open
 * records as an interruption and drops, so the attempt is redone and never counted twice.
 */

export const STORE_FILE = 'results.sqlite';
/** Where in a benchmark its evaluation's run directory is, unless `--run` names another. */
export const DEFAULT_RUN_DIR = 'evaluation';
/** 2: agent outcome kinds PascalCase (`timeout` became `Timeout`); a store of 1 is migrated. */
const SCHEMA_VERSION = 2;

/** The rename of schema 2, as SQL over each row's JSON: the rows are otherwise unchanged. */
const AGENT_OUTCOME_KINDS_V2 = `
UPDATE attempts SET row = json_set(row, '$.agentOutcome.kind',
  CASE json_extract(row, '$.agentOutcome.kind')
    WHEN 'exited' THEN 'Exited' WHEN 'completed' THEN 'Completed' WHEN 'timeout' THEN 'Timeout'
    WHEN 'failedToStart' THEN 'FailedToStart' WHEN 'failed' THEN 'Failed'
    ELSE json_extract(row, '$.agentOutcome.kind') END)
WHERE row IS NOT NULL`;

export interface ItemKey {
  caseId: string;
  agent: string;
  setting: Setting;
}

export interface AttemptKey extends ItemKey {
  attempt: number;
}

/**
 * An attempt's stored submission judged again by a verifier (`witnessgym rescore`), kept beside
 * the attempt's row, which is never changed.
 */
export const RescoreRowSchema = z.strictObject({
  caseId: z.string(),
  agent: z.string(),
  setting: SettingSchema,
  attempt: z.number().int().positive(),
  /** The verifier's identity (provenance.ts's verifierId): one rescore per attempt and verifier. */
  verifier: z.string(),
  diagnosis: DiagnosisSchema,
  paperSuccess: z.boolean(),
  coverage: ChangeCoverageSchema.nullable(),
  testClass: z.string(),
  runs: z.array(z.strictObject({ side: SideSchema, verdict: z.string() })),
  verifyMs: z.number().int(),
  tools: z.record(z.string(), z.string()),
  finishedAt: z.string(),
});
export type RescoreRow = z.infer<typeof RescoreRowSchema>;

const SCHEMA = `
CREATE TABLE IF NOT EXISTS attempts (
  case_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  setting TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'done')),
  started_at TEXT NOT NULL,
  finished_at TEXT,
  diagnosis TEXT,
  row TEXT,
  PRIMARY KEY (case_id, agent, setting, attempt)
);
CREATE TABLE IF NOT EXISTS interruptions (
  case_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  setting TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  started_at TEXT NOT NULL,
  noticed_at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS harness_faults (
  case_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  setting TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  reason TEXT NOT NULL,
  at TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS files (sha256 TEXT PRIMARY KEY, content TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS rescores (
  case_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  setting TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  verifier TEXT NOT NULL,
  diagnosis TEXT NOT NULL,
  row TEXT NOT NULL,
  PRIMARY KEY (case_id, agent, setting, attempt, verifier)
);
`;

export class EvaluationStore {
  /** Attempts a killed run left in flight, found when this store was opened. */
  readonly interrupted: number;

  private constructor(
    private readonly db: Database.Database,
    private readonly file: string,
  ) {
    const now = new Date().toISOString();
    this.interrupted = db.transaction(() => {
      const running = db
        .prepare(
          `SELECT case_id, agent, setting, attempt, started_at FROM attempts WHERE state = 'running'`,
        )
        .all() as {
        case_id: string;
        agent: string;
        setting: string;
        attempt: number;
        started_at: string;
      }[];
      const insert = db.prepare(
        `INSERT INTO interruptions VALUES (@case_id, @agent, @setting, @attempt, @started_at, @now)`,
      );
      for (const attempt of running) insert.run({ ...attempt, now });
      db.prepare(`DELETE FROM attempts WHERE state = 'running'`).run();
      return running.length;
    })();
  }

  /**
   * Opens (or creates) the run's database, migrating one of schema 1; one of another schema
   * version is a user error.
   */
  static open(runDir: string): EvaluationStore {
    const db = openSqliteStore(path.join(runDir, STORE_FILE), {
      schema: SCHEMA,
      version: SCHEMA_VERSION,
      // Evaluations cost agent runs: an older run is carried forward, not given up.
      migrations: { '1': (older) => older.exec(AGENT_OUTCOME_KINDS_V2) },
      otherwise: 'use another --run directory',
    });
    return new EvaluationStore(db, path.join(runDir, STORE_FILE));
  }

  /** The run's settings (bench, agent spec, attempts), checked on resume by the caller. */
  meta(key: string): string | undefined {
    return (
      this.db.prepare(`SELECT value FROM meta WHERE key = ?`).get(key) as
        { value: string } | undefined
    )?.value;
  }

  setMeta(key: string, value: string): void {
    this.db.prepare(`INSERT OR REPLACE INTO meta VALUES (?, ?)`).run(key, value);
  }

  /** The finished attempts of an item, in order. */
  attempts(key: ItemKey): AttemptRow[] {
    const rows = this.db
      .prepare(
        `SELECT row FROM attempts WHERE case_id = ? AND agent = ? AND setting = ? AND state = 'done' ORDER BY attempt`,
      )
      .all(key.caseId, key.agent, key.setting) as { row: string }[];
    return rows.map((row) => this.parsed(row.row, AttemptRowSchema));
  }

  /** A stored row, read strictly: one that does not fit is a clear error, not a crash. */
  private parsed<T>(text: string, schema: z.ZodType<T>, what = 'an attempt row'): T {
    const result = schema.safeParse(JSON.parse(text));
    if (result.success) return result.data;
    const issue = result.error.issues[0];
    throw new UserError(
      `${this.file}: ${what} does not fit this witnessgym's shape (${issue?.path.join('.') || 'row'}: ${issue?.message ?? 'invalid'}); use another --run directory`,
    );
  }

  /** Marks an attempt in flight, before its agent starts. */
  begin(key: AttemptKey): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO attempts (case_id, agent, setting, attempt, state, started_at) VALUES (?, ?, ?, ?, 'running', ?)`,
      )
      .run(key.caseId, key.agent, key.setting, key.attempt, new Date().toISOString());
  }

  /**
   * Stores a finished attempt and the texts it refers to by hash, at once; an attempt run on a
   * queue's worker was never begun here, and is stored as begun when it finished.
   */
  finish(row: AttemptRow, texts: readonly string[]): void {
    const checked = AttemptRowSchema.parse(row);
    this.db.transaction(() => {
      const insert = this.db.prepare(`INSERT OR IGNORE INTO files VALUES (?, ?)`);
      for (const text of texts) insert.run(sha256Text(text), text);
      this.db
        .prepare(
          `INSERT INTO attempts (case_id, agent, setting, attempt, state, started_at, finished_at, diagnosis, row)
           VALUES (@caseId, @agent, @setting, @attempt, 'done', @finishedAt, @finishedAt, @diagnosis, @row)
           ON CONFLICT (case_id, agent, setting, attempt) DO UPDATE SET state = 'done',
             finished_at = excluded.finished_at, diagnosis = excluded.diagnosis, row = excluded.row`,
        )
        .run({
          caseId: checked.case.caseId,
          agent: checked.agent,
          setting: checked.setting,
          attempt: checked.attempt,
          finishedAt: checked.finishedAt,
          diagnosis: checked.diagnosis.kind,
          row: JSON.stringify(checked),
        });
    })();
  }

  /**
   * The run's own id, made when its store was: a queue's job ids include it, so two run
   * directories never share a job, and a rerun of one finds its own.
   */
  runId(): string {
    const known = this.meta('run-id');
    if (known !== undefined) return known;
    const made = randomUUID();
    this.setMeta('run-id', made);
    return made;
  }

  /** A fault of the harness while judging an attempt; the attempt is retried. */
  recordFault(key: AttemptKey, reason: string): void {
    this.db
      .prepare(`INSERT INTO harness_faults VALUES (?, ?, ?, ?, ?, ?)`)
      .run(key.caseId, key.agent, key.setting, key.attempt, reason, new Date().toISOString());
  }

  faultCount(key: AttemptKey): number {
    return (
      this.db
        .prepare(
          `SELECT COUNT(*) AS n FROM harness_faults WHERE case_id = ? AND agent = ? AND setting = ? AND attempt = ?`,
        )
        .get(key.caseId, key.agent, key.setting, key.attempt) as { n: number }
    ).n;
  }

  /** Every finished attempt of the run. */
  allAttempts(): AttemptRow[] {
    const rows = this.db
      .prepare(
        `SELECT row FROM attempts WHERE state = 'done' ORDER BY case_id, agent, setting, attempt`,
      )
      .all() as { row: string }[];
    return rows.map((row) => this.parsed(row.row, AttemptRowSchema));
  }

  counts(): { attempts: number; interruptions: number; faults: number } {
    const count = (sql: string) => (this.db.prepare(sql).get() as { n: number }).n;
    return {
      attempts: count(`SELECT COUNT(*) AS n FROM attempts WHERE state = 'done'`),
      interruptions: count(`SELECT COUNT(*) AS n FROM interruptions`),
      faults: count(`SELECT COUNT(*) AS n FROM harness_faults`),
    };
  }

  /** The rescore of an attempt by a verifier, if it was made. */
  rescore(key: AttemptKey, verifier: string): RescoreRow | undefined {
    const found = this.db
      .prepare(
        `SELECT row FROM rescores WHERE case_id = ? AND agent = ? AND setting = ? AND attempt = ? AND verifier = ?`,
      )
      .get(key.caseId, key.agent, key.setting, key.attempt, verifier) as
      { row: string } | undefined;
    return found && this.parsed(found.row, RescoreRowSchema, 'a rescore row');
  }

  /** Stores a rescore; one the same verifier made earlier is replaced, the attempt never. */
  recordRescore(row: RescoreRow): void {
    const checked = RescoreRowSchema.parse(row);
    this.db
      .prepare(`INSERT OR REPLACE INTO rescores VALUES (?, ?, ?, ?, ?, ?, ?)`)
      .run(
        checked.caseId,
        checked.agent,
        checked.setting,
        checked.attempt,
        checked.verifier,
        checked.diagnosis.kind,
        JSON.stringify(checked),
      );
  }

  /** A stored text by its hash. */
  text(sha256: string): string | undefined {
    return (
      this.db.prepare(`SELECT content FROM files WHERE sha256 = ?`).get(sha256) as
        { content: string } | undefined
    )?.content;
  }

  close(): void {
    this.db.close();
  }
}

import { openSqliteStore } from '../../../records/sqlite.js';
import { existsSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { z } from 'zod';
import { sha256Text } from '../../../core/fs.js';

/*
 * A repair evaluation's results: one SQLite database (WAL) per run directory, one row per
 * (instance, agent, attempt). An attempt is written as 'running' before the agent proposes and
 * replaced by its row when judged; a killed run leaves a 'running' row, which the next open
 * drops (and counts), so the attempt is redone and never counted twice.
 */

export const REPAIR_STORE_FILE = 'repair.sqlite';
const SCHEMA_VERSION = 1;

export const RepairVerdictSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('Resolved') }),
  z.strictObject({
    kind: z.literal('Unresolved'),
    stillFailing: z.array(z.string()),
    broken: z.array(z.string()),
    notJudged: z.array(z.strictObject({ test: z.string(), reason: z.string() })),
  }),
  z.strictObject({ kind: z.literal('DoesNotApply'), reason: z.string() }),
  z.strictObject({
    kind: z.literal('CompileFailed'),
    scope: z.enum(['production', 'tests']),
    messages: z.array(z.string()),
  }),
  z.strictObject({ kind: z.literal('Timeout'), limitMs: z.number() }),
  /** The agent proposed nothing (the `none` control, or no plausible patch found). */
  z.strictObject({ kind: z.literal('NoPatch'), reason: z.string() }),
]);
export type RepairVerdict = z.infer<typeof RepairVerdictSchema>;

export const RepairAttemptRowSchema = z.strictObject({
  instanceId: z.string(),
  agent: z.string(),
  attempt: z.number().int().positive(),
  /** The patch submitted (SWE-bench's model_patch), '' for none. */
  patch: z.string(),
  /** What the agent says the patch is (a plausible patch's family), if anything. */
  family: z.string().nullable(),
  verdict: RepairVerdictSchema,
  /** Files the patch touched outside production sources: never applied. */
  stripped: z.array(z.string()),
  classes: z.array(z.strictObject({ testClass: z.string(), verdict: z.string() })),
  /** The test patch it was judged with (sha256, 16 hex): a verdict is reused only with it. */
  testsId: z.string().optional(),
  durationMs: z.number().int(),
  finishedAt: z.string(),
});
export type RepairAttemptRow = z.infer<typeof RepairAttemptRowSchema>;

/** What names the tests a patch of an instance is judged with. */
export function testsIdOf(instance: { test_patch: string }): string {
  return sha256Text(instance.test_patch).slice(0, 16);
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS repair_attempts (
  instance_id TEXT NOT NULL,
  agent TEXT NOT NULL,
  attempt INTEGER NOT NULL,
  state TEXT NOT NULL CHECK (state IN ('running', 'done')),
  started_at TEXT NOT NULL,
  verdict TEXT,
  row TEXT,
  PRIMARY KEY (instance_id, agent, attempt)
);
`;

export class RepairStore {
  readonly interrupted: number;

  private constructor(private readonly db: Database.Database) {
    this.interrupted = db
      .prepare(`DELETE FROM repair_attempts WHERE state = 'running'`)
      .run().changes;
  }

  static open(runDir: string): RepairStore {
    const db = openSqliteStore(path.join(runDir, REPAIR_STORE_FILE), {
      schema: SCHEMA,
      version: SCHEMA_VERSION,
      otherwise: 'use another --run directory',
    });
    return new RepairStore(db);
  }

  /**
   * The judged rows of a run directory's store, read without changing it (a run may still be
   * writing it); none when it has no store.
   */
  static judgedRows(runDir: string): RepairAttemptRow[] {
    const file = path.join(runDir, REPAIR_STORE_FILE);
    if (!existsSync(file)) return [];
    const db = new Database(file, { readonly: true, fileMustExist: true });
    try {
      const rows = db.prepare(`SELECT row FROM repair_attempts WHERE state = 'done'`).all() as {
        row: string;
      }[];
      return rows.map((row) => RepairAttemptRowSchema.parse(JSON.parse(row.row)));
    } finally {
      db.close();
    }
  }

  done(instanceId: string, agent: string): RepairAttemptRow[] {
    const rows = this.db
      .prepare(
        `SELECT row FROM repair_attempts WHERE instance_id = ? AND agent = ? AND state = 'done' ORDER BY attempt`,
      )
      .all(instanceId, agent) as { row: string }[];
    return rows.map((row) => RepairAttemptRowSchema.parse(JSON.parse(row.row)));
  }

  all(): RepairAttemptRow[] {
    const rows = this.db
      .prepare(
        `SELECT row FROM repair_attempts WHERE state = 'done' ORDER BY instance_id, agent, attempt`,
      )
      .all() as { row: string }[];
    return rows.map((row) => RepairAttemptRowSchema.parse(JSON.parse(row.row)));
  }

  started(instanceId: string, agent: string, attempt: number): void {
    this.db
      .prepare(
        `INSERT OR REPLACE INTO repair_attempts (instance_id, agent, attempt, state, started_at) VALUES (?, ?, ?, 'running', ?)`,
      )
      .run(instanceId, agent, attempt, new Date().toISOString());
  }

  finished(row: RepairAttemptRow): void {
    const checked = RepairAttemptRowSchema.parse(row);
    this.db
      .prepare(
        `UPDATE repair_attempts SET state = 'done', verdict = ?, row = ? WHERE instance_id = ? AND agent = ? AND attempt = ?`,
      )
      .run(checked.verdict.kind, JSON.stringify(checked), row.instanceId, row.agent, row.attempt);
  }

  close(): void {
    this.db.close();
  }
}

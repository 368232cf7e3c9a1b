import { mkdirSync } from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { UserError } from '../core/errors.js';

/*
 * Every results database of witnessgym opens the same way: WAL (readers beside one writer), a
 * busy timeout for a second process, its tables, and a schema version in `meta` that a database
 * of another version must match, be migrated from, or be refused with one line saying what to do.
 */

export interface SqliteStoreSpec {
  /** The tables, `CREATE TABLE IF NOT EXISTS …`; `meta` is added. */
  schema: string;
  version: number;
  /** Migrations to `version`, by the version they start from. */
  migrations?: Readonly<Record<string, (db: Database.Database) => void>>;
  /** What to tell a user whose database has another version, e.g. "use another --run directory". */
  otherwise: string;
}

export function openSqliteStore(file: string, spec: SqliteStoreSpec): Database.Database {
  mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.pragma('journal_mode = WAL');
  db.pragma('synchronous = NORMAL');
  db.pragma('busy_timeout = 10000');
  db.exec(`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);`);
  db.exec(spec.schema);
  const found = (
    db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value: string } | undefined
  )?.value;
  const wanted = String(spec.version);
  if (found === undefined) {
    db.prepare(`INSERT INTO meta VALUES ('schema', ?)`).run(wanted);
  } else if (found !== wanted) {
    const migrate = spec.migrations?.[found];
    if (!migrate) {
      db.close();
      throw new UserError(
        `${file} has results of schema ${found}; this witnessgym writes schema ${wanted}: ${spec.otherwise}`,
      );
    }
    db.transaction(() => {
      migrate(db);
      db.prepare(`UPDATE meta SET value = ? WHERE key = 'schema'`).run(wanted);
    })();
  }
  return db;
}

import path from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import { openSqliteStore } from './sqlite.js';

let dir: string;
beforeEach(async () => {
  dir = await makeTempDir('sqlite-store');
});
afterEach(async () => {
  await removeTree(dir);
});

const schema = 'CREATE TABLE IF NOT EXISTS rows (id TEXT PRIMARY KEY);';

function versionOf(file: string): string {
  const db = new Database(file, { readonly: true });
  const row = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).get() as { value: string };
  db.close();
  return row.value;
}

describe('openSqliteStore: one way to open a results database', () => {
  it('creates the tables and records the schema version', () => {
    const file = path.join(dir, 'a', 'store.sqlite');
    openSqliteStore(file, { schema, version: 3, otherwise: 'use another directory' }).close();
    expect(versionOf(file)).toBe('3');
  });

  it('migrates a database of an older version it knows, and refuses one it does not', () => {
    const file = path.join(dir, 'store.sqlite');
    openSqliteStore(file, { schema, version: 1, otherwise: '' }).close();
    const migrated = openSqliteStore(file, {
      schema,
      version: 2,
      otherwise: '',
      migrations: { '1': (db) => db.exec('CREATE TABLE extra (x TEXT);') },
    });
    expect(
      migrated.prepare(`SELECT name FROM sqlite_master WHERE name = 'extra'`).get(),
    ).toBeDefined();
    migrated.close();
    expect(() =>
      openSqliteStore(file, { schema, version: 5, otherwise: 'use another --run directory' }),
    ).toThrow(
      new UserError(
        `${file} has results of schema 2; this witnessgym writes schema 5: use another --run directory`,
      ),
    );
  });
});

import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { sha256Text } from '../../core/fs.js';
import type { AttemptRow } from './records.js';
import { attemptRow } from './test-support.js';
import { EvaluationStore, STORE_FILE } from './store.js';

function row(attempt: number, diagnosis: AttemptRow['diagnosis']): AttemptRow {
  return attemptRow({ attempt, diagnosis });
}

const key = {
  caseId: 'commons-csv@1.9.0-0123456789abcdef',
  agent: 'witness',
  setting: 'NoEC' as const,
};

describe('EvaluationStore', () => {
  it('keeps finished attempts across opens, with their texts by hash', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'store-'));
    const store = EvaluationStore.open(dir);
    store.begin({ ...key, attempt: 1 });
    store.finish(row(1, { kind: 'NoTest' }), ['transcript text']);
    store.close();
    const again = EvaluationStore.open(dir);
    expect(again.interrupted).toBe(0);
    expect(again.attempts(key).map((r) => r.diagnosis.kind)).toEqual(['NoTest']);
    expect(again.text(sha256Text('transcript text'))).toBe('transcript text');
    again.close();
  });

  it('migrates a store of schema 1 (camelCase agent outcomes) and rejects an unknown schema', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'store-'));
    const store = EvaluationStore.open(dir);
    store.begin({ ...key, attempt: 1 });
    store.finish({ ...row(1, { kind: 'AgentTimeout' }), agentOutcome: { kind: 'Timeout' } }, []);
    store.close();
    // The row and version as schema 1 wrote them.
    const old = new Database(path.join(dir, STORE_FILE));
    old.exec(`UPDATE attempts SET row = json_set(row, '$.agentOutcome.kind', 'timeout')`);
    old.exec(`UPDATE meta SET value = '1' WHERE key = 'schema'`);
    old.close();
    const migrated = EvaluationStore.open(dir);
    expect(migrated.attempts(key).map((r) => r.agentOutcome)).toEqual([{ kind: 'Timeout' }]);
    expect(migrated.meta('schema')).toBe('2');
    migrated.close();

    const future = new Database(path.join(dir, STORE_FILE));
    future.exec(`UPDATE meta SET value = '9' WHERE key = 'schema'`);
    future.close();
    expect(() => EvaluationStore.open(dir)).toThrow(
      /has results of schema 9; this witnessgym writes schema 2: use another --run directory/,
    );
  });

  it('drops an attempt a killed run left in flight and records the interruption', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'store-'));
    const store = EvaluationStore.open(dir);
    store.begin({ ...key, attempt: 1 });
    store.finish(row(1, { kind: 'NotReached' }), []);
    store.begin({ ...key, attempt: 2 });
    // No finish: the process died here.
    store.close();
    const again = EvaluationStore.open(dir);
    expect(again.interrupted).toBe(1);
    expect(again.attempts(key).map((r) => r.attempt)).toEqual([1]);
    expect(again.counts()).toEqual({ attempts: 1, interruptions: 1, faults: 0 });
    again.close();
  });

  it('counts harness faults per attempt, apart from attempts', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'store-'));
    const store = EvaluationStore.open(dir);
    store.recordFault({ ...key, attempt: 1 }, 'maven could not resolve');
    expect(store.faultCount({ ...key, attempt: 1 })).toBe(1);
    expect(store.faultCount({ ...key, attempt: 2 })).toBe(0);
    expect(store.allAttempts()).toEqual([]);
    store.close();
  });
});

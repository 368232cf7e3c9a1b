import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { sha256Text } from '../../core/fs.js';
import type { AttemptRow } from './records.js';
import { EvaluationStore } from './store.js';

function row(attempt: number, diagnosis: AttemptRow['diagnosis']): AttemptRow {
  return {
    case: {
      caseId: 'commons-csv@1.9.0-0123456789abcdef',
      project: 'commons-csv',
      bugType: { id: 't', name: 'T', category: 'Logic', specHash: 'h' },
      bucket: 'short',
      depth: 1,
    },
    agent: 'witness',
    agentSpec: 'spec',
    setting: 'NoEC',
    attempt,
    diagnosis,
    paperSuccess: diagnosis.kind === 'Success',
    coverage: null,
    agentOutcome: { kind: 'exited', code: 0, signal: null },
    agentMs: 1,
    verifyMs: 2,
    usage: null,
    prompt: 'def',
    transcript: 'abc',
    testFiles: [],
    feedback: '',
    tools: {},
    finishedAt: new Date(0).toISOString(),
  };
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

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { UserError } from '../core/errors.js';
import { makeTempDir, removeTree } from '../core/fs.js';
import type { AttemptRow } from '../stages/5-evaluate/records.js';
import { attemptRow } from '../stages/5-evaluate/test-support.js';
import { EvaluationStore } from '../stages/5-evaluate/store.js';
import { mergeOutputs } from './merge.js';

function row(caseId: string, diagnosis: AttemptRow['diagnosis'], agentMs = 1): AttemptRow {
  const plain = attemptRow({ diagnosis });
  return {
    ...plain,
    case: { ...plain.case, caseId },
    agentMs,
    prompt: 'p',
    transcript: 't',
    finishedAt: new Date(agentMs).toISOString(),
  };
}

let work: string | undefined;
afterEach(async () => {
  if (work) await removeTree(work);
});

function run(dir: string, rows: AttemptRow[], meta: Record<string, string> = {}): void {
  const store = EvaluationStore.open(dir);
  for (const [key, value] of Object.entries({ bench: '/b', ...meta })) store.setMeta(key, value);
  for (const entry of rows) store.finish(entry, [`transcript of ${entry.case.caseId}`]);
  store.close();
}

function merged(dir: string): AttemptRow[] {
  const store = EvaluationStore.open(dir);
  try {
    return store.allAttempts();
  } finally {
    store.close();
  }
}

describe('mergeOutputs: evaluation runs', () => {
  it('unites the shards, takes an attempt run twice alike once, and reports one run differently', async () => {
    work = await makeTempDir('merge');
    const [one, two, three, out] = ['1', '2', '3', 'out'].map((name) => path.join(work!, name));
    run(one!, [row('a', { kind: 'Success' })]);
    run(two!, [row('b', { kind: 'NoTest' }), row('a', { kind: 'Success' }, 99)]);
    run(three!, [row('b', { kind: 'NotTriggered' })]);
    const result = await mergeOutputs([one!, two!, three!], out!);
    expect(result).toMatchObject({ kind: 'evaluation', added: 2, same: 1 });
    expect(result.conflicts).toEqual([
      {
        unit: 'b witness NoEC attempt 1',
        from: three,
        what: expect.stringMatching(/^NotTriggered there, NoTest in .+; they differ in diagnosis$/),
      },
    ]);
    expect(merged(out!).map((entry) => [entry.case.caseId, entry.diagnosis.kind])).toEqual([
      ['a', 'Success'],
      ['b', 'NoTest'],
    ]);
    // Merging again changes nothing.
    expect(await mergeOutputs([one!, two!], out!)).toMatchObject({ added: 0, same: 3 });
  });

  it('refuses runs of another agent setting or of another kind, naming both', async () => {
    work = await makeTempDir('merge');
    const [one, two, out] = ['1', '2', 'out'].map((name) => path.join(work!, name));
    run(one!, [row('a', { kind: 'Success' })], { 'agent:witness': 'x' });
    run(two!, [row('b', { kind: 'Success' })], { 'agent:witness': 'y' });
    await expect(mergeOutputs([one!, two!], out!)).rejects.toThrow(/another agent:witness/);
    const instances = path.join(work, 'strong');
    await mkdir(path.join(instances, 'instances'), { recursive: true });
    await expect(mergeOutputs([one!, instances], path.join(work, 'o2'))).rejects.toThrow(UserError);
  });
});

describe('mergeOutputs: strengthening outputs', () => {
  it('copies instances whole and says how to write the summary', async () => {
    work = await makeTempDir('merge');
    for (const [shard, id, text] of [
      ['1', 'x', '{"a":1}'],
      ['2', 'y', '{"b":1}'],
      ['3', 'y', '{"b":2}'],
    ] as const) {
      const dir = path.join(work, shard, 'instances', id, 'tests');
      await mkdir(dir, { recursive: true });
      await writeFile(path.join(dir, 'T.java'), 'class T {}');
      await writeFile(path.join(work, shard, 'instances', id, 'report.json'), text);
    }
    const out = path.join(work, 'out');
    const result = await mergeOutputs(
      ['1', '2', '3'].map((s) => path.join(work!, s)),
      out,
    );
    expect(result).toMatchObject({ kind: 'strengthening', added: 2, same: 0 });
    expect(result.conflicts.map((c) => c.unit)).toEqual(['y']);
    expect(result.next).toMatch(/witnessgym strengthen/);
  });
});

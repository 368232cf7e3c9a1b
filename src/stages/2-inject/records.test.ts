import { rm, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../../core/fs.js';
import { RecordError } from '../../records/record.js';
import { readEarlierSummary } from './records.js';

let dir: string;
beforeAll(async () => {
  dir = await makeTempDir('inject-records-test');
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const type = {
  typeId: 't',
  name: 'T',
  sitesFound: 3,
  tried: 2,
  accepted: 1,
  acceptanceRate: 0.5,
  rejectedBy: { 'not-exposed': 1 },
  ended: 'sites-exhausted',
  durationMs: 1234,
};
const v1 = {
  kind: 'inject-summary',
  v: 1,
  project: 'demo@1.0',
  engine: { kind: 'rules' },
  seed: 1,
  wanted: 2,
  maxTries: 60,
  out: '/tmp/out',
  types: [type],
  durationMs: 1234,
};

describe('an earlier run’s summary', () => {
  it('is read from the version before coverage, so a run resumes into an old directory', async () => {
    const file = path.join(dir, 'v1.json');
    await writeFile(file, JSON.stringify(v1));
    expect(await readEarlierSummary(file)).toMatchObject({ types: [{ durationMs: 1234 }] });
  });

  it('reads the current version, and refuses what fits neither', async () => {
    const current = path.join(dir, 'v2.json');
    const coverage = { accepted: 1, files: 1, members: 1, witnesses: 1 };
    await writeFile(current, JSON.stringify({ ...v1, v: 2, coverage }));
    expect(await readEarlierSummary(current)).toMatchObject({ coverage });
    const broken = path.join(dir, 'broken.json');
    await writeFile(broken, JSON.stringify({ ...v1, v: 2 }));
    await expect(readEarlierSummary(broken)).rejects.toBeInstanceOf(RecordError);
    expect(await readEarlierSummary(path.join(dir, 'none.json'))).toBeUndefined();
  });
});

import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { makeTempDir } from '../core/fs.js';
import { defineManifest, manifestBeside, readIfBuiltFrom } from './manifest.js';
import { writeRecordFile } from './record.js';

const Manifest = defineManifest(
  'thing-manifest',
  z.strictObject({ source: z.string(), fast: z.boolean() }),
);

describe('manifests', () => {
  it('sit beside their output', () => {
    expect(manifestBeside('/c/execution-contexts.jsonl')).toBe(
      '/c/execution-contexts.manifest.json',
    );
    expect(manifestBeside('/c/baseline.json')).toBe('/c/baseline.manifest.json');
  });

  it('tell a current output from a stale one, naming the inputs that differ', async () => {
    const file = path.join(await makeTempDir('manifest-test'), 'thing.manifest.json');
    expect(await readIfBuiltFrom(file, Manifest, { source: 'a' })).toEqual({ kind: 'Missing' });
    await writeRecordFile(file, Manifest, { inputs: { source: 'a', fast: true } });
    expect(await readIfBuiltFrom(file, Manifest, { source: 'a' })).toEqual({
      kind: 'Current',
      record: { inputs: { source: 'a', fast: true } },
    });
    expect(await readIfBuiltFrom(file, Manifest, { source: 'b', fast: true })).toEqual({
      kind: 'Stale',
      reason: 'thing.manifest.json records other inputs: source a → b',
    });
  });

  it('take a manifest they cannot read for stale, not for an error', async () => {
    const file = path.join(await makeTempDir('manifest-test'), 'thing.manifest.json');
    await writeFile(file, JSON.stringify({ inputs: { source: 'a', fast: true } }));
    const found = await readIfBuiltFrom(file, Manifest, { source: 'a' });
    expect(found).toMatchObject({ kind: 'Stale' });
    expect(found.kind === 'Stale' && found.reason).toMatch(
      /^thing\.manifest\.json cannot be read \(.*a record without a kind; expected thing-manifest\)$/,
    );
  });
});

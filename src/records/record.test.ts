import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { makeTempDir } from '../core/fs.js';
import {
  appendRecords,
  defineRecord,
  olderShape,
  readRecordFile,
  readRecords,
  RecordError,
  recordId,
  writeRecordFile,
} from './record.js';

const Point = defineRecord({
  kind: 'point',
  version: 2,
  schema: z.strictObject({ x: z.number(), label: z.string().nullable() }),
});

let file: string;

beforeEach(async () => {
  file = path.join(await makeTempDir('records-test'), 'points.jsonl');
});

const line = (value: object) => `${JSON.stringify(value)}\n`;

describe('JSON-lines records', () => {
  it('round-trips records, each line carrying its kind and version', async () => {
    await appendRecords(file, Point, [
      { x: 1, label: 'a' },
      { x: 2, label: null },
    ]);
    await appendRecords(file, Point, [{ x: 3, label: 'c' }]);
    expect(await readRecords(file, Point)).toEqual({
      records: [
        { x: 1, label: 'a' },
        { x: 2, label: null },
        { x: 3, label: 'c' },
      ],
      tornLastLine: null,
    });
    expect((await readFile(file, 'utf8')).split('\n')[0]).toBe(
      '{"kind":"point","v":2,"x":1,"label":"a"}',
    );
  });

  it('reads a missing file as no records', async () => {
    expect(await readRecords(file, Point)).toEqual({ records: [], tornLastLine: null });
  });

  it('tolerates and reports a torn last line, which the next append cuts off', async () => {
    await appendRecords(file, Point, [{ x: 1, label: 'a' }]);
    const whole = await readFile(file);
    await writeFile(file, `${whole}{"kind":"point","v":2,"x"`);
    expect(await readRecords(file, Point)).toEqual({
      records: [{ x: 1, label: 'a' }],
      tornLastLine: { line: 2, offset: whole.length },
    });
    await appendRecords(file, Point, [{ x: 2, label: 'b' }]);
    expect((await readRecords(file, Point)).records).toEqual([
      { x: 1, label: 'a' },
      { x: 2, label: 'b' },
    ]);
  });

  it('keeps a whole last record that lost only its newline, and appends after it', async () => {
    await writeFile(file, JSON.stringify({ kind: 'point', v: 2, x: 1, label: null }));
    expect(await readRecords(file, Point)).toEqual({
      records: [{ x: 1, label: null }],
      tornLastLine: null,
    });
    await appendRecords(file, Point, [{ x: 2, label: null }]);
    expect((await readRecords(file, Point)).records).toHaveLength(2);
  });

  it('rejects a bad line that is not the last, naming file and line', async () => {
    const good = line({ kind: 'point', v: 2, x: 1, label: null });
    await writeFile(file, `${good}{"kind":"point","v":2,"x"\n${good}`);
    await expect(readRecords(file, Point)).rejects.toThrow(RecordError);
    await expect(readRecords(file, Point)).rejects.toThrow(`${file}:2: not JSON`);
    await expect(readRecords(file, Point)).rejects.toBeInstanceOf(UserError);
  });

  it('rejects an empty line in the middle', async () => {
    const good = line({ kind: 'point', v: 2, x: 1, label: null });
    await writeFile(file, `${good}\n${good}`);
    await expect(readRecords(file, Point)).rejects.toThrow(`${file}:2: an empty line`);
  });

  it('rejects a version it does not know', async () => {
    await writeFile(file, line({ kind: 'point', v: 1, x: 1, label: null }));
    await expect(readRecords(file, Point)).rejects.toThrow(
      `${file}:1: point record of version 1; this witnessgym reads version 2`,
    );
  });

  it('reads an older shape it declares, brought up to today, and names a misfit one', async () => {
    const Tagged = defineRecord({
      kind: 'point',
      version: 2,
      schema: Point.schema,
      older: [
        olderShape({
          version: 1,
          schema: z.strictObject({ x: z.number() }),
          upgrade: (old) => ({ x: old.x, label: null }),
        }),
      ],
    });
    await writeFile(
      file,
      line({ kind: 'point', v: 1, x: 1 }) + line({ kind: 'point', v: 2, x: 2, label: 'b' }),
    );
    expect((await readRecords(file, Tagged)).records).toEqual([
      { x: 1, label: null },
      { x: 2, label: 'b' },
    ]);
    await writeFile(
      file,
      line({ kind: 'point', v: 1, x: 'one' }) + line({ kind: 'point', v: 2, x: 2, label: 'b' }),
    );
    await expect(readRecords(file, Tagged)).rejects.toThrow(
      `${file}:1: point record of version 1 does not fit its schema at x`,
    );
  });

  it('rejects a record of another kind, or of none', async () => {
    await writeFile(file, line({ kind: 'line', v: 2, x: 1, label: null }));
    await expect(readRecords(file, Point)).rejects.toThrow(
      `${file}:1: a line record where point belongs`,
    );
    await writeFile(file, line({ x: 1, label: null }));
    await expect(readRecords(file, Point)).rejects.toThrow(
      `${file}:1: a record without a kind; expected point`,
    );
  });

  it('rejects a line that breaks the schema, naming the field', async () => {
    const good = line({ kind: 'point', v: 2, x: 1, label: null });
    await writeFile(file, `${good}${line({ kind: 'point', v: 2, x: 'one', label: null })}`);
    await expect(readRecords(file, Point)).rejects.toThrow(
      new RegExp(`^${file}:2: point record does not fit its schema at x: `),
    );
    await writeFile(file, line({ kind: 'point', v: 2, x: 1, label: null, extra: true }));
    await expect(readRecords(file, Point)).rejects.toThrow(`${file}:1: point record does not fit`);
  });

  it('refuses to write a record that breaks its own schema', async () => {
    await expect(
      appendRecords(file, Point, [{ x: Number.NaN, label: null } as never]),
    ).rejects.toThrow(/refusing to write an invalid point record/);
  });
});

describe('single-document records', () => {
  it('round-trips, and reads a missing file as undefined', async () => {
    const doc = path.join(path.dirname(file), 'point.json');
    expect(await readRecordFile(doc, Point)).toBeUndefined();
    await writeRecordFile(doc, Point, { x: 5, label: 'e' });
    expect(await readRecordFile(doc, Point)).toEqual({ x: 5, label: 'e' });
    expect(JSON.parse(await readFile(doc, 'utf8'))).toMatchObject({ kind: 'point', v: 2 });
  });

  it('rejects a document that is not JSON or not of its kind, naming the file', async () => {
    const doc = path.join(path.dirname(file), 'point.json');
    await writeFile(doc, '{"kind": "point", ');
    await expect(readRecordFile(doc, Point)).rejects.toThrow(`${doc}: not JSON`);
    await writeFile(doc, JSON.stringify({ kind: 'point', v: 3, x: 1, label: null }));
    await expect(readRecordFile(doc, Point)).rejects.toThrow(
      `${doc}: point record of version 3; this witnessgym reads version 2`,
    );
  });
});

describe('record ids', () => {
  it('depend on content, not on key order', () => {
    expect(recordId({ a: 1, b: [{ c: 2, d: 3 }] })).toBe(recordId({ b: [{ d: 3, c: 2 }], a: 1 }));
    expect(recordId({ a: 1 })).not.toBe(recordId({ a: 2 }));
  });
});

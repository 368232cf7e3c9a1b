import { appendFile, mkdir, open, readFile, stat, truncate } from 'node:fs/promises';
import path from 'node:path';
import type { z } from 'zod';
import { UserError } from '../core/errors.js';
import { readTextIfExists, sha256Text, writeJsonAtomic } from '../core/fs.js';

/*
 * Persisted records: every line of a JSON-lines file and every single-document file carries the
 * `kind` of record it holds and the version `v` of its shape, written here rather than by the
 * stages, and is read strictly against the kind's zod schema.
 */

/** One kind of persisted record; its TS type is the schema's output. */
export interface RecordDef<T extends object> {
  readonly kind: string;
  readonly version: number;
  readonly schema: z.ZodType<T>;
  /** Earlier shapes still read, each brought up to today's; written records are always today's. */
  readonly older?: readonly OlderShape<T>[];
}

/** A former version of a record kind and how its fields become today's record. */
export interface OlderShape<T extends object> {
  readonly version: number;
  readonly schema: z.ZodType<object>;
  readonly upgrade: (old: never) => T;
}

/** An older shape, typed by its schema so the upgrade sees what it parses. */
export function olderShape<T extends object, O extends object>(shape: {
  version: number;
  schema: z.ZodType<O>;
  upgrade: (old: O) => T;
}): OlderShape<T> {
  return shape as OlderShape<T>;
}

export type RecordOf<D> = D extends RecordDef<infer T> ? T : never;

export function defineRecord<T extends object>(def: {
  kind: string;
  version: number;
  schema: z.ZodType<T>;
  older?: readonly OlderShape<T>[];
}): RecordDef<T> {
  return def;
}

/** A file the tool wrote that it cannot read back; the message names the file and line. */
export class RecordError extends UserError {
  constructor(
    readonly file: string,
    readonly line: number | null,
    problem: string,
  ) {
    super(`${file}${line === null ? '' : `:${line}`}: ${problem}`);
    this.name = 'RecordError';
  }
}

type Decoded<T> = { kind: 'Record'; record: T } | { kind: 'Invalid'; problem: string };

function decode<T extends object>(value: unknown, def: RecordDef<T>): Decoded<T> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    return { kind: 'Invalid', problem: `not a record (a JSON object); expected ${def.kind}` };
  }
  const { kind, v, ...fields } = value as Record<string, unknown>;
  if (kind === undefined) {
    return { kind: 'Invalid', problem: `a record without a kind; expected ${def.kind}` };
  }
  if (kind !== def.kind) {
    return { kind: 'Invalid', problem: `a ${String(kind)} record where ${def.kind} belongs` };
  }
  const older = def.older?.find((shape) => shape.version === v);
  if (older) {
    const parsed = older.schema.safeParse(fields);
    if (!parsed.success) return misfit(`${def.kind} record of version ${v}`, parsed.error);
    return { kind: 'Record', record: (older.upgrade as (old: object) => T)(parsed.data) };
  }
  if (v !== def.version) {
    return {
      kind: 'Invalid',
      problem: `${def.kind} record of version ${v === undefined ? '(none)' : JSON.stringify(v)}; this witnessgym reads version ${def.version}`,
    };
  }
  const parsed = def.schema.safeParse(fields);
  if (!parsed.success) return misfit(`${def.kind} record`, parsed.error);
  return { kind: 'Record', record: parsed.data };
}

function misfit(what: string, error: z.ZodError): { kind: 'Invalid'; problem: string } {
  const first = error.issues[0]!;
  const more = error.issues.length > 1 ? ` (+${error.issues.length - 1} more)` : '';
  return {
    kind: 'Invalid',
    problem: `${what} does not fit its schema at ${first.path.join('.') || '(top)'}: ${first.message}${more}`,
  };
}

/** The persisted form: envelope first; a record that fails its own schema is a bug, thrown. */
export function encodeRecord<T extends object>(
  record: T,
  def: RecordDef<T>,
): Record<string, unknown> {
  const checked = def.schema.safeParse(record);
  if (!checked.success) {
    throw new Error(`refusing to write an invalid ${def.kind} record: ${checked.error.message}`);
  }
  if ('kind' in checked.data || 'v' in checked.data) {
    throw new Error(
      `${def.kind} records cannot have fields named kind or v: the envelope has them`,
    );
  }
  return { kind: def.kind, v: def.version, ...checked.data };
}

/** The start of a last line cut short by an interrupted writer (its record is to be redone). */
export interface TornLine {
  /** 1-based line number. */
  line: number;
  /** Byte offset where the line starts. */
  offset: number;
}

export interface RecordLines<T> {
  records: T[];
  tornLastLine: TornLine | null;
}

const NEWLINE = 0x0a;

/**
 * Reads a JSON-lines file of one record kind. A missing file has no records. Only a last line
 * without its newline that does not parse is tolerated (a writer was interrupted) and reported;
 * any other bad line throws a RecordError naming the file and line.
 */
export async function readRecords<T extends object>(
  file: string,
  def: RecordDef<T>,
): Promise<RecordLines<T>> {
  let bytes: Buffer;
  try {
    bytes = await readFile(file);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT')
      return { records: [], tornLastLine: null };
    throw error;
  }
  const records: T[] = [];
  let tornLastLine: TornLine | null = null;
  let offset = 0;
  for (let line = 1; offset < bytes.length; line++) {
    const end = bytes.indexOf(NEWLINE, offset);
    const text = bytes.subarray(offset, end === -1 ? bytes.length : end).toString('utf8');
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (error) {
      if (end === -1) {
        tornLastLine = { line, offset };
        break;
      }
      const problem =
        text.trim() === '' ? 'an empty line' : `not JSON (${(error as Error).message})`;
      throw new RecordError(file, line, problem);
    }
    const decoded = decode(value, def);
    if (decoded.kind === 'Invalid') throw new RecordError(file, line, decoded.problem);
    records.push(decoded.record);
    offset = end === -1 ? bytes.length : end + 1;
  }
  return { records, tornLastLine };
}

/**
 * Before appending: a torn last line is cut off (readRecords reported it, its record is redone)
 * and a whole last record without its newline gets one, so new records start on their own line.
 */
async function endWithWholeLine(file: string): Promise<void> {
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return;
    throw error;
  }
  if (size === 0) return;
  const handle = await open(file, 'r');
  const last = Buffer.alloc(1);
  try {
    await handle.read(last, 0, 1, size - 1);
  } finally {
    await handle.close();
  }
  if (last[0] === NEWLINE) return;
  const bytes = await readFile(file);
  const start = bytes.lastIndexOf(NEWLINE) + 1;
  try {
    JSON.parse(bytes.subarray(start).toString('utf8'));
    await appendFile(file, '\n');
  } catch {
    await truncate(file, start);
  }
}

/** Appends records in one write, so a crash leaves at most a torn last line. */
export async function appendRecords<T extends object>(
  file: string,
  def: RecordDef<T>,
  records: readonly T[],
): Promise<void> {
  if (records.length === 0) return;
  const text = records.map((record) => `${JSON.stringify(encodeRecord(record, def))}\n`).join('');
  await mkdir(path.dirname(file), { recursive: true });
  await endWithWholeLine(file);
  await appendFile(file, text);
}

/** Reads a single-document record file; undefined when it does not exist. */
export async function readRecordFile<T extends object>(
  file: string,
  def: RecordDef<T>,
): Promise<T | undefined> {
  const text = await readTextIfExists(file);
  if (text === undefined) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new RecordError(file, null, `not JSON (${(error as Error).message})`);
  }
  const decoded = decode(value, def);
  if (decoded.kind === 'Invalid') throw new RecordError(file, null, decoded.problem);
  return decoded.record;
}

/** Writes a single-document record atomically (readers see the old or the new one). */
export async function writeRecordFile<T extends object>(
  file: string,
  def: RecordDef<T>,
  record: T,
): Promise<void> {
  await writeJsonAtomic(file, encodeRecord(record, def));
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (typeof value === 'object' && value !== null) {
    const entries = Object.entries(value)
      .filter(([, field]) => field !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([key, field]) => `${JSON.stringify(key)}:${canonicalJson(field)}`).join(',')}}`;
  }
  return JSON.stringify(value);
}

/** Content-addressed id of a record: equal content, equal id, whatever its key order. */
export function recordId(record: object): string {
  return sha256Text(canonicalJson(record)).slice(0, 16);
}

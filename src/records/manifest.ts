import path from 'node:path';
import { z } from 'zod';
import { defineRecord, readRecordFile, RecordError, type RecordDef } from './record.js';

/*
 * A stage output records the ids of what it was built from, so a later run resumes it only when
 * built from the same inputs and rebuilds it otherwise. Outputs written in pieces (a JSON-lines
 * file appended to) keep their inputs in a manifest beside them.
 */

export type InputValue = string | number | boolean | null;
export type Inputs = Record<string, InputValue>;

/** A record kind of the form `{ inputs }`: the manifest of one kind of stage output. */
export function defineManifest<I extends Inputs>(
  kind: string,
  inputs: z.ZodType<I>,
): RecordDef<{ inputs: I }> {
  return defineRecord({ kind, version: 1, schema: z.strictObject({ inputs }) });
}

/** `x.jsonl` → `x.manifest.json`, `baseline.json` → `baseline.manifest.json`. */
export function manifestBeside(output: string): string {
  const extension = path.extname(output);
  return `${output.slice(0, output.length - extension.length)}.manifest.json`;
}

export type Provenance<T> =
  { kind: 'Missing' } | { kind: 'Stale'; reason: string } | { kind: 'Current'; record: T };

function describe(value: InputValue | undefined): string {
  return value === undefined ? '(none)' : String(value);
}

/** The inputs of `wanted` that `recorded` has otherwise, as `name old → new`. */
function inputDifferences(recorded: Inputs, wanted: Partial<Inputs>): string[] {
  return Object.entries(wanted)
    .filter((entry): entry is [string, InputValue] => entry[1] !== undefined)
    .filter(([name, value]) => recorded[name] !== value)
    .map(([name, value]) => `${name} ${describe(recorded[name])} → ${describe(value)}`);
}

/**
 * Whether a record with `inputs` (a manifest, or a record holding its own) was built from the
 * inputs of `wanted`; inputs left out of `wanted` are the caller's to judge. A record that cannot
 * be read (another version, say) is stale too: the output it describes is rebuilt, not trusted.
 */
export async function readIfBuiltFrom<T extends { inputs: Inputs }>(
  file: string,
  def: RecordDef<T>,
  wanted: Partial<T['inputs']>,
): Promise<Provenance<T>> {
  let record: T | undefined;
  try {
    record = await readRecordFile(file, def);
  } catch (error) {
    if (error instanceof RecordError) {
      return { kind: 'Stale', reason: `${path.basename(file)} cannot be read (${error.message})` };
    }
    throw error;
  }
  if (!record) return { kind: 'Missing' };
  const differences = inputDifferences(record.inputs, wanted);
  if (differences.length > 0) {
    return {
      kind: 'Stale',
      reason: `${path.basename(file)} records other inputs: ${differences.join(', ')}`,
    };
  }
  return { kind: 'Current', record };
}

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import type { z } from 'zod';
import { UserError } from './errors.js';
import { sha256Text } from './fs.js';

/*
 * Specs (bug types, transformation operators) are YAML files in a directory, one per id, each
 * checked against a schema: a malformed one is a user error naming the file and the field.
 */

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

/** `what` names the kind of spec in messages, e.g. `bug-type spec`. */
export function parseSpec<Schema extends z.ZodType>(
  schema: Schema,
  what: string,
  text: string,
  origin: string,
): z.infer<Schema> {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new UserError(`${what} ${origin} is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(data);
  if (!parsed.success) {
    throw new UserError(`${what} ${origin} is malformed: ${formatIssues(parsed.error)}`);
  }
  return parsed.data;
}

/** Every spec in the directory, sorted by id; a file must be named after the id it declares. */
export async function loadSpecs<Schema extends z.ZodType<{ id: string }>>(
  schema: Schema,
  what: string,
  dir: string,
): Promise<z.infer<Schema>[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
  const specs: z.infer<Schema>[] = [];
  for (const name of names) {
    const spec = parseSpec(schema, what, await readFile(path.join(dir, name), 'utf8'), name);
    if (`${spec.id}.yaml` !== name) {
      throw new UserError(`${what} ${name} declares id '${spec.id}': rename one to match`);
    }
    specs.push(spec);
  }
  return specs;
}

/** The specs a `--types`-like option names: `all` or ids separated by commas. */
export function selectSpecs<Spec extends { id: string }>(
  all: Spec[],
  value: string,
  option: string,
  what: string,
): Spec[] {
  if (value.trim() === 'all') return all;
  const wanted = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (wanted.length === 0)
    throw new UserError(`${option} expects 'all' or ${what} ids separated by commas`);
  return wanted.map((id) => {
    const spec = all.find((candidate) => candidate.id === id);
    if (!spec) {
      throw new UserError(
        `unknown ${what} '${id}' in ${option} (known: ${all.map((s) => s.id).join(', ')})`,
      );
    }
    return spec;
  });
}

const specHashes = new WeakMap<object, string>();

/**
 * Identifies the spec a record was made from: any edit to it gives another hash. Specs are loaded
 * once and never changed, so each is hashed once (ids and tallies ask for it per candidate).
 */
export function specHash(spec: object): string {
  let hash = specHashes.get(spec);
  if (hash === undefined) {
    hash = sha256Text(JSON.stringify(spec)).slice(0, 16);
    specHashes.set(spec, hash);
  }
  return hash;
}

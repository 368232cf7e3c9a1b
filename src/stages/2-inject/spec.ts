import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import { sha256Text } from '../../core/fs.js';
import { packageRoot } from '../../core/package-root.js';

/**
 * A bug type as data: the fields of the paper's injection payload (Appendix I.2), which prompts
 * quote verbatim and reports summarise. The rewrite rules and the structural check live in code,
 * keyed by `id`.
 */
export const BugTypeSpecSchema = z.strictObject({
  id: z.string().regex(/^[a-z][a-z0-9_]*$/, 'id: lowercase letters, digits and underscores'),
  name: z.string().min(1),
  category: z.enum(['API Contract', 'Value Flow', 'Logic']),
  scope: z.string().min(1),
  language: z.literal('java'),
  description: z.string().min(1),
  structureConstraints: z.strictObject({
    requiredElements: z.array(z.string().min(1)).min(1),
    forbiddenElements: z.array(z.string().min(1)).min(1),
  }),
  runtimeEffect: z.strictObject({
    exceptionType: z.string().min(1),
    typicalFailureSignal: z.string().min(1),
  }),
  triggerConditions: z.strictObject({
    testShape: z.string().min(1),
    inputProperties: z.string().min(1),
  }),
  /**
   * Where the witness must be seen to run: the mutated method itself, or (for types that rename
   * or remove the method the test used) any member of its class.
   */
  reach: z.enum(['method', 'class']),
  /** Whether the type changes a public or protected signature by its nature (Typo in equals). */
  changesSignature: z.boolean().default(false),
  codeql: z
    .strictObject({
      queryId: z.string().regex(/^java\/[a-z-]+$/),
      precision: z.enum(['low', 'medium', 'high', 'very-high']),
      tags: z.array(z.string()).default([]),
    })
    .nullable(),
  example: z.strictObject({ before: z.string().min(1), after: z.string().min(1) }),
});
export type BugTypeSpec = z.infer<typeof BugTypeSpecSchema>;

const specHashes = new WeakMap<BugTypeSpec, string>();

/**
 * Identifies the spec a bug was made from: any edit to it gives another hash. Specs are loaded
 * once and never changed, so each is hashed once (ids and tallies ask for it per candidate).
 */
export function specHash(spec: BugTypeSpec): string {
  let hash = specHashes.get(spec);
  if (hash === undefined) {
    hash = sha256Text(JSON.stringify(spec)).slice(0, 16);
    specHashes.set(spec, hash);
  }
  return hash;
}

export function bugTypesDir(): string {
  return path.join(packageRoot(), 'specs', 'bug-types');
}

function formatIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => `${issue.path.join('.') || '(root)'}: ${issue.message}`)
    .join('; ');
}

export function parseBugTypeSpec(text: string, origin: string): BugTypeSpec {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    throw new UserError(`bug-type spec ${origin} is not valid YAML: ${(error as Error).message}`);
  }
  const parsed = BugTypeSpecSchema.safeParse(data);
  if (!parsed.success) {
    throw new UserError(`bug-type spec ${origin} is malformed: ${formatIssues(parsed.error)}`);
  }
  return parsed.data;
}

/** Every spec in the directory, sorted by id; a file must be named after the id it declares. */
export async function loadBugTypeSpecs(dir = bugTypesDir()): Promise<BugTypeSpec[]> {
  const names = (await readdir(dir)).filter((name) => name.endsWith('.yaml')).sort();
  const specs: BugTypeSpec[] = [];
  for (const name of names) {
    const spec = parseBugTypeSpec(await readFile(path.join(dir, name), 'utf8'), name);
    if (`${spec.id}.yaml` !== name) {
      throw new UserError(`bug-type spec ${name} declares id '${spec.id}': rename one to match`);
    }
    specs.push(spec);
  }
  return specs;
}

/** The specs a `--types` value names: `all` or ids separated by commas. */
export function selectBugTypes(all: BugTypeSpec[], value: string): BugTypeSpec[] {
  if (value.trim() === 'all') return all;
  const wanted = value
    .split(',')
    .map((id) => id.trim())
    .filter(Boolean);
  if (wanted.length === 0)
    throw new UserError(`--types expects 'all' or bug-type ids separated by commas`);
  return wanted.map((id) => {
    const spec = all.find((candidate) => candidate.id === id);
    if (!spec) {
      throw new UserError(
        `unknown bug type '${id}' in --types (known: ${all.map((s) => s.id).join(', ')})`,
      );
    }
    return spec;
  });
}

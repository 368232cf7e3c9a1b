import path from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../../core/package-root.js';
import { loadSpecs, parseSpec, selectSpecs, specHash as hashSpec } from '../../core/spec-files.js';

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

/** Identifies the spec a bug was made from: any edit to it gives another hash. */
export const specHash: (spec: BugTypeSpec) => string = hashSpec;

export function bugTypesDir(): string {
  return path.join(packageRoot(), 'specs', 'bug-types');
}

const WHAT = 'bug-type spec';

export function parseBugTypeSpec(text: string, origin: string): BugTypeSpec {
  return parseSpec(BugTypeSpecSchema, WHAT, text, origin);
}

/** Every spec in the directory, sorted by id; a file must be named after the id it declares. */
export function loadBugTypeSpecs(dir = bugTypesDir()): Promise<BugTypeSpec[]> {
  return loadSpecs(BugTypeSpecSchema, WHAT, dir);
}

/** The specs a `--types` value names: `all` or ids separated by commas. */
export function selectBugTypes(all: BugTypeSpec[], value: string): BugTypeSpec[] {
  return selectSpecs(all, value, '--types', 'bug type');
}

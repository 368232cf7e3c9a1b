import path from 'node:path';
import { z } from 'zod';
import { packageRoot } from '../../core/package-root.js';
import { loadSpecs, parseSpec, selectSpecs, specHash as hashSpec } from '../../core/spec-files.js';

/** The operator families of the paper's Table 6. */
export const TRANSFORM_FAMILIES = ['Call Stack', 'Data Flow', 'Control Flow'] as const;

/** Labels in snake_case, as the paper's transform payload (Appendix I.3) quotes them. */
const Label = z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'a snake_case label');

/**
 * A bug-preserving transformation operator as data: the fields of the paper's transform task
 * payload, which prompts quote verbatim. The rewrite itself lives in code, keyed by `id`.
 */
export const TransformSpecSchema = z.strictObject({
  id: z.string().regex(/^t_[a-z0-9_]+_v[0-9]+$/, 'id: t_<name>_v<n>, lowercase'),
  /** The paper-facing operator name (Table 6). */
  operator: z.string().min(1),
  family: z.enum(TRANSFORM_FAMILIES),
  name: z.string().min(1),
  description: z.string().min(1),
  applicability: Label,
  /**
   * Whether a step leaves every input that exposes the bug exposing it (`kept`: a refactoring) or
   * may make some of them correct (`narrowed`: a gate). A test class of the remaining suite that
   * gives the bug away before `kept` steps gives it away after them.
   */
  bugReach: z.enum(['kept', 'narrowed']),
  forbiddenEdits: z.array(Label).min(1),
  mustPreserve: z.array(Label).min(1),
  postConditions: z.array(Label).min(1),
  example: z.strictObject({ before: z.string().min(1), after: z.string().min(1) }),
});
export type TransformSpec = z.infer<typeof TransformSpecSchema>;

/** Identifies the spec a step was made with: any edit to it gives another hash. */
export const transformSpecHash: (spec: TransformSpec) => string = hashSpec;

export function transformsDir(): string {
  return path.join(packageRoot(), 'specs', 'transforms');
}

const WHAT = 'transform spec';

export function parseTransformSpec(text: string, origin: string): TransformSpec {
  return parseSpec(TransformSpecSchema, WHAT, text, origin);
}

export function loadTransformSpecs(dir = transformsDir()): Promise<TransformSpec[]> {
  return loadSpecs(TransformSpecSchema, WHAT, dir);
}

/** Whether every operator of a sequence keeps the bug's reach (see `bugReach`). */
export function keepsBugReach(
  specs: readonly TransformSpec[],
  sequence: readonly string[],
): boolean {
  return sequence.every((id) => specs.find((spec) => spec.id === id)?.bugReach === 'kept');
}

/** The specs a `--transforms` value names: `all` or ids separated by commas. */
export function selectTransforms(all: TransformSpec[], value: string): TransformSpec[] {
  return selectSpecs(all, value, '--transforms', 'transform');
}

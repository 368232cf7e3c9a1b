import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../core/errors.js';
import { packageRoot } from '../core/package-root.js';
import { parse as parseYaml } from 'yaml';
import { ContextBucketSchema, type ContextBucket } from '../stages/1-trace/trace.js';
import type { BugTypeSpec } from '../stages/2-inject/spec.js';
import type { TransformSpec } from '../stages/3-transform/spec.js';

/*
 * A build plan as data: how many cases to build per (bug type × context bucket × depth) cell,
 * and the operator sequence applied at each depth. A group may apply its own sequence at a depth
 * (to apply operators the plan's sequences reach rarely, say); its cells are then apart from
 * the plan's cells of that depth. Cells the corpus cannot fill are reported short by the build,
 * never padded.
 */

export const DEPTHS = [1, 3, 5, 10] as const;
const DepthSchema = z.union(
  DEPTHS.map((depth) => z.literal(depth)),
  { error: `expected one of ${DEPTHS.join(', ')}` },
);
export type Depth = (typeof DEPTHS)[number];

/** The paper's buckets: contexts of 1–150 production methods. */
const PlanBucketSchema = ContextBucketSchema.exclude(['none', 'beyond']);
export const PLAN_BUCKETS = PlanBucketSchema.options;
export type PlanBucket = z.infer<typeof PlanBucketSchema>;

/** The operators applied, in order, at each depth; a depth's list has that many entries. */
const SequencesSchema = z.partialRecord(z.enum(['1', '3', '5', '10']), z.array(z.string().min(1)));
type Sequences = z.infer<typeof SequencesSchema>;

const CellGroupSchema = z.strictObject({
  /** What the group is for, e.g. the research question whose subset it fills. */
  purpose: z.string().min(1),
  /** Bug-type ids, or `all`, or `all-but` with `except`. */
  types: z.union([z.literal('all'), z.array(z.string().min(1)).min(1)]),
  except: z.array(z.string().min(1)).default([]),
  buckets: z.array(PlanBucketSchema).min(1),
  depths: z.array(DepthSchema).min(1),
  /** Cases wanted in each (type, bucket, depth) cell of the group. */
  perCell: z.number().int().positive(),
  /** The group's own sequences, in place of the plan's at these depths. */
  sequences: SequencesSchema.optional(),
  /**
   * A controlled depth series: each bug of a type and bucket is transformed at every depth of
   * the group. Otherwise (the default) every cell takes bugs no other cell has made a case of.
   */
  sameBugAcrossDepths: z.boolean().default(false),
});

export const PlanSchema = z.strictObject({
  name: z.string().regex(/^[a-z0-9][a-z0-9-]*$/),
  description: z.string().min(1),
  sequences: SequencesSchema,
  groups: z.array(CellGroupSchema).min(1),
});
export type Plan = z.infer<typeof PlanSchema>;

/** Which cell a case counts in, as the build's ledger records it. */
export interface CellKey {
  typeId: string;
  bucket: string;
  depth: number;
  /** The group's own sequence; absent for the plan's sequence of the depth. */
  sequence?: string[] | undefined;
}

export interface PlanCell {
  typeId: string;
  bucket: ContextBucket;
  depth: Depth;
  wanted: number;
  /** The operator ids applied in order. */
  sequence: string[];
  purpose: string;
  key: CellKey;
  /** Cells of one series may make cases of the same bug; a cell not in a depth series is its own. */
  series: string;
}

export function cellKey(key: CellKey): string {
  const own = key.sequence ? `/${key.sequence.join('+')}` : '';
  return `${key.typeId}/${key.bucket}/${key.depth}${own}`;
}

export function plansDir(): string {
  return path.join(packageRoot(), 'plans');
}

/** The shipped plan a malformed one is pointed at: small, and every field in use. */
const EXAMPLE_PLAN = 'plans/smoke.yaml';

/**
 * A plan from its YAML; a malformed one is refused in one line: its first problem, and the
 * shipped example to compare it with.
 */
export function parsePlan(text: string, origin: string): Plan {
  let data: unknown;
  try {
    data = parseYaml(text);
  } catch (error) {
    const [first] = (error as Error).message.split('\n');
    throw new UserError(`plan ${origin} is not valid YAML (${first}); see ${EXAMPLE_PLAN}`);
  }
  const parsed = PlanSchema.safeParse(data);
  if (!parsed.success) {
    const [issue, ...more] = parsed.error.issues;
    const where = issue!.path.join('.') || 'the top level';
    const others = more.length > 0 ? ` (and ${more.length} more)` : '';
    throw new UserError(
      `plan ${origin} is malformed at ${where}: ${issue!.message}${others}; see ${EXAMPLE_PLAN} for the shape`,
    );
  }
  return parsed.data;
}

/** A plan by file path, or by name among the shipped plans (`paper`, `smoke`). */
export async function loadPlan(nameOrFile: string): Promise<Plan> {
  const file = nameOrFile.endsWith('.yaml')
    ? nameOrFile
    : path.join(plansDir(), `${nameOrFile}.yaml`);
  let text: string;
  try {
    text = await readFile(file, 'utf8');
  } catch {
    throw new UserError(
      `plan ${nameOrFile} not found: pass a plan file (.yaml) or a shipped plan name (paper, smoke, coverage, acceptance)`,
    );
  }
  return parsePlan(text, path.basename(file));
}

/**
 * The plan's cells, checked against the known types and operators: every sequence has as many
 * operators as its depth says, each group's types exist, and no cell is declared twice.
 */
export function planCells(
  plan: Plan,
  types: readonly BugTypeSpec[],
  transforms: readonly TransformSpec[],
): PlanCell[] {
  const knownTypes = new Set(types.map((type) => type.id));
  const knownTransforms = new Set(transforms.map((transform) => transform.id));
  const problem = (what: string) => new UserError(`plan ${plan.name}: ${what}`);
  const checkSequences = (sequences: Sequences, where: string) => {
    for (const [depth, sequence] of Object.entries(sequences)) {
      if (sequence.length !== Number(depth)) {
        throw problem(`the depth-${depth} sequence${where} lists ${sequence.length} operators`);
      }
      const unknown = sequence.find((id) => !knownTransforms.has(id));
      if (unknown) {
        throw problem(`unknown operator '${unknown}' in the depth-${depth} sequence${where}`);
      }
    }
  };
  checkSequences(plan.sequences, '');
  const cells = new Map<string, PlanCell>();
  for (const group of plan.groups) {
    checkSequences(group.sequences ?? {}, ` of group '${group.purpose}'`);
    const unknown = [...(group.types === 'all' ? [] : group.types), ...group.except].find(
      (id) => !knownTypes.has(id),
    );
    if (unknown) {
      throw problem(
        `unknown bug type '${unknown}' in group '${group.purpose}' (known: ${[...knownTypes].join(', ')})`,
      );
    }
    const groupTypes = (group.types === 'all' ? [...knownTypes] : group.types).filter(
      (id) => !group.except.includes(id),
    );
    for (const typeId of groupTypes) {
      for (const bucket of group.buckets) {
        for (const depth of group.depths) {
          const planned = plan.sequences[String(depth) as keyof Sequences];
          // A group's sequence that is the plan's own makes no cells apart.
          const given = group.sequences?.[String(depth) as keyof Sequences];
          const own = given && given.join(' ') !== planned?.join(' ') ? given : undefined;
          const sequence = own ?? planned;
          if (!sequence)
            throw problem(`group '${group.purpose}' uses depth ${depth}, which has no sequence`);
          const cell = { typeId, bucket, depth, ...(own ? { sequence: own } : {}) };
          const key = cellKey(cell);
          const earlier = cells.get(key);
          if (earlier) {
            throw problem(
              `cell ${key} is in both '${earlier.purpose}' and '${group.purpose}'; declare it once`,
            );
          }
          cells.set(key, {
            typeId,
            bucket,
            depth,
            wanted: group.perCell,
            sequence,
            purpose: group.purpose,
            key: cell,
            series: group.sameBugAcrossDepths
              ? JSON.stringify([group.purpose, typeId, bucket])
              : key,
          });
        }
      }
    }
  }
  return [...cells.values()];
}

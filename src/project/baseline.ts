import { z } from 'zod';
import { defineRecord } from '../records/record.js';
import { SingleVerdictKindSchema, TestCountsSchema } from '../records/schemas.js';

/** Whether a class may serve as a witness: only one that passes on clean code. */
const UsabilitySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('Usable') }),
  /** `reason` says why, in one line. */
  z.strictObject({ kind: z.literal('Unusable'), reason: z.string() }),
]);

/** How one test class behaves on clean code. */
const BaselineClassSchema = z.strictObject({
  testClass: z.string(),
  status: SingleVerdictKindSchema,
  counts: TestCountsSchema.nullable(),
  durationMs: z.number().nonnegative(),
  usability: UsabilitySchema,
  /** How the status was obtained: within the suite run, or alone after the suite broke off. */
  runMode: z.enum(['suite', 'alone']),
});
export type BaselineClass = z.infer<typeof BaselineClassSchema>;

const BaselineSchema = z.strictObject({
  createdAt: z.string(),
  tools: z.record(z.string(), z.string()),
  selection: z.string().nullable(),
  suite: z.strictObject({
    status: SingleVerdictKindSchema,
    durationMs: z.number().nonnegative(),
    description: z.string(),
  }),
  classes: z.array(BaselineClassSchema),
  usableCount: z.number().int().nonnegative(),
});
export type Baseline = z.infer<typeof BaselineSchema>;

/** `baseline.json` of a fetched project. */
export const BaselineFile = defineRecord({
  kind: 'baseline',
  version: 2,
  schema: BaselineSchema,
});

/** A test class's entry in a baseline, if the baseline ran it. */
export function baselineClass(
  baseline: Baseline | undefined,
  testClass: string,
): BaselineClass | undefined {
  return baseline?.classes.find((entry) => entry.testClass === testClass);
}

export function isUsable(entry: BaselineClass): boolean {
  return entry.usability.kind === 'Usable';
}

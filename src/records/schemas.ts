import { z } from 'zod';
import type { SingleVerdictKind, TestCounts } from '../core/verdict.js';

/* Schemas of the core types that persisted records embed. */

/** Keyed by the union itself, so the compiler checks that every kind is listed, and no other. */
const SINGLE_VERDICT_KINDS: Record<SingleVerdictKind, true> = {
  Passed: true,
  TestFailed: true,
  TestErrored: true,
  CompileError: true,
  Timeout: true,
  Crashed: true,
  NoTestsRan: true,
  InfraError: true,
};

export const SingleVerdictKindSchema = z.enum(
  Object.keys(SINGLE_VERDICT_KINDS) as [SingleVerdictKind, ...SingleVerdictKind[]],
);

export const TestCountsSchema = z.strictObject({
  tests: z.number().int().nonnegative(),
  failures: z.number().int().nonnegative(),
  errors: z.number().int().nonnegative(),
  skipped: z.number().int().nonnegative(),
}) satisfies z.ZodType<TestCounts>;

import { z } from 'zod';
import { ProjectBaseSchema } from '../project/state.js';

/*
 * A repair instance in SWE-bench's layout, for a Java/Maven repository: a base tree, the gold
 * patch (base → fixed, production code), the test patch (the tests that judge a fix), and the
 * tests that must go from failing to passing (FAIL_TO_PASS) and stay passing (PASS_TO_PASS).
 * SWE-bench clones `repo` at `base_commit`; with no network here, `snapshot` names a local copy
 * of that tree (a directory or a tarball, relative to the instance file's directory).
 */

/** `pkg.Class#method`: a test method, as FAIL_TO_PASS and PASS_TO_PASS name it. */
export const TEST_ID_PATTERN = /^[A-Za-z_$][\w$]*(\.[A-Za-z_$][\w$]*)*#[A-Za-z_$][\w$]*$/;
export const TestIdSchema = z.string().regex(TEST_ID_PATTERN, 'is not pkg.Class#method');

export const INSTANCE_ID_PATTERN = /^[A-Za-z0-9._@-]+$/;

/**
 * Where an instance came from. A witnessgym case keeps the project base it was built on and the
 * patch from that base to the instance's base tree, so a cache holding the project rebuilds the
 * tree without the snapshot (and its builds are shared with the project's other states).
 */
export const InstanceOriginSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('witnessgym-case'),
    case_id: z.string(),
    project: ProjectBaseSchema,
    /** Pristine project → the instance's base tree (the bug, its steps, the hidden tests removed). */
    base_patch: z.string(),
    type_id: z.string(),
    depth: z.number().int().nonnegative(),
    /**
     * A candidate second fix, base → fixed: the injected bug reverted with the transformation
     * steps kept, or null when the revert does not apply cleanly or equals gold. It is correct
     * only where the instance's tests accept it (a revert inside code a step moved into a helper
     * can return from the helper rather than the method). Never shown to an agent; the
     * `alternative` agent submits it, so a strengthened suite that rejects an accepted one is
     * caught over-fitting to gold.
     */
    correct_alternative: z.string().nullable(),
  }),
  z.strictObject({ kind: z.literal('swe-bench') }),
  z.strictObject({
    kind: z.literal('multi-swe-bench'),
    org: z.string(),
    number: z.number().int(),
  }),
  z.strictObject({
    kind: z.literal('defects4j'),
    project: z.string(),
    bug: z.number().int().positive(),
  }),
]);
export type InstanceOrigin = z.infer<typeof InstanceOriginSchema>;

export const RepairInstanceSchema = z
  .strictObject({
    instance_id: z.string().regex(INSTANCE_ID_PATTERN, 'is not an instance id ([A-Za-z0-9._@-]+)'),
    repo: z.string().min(1, 'is empty'),
    base_commit: z.string().min(1, 'is empty'),
    snapshot: z.string().min(1, 'is empty'),
    /** Gold: base → fixed, production sources only. */
    patch: z.string().min(1, 'is empty'),
    /** The tests that judge a fix; may be empty when the base tree already holds them. */
    test_patch: z.string(),
    /** Never empty, but in a witness-drop control (`control`). */
    FAIL_TO_PASS: z.array(TestIdSchema),
    PASS_TO_PASS: z.array(TestIdSchema),
    problem_statement: z.string(),
    /** The Maven module holding the changed code and its tests, relative to the root. */
    module: z.string(),
    /** Extra Maven flags for every build and test run of this instance. */
    maven_flags: z.array(z.string()),
    origin: InstanceOriginSchema,
    /**
     * Set by `witnessgym strengthen` when it changed the tests: the test patch and lists before
     * (`test_patch`, FAIL_TO_PASS and PASS_TO_PASS are then the strengthened ones, a drop-in for
     * SWE-bench-style harnesses), and what was added.
     */
    original_test_patch: z.string().optional(),
    original_FAIL_TO_PASS: z.array(TestIdSchema).optional(),
    original_PASS_TO_PASS: z.array(TestIdSchema).optional(),
    strengthening: z
      .strictObject({
        engine: z.string(),
        stages: z.array(z.enum(['coverage', 'mutation'])),
        /** The test methods added, each in a new class (`…StrengthenedTest`). */
        added: z.array(TestIdSchema),
        /** Relevant lines of gold's slice, and how many the tests covered before and after. */
        coverage: z
          .strictObject({
            relevant: z.number().int().nonnegative(),
            before: z.number().int().nonnegative(),
            after: z.number().int().nonnegative(),
          })
          .nullable(),
        /** Stage II's mutants: survivors of the suite, those told from gold, those a new test kills. */
        mutants: z
          .strictObject({
            surviving: z.number().int().nonnegative(),
            proven: z.number().int().nonnegative(),
            killed: z.number().int().nonnegative(),
          })
          .optional(),
      })
      .optional(),
    /**
     * Set by `witnessgym instances drop-failing`: a control whose FAIL_TO_PASS tests (`dropped`,
     * the witness) were removed from its test patch, so strengthening must recover one on its own.
     */
    control: z
      .strictObject({ kind: z.literal('witness-dropped'), dropped: z.array(TestIdSchema) })
      .optional(),
  })
  .superRefine((instance, context) => {
    if (instance.FAIL_TO_PASS.length === 0 && !instance.control) {
      context.addIssue({
        code: 'too_small',
        origin: 'array',
        minimum: 1,
        inclusive: true,
        path: ['FAIL_TO_PASS'],
        message: 'is empty: an instance needs a test to fix',
      });
    }
  });
export type RepairInstance = z.infer<typeof RepairInstanceSchema>;

/** The instance as it was before strengthening (itself when it was not strengthened). */
export function originalInstance(instance: RepairInstance): RepairInstance {
  const original: RepairInstance = { ...instance };
  delete original.original_test_patch;
  delete original.original_FAIL_TO_PASS;
  delete original.original_PASS_TO_PASS;
  delete original.strengthening;
  if (instance.original_test_patch === undefined) return original;
  return {
    ...original,
    test_patch: instance.original_test_patch,
    FAIL_TO_PASS: instance.original_FAIL_TO_PASS ?? instance.FAIL_TO_PASS,
    PASS_TO_PASS: instance.original_PASS_TO_PASS ?? instance.PASS_TO_PASS,
  };
}

/** The test class of a `Class#method` id, and its method. */
export function splitTestId(id: string): { testClass: string; method: string } {
  const hash = id.indexOf('#');
  return { testClass: id.slice(0, hash), method: id.slice(hash + 1) };
}

/** The test classes an instance runs, sorted, each with its methods named by F2P or P2P. */
export function instanceTestClasses(instance: RepairInstance): Map<string, string[]> {
  const classes = new Map<string, string[]>();
  for (const id of [...instance.FAIL_TO_PASS, ...instance.PASS_TO_PASS].sort()) {
    const { testClass, method } = splitTestId(id);
    const methods = classes.get(testClass) ?? [];
    if (!methods.includes(method)) methods.push(method);
    classes.set(testClass, methods);
  }
  return classes;
}

import { sidePath } from '../../core/diff-stats.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePatch } from 'diff';
import { z } from 'zod';
import { methodsAtLines } from '../../lang/java/syntax.js';
import { UserError } from '../../core/errors.js';
import { RepairInstanceSchema, type RepairInstance } from '../instance.js';
import { modifiedLines } from '../patch.js';
import { schemaProblem } from '../read.js';
import { declaredTestMethods } from '../test-methods.js';
import { readTestName } from '../test-names.js';

/*
 * Multi-SWE-bench (ByteDance, 2025) as repair instances. Its records are pull requests with the
 * harness's three runs of the tests: on the base tree (`run`), with the test patch (`test`) and
 * with both patches (`fix`); each test map holds the tests of one transition (f2p: FAIL → PASS,
 * s2p: SKIP → PASS, n2p: NONE → PASS, p2p: PASS → PASS, by `test` → `fix`). Their Java harnesses
 * name tests as their build tool prints them: Maven's parsers take a Surefire summary line, so
 * most names are test classes; others are methods in several spellings (see test-names.ts).
 */

const StatusSchema = z.enum(['PASS', 'FAIL', 'SKIP', 'NONE']);
const TestsSchema = z.record(
  z.string(),
  z.object({ run: StatusSchema, test: StatusSchema, fix: StatusSchema }),
);
/** GitHub's texts are null when empty. */
const TextSchema = z
  .string()
  .nullish()
  .transform((text) => text ?? '');

/** The fields read; their records have many more, which are left alone. */
const MultiSweBenchRecordSchema = z.object({
  org: z.string().min(1),
  repo: z.string().min(1),
  number: z.number().int(),
  title: TextSchema,
  body: TextSchema,
  base: z.object({ sha: z.string().min(1) }),
  resolved_issues: z.array(z.object({ title: TextSchema, body: TextSchema })).default([]),
  fix_patch: z.string().min(1),
  test_patch: z.string(),
  p2p_tests: TestsSchema.default({}),
  f2p_tests: TestsSchema.default({}),
  s2p_tests: TestsSchema.default({}),
  n2p_tests: TestsSchema.default({}),
  instance_id: z.string().optional(),
});
type MultiSweBenchRecord = z.infer<typeof MultiSweBenchRecordSchema>;

export interface MultiSweBenchOptions {
  /** The instance's snapshot, as the instance file will name it. */
  snapshot: string;
  /**
   * The source of a top-level test class (`pkg.Class`) in the base tree with the test patch
   * applied, or undefined when there is none: class-level test names are expanded with it.
   */
  testSources?: (testClass: string) => Promise<string | undefined>;
}

/** The statuses each map's tests must show, so a record built by other rules is not misread. */
const EXPECTED: Record<'f2p_tests' | 's2p_tests' | 'n2p_tests' | 'p2p_tests', string> = {
  f2p_tests: 'FAIL',
  s2p_tests: 'SKIP',
  n2p_tests: 'NONE',
  p2p_tests: 'PASS',
};

function checkStatuses(id: string, record: MultiSweBenchRecord): void {
  for (const [map, testStatus] of Object.entries(EXPECTED) as [keyof typeof EXPECTED, string][]) {
    for (const [name, status] of Object.entries(record[map])) {
      if (status.test !== testStatus || status.fix !== 'PASS') {
        throw new UserError(
          `${id}: ${map} lists "${name}" with test ${status.test} and fix ${status.fix}, not ${testStatus} and PASS`,
        );
      }
    }
  }
}

function problemStatement(record: MultiSweBenchRecord): string {
  const texts = record.resolved_issues.length > 0 ? record.resolved_issues : [record];
  return texts.map(({ title, body }) => [title, body].filter(Boolean).join('\n')).join('\n\n');
}

/** Reads test names into ids, expanding test classes through their sources. */
class TestNameResolver {
  private readonly sources = new Map<string, Promise<string | undefined>>();

  constructor(
    private readonly instanceId: string,
    private readonly testSources: MultiSweBenchOptions['testSources'],
    /** Per test file the test patch changes (project-relative), its new-side changed lines. */
    private readonly changedLines: ReadonlyMap<string, number[]> = new Map(),
  ) {}

  /**
   * The methods of a class's file the test patch adds or changes: what a class-level
   * fail-to-pass name means (the class's other methods passed before the fix too).
   */
  private async touchedMethods(testClass: string, methods: readonly string[]): Promise<string[]> {
    const [topLevel] = testClass.split('$');
    const suffix = `/${topLevel!.replace(/\./g, '/')}.java`;
    const lines = [...this.changedLines].find(([file]) => file.endsWith(suffix))?.[1];
    const text = await this.sources.get(topLevel!);
    if (!lines || text === undefined) return [];
    return methodsAtLines(text, lines).filter((method) => methods.includes(method));
  }

  /** The test methods of a class (`pkg.Outer$Inner` too), or undefined when it has no source. */
  private async testMethods(testClass: string): Promise<string[] | undefined> {
    if (!this.testSources) return undefined;
    const [topLevel] = testClass.split('$');
    let source = this.sources.get(topLevel!);
    if (!source) {
      source = this.testSources(topLevel!);
      this.sources.set(topLevel!, source);
    }
    const text = await source;
    if (text === undefined) return undefined;
    const binaryName = testClass.slice(testClass.lastIndexOf('.') + 1);
    const declared = await declaredTestMethods(text, binaryName);
    return declared.kind === 'Found' ? declared.methods : undefined;
  }

  async resolve(name: string, preferTouched = false): Promise<string[]> {
    const reading = readTestName(name);
    if (reading.kind === 'Method') return [reading.id];
    if (reading.kind === 'Unreadable') {
      throw new UserError(
        `${this.instanceId}: test "${name}" is neither a test method (pkg.Class#method, pkg.Class.method(), method(pkg.Class), pkg.Class > method()) nor a test class`,
      );
    }
    const methods = await this.testMethods(reading.name);
    if (methods) {
      if (methods.length === 0) {
        throw new UserError(
          `${this.instanceId}: test class ${reading.name} declares no test method (@Test, or test*() in a TestCase) to stand for it`,
        );
      }
      const touched = preferTouched ? await this.touchedMethods(reading.name, methods) : [];
      return (touched.length > 0 ? touched : methods).map((method) => `${reading.name}#${method}`);
    }
    // Not a class with a source: `pkg.Class.method` by Java's naming conventions.
    const segments = reading.name.split('.');
    const [owner, method] = [segments.at(-2) ?? '', segments.at(-1)!];
    if (/^[A-Z]/.test(owner) && /^[a-z]/.test(method)) {
      return [`${segments.slice(0, -1).join('.')}#${method}`];
    }
    throw new UserError(
      this.testSources
        ? `${this.instanceId}: test "${name}" names no test class among the test sources, and no method of one`
        : `${this.instanceId}: test "${name}" names a test class; expanding it to its methods needs the test sources (testSources)`,
    );
  }

  async resolveAll(names: readonly string[], preferTouched = false): Promise<string[]> {
    const ids = new Set<string>();
    for (const name of [...names].sort()) {
      for (const id of await this.resolve(name, preferTouched)) ids.add(id);
    }
    return [...ids].sort();
  }
}

/** The new-side lines a patch adds, per file it leaves in the tree. */
function changedTestLines(diff: string): Map<string, number[]> {
  const files = (diff.trim() === '' ? [] : parsePatch(diff))
    .map((filePatch) => sidePath(filePatch.newFileName) ?? '')
    .filter((file) => file !== '' && file !== '/dev/null');
  return new Map(files.map((file) => [file, modifiedLines(diff, file).changed]));
}

/**
 * A Multi-SWE-bench record (one line of its dataset, parsed) as a repair instance. FAIL_TO_PASS
 * is every test the fix turns to passing (f2p ∪ s2p ∪ n2p), PASS_TO_PASS the p2p tests. A
 * fail-to-pass test class stands for the test methods the test patch adds or changes in it (all
 * its methods when it changes none); a pass-to-pass class for all its methods. Where this still
 * names a method that passed before the fix, validating the instance says so.
 */
export async function fromMultiSweBench(
  record: unknown,
  options: MultiSweBenchOptions,
): Promise<RepairInstance> {
  const parsed = MultiSweBenchRecordSchema.safeParse(record);
  if (!parsed.success) {
    throw new UserError(`Multi-SWE-bench record: ${schemaProblem(parsed.error, record)}`);
  }
  const pr = parsed.data;
  const id = pr.instance_id ?? `${pr.org}__${pr.repo}-${pr.number}`;
  checkStatuses(id, pr);
  const resolver = new TestNameResolver(id, options.testSources, changedTestLines(pr.test_patch));
  const failToPass = await resolver.resolveAll(
    [...Object.keys(pr.f2p_tests), ...Object.keys(pr.s2p_tests), ...Object.keys(pr.n2p_tests)],
    true,
  );
  // A class-level pass-to-pass name may cover a method a method-level name lists as fixed.
  const passToPass = (await resolver.resolveAll(Object.keys(pr.p2p_tests))).filter(
    (test) => !failToPass.includes(test),
  );
  const instance = {
    instance_id: id,
    repo: `${pr.org}/${pr.repo}`,
    base_commit: pr.base.sha,
    snapshot: options.snapshot,
    patch: pr.fix_patch,
    test_patch: pr.test_patch,
    FAIL_TO_PASS: failToPass,
    PASS_TO_PASS: passToPass,
    problem_statement: problemStatement(pr),
    module: '.',
    maven_flags: [],
    origin: { kind: 'multi-swe-bench', org: pr.org, number: pr.number },
  };
  const checked = RepairInstanceSchema.safeParse(instance);
  if (!checked.success) throw new UserError(`${id}: ${schemaProblem(checked.error, instance)}`);
  return checked.data;
}

/** Directories a Maven tree keeps its test sources in, one per module. */
async function testSourceRoots(root: string): Promise<string[]> {
  const roots: string[] = [];
  const visit = async (dir: string): Promise<void> => {
    const entries = await readdir(dir, { withFileTypes: true });
    for (const entry of entries
      .filter((e) => e.isDirectory())
      .sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (['.git', 'target', 'node_modules'].includes(entry.name)) continue;
      const inner = path.join(dir, entry.name);
      // A module's `src` holds its sources, not other modules: only its test root is wanted.
      if (entry.name === 'src') {
        const tests = path.join(inner, 'test', 'java');
        if (
          await readdir(tests).then(
            () => true,
            () => false,
          )
        )
          roots.push(tests);
      } else await visit(inner);
    }
  };
  await visit(root);
  return roots;
}

/**
 * `testSources` over a tree on disk (the snapshot with the test patch applied): a test class's
 * source is `<module>/src/test/java/<package path>/<Class>.java`, in the first module (by path)
 * that has it.
 */
export function testSourcesIn(root: string): (testClass: string) => Promise<string | undefined> {
  let roots: Promise<string[]> | undefined;
  return async (testClass) => {
    roots ??= testSourceRoots(root);
    const relative = `${testClass.replace(/\./g, '/')}.java`;
    for (const sourceRoot of await roots) {
      const text = await readFile(path.join(sourceRoot, relative), 'utf8').catch(() => undefined);
      if (text !== undefined) return text;
    }
    return undefined;
  };
}

import type { Node } from 'web-tree-sitter';
import { changedMembers } from '../../lang/java/changed-members.js';
import {
  CLASS_TYPES,
  descendants,
  enclosingClassPath,
  members,
  METHOD_TYPES,
  nameOf,
  withJavaTree,
  withJavaTrees,
} from '../../lang/java/syntax.js';
import type { TestRunResult } from '../../runners/types.js';
import type { RawTrace, TracedMethod } from '../../toolchains/jvm/runner.js';

/*
 * Per-test selection for step validation (PIT's way): the test methods traced on the buggy state
 * tell which members of the bug's file each test enters; a step then needs only the tests that
 * enter a member it edits. Members a step adds are reached only through members it edits, so
 * they inherit those members' tests, and the map follows the file through the steps.
 */

/** One test method of a traced class run: how it ended and the production methods it entered. */
export interface TracedTest {
  /** The class the run asked for. */
  testClass: string;
  /** The class the method is declared in, as the platform reported it (a nested class, say). */
  declaringClass: string;
  testMethod: string;
  outcome: 'Passed' | 'Failed' | 'Errored' | 'Skipped';
  entered: TracedMethod[];
}

/** Id of a test method across classes. */
export function testId(testClass: string, testMethod: string): string {
  return `${testClass}#${testMethod}`;
}

/**
 * The test methods of a run traced per test, each with the methods it entered. What the class's
 * own set-up entered (before the first test: static initialisers, @BeforeAll) counts for every
 * test, as every test may depend on what it built.
 */
export function tracedTests(
  testClass: string,
  result: Pick<TestRunResult, 'trace' | 'tests'>,
): TracedTest[] {
  const trace: RawTrace = result.trace ?? { log: [], methods: {} };
  const logs: number[][] = [];
  const setUp: number[] = [];
  let current: number[] = setUp;
  for (const value of trace.log) {
    if (value < 0) {
      current = [];
      logs[-1 - value] = current;
    } else {
      current.push(value);
    }
  }
  return (result.tests ?? []).map((test) => {
    const own = test.traceIndex === undefined ? [] : (logs[test.traceIndex] ?? []);
    const ids = new Set([...setUp, ...own]);
    return {
      testClass,
      declaringClass: test.testClass,
      testMethod: test.testMethod,
      outcome: test.outcome,
      entered: [...ids].flatMap((id) => trace.methods[String(id)] ?? []),
    };
  });
}

/** Whether a traced method's class is compiled from `file` (a project-relative source path). */
function compiledFrom(method: TracedMethod, file: string): boolean {
  const slash = method.owner.lastIndexOf('/');
  const pkg = method.owner.slice(0, slash + 1);
  const outer = method.owner.slice(slash + 1).split('$')[0]!;
  const suffix = `${pkg}${method.source ?? `${outer}.java`}`;
  return file === suffix || file.endsWith(`/${suffix}`);
}

/**
 * The class and interface declarations of a file by dotted path, each with the tokens it has
 * outside its members and nested classes (comments left out): what a member diff does not see.
 */
function classSkeletons(root: Node): Map<string, string> {
  const skeletons = new Map<string, string>();
  const skipped = new Set<string>([
    ...METHOD_TYPES,
    ...CLASS_TYPES,
    'line_comment',
    'block_comment',
  ]);
  for (const declaration of descendants(root, CLASS_TYPES)) {
    const path = [enclosingClassPath(declaration), nameOf(declaration)].filter(Boolean).join('.');
    const out: string[] = [];
    const visit = (node: Node) => {
      if (node !== declaration && skipped.has(node.type)) return;
      if (node.childCount === 0) out.push(node.text);
      for (const child of node.children) if (child) visit(child);
    };
    visit(declaration);
    if (!skeletons.has(path)) skeletons.set(path, out.join(' '));
  }
  return skeletons;
}

/** Which tests a step has to run, and why. */
export type StepSelection =
  | {
      kind: 'Members';
      /** The members of the file before the step that it edits (memberKey). */
      changed: string[];
      tests: ReadonlySet<string>;
    }
  | {
      /** The step edits the file outside its members (a field, a class header): every test of the file. */
      kind: 'File';
      classes: string[];
      tests: ReadonlySet<string>;
    };

/**
 * Per member of one source file (by memberKey), the tests that enter it; plus the tests that enter
 * the file where no member can be told (no line information), which every change selects.
 */
export class TestReach {
  private constructor(
    readonly file: string,
    private readonly byMember: ReadonlyMap<string, ReadonlySet<string>>,
    private readonly unplaced: ReadonlySet<string>,
    private readonly wholeFile: ReadonlySet<string>,
  ) {}

  /** From tests traced on the version `source` of `file`: a member is entered where its lines are. */
  static fromTraces(file: string, source: string, tests: readonly TracedTest[]): TestReach {
    return withJavaTree(source, (root) => {
      const spans = [...members(root)].map(([key, node]) => ({
        key,
        first: node.startPosition.row + 1,
        last: node.endPosition.row + 1,
      }));
      const byMember = new Map<string, Set<string>>(spans.map((span) => [span.key, new Set()]));
      const unplaced = new Set<string>();
      const wholeFile = new Set<string>();
      for (const test of tests) {
        const id = testId(test.testClass, test.testMethod);
        for (const method of test.entered) {
          if (!compiledFrom(method, file)) continue;
          wholeFile.add(id);
          const line = method.line;
          if (line === null) {
            unplaced.add(id);
            continue;
          }
          // A lambda's or an anonymous class's code counts for every member it is written in; code
          // outside members (initialisers, implicit constructors) only for edits outside them.
          for (const span of spans) {
            if (span.first <= line && line <= span.last) byMember.get(span.key)!.add(id);
          }
        }
      }
      return new TestReach(file, byMember, unplaced, wholeFile);
    });
  }

  /** The tests a change of the file from `before` to `after` can affect. */
  select(before: string, after: string): StepSelection {
    return withJavaTrees(before, after, (a, b) => {
      const old = classSkeletons(a);
      const now = classSkeletons(b);
      // A class the step adds is used only from code the step edits: its members are enough.
      const classes = [...old].filter(([path, skeleton]) => now.get(path) !== skeleton);
      if (classes.length > 0) {
        return { kind: 'File', classes: classes.map(([path]) => path), tests: this.wholeFile };
      }
      const changed = changedMembers(a, b).flatMap((change) => (change.before ? [change.key] : []));
      const tests = new Set(this.unplaced);
      for (const key of changed)
        for (const id of this.byMember.get(key) ?? this.wholeFile) tests.add(id);
      return { kind: 'Members', changed, tests };
    });
  }

  /**
   * The tests that enter the member of `source` (the file's version this map follows) holding
   * `offset`, the innermost when members nest; code outside every member, every test of the file.
   */
  entering(source: string, offset: number): ReadonlySet<string> {
    const key = withJavaTree(source, (root) => {
      let innermost: { key: string; size: number } | undefined;
      for (const [key, node] of members(root)) {
        if (offset < node.startIndex || offset >= node.endIndex) continue;
        const size = node.endIndex - node.startIndex;
        if (!innermost || size < innermost.size) innermost = { key, size };
      }
      return innermost?.key;
    });
    const tests = new Set(this.unplaced);
    for (const id of (key && this.byMember.get(key)) || this.wholeFile) tests.add(id);
    return tests;
  }

  /**
   * The map for the file after a kept step (`after`, its new version): members it edits in place
   * keep their tests, and members it adds take every test it selected.
   */
  after(after: string, selection: StepSelection): TestReach {
    const byMember = withJavaTree(after, (root) => {
      const next = new Map<string, ReadonlySet<string>>();
      for (const key of members(root).keys())
        next.set(key, this.byMember.get(key) ?? selection.tests);
      return next;
    });
    return new TestReach(this.file, byMember, this.unplaced, this.wholeFile);
  }
}

/** A test class traced on the buggy state, with its test methods. */
export interface TracedClass {
  testClass: string;
  tests: readonly TracedTest[];
}

/** One class's part of a step's validation: only `methods`, or the whole class when absent. */
export interface ClassRun {
  testClass: string;
  methods?: string[];
}

export interface RunPlan {
  runs: ClassRun[];
  /** Test methods the runs execute, and the methods the classes have in all. */
  methodsRun: number;
  methodsInClasses: number;
}

/**
 * Whether `names` can be run by name: the runner selects a method of the class itself by its name,
 * so nested classes' methods, and names that several tests share (parameterised or repeated
 * tests), are run with their whole class.
 */
function runnableByName(traced: TracedClass, names: readonly string[]): boolean {
  const own = traced.tests.filter((test) => test.declaringClass === traced.testClass);
  const counts = new Map<string, number>();
  for (const test of traced.tests)
    counts.set(test.testMethod, (counts.get(test.testMethod) ?? 0) + 1);
  return own.length === traced.tests.length && names.every((name) => counts.get(name) === 1);
}

/**
 * The runs validating a step: the witness's failing methods and its tests that `selected` holds,
 * and of every other class the tests `selected` holds (a class with none is not run).
 */
export function planRuns(
  classes: readonly TracedClass[],
  witness: string,
  witnessFailing: readonly string[],
  selected: ReadonlySet<string>,
): RunPlan {
  const runs: ClassRun[] = [];
  let methodsRun = 0;
  let methodsInClasses = 0;
  for (const traced of classes) {
    methodsInClasses += traced.tests.length;
    const isWitness = traced.testClass === witness;
    const names = [
      ...new Set([
        ...(isWitness ? witnessFailing : []),
        ...traced.tests
          .filter((test) => selected.has(testId(test.testClass, test.testMethod)))
          .map((test) => test.testMethod),
      ]),
    ];
    if (names.length === 0) continue;
    if (runnableByName(traced, names)) {
      runs.push({ testClass: traced.testClass, methods: names });
      methodsRun += names.length;
    } else {
      runs.push({ testClass: traced.testClass });
      methodsRun += traced.tests.length;
    }
  }
  return { runs, methodsRun, methodsInClasses };
}

/**
 * The runs profiling a site with selection: the witness's failing methods first, in a run of their
 * own when they can be run by name (a probe records only a class run's first calls, and a hot
 * site's other calls must not crowd out the calls the gate keeps buggy), then the witness's other
 * tests and each other class's tests that `entering` holds. A witness whose failing methods
 * cannot be named alone runs whole, once.
 */
export function profilingRuns(
  classes: readonly TracedClass[],
  witness: string,
  witnessFailing: readonly string[],
  entering: ReadonlySet<string>,
): ClassRun[] {
  return classes.flatMap((traced): ClassRun[] => {
    const isWitness = traced.testClass === witness;
    if (!isWitness || witnessFailing.length === 0 || !runnableByName(traced, witnessFailing)) {
      return planRuns([traced], witness, witnessFailing, entering).runs;
    }
    const failingIds = new Set(witnessFailing.map((method) => testId(witness, method)));
    const rest = new Set([...entering].filter((id) => !failingIds.has(id)));
    return [
      { testClass: witness, methods: [...witnessFailing] },
      ...planRuns([traced], witness, [], rest).runs,
    ];
  });
}

import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import type { TracedMethod } from '../../toolchains/jvm/runner.js';
import {
  planRuns,
  profilingRuns,
  TestReach,
  testId,
  tracedTests,
  type TracedTest,
} from './selection.js';

const FILE = 'src/main/java/p/Box.java';
const BUGGY = `package p;

class Box {
  private int size;

  int size() {
    return size;
  }

  int doubled() {
    return size() * 2;
  }

  int labelled() {
    return Integer.valueOf(size).hashCode();
  }
}
`;

function method(name: string, line: number | null, owner = 'p/Box'): TracedMethod {
  return { owner, name, descriptor: '()I', source: `${owner.slice(2)}.java`, line };
}

function test(testMethod: string, entered: TracedMethod[], testClass = 'p.BoxTest'): TracedTest {
  return { testClass, declaringClass: testClass, testMethod, outcome: 'Passed', entered };
}

const TESTS = [
  test('sizeIsZero', [method('size', 7)]),
  test('doubles', [method('doubled', 11), method('size', 7)]),
  test('labels', [method('labelled', 15)]),
  test('other', [method('run', 3, 'p/Other')]),
  test('usesBoxToo', [method('doubled', 11), method('size', 7)], 'p.UserTest'),
];

beforeAll(loadJavaGrammar);

describe('per-test selection', () => {
  it('cuts a per-test trace into the methods each test entered, the class’s set-up in each', () => {
    const tests = tracedTests('p.BoxTest', {
      trace: {
        log: [2, -1, 0, 1, 0, -2, 1],
        methods: { 0: method('size', 7), 1: method('doubled', 11), 2: method('labelled', 15) },
      },
      tests: [
        { testClass: 'p.BoxTest', testMethod: 'a', outcome: 'Passed', traceIndex: 0 },
        { testClass: 'p.BoxTest', testMethod: 'b', outcome: 'Failed', traceIndex: 1 },
        { testClass: 'p.BoxTest', testMethod: 'c', outcome: 'Skipped' },
      ],
    });
    expect(tests.map((t) => [t.testMethod, t.outcome, t.entered.map((m) => m.name)])).toEqual([
      ['a', 'Passed', ['labelled', 'size', 'doubled']],
      ['b', 'Failed', ['labelled', 'doubled']],
      ['c', 'Skipped', ['labelled']],
    ]);
  });

  it('selects the tests that enter a member the step edits, and no others', () => {
    const reach = TestReach.fromTraces(FILE, BUGGY, TESTS);
    const after = BUGGY.replace('return size() * 2;', 'return size() << 1;');
    const selection = reach.select(BUGGY, after);
    expect(selection).toMatchObject({ kind: 'Members', changed: ['Box.doubled()'] });
    expect([...selection.tests].sort()).toEqual([
      testId('p.BoxTest', 'doubles'),
      testId('p.UserTest', 'usesBoxToo'),
    ]);
  });

  it('gives a member the step adds the tests of the members it edited, for later steps', () => {
    const reach = TestReach.fromTraces(FILE, BUGGY, TESTS);
    const step1 = BUGGY.replace(
      `  int labelled() {
    return Integer.valueOf(size).hashCode();
  }`,
      `  int labelled() {
    return labelOf(size);
  }

  private static int labelOf(int value) {
    return Integer.valueOf(value).hashCode();
  }`,
    );
    const first = reach.select(BUGGY, step1);
    expect([...first.tests]).toEqual([testId('p.BoxTest', 'labels')]);
    const next = reach.after(step1, first);
    const step2 = step1.replace('Integer.valueOf(value).hashCode()', 'Integer.hashCode(value)');
    const second = next.select(step1, step2);
    expect(second).toMatchObject({ kind: 'Members', changed: ['Box.labelOf(int)'] });
    expect([...second.tests]).toEqual([testId('p.BoxTest', 'labels')]);
  });

  it('tells which tests enter the member a probe goes into, the added ones included', () => {
    const reach = TestReach.fromTraces(FILE, BUGGY, TESTS);
    const inDoubled = BUGGY.indexOf('return size() * 2;');
    expect([...reach.entering(BUGGY, inDoubled)].sort()).toEqual([
      testId('p.BoxTest', 'doubles'),
      testId('p.UserTest', 'usesBoxToo'),
    ]);
    // Outside every member: every test entering the file.
    expect(reach.entering(BUGGY, BUGGY.indexOf('private int size;')).size).toBe(4);
    const step = BUGGY.replace(
      'return size() * 2;',
      'return twice(size());\n  }\n\n  private static int twice(int value) {\n    return value * 2;',
    );
    const next = reach.after(step, reach.select(BUGGY, step));
    expect([...next.entering(step, step.indexOf('return value * 2;'))].sort()).toEqual([
      testId('p.BoxTest', 'doubles'),
      testId('p.UserTest', 'usesBoxToo'),
    ]);
  });

  it('selects every test entering the file when a step edits it outside its members', () => {
    const reach = TestReach.fromTraces(FILE, BUGGY, TESTS);
    const selection = reach.select(
      BUGGY,
      BUGGY.replace('private int size;', 'private int size = 1;'),
    );
    expect(selection).toMatchObject({ kind: 'File', classes: ['Box'] });
    expect(selection.tests.size).toBe(4);
  });

  it('leaves out a test whose only hit is code outside members when members change', () => {
    const initialiser = test('initialises', [method('<init>', 3)]);
    const reach = TestReach.fromTraces(FILE, BUGGY, [...TESTS, initialiser]);
    const edited = BUGGY.replace('return size() * 2;', 'return size() << 1;');
    expect(reach.select(BUGGY, edited).tests.has(testId('p.BoxTest', 'initialises'))).toBe(false);
    const header = BUGGY.replace('class Box {', 'final class Box {');
    expect(reach.select(BUGGY, header).tests.has(testId('p.BoxTest', 'initialises'))).toBe(true);
  });

  it('selects a test whose hit in the file has no line wherever the file changes', () => {
    const reach = TestReach.fromTraces(FILE, BUGGY, [
      ...TESTS,
      test('noLines', [method('size', null)]),
    ]);
    const selection = reach.select(
      BUGGY,
      BUGGY.replace('return size() * 2;', 'return size() << 1;'),
    );
    expect(selection.tests.has(testId('p.BoxTest', 'noLines'))).toBe(true);
  });

  it('plans the witness’s failing and selected methods, and skips a class with none', () => {
    const classes = [
      {
        testClass: 'p.BoxTest',
        tests: TESTS.filter((t) => t.testClass === 'p.BoxTest'),
      },
      { testClass: 'p.UserTest', tests: TESTS.filter((t) => t.testClass === 'p.UserTest') },
    ];
    const doubled = new Set([testId('p.BoxTest', 'doubles')]);
    expect(planRuns(classes, 'p.BoxTest', ['labels'], doubled)).toEqual({
      runs: [{ testClass: 'p.BoxTest', methods: ['labels', 'doubles'] }],
      methodsRun: 2,
      methodsInClasses: 5,
    });
    const both = new Set([...doubled, testId('p.UserTest', 'usesBoxToo')]);
    expect(planRuns(classes, 'p.BoxTest', ['labels'], both).runs).toEqual([
      { testClass: 'p.BoxTest', methods: ['labels', 'doubles'] },
      { testClass: 'p.UserTest', methods: ['usesBoxToo'] },
    ]);
  });

  it('profiles the witness’s failing methods in a run of their own, first', () => {
    const classes = [
      { testClass: 'p.BoxTest', tests: TESTS.filter((t) => t.testClass === 'p.BoxTest') },
      { testClass: 'p.UserTest', tests: TESTS.filter((t) => t.testClass === 'p.UserTest') },
    ];
    const entering = new Set([
      testId('p.BoxTest', 'labels'),
      testId('p.BoxTest', 'doubles'),
      testId('p.UserTest', 'usesBoxToo'),
    ]);
    expect(profilingRuns(classes, 'p.BoxTest', ['labels'], entering)).toEqual([
      { testClass: 'p.BoxTest', methods: ['labels'] },
      { testClass: 'p.BoxTest', methods: ['doubles'] },
      { testClass: 'p.UserTest', methods: ['usesBoxToo'] },
    ]);
    // A failing method that cannot be named alone: the witness runs whole, once.
    const repeated = [test('repeats', [method('size', 7)]), test('repeats', [method('size', 7)])];
    expect(
      profilingRuns(
        [{ testClass: 'p.BoxTest', tests: repeated }],
        'p.BoxTest',
        ['repeats'],
        entering,
      ),
    ).toEqual([{ testClass: 'p.BoxTest' }]);
  });

  it('runs a class whole when its selected tests cannot be named alone', () => {
    const repeated = [test('repeats', [method('size', 7)]), test('repeats', [method('size', 7)])];
    const nested = [{ ...test('inner', [method('size', 7)]), declaringClass: 'p.BoxTest$Nested' }];
    const selected = new Set([testId('p.BoxTest', 'repeats'), testId('p.BoxTest', 'inner')]);
    expect(
      planRuns([{ testClass: 'p.BoxTest', tests: repeated }], 'p.BoxTest', [], selected),
    ).toEqual({
      runs: [{ testClass: 'p.BoxTest' }],
      methodsRun: 2,
      methodsInClasses: 2,
    });
    expect(
      planRuns([{ testClass: 'p.BoxTest', tests: nested }], 'p.Witness', [], selected).runs,
    ).toEqual([{ testClass: 'p.BoxTest' }]);
  });
});

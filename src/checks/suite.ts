import { z } from 'zod';
import type { CacheLayout } from '../core/cache.js';
import { describeVerdict, type SingleVerdict } from '../core/verdict.js';
import { failingMethodsOf, verdictFromReports, type SuiteReport } from '../core/test-reports.js';
import type { ProjectState } from '../project/state.js';
import { compiledSources, type WorkingCopy } from '../project/working-copy.js';
import { timeLimit } from '../runners/time-limits.js';
import type { RunTarget, TestRunner } from '../runners/types.js';
import type { Toolchain } from '../toolchains/types.js';
import type { ReferenceRuns } from './runs.js';
import { failed, passed, type CheckOutcome } from './types.js';

/*
 * Whether the rest of a project's suite gives a bug away. A case is worth an agent's attempt only
 * if exposing its bug takes a test the project does not already have: the whole existing suite
 * runs on the case's final buggy state, and every class besides the witness that fails there and
 * passes on clean code gives the bug away. Injection refuses earlier, with `checkNarrow`, a bug
 * whose failures show it breaks a class rather than hides in it.
 */

/** Exceptions that say a class's static initialiser failed: every later use of it fails too. */
const BROKEN_INITIALISER = [
  'java.lang.ExceptionInInitializerError',
  'java.lang.NoClassDefFoundError',
];

/** A class of this many tests or fewer failing wholly says nothing of how broad the bug is. */
const SMALL_CLASS = 2;

/**
 * The bug fails few tests: no failing test of these runs (the witness's and the other classes')
 * meets a broken class initialiser, and no class of more than two tests fails in most of them.
 */
export function checkNarrow(
  runs: readonly { testClass: string; verdict: SingleVerdict }[],
): CheckOutcome<Record<string, never>> {
  for (const { testClass, verdict } of runs) {
    if (verdict.kind !== 'TestFailed' && verdict.kind !== 'TestErrored') continue;
    const broken = verdict.failures.find((failure) =>
      [failure.exceptionType, ...(failure.stack ?? [])].some((line) =>
        BROKEN_INITIALISER.some((name) => line.includes(name)),
      ),
    );
    if (broken) {
      return failed(
        'too-broad',
        `the bug breaks a class's initialisation: ${testClass}.${broken.testMethod} fails with ${broken.exceptionType}`,
        describeVerdict(verdict),
      );
    }
    const ran = verdict.counts.tests - verdict.counts.skipped;
    const failing = Object.keys(failingMethodsOf(verdict)).length;
    if (ran > SMALL_CLASS && failing * 2 > ran) {
      return failed(
        'too-broad',
        `the bug fails most of ${testClass}'s tests (${failing} of ${ran})`,
        describeVerdict(verdict),
      );
    }
  }
  return passed({});
}

/** A class besides the witness that fails on the buggy state and passes on clean code. */
export const CoWitnessSchema = z.strictObject({
  testClass: z.string(),
  /** Its failing test methods and the exception each fails with. */
  failingMethods: z.record(z.string(), z.string()),
});
export type CoWitness = z.infer<typeof CoWitnessSchema>;

/** One run of the whole suite on a case's final state, by one runner. */
export const SuiteRunSchema = z.strictObject({
  runner: z.enum(['jvm', 'maven']),
  /** Classes run besides the witness. */
  classesRun: z.number().int(),
  /** Warm JVM: classes left out because they do not pass on clean code there. */
  leftToMaven: z.number().int().optional(),
  failing: z.array(CoWitnessSchema),
  /**
   * Warm JVM, refusing: the run stopped at the first class that gave the bug away (one is enough
   * to refuse), so `failing` holds that one and the classes after it were not run.
   */
  stoppedAtFirst: z.literal(true).optional(),
  /**
   * Maven: the witness's verdict, which confirms the case when it shows the failures the steps
   * recorded (absent in records written before the suite's run confirmed the witness).
   */
  witness: z.string().optional(),
  /**
   * Maven: the witness did not fail here as the steps recorded (the run shares one JVM among the
   * classes, so one before it may change what it sees), and a run of the witness alone decided.
   */
  witnessRunAlone: z.literal(true).optional(),
  durationMs: z.number(),
});
export type SuiteRun = z.infer<typeof SuiteRunSchema>;

/** The remaining suite exposes the bug: these classes fail on it and pass on clean code. */
export const GivenAwaySchema = z.strictObject({
  kind: z.literal('GivenAway'),
  runs: z.array(SuiteRunSchema),
  classes: z.array(z.string()),
});

/**
 * What the whole-suite check found on a case's final state: nothing else fails (`Contained`);
 * other classes fail and the case is refused (`GivenAway`) or kept with them hidden as
 * co-witnesses (`Hidden`); the suite could not be run to its end (`Unfinished`, refused); or its
 * Maven run, which confirms the witness too, does not (`WitnessRefuted`, refused).
 */
export const SuiteCheckSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('Contained'), runs: z.array(SuiteRunSchema) }),
  GivenAwaySchema,
  z.strictObject({
    kind: z.literal('Hidden'),
    runs: z.array(SuiteRunSchema),
    coWitnesses: z.array(CoWitnessSchema),
  }),
  z.strictObject({
    kind: z.literal('Unfinished'),
    runs: z.array(SuiteRunSchema),
    reason: z.string(),
  }),
  /** Maven does not show the witness failing as the steps recorded: no case (refused). */
  z.strictObject({
    kind: z.literal('WitnessRefuted'),
    runs: z.array(SuiteRunSchema),
    reason: z.string(),
  }),
]);
export type SuiteCheck = z.infer<typeof SuiteCheckSchema>;
export type GivenAway = z.infer<typeof GivenAwaySchema>;

/** What to do with a case whose bug other classes expose: refuse it, or hide them with the witness. */
export type CoWitnessPolicy = 'refuse' | 'hide';

/** The classes that gave the bug away in any run, each with the failures its first run saw. */
export function coWitnessesOf(runs: readonly SuiteRun[]): CoWitness[] {
  const found = new Map<string, CoWitness>();
  for (const run of runs) {
    for (const entry of run.failing)
      if (!found.has(entry.testClass)) found.set(entry.testClass, entry);
  }
  return [...found.values()].sort((a, b) => a.testClass.localeCompare(b.testClass));
}

/** The check's outcome from the runs so far, under the policy. */
export function judgeSuite(runs: readonly SuiteRun[], policy: CoWitnessPolicy): SuiteCheck {
  const coWitnesses = coWitnessesOf(runs);
  if (coWitnesses.length === 0) return { kind: 'Contained', runs: [...runs] };
  return policy === 'hide'
    ? { kind: 'Hidden', runs: [...runs], coWitnesses }
    : { kind: 'GivenAway', runs: [...runs], classes: coWitnesses.map((entry) => entry.testClass) };
}

export interface SuiteClass {
  testClass: string;
  /** Its time in the baseline, for its run's limit. */
  normalMs: number | undefined;
}

/**
 * Every class given (the baseline's usable ones but the witness) in the warm JVM: first on `clean`
 * (once per class and state: `references` keeps the verdicts), then, of those that pass there, on
 * the buggy state `target`. A class that fails there, and again when rerun, is a co-witness. A
 * class the warm JVM cannot pass on clean code (a timeout where Maven is quick, say) is left to
 * Maven's run. With `stopAtFirst` (a check that refuses), the first co-witness ends the run.
 */
export async function runSuiteWarm(
  runner: TestRunner,
  references: ReferenceRuns,
  copy: WorkingCopy,
  clean: ProjectState,
  buggy: ProjectState,
  classes: readonly SuiteClass[],
  build: RunTarget['build'],
  options: { stopAtFirst?: boolean } = {},
): Promise<CheckOutcome<SuiteRun>> {
  const started = performance.now();
  const runnable: SuiteClass[] = [];
  for (const entry of classes) {
    const reference = await references.verdict(copy, clean, entry.testClass, build);
    if (reference.kind === 'Passed') runnable.push({ ...entry, normalMs: reference.testMs });
  }
  const changed = await copy.checkout(buggy);
  const target = { projectDir: copy.root, build, changed: compiledSources(changed) };
  const compiled = await runner.compile(target);
  if (compiled.kind !== 'Compiled') {
    return failed(
      'compile',
      `the buggy state does not build: ${describeVerdict(compiled.verdict)}`,
    );
  }
  const run = (entry: SuiteClass) =>
    runner.run({
      target,
      testClass: entry.testClass,
      timeoutMs: timeLimit(runner.name, 'run', entry.normalMs),
    });
  const failing: CoWitness[] = [];
  let classesRun = 0;
  for (const entry of runnable) {
    classesRun++;
    const first = await run(entry);
    if (first.verdict.kind === 'Passed') continue;
    // A class that fails once in a warm JVM may be flaky there: a give-away fails again.
    const again = await run(entry);
    if (again.verdict.kind === 'Passed') continue;
    failing.push({ testClass: entry.testClass, failingMethods: failingMethodsOf(first.verdict) });
    if (options.stopAtFirst) break;
  }
  return passed({
    runner: 'jvm',
    classesRun,
    leftToMaven: classes.length - runnable.length,
    failing,
    ...(options.stopAtFirst && failing.length > 0 ? { stoppedAtFirst: true as const } : {}),
    durationMs: Math.round(performance.now() - started),
  });
}

/** The top-level class a Surefire report is of (a nested class's report counts for its outer). */
function outerClass(report: SuiteReport): string {
  return report.testClass.split('$')[0]!;
}

/**
 * One `mvn test` of every class on the buggy tree (`target`, built by Maven), read from its
 * Surefire reports: a class besides the witness that fails there and passed in the baseline is a
 * co-witness; the witness's own reports give its verdict, the case's Maven confirmation. A run
 * that ends without its reports (a timeout, a crashed fork) is Unfinished.
 */
export async function runSuiteMaven(
  maven: TestRunner,
  toolchain: Toolchain,
  cache: CacheLayout,
  target: RunTarget,
  options: { witness: string; passedInBaseline: ReadonlySet<string>; timeoutMs: number },
): Promise<CheckOutcome<{ run: SuiteRun; witness: SingleVerdict }>> {
  const started = performance.now();
  const compiled = await maven.compile(target);
  if (compiled.kind !== 'Compiled') {
    return failed(
      'maven',
      `the buggy tree does not build with Maven: ${describeVerdict(compiled.verdict)}`,
    );
  }
  const run = await toolchain.runTests(
    compiled.workDir,
    target.build,
    { repository: cache.mavenRepo, offline: true },
    { timeoutMs: options.timeoutMs },
  );
  if (
    run.verdict.kind === 'Timeout' ||
    run.verdict.kind === 'Crashed' ||
    run.verdict.kind === 'InfraError' ||
    run.verdict.kind === 'CompileError'
  ) {
    return failed('maven', `the whole suite under Maven: ${describeVerdict(run.verdict)}`);
  }
  const witness = verdictFromReports(
    run.reports.filter((report) => outerClass(report) === options.witness),
  );
  const byClass = new Map<string, Record<string, string>>();
  for (const report of run.reports) {
    const testClass = outerClass(report);
    if (testClass === options.witness || !options.passedInBaseline.has(testClass)) continue;
    const failures = report.cases.filter(
      (testCase) => testCase.outcome === 'failure' || testCase.outcome === 'error',
    );
    if (failures.length === 0) continue;
    byClass.set(testClass, {
      ...byClass.get(testClass),
      ...Object.fromEntries(
        failures.map((testCase) => [
          testCase.testMethod,
          testCase.detail?.exceptionType ?? 'unknown',
        ]),
      ),
    });
  }
  return passed({
    run: {
      runner: 'maven',
      classesRun: new Set(run.reports.map(outerClass).filter((name) => name !== options.witness))
        .size,
      failing: [...byClass]
        .map(([testClass, methods]) => ({ testClass, failingMethods: methods }))
        .sort((a, b) => a.testClass.localeCompare(b.testClass)),
      witness: witness.kind,
      durationMs: Math.round(performance.now() - started),
    },
    witness,
  });
}

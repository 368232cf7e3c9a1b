import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { surefireSelects } from '../../core/glob.js';
import { describeVerdict } from '../../core/verdict.js';
import { verdictFromReports, type SuiteReport } from '../../core/test-reports.js';
import { isUsable, type Baseline, type BaselineClass } from '../../project/baseline.js';
import { note, type EventSink } from '../../events/types.js';
import type { Toolchain, ToolchainContext } from '../../toolchains/types.js';
import type { BuildSettings } from '../../toolchains/build-settings.js';
import { projectLayout } from '../../toolchains/layout.js';
import { surefireTestPattern, type TestSelection } from '../../project/recipe.js';

/** JUnit 5 reports nested classes as `Outer$Inner`; replays select the top-level class. */
function topLevelClass(name: string): string {
  const dollar = name.indexOf('$');
  return dollar === -1 ? name : name.slice(0, dollar);
}

function groupByTopLevelClass(reports: SuiteReport[]): Map<string, SuiteReport[]> {
  const groups = new Map<string, SuiteReport[]>();
  for (const report of reports) {
    const key = topLevelClass(report.testClass);
    groups.set(key, [...(groups.get(key) ?? []), report]);
  }
  return groups;
}

function classFromReports(
  testClass: string,
  reports: SuiteReport[],
  runMode: 'suite' | 'alone',
): BaselineClass {
  const verdict = verdictFromReports(reports);
  const counts = 'counts' in verdict ? verdict.counts : null;
  return {
    testClass,
    status: verdict.kind,
    counts,
    durationMs: reports.reduce((sum, report) => sum + report.timeMs, 0),
    usability:
      verdict.kind === 'Passed'
        ? { kind: 'Usable' }
        : { kind: 'Unusable', reason: `on clean code: ${describeVerdict(verdict)}` },
    runMode,
  };
}

/** Top-level compiled test classes, as candidates when the suite run broke off early. */
async function compiledTestClasses(testClassesDir: string): Promise<string[]> {
  let entries;
  try {
    entries = await readdir(testClassesDir, { withFileTypes: true, recursive: true });
  } catch {
    return [];
  }
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.class') && !entry.name.includes('$'))
    .map((entry) =>
      path
        .relative(testClassesDir, path.join(entry.parentPath, entry.name))
        .slice(0, -'.class'.length)
        .split(path.sep)
        .join('.'),
    )
    .sort();
}

const SUREFIRE_DEFAULT_SELECTION = '**/Test*,**/*Test,**/*Tests,**/*TestCase';

export interface BaselineOptions {
  toolchain: Toolchain;
  context: ToolchainContext;
  build: BuildSettings;
  tests: TestSelection;
  events: EventSink;
  /** Run only this many of the selected test classes, spread evenly over them (a check). */
  sample?: number;
}

/**
 * `count` of the compiled test classes the selection picks, evenly spaced in name order, as one
 * `-Dtest` value. Without a selection of the recipe's own, Surefire's default includes choose.
 */
async function sampledSelection(
  projectDir: string,
  options: BaselineOptions,
  count: number,
): Promise<string> {
  const { toolchain, build, tests } = options;
  const pattern = surefireTestPattern(tests) ?? SUREFIRE_DEFAULT_SELECTION;
  const testClassesDir = path.resolve(projectDir, projectLayout(build).testClasses);
  const candidates = (await compiledTestClasses(testClassesDir)).filter((name) =>
    surefireSelects(pattern, name),
  );
  if (candidates.length === 0) throw new Error(`no compiled test class matches ${pattern}`);
  const taken = Math.min(count, candidates.length);
  const picked = Array.from(
    { length: taken },
    (_, index) => candidates[Math.floor((index * candidates.length) / taken)]!,
  );
  return picked.map((testClass) => toolchain.selectClass(testClass)).join(',');
}

/**
 * Runs every selected test class once on clean code, as one suite run; if that run breaks off
 * (timeout, crashed JVM), each class without a report is then run alone with its own limit.
 */
export async function runBaseline(projectDir: string, options: BaselineOptions): Promise<Baseline> {
  const { toolchain, context, build, tests } = options;
  const log = (line: string) => note(options.events, 'baseline', line);
  const selection =
    options.sample === undefined
      ? surefireTestPattern(tests)
      : await sampledSelection(projectDir, options, options.sample);
  log(
    `running the test suite${options.sample === undefined ? '' : ` sampled (${selection})`} (limit ${tests.suiteTimeoutSeconds} s)`,
  );
  const suiteRun = await toolchain.runTests(projectDir, build, context, {
    ...(selection ? { selection } : {}),
    timeoutMs: tests.suiteTimeoutSeconds * 1000,
  });
  const classes = new Map<string, BaselineClass>();
  for (const [testClass, reports] of groupByTopLevelClass(suiteRun.reports)) {
    classes.set(testClass, classFromReports(testClass, reports, 'suite'));
  }

  const brokeOff = ['Timeout', 'Crashed', 'InfraError'].includes(suiteRun.verdict.kind);
  if (brokeOff) {
    log(`suite run ended early (${describeVerdict(suiteRun.verdict)}); running the rest alone`);
    const testClassesDir = path.resolve(projectDir, projectLayout(build).testClasses);
    const candidates = (await compiledTestClasses(testClassesDir)).filter(
      (name) =>
        !classes.has(name) && surefireSelects(selection ?? SUREFIRE_DEFAULT_SELECTION, name),
    );
    for (const testClass of candidates) {
      const run = await toolchain.runTests(projectDir, build, context, {
        selection: toolchain.selectClass(testClass),
        timeoutMs: tests.classTimeoutSeconds * 1000,
      });
      // A class Surefire does not run alone (abstract base, helper) is not a test class.
      if (run.verdict.kind === 'NoTestsRan') continue;
      const entry =
        run.reports.length > 0 && run.verdict.kind !== 'Timeout' && run.verdict.kind !== 'Crashed'
          ? classFromReports(testClass, run.reports, 'alone')
          : {
              testClass,
              status: run.verdict.kind,
              counts: null,
              durationMs: run.durationMs,
              usability: {
                kind: 'Unusable' as const,
                reason: `on clean code: ${describeVerdict(run.verdict)}`,
              },
              runMode: 'alone' as const,
            };
      classes.set(testClass, entry);
      log(`${testClass} alone: ${entry.status}`);
    }
  }

  const sorted = [...classes.values()].sort((a, b) => a.testClass.localeCompare(b.testClass));
  return {
    createdAt: new Date().toISOString(),
    tools: await toolchain.versions(),
    selection: selection ?? null,
    suite: {
      status: suiteRun.verdict.kind,
      durationMs: suiteRun.durationMs,
      description: describeVerdict(suiteRun.verdict),
    },
    classes: sorted,
    usableCount: sorted.filter(isUsable).length,
  };
}

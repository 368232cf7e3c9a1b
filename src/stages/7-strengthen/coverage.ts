import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import {
  ensureJacoco,
  jacocoAgentArg,
  readLineCoverage,
  type MeasuredLineCoverage,
} from '../../coverage/jacoco.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { describeVerdict } from '../../core/verdict.js';
import { baselineClass } from '../../project/baseline.js';
import type { ProjectState } from '../../project/state.js';
import { compiledSources, type WorkingCopy } from '../../project/working-copy.js';
import type { RepairSubject } from '../../repair/project.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { TestRunner } from '../../runners/types.js';

/*
 * Slice coverage (SWE-ABS A.3.3): the share of a patch's relevant lines that a set of test classes
 * executes, measured by JaCoCo's agent under Maven on the gold tree, with the missed lines listed
 * so that generation can aim at them.
 */

/** Relevant lines per project-relative production file. */
export type RelevantLines = ReadonlyMap<string, readonly number[]>;

export interface FileSliceCoverage {
  file: string;
  /** Relevant lines that carry code in the class files (JaCoCo's lines). */
  relevant: number[];
  covered: number[];
  missed: number[];
}

export type SliceCoverage =
  | { kind: 'Measured'; files: FileSliceCoverage[]; relevant: number; covered: number }
  | { kind: 'NotMeasured'; reason: string };

/** `org/example/Foo.java` for `src/main/java/org/example/Foo.java`, as JaCoCo keys sources. */
export function sourceRootRelative(mainSources: string, file: string): string {
  return file.startsWith(`${mainSources}/`) ? file.slice(mainSources.length + 1) : file;
}

/** JaCoCo's include pattern for the package of a source-root-relative file. */
export function packagePattern(sourceRelative: string): string {
  const dir = path.posix.dirname(sourceRelative);
  return dir === '.' ? '*' : `${dir.replace(/\//g, '.')}.*`;
}

/** The relevant lines' coverage in a measured report. */
export function sliceCoverageOf(
  coverage: MeasuredLineCoverage,
  relevant: RelevantLines,
  mainSources: string,
): Extract<SliceCoverage, { kind: 'Measured' }> {
  const files: FileSliceCoverage[] = [];
  for (const [file, lines] of [...relevant].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const states = coverage.files.get(sourceRootRelative(mainSources, file));
    const withCode = [...new Set(lines)].filter((line) => states?.has(line)).sort((a, b) => a - b);
    files.push({
      file,
      relevant: withCode,
      covered: withCode.filter((line) => states!.get(line) === 'covered'),
      missed: withCode.filter((line) => states!.get(line) === 'missed'),
    });
  }
  const count = (pick: (file: FileSliceCoverage) => number[]) =>
    files.reduce((sum, file) => sum + pick(file).length, 0);
  return {
    kind: 'Measured',
    files,
    relevant: count((file) => file.relevant),
    covered: count((file) => file.covered),
  };
}

/**
 * Runs `testClasses` (each with its named methods, or whole) on `state` under Maven with one
 * JaCoCo agent, and reads the relevant lines' coverage. A class that fails still counts for what
 * it ran; one that does not run at all makes the measurement fail, so a number is never a guess.
 */
export async function measureSliceCoverage(
  subject: RepairSubject,
  state: ProjectState,
  relevant: RelevantLines,
  setup: {
    cache: CacheLayout;
    maven: TestRunner;
    copy: WorkingCopy;
    testClasses: ReadonlyMap<string, readonly string[] | null>;
  },
): Promise<SliceCoverage> {
  if (relevant.size === 0) return { kind: 'NotMeasured', reason: 'the slice has no lines' };
  const { project } = subject;
  const { mainSources } = project.layout;
  const jacoco = await ensureJacoco(setup.cache);
  const work = await makeTempDir('slice-coverage');
  try {
    const execFile = path.join(work, 'jacoco.exec');
    const includes = [
      ...new Set(
        [...relevant.keys()].map((file) => packagePattern(sourceRootRelative(mainSources, file))),
      ),
    ];
    const agent = jacocoAgentArg(jacoco.agentJar, execFile, includes);
    const changed = await setup.copy.checkout(state);
    const target = {
      projectDir: setup.copy.root,
      build: project.build,
      changed: compiledSources(changed),
    };
    const compiled = await setup.maven.compile(target);
    if (compiled.kind === 'CompileFailed') {
      return {
        kind: 'NotMeasured',
        reason: `the tree does not build: ${describeVerdict(compiled.verdict)}`,
      };
    }
    for (const [testClass, methods] of setup.testClasses) {
      const normalMs = project.baseline
        ? baselineClass(project.baseline, testClass)?.durationMs
        : undefined;
      const run = await setup.maven.run({
        target,
        testClass,
        ...(methods && methods.length > 0 ? { methods } : {}),
        jvmArgs: [agent],
        timeoutMs: timeLimit(setup.maven.name, 'run', normalMs),
      });
      const kind = run.verdict.kind;
      if (kind !== 'Passed' && kind !== 'TestFailed' && kind !== 'TestErrored') {
        return {
          kind: 'NotMeasured',
          reason: `${testClass} did not run: ${describeVerdict(run.verdict)}`,
        };
      }
    }
    const coverage = await readLineCoverage({
      cliJar: jacoco.cliJar,
      execFile,
      classDirs: [path.join(compiled.workDir, project.layout.mainClasses)],
      timeoutMs: 120_000,
    });
    if (coverage.kind !== 'Measured') {
      return { kind: 'NotMeasured', reason: `JaCoCo wrote no data (${coverage.cause})` };
    }
    return sliceCoverageOf(coverage, relevant, mainSources);
  } finally {
    await removeTree(work);
  }
}

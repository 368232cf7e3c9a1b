import { baselineClass } from '../0-corpus/baseline.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import type { ProjectRef } from '../../project/project.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { TestRunner } from '../../runners/types.js';
import type { ProjectLayout } from '../../toolchains/layout.js';
import { BUG_PATCH } from '../4-archive/archive.js';
import type { CaseRecord } from '../4-archive/case.js';
import { materialiseCase } from '../4-archive/materialize.js';
import { touchedMembers } from '../../lang/java/change.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { changedBuggyLines } from './changed-lines.js';
import type { ChangeCoverage, Diagnosis, Side } from './records.js';

/*
 * The verifier an agent cannot steer. It runs after the agent stopped, in fresh trees it writes
 * itself: the case's buggy tree and the clean tree, both without the witness (a test calling the
 * hidden witness must not compile here either), into which only the submitted test sources are
 * copied. Maven compiles the tests as a step of its own, then runs the submitted class in fresh
 * JVMs; verdicts come from exit codes and the XML reports of the runner's own copies.
 */

/** Lines a test run executed, read from a coverage tool after the run. */
export type LineCoverageRead =
  | {
      kind: 'Read';
      covered: (file: string, lines: readonly number[]) => { lines: number; covered: number };
    }
  | { kind: 'Unavailable'; reason: string };

/** How the verifier records which production lines a run executed (JaCoCo). */
export interface CoverageProbe {
  /** Test-JVM arguments that record the run into `dataFile`. */
  jvmArgs(dataFile: string): string[];
  /** What the run recorded, against the compiled production classes. */
  read(dataFile: string, classesDir: string): Promise<LineCoverageRead>;
}

export interface SubmittedTest {
  /** Project-relative, under the test sources. */
  file: string;
  content: string;
}

export interface VerifySubmissionInput {
  caseDir: string;
  record: CaseRecord;
  project: ProjectRef;
  tests: readonly SubmittedTest[];
  /** Maven, for this verification alone: its copies go at close. */
  maven: TestRunner;
  coverage: CoverageProbe;
  /** Fresh runs per side (3). */
  runs: number;
  /** The whole verification's wall-clock budget. */
  timeoutMs: number;
}

export interface SubmissionVerdict {
  diagnosis: Diagnosis;
  /** The paper's looser criterion: fails on the buggy tree, not by a compile error. */
  paperSuccess: boolean;
  coverage: ChangeCoverage | null;
  /** The class that ran. */
  testClass: string;
  /** Every verdict, in order, for the record. */
  runs: { side: Side; verdict: string }[];
}

/** The class a test file declares, from its path under the test sources. */
export function testClassOf(layout: ProjectLayout, file: string): string {
  return file
    .slice(layout.testSources.length + 1)
    .replace(/\.java$/, '')
    .split('/')
    .join('.');
}

/**
 * The class the verifier runs: the official test's file when the agent wrote it (the prompts ask
 * for it), else the first file declaring a test, else the first file. Other files compile along
 * as support code.
 */
export function primaryTest(tests: readonly SubmittedTest[], officialPath: string): SubmittedTest {
  const first = tests[0];
  if (!first) throw new Error('a submission without tests has no primary test');
  return (
    tests.find((test) => test.file === officialPath) ??
    tests.find((test) =>
      /@(Test|ParameterizedTest|RepeatedTest|TestFactory)\b/.test(test.content),
    ) ??
    first
  );
}

const exposes = (verdict: SingleVerdict) =>
  verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored';

/** A run whose every test was skipped (an assumption) observed nothing. */
function allSkipped(verdict: SingleVerdict): boolean {
  return verdict.kind === 'Passed' && verdict.counts.tests === verdict.counts.skipped;
}

/** What one run's verdict means when it is neither the expected failure nor a pass. */
function runProblem(side: Side, verdict: SingleVerdict): Diagnosis | undefined {
  switch (verdict.kind) {
    case 'Passed':
      return allSkipped(verdict)
        ? { kind: 'NoTestsRan', side, reason: 'every test was skipped' }
        : undefined;
    case 'TestFailed':
    case 'TestErrored':
      return undefined;
    case 'NoTestsRan':
      return { kind: 'NoTestsRan', side, reason: verdict.reason };
    case 'Timeout':
      return { kind: 'TestTimeout', side };
    case 'Crashed':
      return { kind: 'TestCrashed', side, reason: verdict.reason };
    case 'CompileError':
    case 'InfraError':
      return { kind: 'HarnessFault', reason: `${side} run: ${describeVerdict(verdict)}` };
  }
}

/** What a failed compile of a side means: the agent's test, or the harness's tree. */
export function compileDiagnosis(side: Side, verdict: SingleVerdict): Diagnosis {
  if (verdict.kind === 'CompileError' && verdict.scope === 'test') {
    const messages = verdict.messages.map(
      (message) => `${message.file}:${message.line ?? '?'}: ${message.message}`,
    );
    // A test using what only the buggy tree has (a helper a transformation made) is no witness.
    return side === 'buggy'
      ? { kind: 'DoesNotCompile', messages }
      : { kind: 'FailsOnClean', verdict: describeVerdict(verdict) };
  }
  return {
    kind: 'HarnessFault',
    reason: `compiling the ${side} tree: ${describeVerdict(verdict)}`,
  };
}

/**
 * The diagnosis of a submitted test from its runs: `buggy` and `clean` hold the runs made, in
 * order (the verifier stops at the first run that settles the answer); `reached` says whether the
 * first buggy run executed a member the bug changed.
 */
export function diagnoseRuns(
  buggy: readonly SingleVerdict[],
  clean: readonly SingleVerdict[],
  reached: boolean,
): Diagnosis {
  const first = buggy[0];
  if (!first) throw new Error('no buggy run to diagnose');
  const firstProblem = runProblem('buggy', first);
  if (firstProblem) return firstProblem;
  if (first.kind === 'Passed') return reached ? { kind: 'NotTriggered' } : { kind: 'NotReached' };
  if (buggy.some((run) => run.kind !== first.kind)) {
    return { kind: 'Flaky', side: 'buggy', kinds: buggy.map((run) => run.kind) };
  }
  const cleanFirst = clean[0];
  if (!cleanFirst) throw new Error('no clean run to diagnose');
  if (clean.some((run) => run.kind !== cleanFirst.kind)) {
    return { kind: 'Flaky', side: 'clean', kinds: clean.map((run) => run.kind) };
  }
  const cleanProblem = runProblem('clean', cleanFirst);
  if (cleanProblem) return cleanProblem;
  if (exposes(cleanFirst)) return { kind: 'FailsOnClean', verdict: describeVerdict(cleanFirst) };
  return reached ? { kind: 'Success' } : { kind: 'BugNotExecuted' };
}

/**
 * The bug members a failure's stack trace (from the harness's XML report) passes through, with a
 * line inside the member. JaCoCo marks no line of a method that an exception left before its
 * first probe — a null dereference on a method's first line — so coverage alone would call the
 * plainest witness one that never ran the bug.
 */
export function membersOnStack(record: CaseRecord, verdict: SingleVerdict): Set<string> {
  const reached = new Set<string>();
  if (!exposes(verdict)) return reached;
  const frames = verdict.failures.flatMap((failure) => failure.stack ?? failure.frames);
  for (const member of record.bugMembers) {
    const range = member.buggyLines;
    if (!range) continue;
    const prefix = `${member.binaryClass}.${member.name}(`;
    const hit = frames.some((frame) => {
      if (!frame.startsWith(prefix)) return false;
      const line = Number(/:(\d+)\)$/.exec(frame)?.[1]);
      return line >= range.first && line <= range.last;
    });
    if (hit) reached.add(member.key);
  }
  return reached;
}

/** A production file's path as coverage names it: relative to the source root. */
function sourceRelative(layout: ProjectLayout, file: string): string {
  return file.slice(layout.mainSources.length + 1);
}

/** Whether a run executed any line of a member, given its line range in the run's file. */
function rangeRan(
  read: Extract<LineCoverageRead, { kind: 'Read' }>,
  layout: ProjectLayout,
  file: string,
  range: { first: number; last: number },
): boolean {
  const lines = Array.from({ length: range.last - range.first + 1 }, (_, i) => range.first + i);
  return read.covered(sourceRelative(layout, file), lines).covered > 0;
}

/** How much of the bug the first buggy run executed. */
async function changeCoverage(
  input: VerifySubmissionInput,
  read: Extract<LineCoverageRead, { kind: 'Read' }>,
  onStack: ReadonlySet<string>,
): Promise<ChangeCoverage> {
  const { record, project } = input;
  const bugPatch = await readFile(path.join(input.caseDir, BUG_PATCH), 'utf8');
  let lines = 0;
  let covered = 0;
  for (const [file, changed] of changedBuggyLines(bugPatch)) {
    if (!file.startsWith(`${project.layout.mainSources}/`)) continue;
    const counted = read.covered(sourceRelative(project.layout, file), changed);
    lines += counted.lines;
    covered += counted.covered;
  }
  const members = record.bugMembers.map((member) => ({
    key: member.key,
    reached:
      onStack.has(member.key) ||
      (member.buggyLines !== null &&
        rangeRan(read, project.layout, member.file, member.buggyLines)),
  }));
  return { lines, covered, members };
}

/**
 * The members the bug removed (an `equals(Object)` turned into an overload, a deleted
 * `hashCode`) that the clean run executed: such a bug has no buggy line to run, its witness runs
 * the clean member the buggy code no longer has. Their clean lines come from the clean files.
 */
async function removedMembersRun(
  input: VerifySubmissionInput,
  buggyTree: string,
  removed: readonly CaseRecord['bugMembers'][number][],
  read: Extract<LineCoverageRead, { kind: 'Read' }>,
): Promise<Set<string>> {
  const { project } = input;
  const ran = new Set<string>();
  await loadJavaGrammar();
  for (const file of new Set(removed.map((member) => member.file))) {
    const clean = await readFile(path.join(project.root, file), 'utf8');
    const buggy = await readFile(path.join(buggyTree, file), 'utf8');
    // Seen from buggy to clean, a removed member is one the "after" side has.
    const inClean = touchedMembers({ file, before: buggy, after: clean });
    for (const member of removed.filter((m) => m.file === file)) {
      const range = inClean.find((m) => m.key === member.key)?.buggyLines;
      if (range && rangeRan(read, project.layout, file, range)) ran.add(member.key);
    }
  }
  return ran;
}

/**
 * A fresh tree of one side of a case, the witness left out, with the submitted tests written in:
 * what the verifier, and the harness's replay for a sandboxed agent, run.
 */
export async function writeTestTree(
  input: Pick<VerifySubmissionInput, 'caseDir' | 'record' | 'project' | 'tests'>,
  side: Side,
  destination: string,
): Promise<void> {
  const outcome = await materialiseCase(input.caseDir, input.record, input.project, destination, {
    side,
    hideWitness: true,
  });
  if (outcome.kind === 'Corrupt') throw new Error(`case ${input.record.id}: ${outcome.reason}`);
  for (const test of input.tests) {
    const target = path.join(destination, test.file);
    await mkdir(path.dirname(target), { recursive: true });
    await writeFile(target, test.content);
  }
}

/** Verifies a submission: see the module comment. Throws only on faults of the harness. */
export async function verifySubmission(input: VerifySubmissionInput): Promise<SubmissionVerdict> {
  const { project, maven, record } = input;
  const deadline = Date.now() + input.timeoutMs;
  const remaining = () => Math.max(1000, deadline - Date.now());
  const testClass = testClassOf(
    project.layout,
    primaryTest(input.tests, record.officialTest.path).file,
  );
  const normalMs = baselineClass(project.baseline, testClass)?.durationMs;
  const runLimit = () => Math.min(timeLimit('maven', 'run', normalMs), remaining());
  const runs: SubmissionVerdict['runs'] = [];
  const verdict = (
    diagnosis: Diagnosis,
    coverage: ChangeCoverage | null,
    buggy: readonly SingleVerdict[],
  ): SubmissionVerdict => ({
    diagnosis,
    paperSuccess: buggy[0] !== undefined && exposes(buggy[0]),
    coverage,
    testClass,
    runs,
  });

  const scratch = await makeTempDir('verify-submission');
  try {
    const trees = { buggy: path.join(scratch, 'buggy'), clean: path.join(scratch, 'clean') };
    const compileSide = async (side: Side) => {
      await writeTestTree(input, side, trees[side]);
      const target = { projectDir: trees[side], build: project.build, changed: [] };
      return { target, compiled: await maven.compile(target, remaining()) };
    };
    const runSide = async (
      side: Side,
      target: Awaited<ReturnType<typeof compileSide>>['target'],
      jvmArgs?: string[],
    ): Promise<SingleVerdict> => {
      const run = await maven.run({
        target,
        testClass,
        timeoutMs: runLimit(),
        ...(jvmArgs ? { jvmArgs } : {}),
      });
      runs.push({ side, verdict: describeVerdict(run.verdict) });
      return run.verdict;
    };

    const buggySide = await compileSide('buggy');
    if (buggySide.compiled.kind === 'CompileFailed') {
      return verdict(compileDiagnosis('buggy', buggySide.compiled.verdict), null, []);
    }
    const dataFile = path.join(scratch, 'coverage.exec');
    const buggyRuns = [await runSide('buggy', buggySide.target, input.coverage.jvmArgs(dataFile))];
    const read = await input.coverage.read(
      dataFile,
      path.join(buggySide.compiled.workDir, project.layout.mainClasses),
    );
    const firstBuggy = buggyRuns[0]!;
    const coverage =
      read.kind === 'Read'
        ? await changeCoverage(input, read, membersOnStack(record, firstBuggy))
        : null;
    if (!coverage && (firstBuggy.kind === 'Passed' || exposes(firstBuggy))) {
      // Whether the test reached the bug decides the verdict: without it there is none.
      return verdict(
        { kind: 'HarnessFault', reason: `coverage: ${(read as { reason: string }).reason}` },
        null,
        buggyRuns,
      );
    }
    const reached = coverage?.members.some((member) => member.reached) ?? false;
    const settled = () => diagnoseRuns(buggyRuns, [], reached);
    if (!exposes(firstBuggy)) return verdict(settled(), coverage, buggyRuns);
    while (buggyRuns.length < input.runs) {
      buggyRuns.push(await runSide('buggy', buggySide.target));
      if (buggyRuns.some((run) => run.kind !== firstBuggy.kind)) {
        return verdict(settled(), coverage, buggyRuns);
      }
    }

    const cleanSide = await compileSide('clean');
    if (cleanSide.compiled.kind === 'CompileFailed') {
      return verdict(compileDiagnosis('clean', cleanSide.compiled.verdict), coverage, buggyRuns);
    }
    const removed = record.bugMembers.filter((member) => member.buggyLines === null);
    const cleanDataFile = path.join(scratch, 'coverage-clean.exec');
    const cleanRuns: SingleVerdict[] = [];
    while (cleanRuns.length < input.runs) {
      const recording = cleanRuns.length === 0 && removed.length > 0;
      cleanRuns.push(
        await runSide(
          'clean',
          cleanSide.target,
          recording ? input.coverage.jvmArgs(cleanDataFile) : undefined,
        ),
      );
      const last = cleanRuns[cleanRuns.length - 1]!;
      // A failure or a problem on the clean tree settles it; only passes need all runs.
      if (last.kind !== 'Passed' || allSkipped(last)) break;
    }
    let withRemoved = coverage;
    if (coverage && removed.length > 0) {
      const cleanRead = await input.coverage.read(
        cleanDataFile,
        path.join(cleanSide.compiled.workDir, project.layout.mainClasses),
      );
      if (cleanRead.kind === 'Read') {
        const ran = await removedMembersRun(input, trees.buggy, removed, cleanRead);
        withRemoved = {
          ...coverage,
          members: coverage.members.map((member) =>
            ran.has(member.key) ? { ...member, reached: true } : member,
          ),
        };
      }
    }
    const reachedAnywhere = withRemoved?.members.some((member) => member.reached) ?? false;
    return verdict(diagnoseRuns(buggyRuns, cleanRuns, reachedAnywhere), withRemoved, buggyRuns);
  } finally {
    await removeTree(scratch);
  }
}

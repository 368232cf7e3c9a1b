import { baselineClass } from '../../project/baseline.js';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import { removeTree, sha256Text } from '../../core/fs.js';
import { seededRandom, shuffled } from '../../core/random.js';
import { coverageOfLines, readLineCoverage } from '../../coverage/jacoco.js';
import type { ProjectRef } from '../../project/project.js';
import { timeLimit } from '../../runners/time-limits.js';
import {
  compileTests,
  runTestClass,
  type EnteredMethod,
  type JavaSandboxSetup,
  type TestCompileOutcome,
} from '../../sandbox/java-runs.js';
import type { ProjectLayout } from '../../toolchains/layout.js';
import { BUG_PATCH } from '../4-archive/archive.js';
import type { CaseRecord } from '../4-archive/case.js';
import { materialiseCase } from '../4-archive/materialise.js';
import { touchedMembers } from '../../lang/java/change.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { changedBuggyLines } from './changed-lines.js';
import type { PreparedSide } from './prepared-case.js';
import type { ChangeCoverage, Diagnosis, Side } from './records.js';
import { productionClassNames, screenSubmission } from '../../sandbox/screen.js';

/*
 * The verifier an agent cannot steer. It runs after the agent stopped, over the submitted test
 * sources only, against the harness's own builds of the case's buggy and clean sides (both without
 * the witness; see prepared-case.ts). Every compile and run of the submission is untrusted code
 * and happens in a fresh sandbox (src/sandbox/java-runs.ts) in which the two sides look the same:
 * same paths, environment and files, no production sources, production classes only in memory.
 * The fresh runs of both sides go in a seeded random order, so no run can tell which side it is,
 * or how many runs came before, except by how the production code behaves.
 *
 * Whether the bug ran is evidence the harness gathers in runs of their own, apart from the verdict
 * runs: JaCoCo's line coverage of the changed lines, and the launcher's trace of the methods
 * entered and the lines started (JaCoCo marks no line an exception left before a later probe ran:
 * commons-csv's inverted `if (headerMap != null)` followed by a null dereference in the same block
 * showed none of its lines covered). A stack trace is no evidence: the test writes its own.
 */

/** Lines a test run executed, read from a coverage tool after the run. */
export type LineCoverageRead =
  | {
      kind: 'Read';
      covered: (file: string, lines: readonly number[]) => { lines: number; covered: number };
    }
  | { kind: 'Unavailable'; reason: string };

export interface SubmittedTest {
  /** Project-relative, under the test sources. */
  file: string;
  content: string;
}

/** The harness's builds of a case's sides, and how to run untrusted Java on them. */
export interface VerifierTools {
  prepared: (side: Side) => Promise<PreparedSide>;
  setup: JavaSandboxSetup;
  /** JaCoCo's jars: the agent goes into a coverage run, the CLI reads its data. */
  jacoco: { agentJar: string; cliJar: string };
}

export interface VerifySubmissionInput {
  caseDir: string;
  record: CaseRecord;
  project: ProjectRef;
  tests: readonly SubmittedTest[];
  tools: VerifierTools;
  /** Fresh runs per side (3). */
  runs: number;
  /** The whole verification's wall-clock budget. */
  timeoutMs: number;
  /** Run the static screen before anything else (see score.ts). */
  screen: boolean;
}

export interface SubmissionVerdict {
  diagnosis: Diagnosis;
  /** The paper's looser criterion: fails on the buggy tree, not by a compile error. */
  paperSuccess: boolean;
  coverage: ChangeCoverage | null;
  /** The class that ran. */
  testClass: string;
  /** Every verdict run, in the order made. */
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

/** What a failed compile of a side means: on the buggy tree the agent's error, on the clean one a wrong oracle. */
export function compileDiagnosis(side: Side, outcome: TestCompileOutcome): Diagnosis {
  switch (outcome.kind) {
    case 'Compiled':
      throw new Error('a compiled test has no compile diagnosis');
    case 'Timeout':
      return { kind: 'TestTimeout', side };
    case 'CompileFailed':
      // A test using what only the buggy tree has (a helper a transformation made) is no witness;
      // of the clean tree nothing but that is said.
      return side === 'buggy'
        ? {
            kind: 'DoesNotCompile',
            messages: outcome.messages.map(
              (message) => `${message.file}:${message.line ?? '?'}: ${message.message}`,
            ),
          }
        : { kind: 'FailsOnClean', verdict: 'does not compile against the fixed code' };
  }
}

/**
 * The diagnosis of a submitted test from its runs: `buggy` and `clean` hold each side's runs, in
 * the order made (the verifier makes them all, the sides interleaved in a seeded order, so no run
 * tells the test which side it is on); `reached` says whether the first buggy run executed a
 * member the bug changed.
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

/** Whether a traced method is a member: same class and name, its first line inside `range`. */
function enteredMember(
  entered: readonly EnteredMethod[],
  member: { binaryClass: string; name: string },
  range: { first: number; last: number } | null,
): boolean {
  const owner = member.binaryClass.replace(/\./g, '/');
  return entered.some(
    (method) =>
      method.owner === owner &&
      method.name === member.name &&
      (range === null ||
        method.line === null ||
        (method.line >= range.first && method.line <= range.last)),
  );
}

/** The bug's changed lines of a member, in the buggy file. */
function changedIn(
  member: CaseRecord['bugMembers'][number],
  changed: ReadonlyMap<string, readonly number[]>,
): number[] {
  const range = member.buggyLines;
  if (!range) return [];
  return (changed.get(member.file) ?? []).filter(
    (line) => line >= range.first && line <= range.last,
  );
}

/**
 * The bug members a trace run saw run a changed line: the line started (the trace hits each
 * line as it starts), or the member was entered and its first line of code is a changed one.
 * JaCoCo marks no line an exception left before a later probe ran. Entering a member elsewhere is
 * no evidence: a test can enter it without running what the bug changed.
 */
export function membersEntered(
  record: CaseRecord,
  entered: readonly EnteredMethod[],
  changed: ReadonlyMap<string, readonly number[]>,
): Set<string> {
  const reached = new Set<string>();
  for (const member of record.bugMembers) {
    const lines = changedIn(member, changed);
    const owner = member.binaryClass.replace(/\./g, '/');
    const hit = entered.some(
      (method) =>
        method.owner === owner &&
        method.name === member.name &&
        method.line !== null &&
        lines.includes(method.line),
    );
    if (hit) reached.add(member.key);
  }
  return reached;
}

/** A production file's path as coverage names it: relative to the source root. */
function sourceRelative(layout: ProjectLayout, file: string): string {
  return file.slice(layout.mainSources.length + 1);
}

/**
 * How much of the bug the coverage run executed: the changed lines covered, and per member
 * whether a changed line of it ran (covered, or entered as its first line: see membersEntered).
 */
async function changeCoverage(
  input: VerifySubmissionInput,
  read: Extract<LineCoverageRead, { kind: 'Read' }>,
  entered: readonly EnteredMethod[],
): Promise<ChangeCoverage> {
  const { record, project } = input;
  const bugPatch = await readFile(path.join(input.caseDir, BUG_PATCH), 'utf8');
  const changed = new Map(
    [...changedBuggyLines(bugPatch)].filter(([file]) =>
      file.startsWith(`${project.layout.mainSources}/`),
    ),
  );
  let lines = 0;
  let covered = 0;
  for (const [file, inFile] of changed) {
    const counted = read.covered(sourceRelative(project.layout, file), inFile);
    lines += counted.lines;
    covered += counted.covered;
  }
  const enteredAtChange = membersEntered(record, entered, changed);
  const members = record.bugMembers.map((member) => ({
    key: member.key,
    reached:
      enteredAtChange.has(member.key) ||
      read.covered(sourceRelative(project.layout, member.file), changedIn(member, changed))
        .covered > 0,
  }));
  return { lines, covered, members };
}

/**
 * The members the bug removed (an `equals(Object)` turned into an overload, a deleted
 * `hashCode`) that a clean trace run entered: such a bug has no buggy line to run, its witness runs
 * the clean member the buggy code no longer has. Their clean lines come from the clean files.
 */
async function removedMembersEntered(
  input: VerifySubmissionInput,
  buggySources: string,
  removed: readonly CaseRecord['bugMembers'][number][],
  entered: readonly EnteredMethod[],
): Promise<Set<string>> {
  const { project } = input;
  const ran = new Set<string>();
  await loadJavaGrammar();
  for (const file of new Set(removed.map((member) => member.file))) {
    const clean = await readFile(path.join(project.root, file), 'utf8');
    const buggy = await readFile(
      path.join(buggySources, sourceRelative(project.layout, file)),
      'utf8',
    );
    // Seen from buggy to clean, a removed member is one the "after" side has.
    const inClean = touchedMembers({ file, before: buggy, after: clean });
    for (const member of removed.filter((m) => m.file === file)) {
      const range = inClean.find((m) => m.key === member.key)?.buggyLines;
      if (range && enteredMember(entered, member, range)) ran.add(member.key);
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

/** The packages JaCoCo records: those of the bug's members. */
function bugPackages(record: CaseRecord): string[] {
  return [
    ...new Set(
      record.bugMembers.map((member) => {
        const dot = member.binaryClass.lastIndexOf('.');
        return dot < 0 ? '*' : `${member.binaryClass.slice(0, dot)}.*`;
      }),
    ),
  ];
}

/** The order of a verification's verdict runs: both sides interleaved, seeded by the submission. */
export function runOrder(runs: number, seedText: string): Side[] {
  const sides: Side[] = [
    ...Array.from({ length: runs }, () => 'buggy' as const),
    ...Array.from({ length: runs }, () => 'clean' as const),
  ];
  return shuffled(sides, seededRandom(Number.parseInt(sha256Text(seedText).slice(0, 8), 16)));
}

/** Verifies a submission: see the module comment. Throws only on faults of the harness. */
export async function verifySubmission(input: VerifySubmissionInput): Promise<SubmissionVerdict> {
  const { project, record, tools } = input;
  const deadline = Date.now() + input.timeoutMs;
  const testClass = testClassOf(
    project.layout,
    primaryTest(input.tests, record.officialTest.path).file,
  );
  const normalMs = baselineClass(project.baseline, testClass)?.durationMs;
  const limits = (): JavaSandboxSetup => ({
    ...tools.setup,
    limits: {
      ...tools.setup.limits,
      wallMs: Math.max(1000, Math.min(timeLimit('maven', 'run', normalMs), deadline - Date.now())),
    },
  });
  const runs: SubmissionVerdict['runs'] = [];
  const verdict = (
    diagnosis: Diagnosis,
    coverage: ChangeCoverage | null,
    firstBuggy?: SingleVerdict,
  ): SubmissionVerdict => ({
    diagnosis,
    paperSuccess: firstBuggy !== undefined && exposes(firstBuggy),
    coverage,
    testClass,
    runs,
  });

  const prepared = { buggy: await tools.prepared('buggy'), clean: await tools.prepared('clean') };
  // The screen explains what the sandbox already makes useless: a test that reads files, the
  // process or class bytes, or forges a stack trace, is named with its line and not run.
  await loadJavaGrammar();
  const findings = input.screen
    ? screenSubmission(input.tests, {
        productionClasses: await productionClassNames(prepared.buggy.sourcesDir),
      })
    : [];
  if (findings.length > 0) {
    return verdict(
      {
        kind: 'Violation',
        violations: findings.map((finding) => ({
          file: finding.file,
          edit: 'added',
          what: finding.kind,
          line: finding.line,
          code: finding.code,
        })),
      },
      null,
    );
  }
  const compiled: Partial<Record<Side, string>> = {};
  const temporary: string[] = [];
  try {
    for (const side of ['buggy', 'clean'] as const) {
      const outcome = await compileTests(prepared[side], input.tests, limits());
      if (outcome.kind !== 'Compiled') return verdict(compileDiagnosis(side, outcome), null);
      compiled[side] = outcome.classes;
      temporary.push(outcome.classes);
    }
    const byside: Record<Side, SingleVerdict[]> = { buggy: [], clean: [] };
    const seed = `${record.id}\0${input.tests.map((test) => `${test.file}\0${test.content}`).join('\0')}`;
    for (const side of runOrder(input.runs, seed)) {
      const run = await runTestClass(prepared[side], compiled[side]!, testClass, limits());
      byside[side].push(run.verdict);
      runs.push({ side, verdict: describeVerdict(run.verdict) });
    }
    const firstBuggy = byside.buggy[0]!;
    if (firstBuggy.kind !== 'Passed' && !exposes(firstBuggy)) {
      return verdict(diagnoseRuns(byside.buggy, byside.clean, false), null, firstBuggy);
    }

    // Evidence that the bug ran, from runs of its own: a coverage run and a trace run on buggy,
    // and a trace run on clean when the bug removed a member.
    const covered = await runTestClass(prepared.buggy, compiled.buggy!, testClass, limits(), {
      coverage: { agentJar: tools.jacoco.agentJar, includes: bugPackages(record) },
    });
    if (covered.coverageData) temporary.push(path.dirname(covered.coverageData));
    let read = await readCoverage(tools, covered.coverageData, prepared.buggy.classesDir);
    if (read.kind !== 'Read') {
      // A run that ended abnormally (the test halted the JVM, or ran out of time) wrote no data:
      // the test's doing, so it gets no coverage; otherwise the harness failed to record it.
      if (covered.verdict.kind !== 'Crashed' && covered.verdict.kind !== 'Timeout') {
        return verdict(
          { kind: 'HarnessFault', reason: `coverage: ${read.reason}` },
          null,
          firstBuggy,
        );
      }
      read = { kind: 'Read', covered: (_file, lines) => ({ lines: lines.length, covered: 0 }) };
    }
    const traced = await runTestClass(prepared.buggy, compiled.buggy!, testClass, limits(), {
      trace: true,
    });
    const coverage = await changeCoverage(input, read, traced.entered ?? []);
    const removed = record.bugMembers.filter((member) => member.buggyLines === null);
    let withRemoved = coverage;
    if (removed.length > 0) {
      const cleanTrace = await runTestClass(prepared.clean, compiled.clean!, testClass, limits(), {
        trace: true,
      });
      const ran = await removedMembersEntered(
        input,
        prepared.buggy.sourcesDir,
        removed,
        cleanTrace.entered ?? [],
      );
      withRemoved = {
        ...coverage,
        members: coverage.members.map((member) =>
          ran.has(member.key) ? { ...member, reached: true } : member,
        ),
      };
    }
    const reached = withRemoved.members.some((member) => member.reached);
    return verdict(diagnoseRuns(byside.buggy, byside.clean, reached), withRemoved, firstBuggy);
  } finally {
    for (const dir of temporary) await removeTree(dir);
  }
}

async function readCoverage(
  tools: VerifierTools,
  dataFile: string | undefined,
  classesDir: string,
): Promise<LineCoverageRead> {
  if (!dataFile) return { kind: 'Unavailable', reason: 'the coverage run wrote no execution data' };
  const coverage = await readLineCoverage({
    cliJar: tools.jacoco.cliJar,
    execFile: dataFile,
    classDirs: [classesDir],
    timeoutMs: 300_000,
  });
  if (coverage.kind !== 'Measured') {
    return { kind: 'Unavailable', reason: `no execution data (${coverage.cause})` };
  }
  return { kind: 'Read', covered: (file, lines) => coverageOfLines(coverage, file, lines) };
}

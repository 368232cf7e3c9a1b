/**
 * Verification time per attempt, before and after the sandboxed verifier (issue 22). For each case
 * of a benchmark, the case's own hidden witness is verified three ways, one case after another:
 *
 * - maven-host: the verifier as it was (commit 89dd0b1), the reference: fresh buggy and clean
 *   trees with the witness hidden and the submission written in, `mvn test-compile` each, the class
 *   run through Surefire on the host up to 3 times on buggy (the first with JaCoCo) and 3 on clean;
 * - sandbox cold: `scoreSubmission` as `evaluate` calls it, the case's prepared sides not yet built
 *   (a case's first attempt);
 * - sandbox warm: the same again with the prepared sides cached (attempts 2 and 3, other settings).
 *
 * So that cold is cold whatever the cache already holds, the sandbox runs get the cache with a
 * scratch root, where the prepared sides are built (the projects, Maven repository and JVM runner
 * are the cache's own). Which of maven-host and the sandbox pair goes first alternates by case, so
 * neither always runs on the warmer machine.
 *
 *   npm run bench:verify-time -- <bench> [--cases K] [--runs 3] [--cache-dir DIR]
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheLayout, resolveCacheDir, type CacheLayout } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { describeVerdict, type SingleVerdict } from '../src/core/verdict.js';
import {
  coverageOfLines,
  ensureJacoco,
  jacocoAgentArg,
  readLineCoverage,
  type JacocoJars,
} from '../src/coverage/jacoco.js';
import { touchedMembers } from '../src/lang/java/change.js';
import { loadJavaGrammar } from '../src/lang/java/syntax.js';
import type { ProjectRef } from '../src/project/project.js';
import { mavenTestRunner } from '../src/runners/maven.js';
import { timeLimit } from '../src/runners/time-limits.js';
import { baselineClass } from '../src/project/baseline.js';
import {
  benchLayout,
  caseIds,
  readCaseFile,
  readHiddenWitness,
} from '../src/stages/4-archive/archive.js';
import type { CaseRecord } from '../src/stages/4-archive/case.js';
import { caseProject } from '../src/stages/4-archive/materialise.js';
import type { Diagnosis, Side } from '../src/stages/5-evaluate/records.js';
import { scoreSubmission } from '../src/stages/5-evaluate/score.js';
import {
  diagnoseRuns,
  primaryTest,
  testClassOf,
  writeTestTree,
  type SubmittedTest,
} from '../src/stages/5-evaluate/verify-submission.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { formatTable } from './lib/candidates.js';

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    // Without it, every case of the benchmark.
    cases: { type: 'string' },
    runs: { type: 'string', default: '3' },
    'cache-dir': { type: 'string' },
  },
});
const benchDir = positionals[0];
if (!benchDir)
  throw new Error('usage: verify-time <bench> [--cases K] [--runs N] [--cache-dir DIR]');
const runs = Number(values.runs);
// evaluate's default --verify-timeout.
const VERIFY_TIMEOUT_MS = 1_200_000;
const cache = cacheLayout(resolveCacheDir(values['cache-dir']));
const bench = benchLayout(benchDir);
const ids = (await caseIds(bench.root)).slice(0, values.cases ? Number(values.cases) : undefined);

interface CaseInput {
  caseDir: string;
  record: CaseRecord;
  project: ProjectRef;
  tests: SubmittedTest[];
}

interface Measured {
  ms: number;
  diagnosis: Diagnosis;
  paperSuccess: boolean;
}

const exposes = (verdict: SingleVerdict) =>
  verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored';

type Covered = (file: string, lines: readonly number[]) => { lines: number; covered: number };

/** What a JaCoCo data file says, against the production classes of a compiled tree. */
async function readCovered(
  jars: JacocoJars,
  dataFile: string,
  tree: string,
  project: ProjectRef,
): Promise<Covered | undefined> {
  const coverage = await readLineCoverage({
    cliJar: jars.cliJar,
    execFile: dataFile,
    classDirs: [path.join(tree, project.layout.mainClasses)],
    timeoutMs: 300_000,
  });
  if (coverage.kind !== 'Measured') return undefined;
  return (file, lines) =>
    coverageOfLines(coverage, file.slice(project.layout.mainSources.length + 1), lines);
}

const ran = (covered: Covered, file: string, range: { first: number; last: number }) =>
  covered(
    file,
    Array.from({ length: range.last - range.first + 1 }, (_, i) => range.first + i),
  ).covered > 0;

/** Whether a failure's stack passes through a line of a member the bug changed (the old evidence). */
function onStack(record: CaseRecord, verdict: SingleVerdict): boolean {
  if (!exposes(verdict)) return false;
  const frames = verdict.failures.flatMap((failure) => failure.stack ?? failure.frames);
  return record.bugMembers.some((member) => {
    const range = member.buggyLines;
    const prefix = `${member.binaryClass}.${member.name}(`;
    return (
      range !== null &&
      frames.some((frame) => {
        const line = Number(/:(\d+)\)$/.exec(frame)?.[1]);
        return frame.startsWith(prefix) && line >= range.first && line <= range.last;
      })
    );
  });
}

/** What a failed compile of a side meant to the old verifier: the test's error, or the harness's. */
function compileDiagnosis(side: Side, verdict: SingleVerdict): Diagnosis {
  if (verdict.kind !== 'CompileError' || verdict.scope !== 'test') {
    return {
      kind: 'HarnessFault',
      reason: `compiling the ${side} tree: ${describeVerdict(verdict)}`,
    };
  }
  return side === 'buggy'
    ? { kind: 'DoesNotCompile', messages: verdict.messages.map((m) => m.message) }
    : { kind: 'FailsOnClean', verdict: describeVerdict(verdict) };
}

/** The old verifier's procedure and its diagnosis (see the module comment). */
async function mavenHost(input: CaseInput, jars: JacocoJars): Promise<Measured> {
  const started = performance.now();
  const { record, project } = input;
  const deadline = Date.now() + VERIFY_TIMEOUT_MS;
  const remaining = () => Math.max(1000, deadline - Date.now());
  const testClass = testClassOf(
    project.layout,
    primaryTest(input.tests, record.officialTest.path).file,
  );
  const normalMs = baselineClass(project.baseline, testClass)?.durationMs;
  const packages = [
    ...new Set(record.bugMembers.map((m) => `${m.binaryClass.replace(/\.[^.]+$/, '')}.*`)),
  ];
  const maven = mavenTestRunner(mavenToolchain, cache);
  const scratch = await makeTempDir('verify-time');
  const done = (diagnosis: Diagnosis, buggy: readonly SingleVerdict[]): Measured => ({
    ms: performance.now() - started,
    diagnosis,
    paperSuccess: buggy[0] !== undefined && exposes(buggy[0]),
  });
  try {
    const compileSide = async (side: Side) => {
      const tree = path.join(scratch, side);
      await writeTestTree(input, side, tree);
      const target = { projectDir: tree, build: project.build, changed: [] };
      return { target, compiled: await maven.compile(target, remaining()) };
    };
    const run = async (target: { projectDir: string }, jvmArgs?: string[]) =>
      (
        await maven.run({
          target: { projectDir: target.projectDir, build: project.build, changed: [] },
          testClass,
          timeoutMs: Math.min(timeLimit('maven', 'run', normalMs), remaining()),
          ...(jvmArgs ? { jvmArgs } : {}),
        })
      ).verdict;

    const buggy = await compileSide('buggy');
    if (buggy.compiled.kind === 'CompileFailed') {
      return done(compileDiagnosis('buggy', buggy.compiled.verdict), []);
    }
    const buggyData = path.join(scratch, 'buggy.exec');
    const buggyRuns = [
      await run(buggy.target, [jacocoAgentArg(jars.agentJar, buggyData, packages)]),
    ];
    const first = buggyRuns[0]!;
    const covered = await readCovered(jars, buggyData, buggy.compiled.workDir, project);
    if (!covered && (first.kind === 'Passed' || exposes(first))) {
      return done({ kind: 'HarnessFault', reason: 'coverage: no execution data' }, buggyRuns);
    }
    let reached =
      onStack(record, first) ||
      record.bugMembers.some(
        (m) => covered !== undefined && m.buggyLines !== null && ran(covered, m.file, m.buggyLines),
      );
    if (!exposes(first)) return done(diagnoseRuns(buggyRuns, [], reached), buggyRuns);
    while (buggyRuns.length < runs) {
      buggyRuns.push(await run(buggy.target));
      if (buggyRuns.some((verdict) => verdict.kind !== first.kind)) {
        return done(diagnoseRuns(buggyRuns, [], reached), buggyRuns);
      }
    }

    const clean = await compileSide('clean');
    if (clean.compiled.kind === 'CompileFailed') {
      return done(compileDiagnosis('clean', clean.compiled.verdict), buggyRuns);
    }
    const removed = record.bugMembers.filter((member) => member.buggyLines === null);
    const cleanData = path.join(scratch, 'clean.exec');
    const cleanRuns: SingleVerdict[] = [];
    while (cleanRuns.length < runs) {
      const recording = cleanRuns.length === 0 && removed.length > 0;
      const verdict = await run(
        clean.target,
        recording ? [jacocoAgentArg(jars.agentJar, cleanData, packages)] : undefined,
      );
      cleanRuns.push(verdict);
      // A failure or a problem on the clean tree settles it; only passes need all runs.
      if (verdict.kind !== 'Passed' || verdict.counts.tests === verdict.counts.skipped) break;
    }
    if (removed.length > 0) {
      const cleanCovered = await readCovered(jars, cleanData, clean.compiled.workDir, project);
      await loadJavaGrammar();
      for (const member of removed) {
        const inClean = touchedMembers({
          file: member.file,
          before: await readFile(path.join(buggy.target.projectDir, member.file), 'utf8'),
          after: await readFile(path.join(project.root, member.file), 'utf8'),
        });
        const range = inClean.find((m) => m.key === member.key)?.buggyLines;
        if (cleanCovered && range && ran(cleanCovered, member.file, range)) reached = true;
      }
    }
    return done(diagnoseRuns(buggyRuns, cleanRuns, reached), buggyRuns);
  } finally {
    await maven.close();
    await removeTree(scratch);
  }
}

/** One attempt as evaluate judges it. */
async function sandbox(input: CaseInput, scoreCache: CacheLayout): Promise<Measured> {
  const started = performance.now();
  const verdict = await scoreSubmission({
    ...input,
    cache: scoreCache,
    runs,
    timeoutMs: VERIFY_TIMEOUT_MS,
  });
  return {
    ms: performance.now() - started,
    diagnosis: verdict.diagnosis,
    paperSuccess: verdict.paperSuccess,
  };
}

const describe = (measured: Measured) =>
  measured.diagnosis.kind === 'HarnessFault'
    ? `HarnessFault (${measured.diagnosis.reason.slice(0, 80)})`
    : measured.diagnosis.kind;
const same = (a: Measured, b: Measured) =>
  a.diagnosis.kind === b.diagnosis.kind && a.paperSuccess === b.paperSuccess;
const seconds = (ms: number) => (ms / 1000).toFixed(1);

const jars = await ensureJacoco(cache);
const scratchRoot = await makeTempDir('verify-time-cache');
const scoreCache: CacheLayout = { ...cache, root: scratchRoot };
const rows: string[][] = [];
const totals = { maven: 0, cold: 0, warm: 0 };
let agreeing = 0;
try {
  for (const [index, id] of ids.entries()) {
    const caseDir = bench.caseDir(id);
    const record = await readCaseFile(caseDir);
    const hidden = await readHiddenWitness(bench.root, id);
    if (hidden.kind === 'Corrupt') throw new Error(`case ${id}: ${hidden.reason}`);
    const input: CaseInput = {
      caseDir,
      record,
      project: await caseProject(record, cache),
      tests: [{ file: hidden.witness.path, content: hidden.text }],
    };
    const sandboxPair = async () => {
      const cold = await sandbox(input, scoreCache);
      // A cold run that built nothing in the scratch root was warm: the measurement would lie.
      const built = await readdir(path.join(scratchRoot, 'evaluation-builds')).catch(() => []);
      if (!built.some((entry) => entry.startsWith(`${id}-`))) {
        throw new Error(`the cold run of ${id} built no prepared side under ${scratchRoot}`);
      }
      return { cold, warm: await sandbox(input, scoreCache) };
    };
    let maven: Measured;
    let pair: { cold: Measured; warm: Measured };
    if (index % 2 === 0) {
      maven = await mavenHost(input, jars);
      pair = await sandboxPair();
    } else {
      pair = await sandboxPair();
      maven = await mavenHost(input, jars);
    }
    totals.maven += maven.ms;
    totals.cold += pair.cold.ms;
    totals.warm += pair.warm.ms;
    const agree = same(maven, pair.cold) && same(maven, pair.warm);
    if (agree) agreeing++;
    rows.push([
      id,
      index % 2 === 0 ? 'maven' : 'sandbox',
      seconds(maven.ms),
      seconds(pair.cold.ms),
      seconds(pair.warm.ms),
      describe(maven),
      describe(pair.cold),
      describe(pair.warm),
      agree ? 'yes' : 'NO',
    ]);
    process.stderr.write(`[${id}] done\n`);
  }
} finally {
  await removeTree(scratchRoot);
}
rows.push([
  'total',
  '',
  seconds(totals.maven),
  seconds(totals.cold),
  seconds(totals.warm),
  '',
  '',
  '',
  `${agreeing}/${ids.length}`,
]);
console.log(
  `Verifying each case's hidden witness (${runs} runs per side), ${ids.length} case(s) of ${bench.root}`,
);
console.log(
  formatTable(
    [
      'case',
      'first',
      'maven-host s',
      'sandbox cold s',
      'sandbox warm s',
      'maven-host diagnosis',
      'sandbox cold diagnosis',
      'sandbox warm diagnosis',
      'agree',
    ],
    rows,
  ),
);
console.log(
  `maven-host / sandbox warm: ${(totals.maven / totals.warm).toFixed(2)}×   maven-host / sandbox cold: ${(totals.maven / totals.cold).toFixed(2)}×`,
);
console.log(
  'agree = same diagnosis kind and paper criterion in all three; warm = prepared sides cached (attempts 2-3, other settings)',
);

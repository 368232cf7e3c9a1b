/**
 * Throughput of `witnessgym build` on this machine: one build of the anchor bug type at every
 * depth on one project, then, from what its stages recorded, cases per hour by depth, the time
 * split by stage (inject, transformation steps, the whole-suite checks, whose Maven run confirms
 * the witness too), the share spent in Maven, step validations per minute with per-test selection
 * against a Maven replay of the same kept steps (the same test runs, after the build, both
 * measured in this run), what a step costs besides validating candidates, and the wall time
 * projected for plans/paper.yaml.
 *
 *   npm run bench:build-throughput [-- --project commons-csv] [--per-cell 3] [--depths 1,3,5,10]
 *     [--type logic_predicate_inversion_in_guard] [--bucket short] [--workers 2] [--seed 1]
 *     [--maven-steps 8] [--same-bug-across-depths] [--co-witnesses refuse|hide]
 *
 * The build goes to a fresh temporary directory and uses the user's cache (fetch the project
 * first). Nothing here is a pass/fail test: it prints what it measured.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cellKey, DEPTHS, loadPlan, planCells } from '../src/pipeline/plan.js';
import { runBuildCommand } from '../src/pipeline/driver.js';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { PhaseClock } from '../src/core/phase-clock.js';
import { makeTempDir } from '../src/core/fs.js';
import { plainSink } from '../src/events/render.js';
import { readRecords, readRecordFile } from '../src/records/record.js';
import { InjectSummaryFile, InjectionLine, RejectionLine } from '../src/stages/2-inject/records.js';
import { loadBugTypeSpecs } from '../src/stages/2-inject/spec.js';
import { loadTransformSpecs } from '../src/stages/3-transform/spec.js';
import { TransformLine, type TransformRecord } from '../src/stages/3-transform/transform.js';
import { BuildCaseLine } from '../src/pipeline/pipeline.js';
import { pristineState } from '../src/project/project.js';
import { compiledSources, WorkingCopy } from '../src/project/working-copy.js';
import { mavenTestRunner } from '../src/runners/maven.js';
import { readCaseFile } from '../src/stages/4-archive/archive.js';
import { caseProject } from '../src/stages/4-archive/materialise.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';

const { values } = parseArgs({
  options: {
    project: { type: 'string', default: 'commons-csv' },
    'per-cell': { type: 'string', default: '3' },
    depths: { type: 'string', default: DEPTHS.join(',') },
    type: { type: 'string', default: 'logic_predicate_inversion_in_guard' },
    bucket: { type: 'string', default: 'short' },
    workers: { type: 'string', default: '2' },
    seed: { type: 'string', default: '1' },
    'maven-steps': { type: 'string', default: '8' },
    // As the paper plan's anchor group builds: one bug at every depth.
    'same-bug-across-depths': { type: 'boolean', default: false },
    // As the README's main job builds: other classes exposing the bug are hidden, not refused.
    'co-witnesses': { type: 'string', default: 'refuse' },
  },
});
const coWitnesses = values['co-witnesses'];
if (coWitnesses !== 'refuse' && coWitnesses !== 'hide') {
  console.error(`--co-witnesses is refuse or hide, not ${coWitnesses}`);
  process.exit(2);
}
const workers = Number(values.workers);
const cache = cacheLayout(resolveCacheDir());
const out = path.join(await makeTempDir('build-throughput'), 'bench');
const clock = new PhaseClock();
const started = Date.now();
const summary = await runBuildCommand(
  [values.project],
  {
    types: values.type,
    depths: values.depths,
    buckets: values.bucket,
    perCell: Number(values['per-cell']),
    sameBugAcrossDepths: values['same-bug-across-depths'],
    coWitnesses,
    seed: Number(values.seed),
    workers,
    out,
    maven: true,
    maxTries: 60,
    spare: 1,
    candidates: 4,
    otherClasses: 5,
    collateralLimit: 25,
    clock,
  },
  cache,
  plainSink((line) => process.stderr.write(`${line}\n`)),
);
const wallMs = Date.now() - started;

// What the stages recorded.
const work = path.join(out, 'work');
const [projectDir] = await readdir(work);
const projectWork = path.join(work, projectDir!);
let injectMs = 0;
let injectMavenMs = 0;
let bugs = 0;
for (const entry of await readdir(projectWork)) {
  if (!entry.startsWith('inject-')) continue;
  const dir = path.join(projectWork, entry);
  const inject = await readRecordFile(path.join(dir, 'summary.json'), InjectSummaryFile);
  injectMs += inject?.durationMs ?? 0;
  const accepted = (await readRecords(path.join(dir, 'injections.jsonl'), InjectionLine)).records;
  const rejected = (await readRecords(path.join(dir, 'rejections.jsonl'), RejectionLine)).records;
  bugs += accepted.length;
  for (const record of [...accepted, ...rejected]) injectMavenMs += record.timings.mavenMs;
}
const transforms = new Map(
  (
    await readRecords(
      path.join(projectWork, `transformed-v${TransformLine.version}.jsonl`),
      TransformLine,
    )
  ).records.map((record) => [record.id, record]),
);
const ledger = (await readRecords(path.join(out, 'build', 'cases.jsonl'), BuildCaseLine)).records;

/**
 * Replays up to `limit` kept steps of the archived cases with Maven, each on its step's state with
 * the witness's failing methods and the selected tests the fast runner validated it with: the
 * time, and how many replays did not agree (the witness must still fail, the others pass).
 */
async function mavenReplay(limit: number) {
  const maven = mavenTestRunner(mavenToolchain, cache);
  let ms = 0;
  let steps = 0;
  let disagreed = 0;
  try {
    for (const entry of ledger) {
      if (entry.outcome.kind !== 'Archived' || steps >= limit) continue;
      const record = transforms.get(entry.transform);
      if (!record || record.outcome.kind !== 'Kept') continue;
      const caseRecord = await readCaseFile(path.join(out, entry.outcome.caseId));
      const project = await caseProject(caseRecord, cache);
      const copy = await WorkingCopy.create(
        project.root,
        pristineState(project),
        project.layout,
        'replay',
      );
      try {
        for (const [index, step] of record.steps.entries()) {
          if (steps >= limit) break;
          const state = {
            ...record.outcome.state,
            patches: record.outcome.state.patches.slice(0, index + 2),
          };
          const changed = await copy.checkout(state);
          const target = {
            projectDir: copy.root,
            build: project.build,
            changed: compiledSources(changed),
          };
          const runs = step.validatedBy ?? [{ testClass: caseRecord.officialTest.class }];
          const replayStarted = performance.now();
          const compiled = await maven.compile(target);
          let agrees = compiled.kind === 'Compiled';
          for (const [runIndex, run] of runs.entries()) {
            if (!agrees) break;
            const result = await maven.run({
              target,
              testClass: run.testClass,
              ...(run.methods ? { methods: run.methods } : {}),
              timeoutMs: 600_000,
            });
            const failed =
              result.verdict.kind === 'TestFailed' || result.verdict.kind === 'TestErrored';
            agrees = runIndex === 0 ? failed : result.verdict.kind === 'Passed';
          }
          ms += performance.now() - replayStarted;
          steps++;
          if (!agrees) disagreed++;
        }
      } finally {
        await copy.close();
      }
    }
  } finally {
    await maven.close();
  }
  return { ms, steps, disagreed };
}

const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
const stepMs = (record: TransformRecord) => sum(record.steps.map((step) => step.durationMs));

interface DepthRow {
  depth: number;
  tried: number;
  archived: number;
  /** Worker time over every bug tried at the depth, short ones included, per archived case. */
  msPerCase: number | null;
  stepsMs: number;
  /** Of the steps' time, validating candidates (the rest finds sites, traces, profiles). */
  validationMs: number;
  /**
   * The whole-suite checks of kept cases: in the warm JVM, and the Maven run of every class (the
   * case's Maven confirmation too).
   */
  suiteWarmMs: number;
  suiteMavenMs: number;
  otherMs: number;
  validations: number;
}
const suiteMs = (entry: (typeof ledger)[number], runner: 'jvm' | 'maven') =>
  sum(
    (entry.suite?.runs ?? []).filter((run) => run.runner === runner).map((run) => run.durationMs),
  );
const rows: DepthRow[] = [];
for (const depth of values.depths.split(',').map(Number)) {
  const entries = ledger.filter((entry) => entry.cell.depth === depth);
  // A record that another sequence's shared steps decided (durationMs 0) carries their steps but
  // ran none of them: its bug's time is counted where they ran.
  const records = entries
    .flatMap((entry) => transforms.get(entry.transform) ?? [])
    .filter((record) => record.durationMs > 0);
  const archived = entries.filter((entry) => entry.outcome.kind === 'Archived').length;
  const workerMs = sum(entries.map((entry) => entry.durationMs));
  const steps = sum(records.map(stepMs));
  const suiteWarm = sum(entries.map((entry) => suiteMs(entry, 'jvm')));
  const suiteMaven = sum(entries.map((entry) => suiteMs(entry, 'maven')));
  rows.push({
    depth,
    tried: entries.length,
    archived,
    msPerCase: archived > 0 ? workerMs / archived : null,
    stepsMs: steps,
    validationMs: sum(records.flatMap((record) => record.steps.map((s) => s.validationMs ?? 0))),
    suiteWarmMs: suiteWarm,
    suiteMavenMs: suiteMaven,
    otherMs: workerMs - steps - suiteWarm - suiteMaven,
    validations: sum(records.flatMap((record) => record.steps.map((s) => s.rejected.length + 1))),
  });
}

const minutes = (ms: number) =>
  ms < 60_000 ? `${(ms / 1000).toFixed(1)} s` : `${(ms / 60_000).toFixed(1)} min`;
const share = (part: number, whole: number) =>
  whole > 0 ? `${((part * 100) / whole).toFixed(0)}%` : '-';
console.log(
  `build ${summary.plan} on ${values.project}, ${values.type} in ${values.bucket} contexts, ${values['per-cell']} per depth, ${workers} workers, seed ${values.seed}, co-witnesses ${coWitnesses}: ${summary.archived}/${summary.wanted} cases in ${minutes(wallMs)}`,
);
console.log(
  'depth  tried  cases  cases/h  s/case   steps  (validating)  suite warm  suite Maven   other  validations/min',
);
for (const row of rows) {
  const perHour = row.msPerCase ? (3_600_000 / row.msPerCase) * workers : 0;
  console.log(
    [
      String(row.depth).padStart(5),
      String(row.tried).padStart(6),
      String(row.archived).padStart(6),
      perHour.toFixed(0).padStart(8),
      (row.msPerCase ? (row.msPerCase / 1000).toFixed(1) : '-').padStart(7),
      minutes(row.stepsMs).padStart(7),
      `(${minutes(row.validationMs)})`.padStart(13),
      minutes(row.suiteWarmMs).padStart(11),
      minutes(row.suiteMavenMs).padStart(12),
      minutes(row.otherMs).padStart(7),
      (row.validationMs > 0
        ? (row.validations / (row.validationMs / 60_000)).toFixed(1)
        : '-'
      ).padStart(16),
    ].join(' '),
  );
}
const allSteps = sum(rows.map((row) => row.stepsMs));
const allSuiteWarm = sum(rows.map((row) => row.suiteWarmMs));
const allSuiteMaven = sum(rows.map((row) => row.suiteMavenMs));
const allOther = sum(rows.map((row) => row.otherMs));
const allValidation = sum(rows.map((row) => row.validationMs));
const allValidations = sum(rows.map((row) => row.validations));
const workerTotal = injectMs + allSteps + allSuiteWarm + allSuiteMaven + allOther;
console.log(
  `time by stage (worker time): inject ${minutes(injectMs)} (${share(injectMs, workerTotal)}), transformation steps ${minutes(allSteps)} (${share(allSteps, workerTotal)}, of which validating candidates ${minutes(allValidation)}), whole-suite checks ${minutes(allSuiteWarm)} warm (${share(allSuiteWarm, workerTotal)}) and ${minutes(allSuiteMaven)} Maven, confirming the witness too (${share(allSuiteMaven, workerTotal)}), setup and whole-class runs ${minutes(allOther)} (${share(allOther, workerTotal)})`,
);
const mavenMs = injectMavenMs + allSuiteMaven;
console.log(
  `share in Maven: ${share(mavenMs, workerTotal)} (inject's Maven checks ${minutes(injectMavenMs)}, whole suites ${minutes(allSuiteMaven)})`,
);
const keptSteps = [...transforms.values()]
  .filter((record) => record.durationMs > 0)
  .reduce((total, record) => total + record.steps.length, 0);
console.log(
  `a step besides validating: ${keptSteps > 0 ? ((allSteps - allValidation) / keptSteps / 1000).toFixed(1) : '-'} s on average (site, source model, the buggy state's traced runs of the other classes, profiling)`,
);

// The same kept steps replayed with Maven: each step's state, the runs that validated it.
const replay = await mavenReplay(Number(values['maven-steps']));
const fastPerMinute = allValidations / (allValidation / 60_000);
if (replay.steps > 0) {
  const mavenPerMinute = replay.steps / (replay.ms / 60_000);
  console.log(
    `step validations: ${fastPerMinute.toFixed(1)}/min with per-test selection (${allValidations} in ${minutes(allValidation)}) vs ${mavenPerMinute.toFixed(2)}/min replaying ${replay.steps} of the kept steps with Maven (the same runs): ${(fastPerMinute / mavenPerMinute).toFixed(1)}×${replay.disagreed > 0 ? `; ${replay.disagreed} replays disagreed with the fast runner` : ''}`,
  );
} else {
  console.log('step validations: no kept step to replay with Maven');
}

// Where the transformations' worker time went, by phase (an operator's own time is what it
// spends besides the source model, profiling, validation and the other classes' runs it asks for).
const phases = new Map(clock.phases());
const nested = ['source model', 'profile', 'validation', 'other classes on the bug'];
const operatorOwn =
  (phases.get('operator') ?? 0) - sum(nested.map((phase) => phases.get(phase) ?? 0));
const phaseRows: [string, number][] = [
  ...[...phases].filter(([phase]) => phase !== 'operator'),
  ['operators (own: sites, candidates, Java syntax)', operatorOwn],
];
const phaseTotal = sum(phaseRows.map(([, ms]) => ms));
console.log(
  `transformation worker time by phase (${minutes(phaseTotal)}): ${phaseRows
    .sort((a, b) => b[1] - a[1])
    .map(
      ([phase, ms]) =>
        `${phase} ${(ms / 1000).toFixed(1)} s (${((100 * ms) / phaseTotal).toFixed(0)}%)`,
    )
    .join(', ')}`,
);

// The paper plan, projected: its cases per depth at this run's cost per case and per bug.
const [types, transformSpecs] = await Promise.all([loadBugTypeSpecs(), loadTransformSpecs()]);
const paper = planCells(await loadPlan('paper'), types, transformSpecs);
const perDepth = new Map<number, number>();
for (const cell of paper) perDepth.set(cell.depth, (perDepth.get(cell.depth) ?? 0) + cell.wanted);
let projectedWorkerMs = 0;
// The Maven run a kept case cannot do without (its whole suite, which confirms it), per case.
let projectedMavenMs = 0;
const missing: number[] = [];
for (const [depth, count] of perDepth) {
  const row = rows.find((entry) => entry.depth === depth && entry.msPerCase !== null);
  if (!row) missing.push(depth);
  else {
    projectedWorkerMs += row.msPerCase! * count;
    projectedMavenMs += (row.suiteMavenMs / row.archived) * count;
  }
}
// A bug serves one case per depth of its cell's type and bucket, so the bugs a plan needs are
// the largest count over the depths of each (type, bucket).
const bugsFor = new Map<string, number>();
for (const cell of paper) {
  const key = `${cell.typeId}/${cell.bucket}`;
  bugsFor.set(key, Math.max(bugsFor.get(key) ?? 0, cell.wanted));
}
const paperBugs = sum([...bugsFor.values()]);
const injectPerBug = bugs > 0 ? injectMs / bugs : 0;
const projectedMs = projectedWorkerMs / workers + injectPerBug * paperBugs;
console.log(
  `plans/paper.yaml (${sum([...perDepth.values()])} cases from ${paperBugs} bugs): projected ${(projectedMs / 3_600_000).toFixed(1)} h on this machine (transformation ${(projectedWorkerMs / workers / 3_600_000).toFixed(1)} h over ${workers} workers, inject ${((injectPerBug * paperBugs) / 3_600_000).toFixed(1)} h at ${(injectPerBug / 1000).toFixed(0)} s per accepted bug, one project at a time); the aim is 2 h${missing.length > 0 ? `; a lower bound: no case at depth ${missing.join(', ')} to project from, so the transformations of ${sum(missing.map((depth) => perDepth.get(depth)!))} of its cases are not counted` : ''}`,
);
console.log(
  `of that, the Maven runs of the cases kept (the whole suite, confirming the witness too, ${share(projectedMavenMs, projectedWorkerMs)} of the transformation time): ${(projectedMavenMs / workers / 3_600_000).toFixed(1)} h over ${workers} workers`,
);
console.log(
  `cells: ${summary.cells.map((cell) => `${cellKey(cell)} ${cell.archived}/${cell.wanted}`).join(', ')}`,
);
console.log(`out: ${out}`);

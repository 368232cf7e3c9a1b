/**
 * Throughput of candidate validation: the same real one-line mutants through the warm JVM and
 * through the Maven replay, in one run. Prints validations per minute for each runner, their
 * ratio, and p50/p95 latency split into compile, load and test time. Each runner JVM is warmed
 * first with other candidates of its project (--warm-up-ms, reported apart), so the figures are
 * those of the long loops the runner exists for.
 *
 *   npm run bench:validation-throughput [-- --projects a,b,c] [--per-project 30] [--seed 1]
 *     [--warm-up-ms 10000] [--out f.jsonl]
 *
 * Without --projects, every corpus project takes part.
 */
import {
  formatTable,
  percentile,
  sideBySideFromCommandLine,
  verdictClass,
  type Validation,
} from './lib/candidates.js';

const { rows, warmUps, seed } = await sideBySideFromCommandLine();

const sum = (vs: Validation[], pick: (v: Validation) => number) =>
  vs.reduce((total, v) => total + pick(v), 0);
const rate = (vs: Validation[]) => vs.length / (sum(vs, (v) => v.wallMs) / 60_000);

function stats(name: string, validations: Validation[]): string[] {
  const overhead = validations.map((v) => v.wallMs - v.testMs);
  const p = (pick: (v: Validation) => number, q: number) =>
    String(percentile(validations.map(pick), q));
  return [
    name,
    String(validations.length),
    rate(validations).toFixed(1),
    `${p((v) => v.compileMs, 50)} / ${p((v) => v.compileMs, 95)}`,
    `${p((v) => v.loadMs, 50)} / ${p((v) => v.loadMs, 95)}`,
    `${p((v) => v.testMs, 50)} / ${p((v) => v.testMs, 95)}`,
    `${p((v) => v.wallMs, 50)} / ${p((v) => v.wallMs, 95)}`,
    `${percentile(overhead, 50)} / ${percentile(overhead, 95)}`,
  ];
}

const jvm = rows.map((r) => r.jvm);
const maven = rows.map((r) => r.maven);
console.log(
  `Validation throughput on ${rows.length} one-line mutants (seed ${seed}), same candidates, one run`,
);
console.log(
  formatTable(
    [
      'runner',
      'n',
      'per min',
      'compile p50/p95 ms',
      'load p50/p95 ms',
      'test p50/p95 ms',
      'wall p50/p95 ms',
      'overhead p50/p95 ms',
    ],
    [stats('jvm', jvm), stats('maven', maven)],
  ),
);
console.log(`ratio (jvm ÷ maven validations per minute): ${(rate(jvm) / rate(maven)).toFixed(1)}×`);
console.log(
  'overhead = wall time minus the test run itself (compile + class loading + test plan + harness)',
);
const mavenMs = sum(maven, (v) => v.wallMs);

/**
 * Where the jvm runner's time went. The first three parts are set by the candidates, not by the
 * runner: the tests' own run, the time limits of hanging candidates (PIT's rule on the baseline),
 * and the build steps a candidate's change makes rerun (Maven reruns them too).
 */
function partsOf(vs: Validation[]) {
  const timedOut = vs.filter((v) => v.verdict.kind === 'Timeout');
  const finished = vs.filter((v) => v.verdict.kind !== 'Timeout');
  const parts = {
    tests: sum(vs, (v) => v.testMs),
    timeouts: sum(timedOut, (v) => v.wallMs - v.compileMs - v.loadMs),
    buildSteps: sum(vs, (v) => v.buildStepMs),
    compile: sum(vs, (v) => v.compileMs - v.buildStepMs),
    load: sum(vs, (v) => v.loadMs),
    harness: sum(finished, (v) => v.wallMs - v.compileMs - v.loadMs - v.testMs),
  };
  return {
    ...parts,
    timedOut: timedOut.length,
    floorMs: parts.tests + parts.timeouts + parts.buildSteps,
  };
}

const projectNames = [...new Set(rows.map((r) => r.candidate.project))];
console.log(
  formatTable(
    ['project', 'n', 'jvm ms', 'maven ms', 'maven p50 ms', 'ratio', 'bound'],
    projectNames.map((project) => {
      const mine = rows.filter((r) => r.candidate.project === project);
      const mavenOf = mine.map((r) => r.maven);
      const jvmOf = mine.map((r) => r.jvm);
      const mavenTotal = sum(mavenOf, (v) => v.wallMs);
      return [
        project,
        String(mine.length),
        String(sum(jvmOf, (v) => v.wallMs)),
        String(mavenTotal),
        String(
          percentile(
            mavenOf.map((v) => v.wallMs),
            50,
          ),
        ),
        `${(rate(jvmOf) / rate(mavenOf)).toFixed(1)}×`,
        `${(mavenTotal / Math.max(1, partsOf(jvmOf).floorMs)).toFixed(1)}×`,
      ];
    }),
  ),
);
const parts = partsOf(jvm);
console.log(
  `jvm time by part (ms): tests' own run ${parts.tests}, time limits of ${parts.timedOut} hanging candidate(s) ${parts.timeouts}, build-step reruns ${parts.buildSteps}, compile ${parts.compile}, class loading and test plan ${parts.load}, harness ${parts.harness}`,
);
console.log(
  `bound: were compile, loading and harness free (only the tests' own run, time limits and build-step reruns, ${parts.floorMs} ms), the ratio could reach ${(mavenMs / Math.max(1, parts.floorMs)).toFixed(1)}×`,
);
console.log(
  `warm-up before timing (runner JVM start, then candidates not in the sample, results discarded): ${warmUps.map((w) => `${w.project} ${w.candidates} in ${w.ms} ms`).join(', ')}`,
);
const warmUpMs = warmUps.reduce((total, w) => total + w.ms, 0);
const jvmWallMs = sum(jvm, (v) => v.wallMs);
console.log(
  `this run end to end, warm-up counted (it does not grow with the number of candidates): ${(mavenMs / (jvmWallMs + warmUpMs)).toFixed(1)}×`,
);
const agree = rows.filter(
  (r) => verdictClass(r.jvm.verdict) === verdictClass(r.maven.verdict),
).length;
console.log(`verdict-class agreement on these candidates: ${agree}/${rows.length}`);

/**
 * Throughput of candidate validation: the same real one-line mutants through the warm JVM and
 * through the Maven replay, in one run. Prints validations per minute for each runner, their
 * ratio, and p50/p95 latency split into compile, load and test time. Each runner JVM is warmed
 * first with other candidates of its project (--warm-up-ms, reported apart), so the figures are
 * those of the long loops the runner exists for.
 *
 *   npm run bench:validation-throughput [-- --projects a,b,c] [--per-project 30] [--seed 1]
 *     [--warm-up-ms 10000] [--out f.jsonl]
 */
import {
  formatTable,
  percentile,
  sideBySideFromCommandLine,
  verdictClass,
  type Validation,
} from './lib/candidates.js';

const { rows, warmUps, seed } = await sideBySideFromCommandLine();

function stats(name: string, validations: Validation[]): string[] {
  const total = validations.reduce((sum, v) => sum + v.wallMs, 0);
  const overhead = validations.map((v) => v.wallMs - v.testMs);
  const p = (pick: (v: Validation) => number, q: number) =>
    String(percentile(validations.map(pick), q));
  return [
    name,
    String(validations.length),
    (validations.length / (total / 60_000)).toFixed(1),
    `${p((v) => v.compileMs, 50)} / ${p((v) => v.compileMs, 95)}`,
    `${p((v) => v.loadMs, 50)} / ${p((v) => v.loadMs, 95)}`,
    `${p((v) => v.testMs, 50)} / ${p((v) => v.testMs, 95)}`,
    `${p((v) => v.wallMs, 50)} / ${p((v) => v.wallMs, 95)}`,
    `${percentile(overhead, 50)} / ${percentile(overhead, 95)}`,
  ];
}

const jvm = rows.map((r) => r.jvm);
const maven = rows.map((r) => r.maven);
const rate = (vs: Validation[]) => vs.length / (vs.reduce((sum, v) => sum + v.wallMs, 0) / 60_000);
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
const jvmTestMs = jvm.reduce((sum, v) => sum + v.testMs, 0);
const mavenMs = maven.reduce((sum, v) => sum + v.wallMs, 0);
console.log(
  `bound: were the jvm runner's overhead zero (only the tests' own ${jvmTestMs} ms), the ratio could reach ${(mavenMs / Math.max(1, jvmTestMs)).toFixed(1)}×`,
);
console.log(
  `warm-up before timing (runner JVM start, then candidates not in the sample, results discarded): ${warmUps.map((w) => `${w.project} ${w.candidates} in ${w.ms} ms`).join(', ')}`,
);
const warmUpMs = warmUps.reduce((sum, w) => sum + w.ms, 0);
const jvmWallMs = jvm.reduce((sum, v) => sum + v.wallMs, 0);
console.log(
  `this run end to end, warm-up counted (it does not grow with the number of candidates): ${(mavenMs / (jvmWallMs + warmUpMs)).toFixed(1)}×`,
);
const agree = rows.filter(
  (r) => verdictClass(r.jvm.verdict) === verdictClass(r.maven.verdict),
).length;
console.log(`verdict-class agreement on these candidates: ${agree}/${rows.length}`);

/**
 * Throughput of transform-step validation with per-test selection, against whole-class runs in
 * the warm JVM and against the Maven replay: the same injections, the same operator sequence,
 * the transform stage run three ways in one run. Prints validations per minute for each way,
 * their ratios, the share of test methods selection ran, and whether every decision agreed.
 *
 *   npm run bench:validation-selection -- --from dir1,dir2 [--transforms a,b] [--per-project 3]
 *     [--seed 1] [--candidates 4] [--other-classes 5] [--no-maven]
 *
 * --from (required) names inject output directories (`witnessgym inject --out`, e.g. of
 * commons-csv and commons-codec); --per-project injections are drawn from each with the seed.
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { seededRandom, shuffled } from '../src/core/random.js';
import { plainSink } from '../src/events/render.js';
import { resolveFetchedProject } from '../src/project/project.js';
import { readRecords } from '../src/records/record.js';
import { jvmTestRunner } from '../src/runners/jvm.js';
import { mavenTestRunner } from '../src/runners/maven.js';
import type { CompileResult, RunTarget, TestRunner } from '../src/runners/types.js';
import { witnessContexts } from '../src/stages/2-inject/contexts.js';
import { InjectionLine, type InjectionRecord } from '../src/stages/2-inject/records.js';
import { deterministicSource } from '../src/stages/3-transform/candidates.js';
import { operatorFor } from '../src/stages/3-transform/operators/index.js';
import { loadTransformSpecs, selectTransforms } from '../src/stages/3-transform/spec.js';
import { openTransformer } from '../src/stages/3-transform/driver.js';
import { describeStop, type TransformRecord } from '../src/stages/3-transform/transform.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';
import { formatTable } from './lib/candidates.js';

const { values } = parseArgs({
  options: {
    from: { type: 'string' },
    transforms: { type: 'string', default: 't_call_stack_deepen_v1,t_private_adapter_layer_v1' },
    'per-project': { type: 'string', default: '3' },
    seed: { type: 'string', default: '1' },
    candidates: { type: 'string', default: '4' },
    'other-classes': { type: 'string', default: '5' },
    'no-maven': { type: 'boolean', default: false },
  },
});

if (values.from === undefined) {
  process.stderr.write(
    'validation-selection: --from <dir,...> is required: the --out directories of inject runs (e.g. of commons-csv and commons-codec)\n',
  );
  process.exit(2);
}
const fromDirs = values.from.split(',');
const cache = cacheLayout(resolveCacheDir());
const events = plainSink((line) => process.stderr.write(`${line}\n`));
const operators = selectTransforms(await loadTransformSpecs(), values.transforms).map((spec) =>
  deterministicSource(operatorFor(spec), Number(values.candidates)),
);
const perProject = Number(values['per-project']);
const seed = Number(values.seed);

type Way = 'selection' | 'whole-class' | 'maven';

/** Time a runner spends compiling and running, and the part of it in traced runs. */
interface Spent {
  runnerMs: number;
  tracedMs: number;
}

/**
 * A runner whose time is added up; for Maven, a compile of sources identical to the last one
 * reuses it, as the Maven runner's run does, so each validation builds once, not once per class.
 */
function timed(inner: TestRunner, spent: Spent, reuseCompile: boolean): TestRunner {
  let last: { key: string; result: CompileResult } | undefined;
  const keyOf = async (target: RunTarget) =>
    JSON.stringify(
      await Promise.all(target.changed.map(async (s) => [s.path, await readFile(s.path, 'utf8')])),
    );
  return {
    ...inner,
    async compile(target, timeoutMs) {
      const started = performance.now();
      const key = reuseCompile ? await keyOf(target) : '';
      const result =
        reuseCompile && last?.key === key ? last.result : await inner.compile(target, timeoutMs);
      if (reuseCompile) last = { key, result };
      spent.runnerMs += performance.now() - started;
      return result;
    },
    async run(request) {
      const started = performance.now();
      const result = await inner.run(request);
      const ms = performance.now() - started;
      spent.runnerMs += ms;
      if (request.trace) spent.tracedMs += ms;
      return result;
    },
  };
}

interface WayResult {
  records: TransformRecord[];
  wallMs: number;
  spent: Spent;
}

/** A step's decisions: the kept candidate and every candidate turned down before it. */
function decisions(record: TransformRecord): string[] {
  const steps = record.steps.map(
    (step) =>
      `${step.rejected.map((r) => `rejected ${r.description}`).join('; ')} kept ${step.description}`,
  );
  const end =
    record.outcome.kind === 'Kept'
      ? 'kept'
      : `short at ${describeStop(record.outcome.stoppedAt)}: ${record.outcome.reason.split('\n')[0]}`;
  return [...steps, end];
}

const results = new Map<Way, WayResult>(
  (['selection', 'whole-class', 'maven'] as Way[]).map((way) => [
    way,
    { records: [], wallMs: 0, spent: { runnerMs: 0, tracedMs: 0 } },
  ]),
);
const ways: Way[] = values['no-maven']
  ? ['selection', 'whole-class']
  : ['selection', 'whole-class', 'maven'];

for (const from of fromDirs) {
  const all = (await readRecords(path.join(from, 'injections.jsonl'), InjectionLine)).records;
  const injections: InjectionRecord[] = shuffled(all, seededRandom(seed)).slice(0, perProject);
  if (injections.length === 0) continue;
  const project = await resolveFetchedProject(injections[0]!.state.base.name, cache);
  const contexts = await witnessContexts(project, cache, events);
  const jvm = new JvmRunner(cache);
  try {
    for (const way of ways) {
      const result = results.get(way)!;
      const { transformer, close } = await openTransformer({
        cache,
        project,
        contexts,
        copyName: 'transform',
        maven: false,
        otherClassLimit: Number(values['other-classes']),
        validation: way === 'selection' ? 'per-test' : 'whole-class',
        events,
        jvm,
        fast: (warm) =>
          timed(
            way === 'maven' ? mavenTestRunner(mavenToolchain, cache) : jvmTestRunner(cache, warm),
            result.spent,
            way === 'maven',
          ),
      });
      const started = performance.now();
      try {
        for (const injection of injections) {
          result.records.push(await transformer.transform(injection, operators));
        }
      } finally {
        result.wallMs += performance.now() - started;
        await close();
      }
      process.stderr.write(`[${project.label}] ${way}: done\n`);
    }
  } finally {
    await jvm.close();
  }
}

const stepsOf = (way: Way) => results.get(way)!.records.flatMap((record) => record.steps);
const validations = (way: Way) => stepsOf(way).reduce((n, step) => n + step.rejected.length + 1, 0);
const validationMs = (way: Way) =>
  stepsOf(way).reduce((total, step) => total + (step.validationMs ?? 0), 0);
const perMinute = (way: Way) => validations(way) / (validationMs(way) / 60_000);

const cases = results.get('selection')!.records.length;
console.log(
  `Transform-step validation on ${cases} injections (${values.transforms}, seed ${seed}), the stage run ${ways.length} ways in one run`,
);
console.log(
  formatTable(
    ['way', 'kept steps', 'validations', 'validation ms', 'per min', 'stage wall ms', 'runner ms'],
    ways.map((way) => {
      const result = results.get(way)!;
      return [
        way,
        String(stepsOf(way).length),
        String(validations(way)),
        String(validationMs(way)),
        perMinute(way).toFixed(1),
        String(Math.round(result.wallMs)),
        String(Math.round(result.spent.runnerMs)),
      ];
    }),
  ),
);
const selected = stepsOf('selection');
const ran = selected.reduce((n, step) => n + (step.testMethodsRun ?? 0), 0);
const total = selected.reduce((n, step) => n + (step.testMethodsInClasses ?? 0), 0);
console.log(
  `selection ran ${ran} of ${total} test methods of the classes over the kept steps (${((100 * ran) / Math.max(1, total)).toFixed(0)}%)`,
);
/** Time of a way's cases outside the validations of kept steps. */
const outsideSteps = (way: Way) =>
  results
    .get(way)!
    .records.reduce(
      (total, r) =>
        total + r.durationMs - r.steps.reduce((n, step) => n + (step.validationMs ?? 0), 0),
      0,
    );
console.log(
  `per case, outside the validations of kept steps (the witness's run on the buggy state, analysis, steps no candidate passed, the closing whole-class run): ${ways.map((way) => `${way} ${Math.round(outsideSteps(way) / Math.max(1, cases))} ms`).join(', ')}; selection's per-test tracing of the buggy state ${Math.round(results.get('selection')!.spent.tracedMs / Math.max(1, cases))} ms of it`,
);
const ratio = (a: Way, b: Way) => (perMinute(a) / perMinute(b)).toFixed(1);
console.log(
  `ratio selection ÷ whole-class (validations per minute): ${ratio('selection', 'whole-class')}×`,
);
if (ways.includes('maven')) {
  console.log(`ratio selection ÷ maven: ${ratio('selection', 'maven')}×`);
  console.log(`ratio whole-class ÷ maven: ${ratio('whole-class', 'maven')}×`);
  const wall = (way: Way) => results.get(way)!.wallMs;
  console.log(
    `stage end to end (every cost counted): selection ${(wall('maven') / wall('selection')).toFixed(1)}× and whole-class ${(wall('maven') / wall('whole-class')).toFixed(1)}× faster than with Maven`,
  );
}

/** Per injection, the first point where a way's decisions differ from the whole-class ones. */
function disagreements(way: Way): string[] {
  const reference = new Map(results.get('whole-class')!.records.map((r) => [r.injection, r]));
  return results.get(way)!.records.flatMap((record) => {
    const expected = decisions(reference.get(record.injection)!);
    const got = decisions(record);
    const at = got.findIndex((line, index) => line !== expected[index]);
    if (at < 0 && got.length === expected.length) return [];
    const index = at < 0 ? Math.min(got.length, expected.length) : at;
    return [`${record.injection}: ${way} "${got[index]}" vs whole-class "${expected[index]}"`];
  });
}
for (const way of ways.filter((w) => w !== 'whole-class')) {
  const differing = disagreements(way);
  console.log(
    `decision agreement ${way} vs whole-class: ${cases - differing.length}/${cases} cases`,
  );
  for (const line of differing) console.log(`  ${line}`);
}
console.log('cases, as selection decided them:');
for (const record of results.get('selection')!.records) {
  console.log(`  ${record.injection}: ${decisions(record).at(-1)}`);
}

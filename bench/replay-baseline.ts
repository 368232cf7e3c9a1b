/**
 * Benchmark: for each corpus project, the wall time of one Maven replay of its quickest usable
 * test class (copy + compile step + test step). This is the cost the fast runner must beat.
 *
 *   npm run bench:replay-baseline [-- --projects json-simple,commons-csv] [--runs 3]
 */
import { isUsable } from '../src/project/baseline.js';
import { parseArgs } from 'node:util';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { describeVerdict } from '../src/core/verdict.js';
import { resolveProject } from '../src/project/project.js';
import { replayTestClass } from '../src/stages/0-corpus/replay.js';
import { fetchCorpusProject } from '../src/stages/0-corpus/fetch.js';
import { loadRecipes } from '../src/project/recipe.js';
import { plainSink } from '../src/events/render.js';
import { mavenToolchain } from '../src/toolchains/maven/maven.js';

const { values } = parseArgs({
  options: {
    projects: { type: 'string' },
    runs: { type: 'string', default: '1' },
    'cache-dir': { type: 'string' },
  },
});
const runs = Number(values.runs);
const cache = cacheLayout(resolveCacheDir(values['cache-dir']));
const wanted = values.projects?.split(',');
const recipes = (await loadRecipes()).filter((r) => !wanted || wanted.includes(r.name));

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const rows: string[][] = [];
for (const recipe of recipes) {
  const fetched = await fetchCorpusProject(recipe, cache, {
    toolchain: mavenToolchain,
    events: plainSink((line) => process.stderr.write(`[${recipe.name}] ${line}\n`)),
  });
  const quickest = fetched.baseline.classes
    .filter(isUsable)
    .sort((a, b) => a.durationMs - b.durationMs)[0];
  if (!quickest) {
    rows.push([recipe.name, '(no usable class)', '-', '-', '-', '-', '-', '-']);
    continue;
  }
  const project = await resolveProject(recipe.name, cache);
  const totals: number[] = [];
  const compiles: number[] = [];
  const tests: number[] = [];
  let verdict = '';
  for (let i = 0; i < runs; i++) {
    const result = await replayTestClass(project, {
      runner: 'maven',
      toolchain: mavenToolchain,
      cache,
      testClass: quickest.testClass,
      runs: 1,
    });
    totals.push(result.timings.totalMs);
    compiles.push(result.timings.compileMs);
    tests.push(result.timings.testMs[0] ?? 0);
    verdict = describeVerdict(result.verdict).split(' ')[0]!;
  }
  rows.push([
    recipe.name,
    quickest.testClass,
    String(quickest.durationMs),
    String(median(compiles)),
    String(median(tests)),
    String(median(totals)),
    (60_000 / median(totals)).toFixed(1),
    verdict,
  ]);
}

const header = [
  'project',
  'quickest usable class',
  'class ms',
  'compile ms',
  'test ms',
  'replay ms',
  'replays/min',
  'verdict',
];
const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
const format = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i]!)).join('  ');
console.log(`Maven replay of the quickest usable test class (median of ${runs} run(s) each)`);
console.log(format(header));
console.log(widths.map((w) => '-'.repeat(w)).join('  '));
for (const row of rows) console.log(format(row));

/**
 * Cost of tracing: per corpus project, every usable test class run in the warm JVM without and
 * with instrumentation, interleaved class by class in one JVM (so both see the same JIT warm-up);
 * prints traced ÷ plain suite time and trace records per second.
 *
 *   npm run bench:trace-overhead [-- --projects a,b]
 */
import { timeLimit } from '../src/runners/time-limits.js';
import { isUsable } from '../src/project/baseline.js';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { removeTree } from '../src/core/fs.js';
import { JvmRunner } from '../src/toolchains/jvm/runner.js';
import { corpusProjects, formatTable, workingCopy } from './lib/candidates.js';

const { values } = parseArgs({
  options: {
    // Without it, every corpus project.
    projects: { type: 'string' },
  },
});
const cache = cacheLayout(resolveCacheDir());
const rows: string[][] = [];
let withinTarget = 0;
for (const project of await corpusProjects(cache, values.projects?.split(','))) {
  const copy = await workingCopy(project);
  const runner = new JvmRunner(cache);
  try {
    const classes = project.fetched.baseline.classes.filter(isUsable);
    const run = (testClass: string, durationMs: number, trace: boolean) =>
      runner.run({
        projectDir: copy,
        build: project.recipe.build,
        testClass,
        sources: [],
        // The product's limit for a traced run, for both, so the two are judged alike.
        timeoutMs: timeLimit('jvm', 'trace', durationMs),
        trace,
      });
    // Start the JVM outside the measurement.
    await run(classes[0]!.testClass, classes[0]!.durationMs, false);
    let plainMs = 0;
    let tracedMs = 0;
    let records = 0;
    let sameVerdicts = 0;
    for (const entry of classes) {
      const plain = await run(entry.testClass, entry.durationMs, false);
      const traced = await run(entry.testClass, entry.durationMs, true);
      plainMs += plain.timings.wallMs;
      tracedMs += traced.timings.wallMs;
      records += traced.trace?.log.filter((value) => value >= 0).length ?? 0;
      if (plain.verdict.kind === traced.verdict.kind) sameVerdicts++;
    }
    const ratio = tracedMs / plainMs;
    if (ratio <= 1.5) withinTarget++;
    rows.push([
      project.recipe.name,
      String(classes.length),
      (plainMs / 1000).toFixed(1),
      (tracedMs / 1000).toFixed(1),
      ratio.toFixed(2),
      String(records),
      Math.round(records / (tracedMs / 1000)).toString(),
      `${sameVerdicts}/${classes.length}`,
    ]);
    process.stderr.write(`[${project.recipe.name}] done\n`);
  } finally {
    await runner.close();
    await removeTree(path.dirname(copy));
  }
}
console.log('Tracing overhead in the warm JVM (usable test classes, plain and traced interleaved)');
console.log(
  formatTable(
    [
      'project',
      'classes',
      'plain s',
      'traced s',
      'traced ÷ plain',
      'records',
      'records/s',
      'same verdict',
    ],
    rows,
  ),
);
console.log(`projects within the 1.5× target: ${withinTarget}/${rows.length}`);
console.log(
  'records = first hit of a production method within a test (what the map is built from)',
);

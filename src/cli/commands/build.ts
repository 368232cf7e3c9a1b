import { Option, type Command } from 'commander';
import {
  runBuildCommand,
  type BuildCommandOptions,
  type BuildSummary,
} from '../../pipeline/driver.js';
import { cellKey } from '../../pipeline/plan.js';
import {
  cacheFrom,
  EXIT_VERDICT,
  positiveInteger,
  printJson,
  wholeNumber,
  withProgress,
} from '../common.js';

const percent = (part: number, whole: number) =>
  whole === 0 ? '-' : `${Math.round((part * 100) / whole)}%`;

export function formatBuildSummary(summary: BuildSummary): string {
  const lines = [
    `build ${summary.plan}, seed ${summary.seed}: ${summary.archived} of ${summary.wanted} cases in ${(summary.durationMs / 1000).toFixed(1)} s${summary.msPerCase !== null ? ` (${(summary.msPerCase / 1000).toFixed(1)} s per case this run)` : ''}`,
    `${'type'.padEnd(46)} ${'bucket'.padEnd(9)} ${'depth'.padStart(5)} ${'cases'.padStart(9)}`,
    ...summary.cells.map(
      (row) =>
        `${row.typeId.padEnd(46)} ${row.bucket.padEnd(9)} ${String(row.depth).padStart(5)} ${`${row.archived}/${row.wanted}`.padStart(9)}${row.sequence ? `  own sequence: ${row.sequence.join(', ')}` : ''}`,
    ),
  ];
  const { inject, transform } = summary.stages;
  lines.push(
    `inject: ${inject.accepted} bugs accepted of ${inject.tried} candidates in the projects' inject outputs (${percent(inject.accepted, inject.tried)})`,
    `transform: ${transform.kept} of ${transform.tried} bugs tried in cells kept (${percent(transform.kept, transform.tried)})${
      Object.keys(transform.shortAt).length > 0
        ? `; short at ${Object.entries(transform.shortAt)
            .map(([stage, count]) => `${stage} ${count}`)
            .join(', ')}`
        : ''
    }`,
  );
  const suite = Object.entries(summary.stages.suite);
  if (suite.length > 0) {
    lines.push('whole existing suite on each kept case (other classes that expose the bug):');
    for (const [typeId, tally] of suite) {
      const outcomes = [
        `${tally.givenAway} refused as given away`,
        ...(tally.hidden > 0 ? [`${tally.hidden} kept with co-witnesses hidden`] : []),
        ...(tally.unfinished > 0 ? [`${tally.unfinished} not run to the end`] : []),
      ];
      lines.push(
        `  ${typeId}: ${tally.checked} checked, ${outcomes.join(', ')}; ${(tally.jvmMs / 1000).toFixed(1)} s warm JVM, ${(tally.mavenMs / 1000).toFixed(1)} s Maven`,
      );
    }
  }
  if (summary.evolution.length > 0) {
    lines.push(
      'patch evolution of the archived cases (paper Table 9):',
      `${'depth'.padStart(5)} ${'cases'.padStart(5)} ${'lines'.padStart(6)} ${'hunks'.padStart(6)} ${'files'.padStart(6)} ${'accum'.padStart(6)} ${'retain1'.padStart(8)} ${'sim1'.padStart(6)}`,
      ...summary.evolution.map(
        (row) =>
          `${String(row.depth).padStart(5)} ${String(row.runs).padStart(5)} ${row.finalLines.toFixed(1).padStart(6)} ${row.hunks.toFixed(2).padStart(6)} ${row.files.toFixed(2).padStart(6)} ${`${row.lineAccumulation.toFixed(2)}×`.padStart(6)} ${`${(row.firstStepRetention * 100).toFixed(0)}%`.padStart(8)} ${row.firstStepSimilarity.toFixed(2).padStart(6)}`,
      ),
    );
  }
  const short = summary.cells.filter((row) => row.archived < row.wanted);
  if (short.length > 0) {
    lines.push(`${short.length} of ${summary.cells.length} cells short:`);
    for (const row of short) {
      lines.push(
        `  ${cellKey(row)}: ${row.archived} of ${row.wanted}; ${row.reasons.join('; ') || 'no bug of this type and bucket was tried'}`,
      );
    }
  }
  lines.push(
    `out: ${summary.out} (a directory per case, cases.jsonl, hidden/ witnesses, build/ ledger, work/ stage outputs)`,
  );
  return lines.join('\n');
}

async function build(
  projects: string[],
  options: BuildCommandOptions,
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    runBuildCommand(projects, options, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatBuildSummary(summary)}\n`);
  // A plan the projects could not fill is a result to notice, not a crash.
  process.exitCode = summary.archived >= summary.wanted ? 0 : EXIT_VERDICT;
}

/** `witnessgym build`. */
export function register(program: Command): void {
  program
    .command('build')
    .description(
      "build benchmark cases: corpus → trace → inject → transform → archive, filling a plan's cells of bug type × context bucket × depth from the projects in order. Progress shows live; an interrupted build resumes from --out. Exit 1 when a cell is short (the summary says why)",
    )
    .usage(
      '<project...> --out <bench> (--plan <name|file> | --types ... --depths ... --per-cell N) [options]',
    )
    .argument('<project...>', 'corpus names or fetched paths, used in this order')
    .requiredOption('--out <dir>', '(required) the benchmark directory; an existing one is resumed')
    .option(
      '--plan <name|file>',
      'a build plan (plans/*.yaml: paper, smoke, coverage, acceptance) or a plan file',
    )
    .option('--types <ids>', "bug types, comma-separated, or 'all' (instead of --plan)")
    .option('--depths <list>', 'transformation depths of 1,3,5,10 (instead of --plan)')
    .option(
      '--buckets <list>',
      'context buckets of short,mid-short,mid-long,long (instead of --plan)',
    )
    .option('--per-cell <n>', 'cases per cell (instead of --plan)', positiveInteger('--per-cell'))
    .option(
      '--same-bug-across-depths',
      'transform each bug at every depth, a controlled depth series (instead of --plan; by default each cell takes bugs no other cell made a case of)',
    )
    .option('--seed <n>', 'seed of every random choice', wholeNumber('--seed'), 1)
    .option(
      '--workers <n>',
      'cases transformed at once, each with its own working copy and JVM',
      positiveInteger('--workers'),
      2,
    )
    .option(
      '--no-maven',
      'leave kept cases unconfirmed by Maven, the ground truth each kept case is checked with (quick trials only)',
    )
    .option(
      '--max-tries <n>',
      'candidates an inject run tries per bug type and bucket',
      positiveInteger('--max-tries'),
      60,
    )
    .option(
      '--spare <n>',
      'bugs injected per cell beyond those it wants, for the ones transformation loses',
      wholeNumber('--spare'),
      1,
    )
    .option('--candidates <n>', 'candidates tried per step', positiveInteger('--candidates'), 4)
    .option(
      '--other-classes <n>',
      'other test classes reaching the bug file rerun per step',
      wholeNumber('--other-classes'),
      5,
    )
    .option(
      '--collateral-limit <n>',
      'other test classes reaching the change rerun per accepted bug',
      wholeNumber('--collateral-limit'),
      25,
    )
    .addOption(
      new Option(
        '--co-witnesses <policy>',
        'a case whose bug other existing test classes expose: refuse it, or hide those classes from the workspace like the witness (recorded as co-witnesses)',
      )
        .choices(['refuse', 'hide'])
        .default('refuse'),
    )
    .option(
      '--shard <i/N>',
      "only this machine's share of the plan's cells, by bug type (types never share a bug; 1/4 to 4/4 on four machines, as array jobs run); unite the benchmarks with 'witnessgym merge'",
    )
    .option(
      '--queue <url>',
      "transform each bug and check its whole suite as jobs on the workers of this Redis queue (redis://host:6379; see 'witnessgym worker'); inject, the ledger and the archive stay here: --out must be at the same path on every host",
    )
    .option('--json', 'machine-readable output')
    .action(build);
}

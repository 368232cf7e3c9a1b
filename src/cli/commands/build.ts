import type { Command } from 'commander';
import { formatBuildSummary, runBuildCommand, type BuildCommandOptions } from '../build-command.js';
import {
  cacheFrom,
  EXIT_VERDICT,
  positiveInteger,
  printJson,
  wholeNumber,
  withProgress,
} from '../common.js';

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
      'a build plan (plans/*.yaml: paper, smoke, coverage) or a plan file',
    )
    .option('--types <ids>', "bug types, comma-separated, or 'all' (instead of --plan)")
    .option('--depths <list>', 'transformation depths of 1,3,5,10 (instead of --plan)')
    .option(
      '--buckets <list>',
      'context buckets of short,mid-short,mid-long,long (instead of --plan)',
    )
    .option('--per-cell <n>', 'cases per cell (instead of --plan)', positiveInteger('--per-cell'))
    .option('--seed <n>', 'seed of every random choice', wholeNumber('--seed'), 1)
    .option(
      '--workers <n>',
      'cases transformed at once, each with its own working copy and JVM',
      positiveInteger('--workers'),
      2,
    )
    .option('--no-maven', 'leave kept cases unconfirmed by Maven (quick trials only)')
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
    .option('--json', 'machine-readable output')
    .action(build);
}

import type { Command } from 'commander';
import { fetchCorpus, listCorpus } from '../../stages/0-corpus/driver.js';
import {
  cacheFrom,
  collect,
  MAVEN_ARG,
  MAVEN_ARG_HELP,
  printJson,
  progress,
  recipeRequest,
  withProgress,
} from '../common.js';

async function corpusList(options: { json?: boolean }, command: Command): Promise<void> {
  const rows = await listCorpus(cacheFrom(command));
  if (options.json) return printJson(rows);
  const lines = rows.map((row) => {
    const state =
      row.cache.kind === 'Fetched'
        ? `fetched, ${row.cache.baseline.usable}/${row.cache.baseline.classes} test classes usable`
        : row.cache.reason;
    return `${row.name.padEnd(16)} ${row.version.padEnd(9)} ${row.source.padEnd(46)} ${state}`;
  });
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function corpusFetch(
  argument: string | undefined,
  options: { json?: boolean; force?: boolean; recipe?: string; mavenArg?: string[] },
  command: Command,
): Promise<void> {
  const fetched = await withProgress(options.json ?? false, (events) =>
    fetchCorpus(
      argument,
      { ...recipeRequest(options), force: options.force ?? false },
      cacheFrom(command),
      events,
    ),
  );
  if (options.json) return printJson(fetched);
  const summary = fetched.baseline;
  if (fetched.remedies.length > 0) {
    progress(`built with remedies: ${fetched.remedies.map((remedy) => remedy.id).join(', ')}`);
  }
  progress(`recipe: ${fetched.recipe} (pass it back with --recipe)`);
  progress(
    `baseline: ${summary.usable}/${summary.classes} test classes usable (${(summary.usableRatio * 100).toFixed(1)}%)`,
  );
  process.stdout.write(`${fetched.path}\n`);
}

/** `witnessgym corpus list|fetch`. */
export function register(program: Command): void {
  const corpus = program
    .command('corpus')
    .description('the corpus of real Java projects: list them, fetch one');
  corpus
    .command('list')
    .description('list the corpus projects and whether each is fetched')
    .option('--json', 'machine-readable output')
    .action(corpusList);
  corpus
    .command('fetch')
    .description(
      'download, verify and unpack a corpus project into a pristine git repo, compile it and record a baseline of every test class; prints the pristine path',
    )
    .argument(
      '[name]',
      'corpus project name (see corpus list), or a path to a local Maven project; a local project that does not build is retried with known remedies, and the recipe that worked is written beside it',
    )
    .option(
      '--recipe <name|file>',
      "a local project's recipe: a corpus recipe name (its settings), or a YAML file in the corpus recipe format (taken as is; with source.kind local, the path may be left out)",
    )
    .option(MAVEN_ARG, MAVEN_ARG_HELP, collect)
    .option('--force', 'discard what is cached for this project and fetch again')
    .option('--json', 'machine-readable output')
    .action(corpusFetch);
}

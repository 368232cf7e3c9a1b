import type { Command } from 'commander';
import { runTrace } from '../../stages/1-trace/driver.js';
import {
  cacheFrom,
  collect,
  MAVEN_ARG,
  printJson,
  recipeRequest,
  withProgress,
} from '../common.js';

async function trace(
  project: string,
  options: {
    tests?: string[];
    out?: string;
    perTest?: boolean;
    json?: boolean;
    recipe?: string;
    mavenArg?: string[];
  },
  command: Command,
): Promise<void> {
  const result = await withProgress(options.json ?? false, (events) =>
    runTrace(
      project,
      {
        ...recipeRequest(options),
        ...(options.tests ? { tests: options.tests } : {}),
        ...(options.out ? { out: options.out } : {}),
        perTest: options.perTest ?? false,
      },
      cacheFrom(command),
      events,
    ),
  );
  if (options.json) return printJson(result);
  const { buckets, mismatches } = result;
  const order = ['none', 'short', 'mid-short', 'mid-long', 'long', 'beyond'];
  process.stdout.write(
    [
      `${result.project}: ${result.classes} test classes (${result.tracedNow} traced now, ${result.resumed} from an earlier run) in ${(result.durationMs / 1000).toFixed(1)} s`,
      `buckets: ${order.map((bucket) => `${bucket} ${buckets[bucket] ?? 0}`).join(', ')}`,
      `verdicts equal to the baseline: ${result.verdictsMatchingBaseline}/${result.classes}`,
      ...mismatches.map((m) => `  ${m.testClass}: baseline ${m.baseline}, traced ${m.detail}`),
      `map: ${result.out}`,
    ].join('\n') + '\n',
  );
}

/** `witnessgym trace`. */
export function register(program: Command): void {
  program
    .command('trace')
    .description(
      'run the test classes once with production classes instrumented and write the execution-context map (JSONL, one record per test class): ordered trace, distinct methods, length bucket, anchors and files',
    )
    .argument(
      '<project>',
      "fetched corpus name, or a path fetched with 'corpus fetch <path>' (same --recipe and --maven-arg)",
    )
    .option(
      '--tests <patterns...>',
      'test classes to trace: names or globs (default: every usable class of the baseline)',
    )
    .option(
      '--out <file>',
      'where to write the map (default: execution-contexts.jsonl in the project cache), with its manifest beside it; an existing map traced from the same inputs is resumed',
    )
    .option(
      '--per-test',
      'also write one record per test method (a map traced without them is traced afresh)',
    )
    .option('--recipe <name|file>', 'the --recipe the path was fetched with')
    .option(MAVEN_ARG, 'the --maven-arg flags the path was fetched with', collect)
    .option('--json', 'machine-readable output')
    .action(trace);
}

#!/usr/bin/env node
import { readdirSync } from 'node:fs';
import { Command, CommanderError, InvalidArgumentError, Option } from 'commander';
import { cacheLayout, projectCache, resolveCacheDir, type CacheLayout } from '../core/cache.js';
import { UserError, errorMessage } from '../core/errors.js';
import { packageVersion } from '../core/package-root.js';
import { progressSink } from '../events/render.js';
import type { EventSink } from '../events/types.js';
import { describeVerdict } from '../core/verdict.js';
import { surefireSelects } from '../core/glob.js';
import { traceFetchedProject } from '../stages/1-trace/trace.js';
import path from 'node:path';
import { fetchCorpusProject, CorpusBuildError } from '../stages/0-corpus/fetch.js';
import { isUsable, type Baseline } from '../project/baseline.js';
import { fetchState } from '../project/fetched.js';
import { describeSource, loadRecipes } from '../project/recipe.js';
import {
  requestedRecipe,
  resolveFetchedProject,
  resolveProject,
  type RecipeRequest,
} from '../project/project.js';
import { replayTestClass, type ReplayResult } from './replay.js';
import { runTransformCommand, type TransformCommandOptions } from './transform-command.js';
import { formatBuildSummary, runBuildCommand, type BuildCommandOptions } from './build-command.js';
import {
  formatEvaluateSummary,
  runEvaluateCommand,
  runReportCommand,
  type EvaluateCommandOptions,
} from './evaluate-command.js';
import { renderTables } from '../stages/6-report/tables.js';
import { formatRescore, runRescoreCommand, type RescoreCommandOptions } from './rescore-command.js';
import {
  formatExport,
  formatMaterialise,
  allVerified,
  formatBenchVerify,
  formatVerify,
  runExportCommand,
  runMaterializeCommand,
  runVerifyCommand,
  type MaterializeCommandOptions,
} from './case-command.js';
import { implementedOperators } from '../stages/3-transform/operators/index.js';
import { DEFAULT_ATTEMPTS } from '../agents/engine.js';
import { bugTypesDir } from '../stages/2-inject/spec.js';
import { RUNNERS } from '../runners/index.js';
import type { RunnerName } from '../runners/types.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';
import {
  formatInjectSummary,
  runInjectCommand,
  type InjectCommandOptions,
} from './inject-command.js';

/** Exit codes: 0 success or Passed, 1 a non-passing verdict or a failed build, 2 a user mistake. */
const EXIT_VERDICT = 1;
const EXIT_USAGE = 2;
const EXIT_INTERNAL = 3;

interface GlobalOptions {
  cacheDir?: string;
}

function cacheFrom(command: Command): CacheLayout {
  return cacheLayout(resolveCacheDir(command.optsWithGlobals<GlobalOptions>().cacheDir));
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs long work with the progress display that suits where stderr goes (see progressSink). */
async function withProgress<T>(json: boolean, work: (events: EventSink) => Promise<T>): Promise<T> {
  const sink = progressSink({ json });
  try {
    return await work(sink);
  } finally {
    sink.stop();
  }
}

function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

function positiveInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) {
      throw new InvalidArgumentError(`${name} must be a positive whole number`);
    }
    return parsed;
  };
}

/** The agent flags `inject` and `transform` share with `--engine agent` (see agent-flags.ts). */
function withAgentOptions(command: Command): Command {
  return command
    .option(
      '--agent <name>',
      'agent engine: claude-code, codex, opencode, command (--agent-command) or openai (--model, --base-url)',
    )
    .option(
      '--agent-command <command>',
      'command agent: a shell command; the prompt arrives on stdin, or in the file named by {prompt_file}',
    )
    .option('--agent-bin <path>', 'claude-code, codex, opencode: the executable to run')
    .option('--agent-arg <arg...>', 'claude-code, codex, opencode: extra arguments')
    .option('--model <model>', 'model for the agent (required by openai)')
    .option(
      '--base-url <url>',
      'openai: the OpenAI-compatible endpoint (default $OPENAI_BASE_URL, else api.openai.com); key from $WITNESSGYM_OPENAI_API_KEY or $OPENAI_API_KEY',
    )
    .option('--temperature <t>', 'openai: sampling temperature (0 to 2)', (value: string) => {
      const parsed = Number(value);
      if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0 || parsed > 2) {
        throw new InvalidArgumentError('--temperature must be a number from 0 to 2');
      }
      return parsed;
    })
    .option('--max-turns <n>', 'openai: model turns per attempt', positiveInteger('--max-turns'))
    .option('--sandbox <mode>', 'codex: read-only, workspace-write or danger-full-access')
    .option(
      '--agent-timeout <seconds>',
      'limit for one agent run',
      positiveInteger('--agent-timeout'),
      1800,
    );
}

function baselineSummary(baseline: Baseline) {
  const total = baseline.classes.length;
  return {
    classes: total,
    usable: baseline.usableCount,
    usableRatio: total === 0 ? 0 : Number((baseline.usableCount / total).toFixed(4)),
    suiteStatus: baseline.suite.status,
    suiteDurationMs: baseline.suite.durationMs,
  };
}

async function corpusList(options: { json?: boolean }, command: Command): Promise<void> {
  const cache = cacheFrom(command);
  const rows = [];
  for (const recipe of await loadRecipes()) {
    const state = await fetchState(cache, recipe);
    rows.push({
      name: recipe.name,
      version: recipe.version,
      summary: recipe.summary,
      source: describeSource(recipe.source),
      cache:
        state.kind === 'fetched'
          ? {
              kind: 'Fetched' as const,
              path: state.project.path,
              baseline: baselineSummary(state.project.baseline),
            }
          : { kind: 'NotFetched' as const, reason: state.reason },
    });
  }
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

/** What `--recipe` and `--maven-arg` ask of a command's project. */
function recipeRequest(options: { recipe?: string; mavenArg?: string[] }): RecipeRequest {
  return {
    ...(options.recipe ? { recipe: options.recipe } : {}),
    mavenArgs: options.mavenArg ?? [],
  };
}

/** Commander's collector for a repeatable option. */
function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

async function corpusFetch(
  argument: string | undefined,
  options: { json?: boolean; force?: boolean; recipe?: string; mavenArg?: string[] },
  command: Command,
): Promise<void> {
  const cache = cacheFrom(command);
  const { recipe, adapt } = await requestedRecipe(argument, recipeRequest(options), cache);
  const fetched = await withProgress(options.json ?? false, (events) =>
    fetchCorpusProject(recipe, cache, {
      toolchain: mavenToolchain,
      force: options.force ?? false,
      adapt,
      events,
    }),
  );
  const summary = baselineSummary(fetched.baseline);
  if (options.json) {
    return printJson({
      name: fetched.name,
      version: fetched.version,
      path: fetched.path,
      commit: fetched.commit,
      recipe: fetched.recipeFile,
      remedies: fetched.remedies,
      baseline: summary,
      unusable: fetched.baseline.classes.flatMap((entry) =>
        entry.usability.kind === 'Unusable'
          ? [{ testClass: entry.testClass, reason: entry.usability.reason }]
          : [],
      ),
    });
  }
  if (fetched.remedies.length > 0) {
    progress(`built with remedies: ${fetched.remedies.map((remedy) => remedy.id).join(', ')}`);
  }
  progress(`recipe: ${fetched.recipeFile} (pass it back with --recipe)`);
  progress(
    `baseline: ${summary.usable}/${summary.classes} test classes usable (${(summary.usableRatio * 100).toFixed(1)}%)`,
  );
  process.stdout.write(`${fetched.path}\n`);
}

function printReplay(result: ReplayResult): void {
  const { verdict } = result;
  const lines = [`${result.project} ${result.testClass}: ${describeVerdict(verdict)}`];
  if (verdict.kind === 'TestFailed' || verdict.kind === 'TestErrored') {
    for (const failure of verdict.failures.slice(0, 5)) {
      lines.push(
        `  ${failure.category} in ${failure.testMethod}: ${failure.exceptionType}: ${failure.message.split('\n')[0]}`,
      );
      for (const frame of failure.frames.slice(0, 3)) lines.push(`      at ${frame}`);
    }
  } else if (verdict.kind === 'CompileError') {
    for (const message of verdict.messages.slice(0, 10)) {
      lines.push(`  ${message.file}:${message.line ?? '?'}: ${message.message}`);
    }
  } else if (verdict.kind === 'Flaky') {
    verdict.runs.forEach((run, index) => lines.push(`  run ${index + 1}: ${describeVerdict(run)}`));
  }
  const t = result.timings;
  lines.push(
    `  timings: copy ${t.copyMs} ms, compile ${t.compileMs} ms, test ${t.testMs.join('+') || '-'} ms, total ${t.totalMs} ms`,
  );
  if (result.workDir) lines.push(`  kept copy: ${result.workDir}`);
  process.stdout.write(`${lines.join('\n')}\n`);
}

async function replay(
  project: string,
  options: {
    test: string;
    runs: number;
    timeout?: number;
    json?: boolean;
    recipe?: string;
    keep?: boolean;
    runner: RunnerName;
  },
  command: Command,
): Promise<void> {
  const cache = cacheFrom(command);
  const ref = await resolveProject(project, cache, options.recipe);
  const result = await replayTestClass(ref, {
    runner: options.runner,
    toolchain: mavenToolchain,
    cache,
    testClass: options.test,
    runs: options.runs,
    ...(options.timeout !== undefined ? { timeoutMs: options.timeout * 1000 } : {}),
    keep: options.keep ?? false,
  });
  const { verdict } = result;
  if (options.json) printJson(result);
  if (verdict.kind === 'InfraError' && verdict.cause === 'dependency-resolution') {
    // The project's dependencies cannot be had: a problem with the input, not a verdict.
    process.stderr.write(
      `witnessgym: cannot resolve the dependencies of ${result.project}: ${verdict.reason}; check the pom's dependencies and that Maven Central is reachable\n`,
    );
    process.exitCode = EXIT_USAGE;
    return;
  }
  if (!options.json) printReplay(result);
  process.exitCode = verdict.kind === 'Passed' ? 0 : EXIT_VERDICT;
}

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
  const cache = cacheFrom(command);
  const ref = await resolveFetchedProject(project, cache, recipeRequest(options));
  const selected = ref.baseline!.classes.filter((entry) =>
    options.tests
      ? options.tests.some((pattern) => surefireSelects(pattern, entry.testClass))
      : isUsable(entry),
  );
  if (selected.length === 0) {
    throw new UserError(
      `no test class of ${ref.label} matches --tests ${options.tests?.join(' ')}`,
    );
  }
  const cached = projectCache(cache, ref.base);
  const summary = await withProgress(options.json ?? false, (events) =>
    traceFetchedProject(ref, {
      cache,
      classes: selected.map((entry) => entry.testClass),
      map: options.out ? { contextMap: path.resolve(options.out), lock: cached.lock } : cached,
      perTest: options.perTest ?? false,
      events,
    }),
  );
  const buckets: Record<string, number> = {};
  for (const record of summary.records) buckets[record.bucket] = (buckets[record.bucket] ?? 0) + 1;
  const mismatches = summary.records
    .filter((record) => record.baselineStatus !== null && record.status !== record.baselineStatus)
    .map((record) => ({
      testClass: record.testClass,
      baseline: record.baselineStatus,
      traced: record.status,
      detail: record.detail,
    }));
  const result = {
    project: ref.label,
    out: summary.out,
    classes: summary.records.length,
    tracedNow: summary.traced,
    resumed: summary.skipped,
    buckets,
    verdictsMatchingBaseline: summary.records.length - mismatches.length,
    mismatches,
    durationMs: summary.durationMs,
  };
  if (options.json) return printJson(result);
  const order = ['none', 'short', 'mid-short', 'mid-long', 'long', 'beyond'];
  process.stdout.write(
    [
      `${result.project}: ${result.classes} test classes (${result.tracedNow} traced now, ${result.resumed} from an earlier run) in ${(summary.durationMs / 1000).toFixed(1)} s`,
      `buckets: ${order.map((bucket) => `${bucket} ${buckets[bucket] ?? 0}`).join(', ')}`,
      `verdicts equal to the baseline: ${result.verdictsMatchingBaseline}/${result.classes}`,
      ...mismatches.map((m) => `  ${m.testClass}: baseline ${m.baseline}, traced ${m.detail}`),
      `map: ${summary.out}`,
    ].join('\n') + '\n',
  );
}

async function inject(
  project: string,
  options: InjectCommandOptions,
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    runInjectCommand(project, options, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatInjectSummary(summary)}\n`);
  // Short of the count asked for is a result the caller should notice, not a crash.
  process.exitCode = summary.types.every((type) => type.accepted >= options.count)
    ? 0
    : EXIT_VERDICT;
}

async function transform(
  project: string,
  options: TransformCommandOptions & { json?: boolean },
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    runTransformCommand(project, options, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else {
    process.stdout.write(
      `${summary.project}: ${summary.sequence.join(' → ')} (${summary.engine}): ${summary.kept} kept, ${summary.short} short` +
        `${summary.resumed > 0 ? `, ${summary.resumed} from an earlier run` : ''} in ${(summary.durationMs / 1000).toFixed(1)} s\n` +
        `out: ${summary.out}/transformed.jsonl\n`,
    );
  }
  process.exitCode = summary.short === 0 ? 0 : EXIT_VERDICT;
}

async function caseMaterialize(
  caseDir: string,
  options: MaterializeCommandOptions & { json?: boolean },
  command: Command,
): Promise<void> {
  const outcome = await runMaterializeCommand(caseDir, options, cacheFrom(command));
  if (options.json) printJson(outcome);
  else process.stdout.write(`${formatMaterialise(outcome)}\n`);
  process.exitCode = outcome.kind === 'Materialised' ? 0 : EXIT_VERDICT;
}

async function caseExport(
  bench: string,
  options: { out: string; hideWitness?: boolean; json?: boolean },
  command: Command,
): Promise<void> {
  const summary = await runExportCommand(bench, options, cacheFrom(command));
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatExport(summary)}\n`);
  process.exitCode = summary.corrupt.length === 0 ? 0 : EXIT_VERDICT;
}

async function caseVerify(
  target: string,
  options: { workers: number; again?: boolean; json?: boolean },
  command: Command,
): Promise<void> {
  const result = await withProgress(options.json ?? false, (events) =>
    runVerifyCommand(target, options, cacheFrom(command), events),
  );
  if (options.json) printJson(result.kind === 'Case' ? result.outcome : result.summary);
  else {
    process.stdout.write(
      `${result.kind === 'Case' ? formatVerify(result.outcome) : formatBenchVerify(result.summary)}\n`,
    );
  }
  process.exitCode = allVerified(result) ? 0 : EXIT_VERDICT;
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

async function evaluate(
  bench: string,
  options: EvaluateCommandOptions,
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    runEvaluateCommand(bench, options, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatEvaluateSummary(summary)}\n`);
  // Items that could not be evaluated or judged are a result to notice, not a crash.
  process.exitCode =
    summary.notEvaluated.length === 0 && summary.tables.unjudged.length === 0 ? 0 : EXIT_VERDICT;
}

async function report(runDir: string, options: { json?: boolean }): Promise<void> {
  const tables = await runReportCommand(path.resolve(runDir));
  if (options.json) printJson(tables);
  else process.stdout.write(renderTables(tables));
}

async function rescore(
  runDir: string,
  options: RescoreCommandOptions,
  command: Command,
): Promise<void> {
  const result = await withProgress(options.json ?? false, (events) =>
    runRescoreCommand(runDir, options, cacheFrom(command), events),
  );
  if (options.json) printJson(result);
  else process.stdout.write(`${formatRescore(result)}\n`);
  // Rows that could not be judged again (case or project missing) are a result to notice.
  process.exitCode = result.notRescored === 0 ? 0 : EXIT_VERDICT;
}

function wholeNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) {
      throw new InvalidArgumentError(`${name} must be a whole number`);
    }
    return parsed;
  };
}

/** The ids of the bug-type specs, named after their files, for help texts. */
function bugTypeIds(): string[] {
  return readdirSync(bugTypesDir())
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => name.slice(0, -'.yaml'.length))
    .sort();
}

const MAVEN_ARG = '--maven-arg <arg>';
const MAVEN_ARG_HELP =
  'a flag added to every Maven run of this project (repeatable), e.g. --maven-arg=-Dmaven.compiler.release=8';

function buildProgram(): Command {
  const program = new Command('witnessgym')
    .description(
      'Build and strengthen test-based benchmarks for AI coding agents from real Java projects.',
    )
    .version(packageVersion())
    .option(
      '--cache-dir <dir>',
      'cache for downloads, projects and the Maven repository (default: $WITNESSGYM_CACHE or $XDG_CACHE_HOME/witnessgym)',
    )
    .configureOutput({
      // Usage mistakes get the same one-line form as every other user error.
      outputError: (text, write) =>
        write(
          `witnessgym: ${text
            .replace(/^error: /, '')
            .trim()
            .replace(/\s*\n\s*/g, ' ')} (see --help)\n`,
        ),
    })
    .exitOverride();

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

  program
    .command('replay')
    .description(
      'compile a disposable copy of a project and run one test class; exit 0 when it passes, 1 for any other verdict, 2 for a usage error',
    )
    .argument('<project>', 'corpus name or path to a Maven project')
    .requiredOption('--test <fqcn>', 'fully qualified test class name')
    .option(
      '--runs <n>',
      'run the class n times; disagreeing runs give Flaky',
      positiveInteger('--runs'),
      1,
    )
    .option(
      '--timeout <seconds>',
      'limit per test run (default: from the baseline, else 600)',
      positiveInteger('--timeout'),
    )
    .option('--recipe <name>', "apply a corpus recipe's build settings to a local project path")
    .addOption(
      new Option(
        '--runner <runner>',
        RUNNERS.map((runner) => `${runner.name}: ${runner.description}`).join('; '),
      )
        .choices(RUNNERS.map((runner) => runner.name))
        .default('maven'),
    )
    .option('--keep', 'keep the disposable copy (maven runner) and print its path')
    .option('--json', 'machine-readable output')
    .action(replay);
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
  withAgentOptions(
    program
      .command('inject')
      .description(
        'inject bugs of the given types into methods that witness tests reach; keep a bug only if its witness fails in 3 of 3 fast runs and under Maven, entering the changed code. Writes injections.jsonl, rejections.jsonl, summary.json (and agent-runs/); exit 1 when a type falls short of --count',
      )
      .usage('<project> --types <ids|all> --out <dir> [options]')
      .argument(
        '<project>',
        "fetched corpus name, or a path fetched with 'corpus fetch <path>' (same --recipe and --maven-arg)",
      )
      .requiredOption('--types <ids>', "(required) bug-type ids separated by commas, or 'all'")
      .option('--test <fqcn...>', 'witness test classes (default: every usable class)')
      .addOption(
        new Option('--engine <engine>', 'rules: deterministic AST rewrites; agent: a coding agent')
          .choices(['rules', 'agent'])
          .default('rules'),
      ),
  )
    .option(
      '--attempts <n>',
      'agent attempts per task, workspace reset before each',
      positiveInteger('--attempts'),
      DEFAULT_ATTEMPTS,
    )
    .option('--count <n>', 'accepted injections wanted per type', positiveInteger('--count'), 1)
    .option(
      '--max-tries <n>',
      'per type at most: candidates tried (rules, default 60) or agent tasks of --attempts runs (agent, default 2 × --count)',
      positiveInteger('--max-tries'),
    )
    .option('--seed <n>', 'seed of the site order (recorded)', wholeNumber('--seed'), 1)
    .requiredOption('--out <dir>', '(required) output directory; an existing one is resumed')
    .option('--recipe <name|file>', 'the --recipe the path was fetched with')
    .option(MAVEN_ARG, 'the --maven-arg flags the path was fetched with', collect)
    .option(
      '--collateral-limit <n>',
      'other test classes reaching the change rerun per accepted bug',
      wholeNumber('--collateral-limit'),
      25,
    )
    .option('--json', 'machine-readable output')
    .addHelpText(
      'after',
      () =>
        `\nBug types (specs/bug-types/):\n${bugTypeIds()
          .map((id) => `  ${id}\n`)
          .join('')}`,
    )
    .action(inject);
  withAgentOptions(
    program
      .command('transform')
      .description(
        "apply bug-preserving transformations in sequence to every bug of an inject run; a step is kept only if the project compiles, the witness's failing methods fail as after injection (fewer may, never more or otherwise), and other classes that reach the bug's file still pass; the final state is confirmed with Maven. Writes transformed.jsonl (and agent-runs/); exit 1 when a case falls short",
      )
      .usage('<project> --from <inject-out> --transforms <ids> --out <dir> [options]')
      .argument('<project>', 'the project the bugs were injected into (as given to inject)')
      .requiredOption('--from <dir>', '(required) the --out directory of an inject run')
      .requiredOption(
        '--transforms <ids>',
        `(required) operator ids in the order applied (deterministic: ${implementedOperators().join(', ')}; agent: any in specs/transforms/)`,
      )
      .requiredOption('--out <dir>', '(required) output directory; an existing one is resumed')
      .addOption(
        new Option(
          '--engine <engine>',
          "deterministic: the operators' code; agent: a coding agent, one run per step",
        )
          .choices(['deterministic', 'agent'])
          .default('deterministic'),
      ),
  )
    .option('--no-maven', 'leave the final state unconfirmed by Maven')
    .option(
      '--candidates <n>',
      'deterministic: candidates tried per step',
      positiveInteger('--candidates'),
      4,
    )
    .option(
      '--other-classes <n>',
      'other test classes reaching the bug file rerun per step',
      wholeNumber('--other-classes'),
      5,
    )
    .option('--recipe <name|file>', 'the --recipe the path was fetched with')
    .option(MAVEN_ARG, 'the --maven-arg flags the path was fetched with', collect)
    .option('--json', 'machine-readable output')
    .action(transform);

  const benchCase = program
    .command('case')
    .description(
      'the cases of a benchmark: materialise a tree, export snapshots, verify with Maven',
    );
  benchCase
    .command('materialize')
    .description(
      "write a case's buggy tree (or the clean one) from the corpus's pristine tree and the case's patches, without version control or build output; exit 1 when the case's files do not hold what its record says",
    )
    .argument('<case>', 'a case directory of a benchmark (<bench>/<case-id>)')
    .requiredOption('--out <dir>', '(required) a new or empty directory to write the tree into')
    .option('--clean', 'the clean tree (the pristine project) instead of the buggy one')
    .option('--hide-witness', "leave the witness's test file out (an evaluation workspace)")
    .option('--json', 'machine-readable output')
    .action(caseMaterialize);
  benchCase
    .command('export')
    .description(
      "write every case's buggy tree as a full snapshot <out>/<case-id>/ and the benchmark's index as <out>/cases.jsonl (one line per case); snapshots already there are kept",
    )
    .argument('<bench>', 'a benchmark directory')
    .requiredOption('--out <dir>', '(required) where to write the snapshots and the index')
    .option('--hide-witness', "leave each witness's test file out")
    .option('--json', 'machine-readable output')
    .action(caseExport);
  benchCase
    .command('verify')
    .description(
      'recheck a case, or every case of a benchmark, with Maven: the witness must fail on the buggy tree with the recorded signature (the same failing methods, each with the same exception type) and pass on the clean tree; a benchmark records each outcome in verify/outcomes.jsonl and a rerun skips the verified cases; exit 1 when one is not verified',
    )
    .argument('<case|bench>', 'a case directory (<bench>/<case-id>) or a benchmark directory')
    .option(
      '--workers <n>',
      "a benchmark's cases verified at once, each with its own Maven copy",
      positiveInteger('--workers'),
      2,
    )
    .option('--again', 'verify again the cases an earlier run verified')
    .option('--json', 'machine-readable output')
    .action(caseVerify);
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
  withAgentOptions(
    program
      .command('evaluate')
      .description(
        "evaluate an agent on a benchmark: with the witness hidden, can it write a test that exposes each case's bug? Each attempt runs in a fresh workspace (process agents in a bubblewrap sandbox) and is judged by Maven in fresh buggy and clean trees; results go to a SQLite database in --run, and a rerun resumes. Offline agents: witness (positive control), none (negative control), existing-tests (the suite's give-away), scripted (--script)",
      )
      .usage('<bench> --agent <name> [options]')
      .argument('<bench>', "a benchmark directory from 'witnessgym build'"),
  )
    .option('--setting <setting>', 'NoEC, WithEC or both', 'both')
    .option('--attempts <n>', 'attempts per case and setting', positiveInteger('--attempts'), 3)
    .option(
      '--cases <filter...>',
      'case id globs (commons-csv@*) and key=value terms (type, bucket, depth, project, category)',
    )
    .option('--concurrency <n>', 'items evaluated at once', positiveInteger('--concurrency'), 1)
    .option('--run <dir>', 'where the results database lives (default <bench>/evaluation)')
    .option('--script <file>', 'scripted agent: a JSON file of files to write per attempt')
    .option(
      '--verify-timeout <seconds>',
      'limit for verifying one attempt',
      positiveInteger('--verify-timeout'),
      1200,
    )
    .option(
      '--case-timeout <seconds>',
      'limit for all attempts of one case and setting',
      positiveInteger('--case-timeout'),
      4200,
    )
    .option(
      '--runs <n>',
      'fresh runs per side a witness must agree in',
      positiveInteger('--runs'),
      3,
    )
    .option(
      '--allow-endpoint <host:port>',
      "an endpoint the sandboxed agent may reach through the harness's proxy (repeatable; replaces the agent's defaults: claude-code api.anthropic.com:443, codex api.openai.com:443, opencode both and models.dev:443, command none)",
      collect,
    )
    .option('--no-network', 'let the sandboxed agent reach nothing, not even its model')
    .option(
      '--no-screen',
      "judge without the static screen of submitted tests (the sandbox alone: for studying the screen's effect); rows record it",
    )
    .option(
      '--sandbox-read <path...>',
      'host paths the sandboxed agent may read (its program or configuration outside /usr)',
    )
    .option('--sandbox-write <path...>', 'host paths the sandboxed agent may read and write')
    .option('--json', 'machine-readable output')
    .action(evaluate);
  program
    .command('report')
    .description(
      "print the paper's tables (success by agent and setting, by bug type and bucket, by bucket, by depth, the diagnoses, the give-away rate) from an evaluation's run directory, every agent evaluated into it",
    )
    .argument('<run>', "a run directory of 'witnessgym evaluate' (default <bench>/evaluation)")
    .option('--json', 'machine-readable output')
    .action(report);
  program
    .command('rescore')
    .description(
      "judge every submission a run stored again with this witnessgym's verifier and list the attempts whose diagnosis changes, first: the audit after a verifier fix. The attempts' rows stay as they are; the new verdicts are stored beside them, per verifier commit, and a rerun skips what this verifier judged",
    )
    .argument('<run>', "a run directory of 'witnessgym evaluate' (default <bench>/evaluation)")
    .option(
      '--bench <dir>',
      'the benchmark the run was evaluated on (needed only for runs that do not record it)',
    )
    .option('--again', 'judge again what this verifier judged in an earlier rescore')
    .option(
      '--runs <n>',
      'fresh runs per side a witness must agree in',
      positiveInteger('--runs'),
      3,
    )
    .option(
      '--verify-timeout <seconds>',
      'limit for verifying one attempt',
      positiveInteger('--verify-timeout'),
      1200,
    )
    .option('--json', 'machine-readable output')
    .action(rescore);
  return program;
}

async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  const json = argv.includes('--json');
  try {
    await program.parseAsync(argv);
  } catch (error) {
    if (error instanceof CommanderError) {
      process.exitCode = error.exitCode === 0 ? 0 : EXIT_USAGE;
      return;
    }
    const usage = error instanceof UserError;
    const message = errorMessage(error);
    if (json) printJson({ error: message, kind: usage ? 'usage' : 'failure' });
    process.stderr.write(`witnessgym: ${message}\n`);
    if (!usage && !(error instanceof CorpusBuildError) && process.env.WITNESSGYM_DEBUG) {
      process.stderr.write(`${(error as Error).stack ?? ''}\n`);
    }
    process.exitCode = usage
      ? EXIT_USAGE
      : error instanceof CorpusBuildError
        ? EXIT_VERDICT
        : EXIT_INTERNAL;
  }
}

// A reader that stops early (`| head`) is not an error of ours.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
await main(process.argv);

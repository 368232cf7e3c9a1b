import path from 'node:path';
import { Option, type Command } from 'commander';
import { UserError } from '../../core/errors.js';
import {
  runRepairEvaluation,
  type RepairEvaluationSummary,
} from '../../stages/5-evaluate/repair/evaluate-repair.js';
import { runEvaluate, type EvaluateStageOptions } from '../../stages/5-evaluate/driver.js';
import type { EvaluateResult } from '../../stages/5-evaluate/evaluate.js';
import type { Setting } from '../../stages/5-evaluate/records.js';
import { renderTables, resultTables, type ResultTables } from '../../stages/6-report/tables.js';
import {
  cacheFrom,
  collect,
  EXIT_VERDICT,
  positiveInteger,
  printJson,
  withAgentOptions,
  wholeNumber,
  withProgress,
} from '../common.js';

/** What `evaluate` prints: the run's counts and the tables of its rows. */
interface EvaluateSummary extends Omit<EvaluateResult, 'rows'> {
  agent: string;
  settings: Setting[];
  tables: ResultTables;
}

function formatEvaluateSummary(summary: EvaluateSummary): string {
  const lines = [
    `evaluated ${summary.agent} (${summary.settings.join(', ')}) on ${summary.items} items: ${summary.attemptsRun} attempts run, ${summary.alreadyDone} items done earlier; results in ${summary.runDir}`,
  ];
  if (summary.attemptLimit.kind === 'Once') {
    lines.push(`one attempt per item: ${summary.attemptLimit.reason}`);
  }
  if (summary.interruptedBefore > 0) {
    lines.push(`${summary.interruptedBefore} attempts an earlier run left in flight were redone`);
  }
  if (summary.harnessFaults > 0) {
    lines.push(
      `${summary.harnessFaults} harness faults (retried; counted apart from the agent's failures)`,
    );
  }
  for (const missed of summary.notEvaluated)
    lines.push(`not evaluated: ${missed.item}: ${missed.reason}`);
  lines.push('', renderTables(summary.tables));
  return lines.join('\n');
}

function formatRepairSummary(summary: RepairEvaluationSummary): string {
  const lines = [
    `evaluated ${summary.agent} (repair) on ${summary.instances} instances: ${summary.resolved} resolved; ${summary.attemptsRun} attempts run, ${summary.alreadyDone} instances done earlier; results in ${summary.runDir}`,
    `predictions: ${summary.predictions}`,
  ];
  if (summary.interruptedBefore > 0) {
    lines.push(`${summary.interruptedBefore} attempts an earlier run left in flight were redone`);
  }
  for (const missed of summary.notEvaluated) {
    lines.push(`not evaluated: ${missed.instanceId}: ${missed.reason}`);
  }
  return lines.join('\n');
}

async function evaluateRepair(
  instancesFile: string,
  options: EvaluateStageOptions & { seed: number; json?: boolean },
  command: Command,
): Promise<void> {
  if (!options.agent) {
    throw new UserError(
      '--task repair needs --agent: gold, none, plausible, alternative or a coding agent',
    );
  }
  const summary = await withProgress(options.json ?? false, (events) =>
    runRepairEvaluation(
      instancesFile,
      {
        ...options,
        run:
          options.run ??
          path.join(path.dirname(path.resolve(instancesFile)), 'repair-evaluation', options.agent),
      },
      cacheFrom(command),
      events,
    ),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatRepairSummary(summary)}\n`);
  process.exitCode = summary.notEvaluated.length === 0 ? 0 : EXIT_VERDICT;
}

async function evaluate(
  bench: string,
  options: EvaluateStageOptions & { task: 'test' | 'repair'; seed: number; json?: boolean },
  command: Command,
): Promise<void> {
  if (options.task === 'repair') {
    if (options.queue)
      throw new UserError('--queue applies to --task test: repair attempts run here');
    await evaluateRepair(bench, options, command);
    return;
  }
  const { rows, ...rest } = await withProgress(options.json ?? false, (events) =>
    runEvaluate(bench, options, cacheFrom(command), events),
  );
  const summary: EvaluateSummary = { ...rest, tables: resultTables(rows) };
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatEvaluateSummary(summary)}\n`);
  // Items that could not be evaluated or judged are a result to notice, not a crash.
  process.exitCode =
    summary.notEvaluated.length === 0 && summary.tables.unjudged.length === 0 ? 0 : EXIT_VERDICT;
}

/** `witnessgym evaluate`. */
export function register(program: Command): void {
  withAgentOptions(
    program
      .command('evaluate')
      .description(
        "evaluate an agent on a benchmark: with the witness hidden, can it write a test that exposes each case's bug? Each attempt runs in a fresh workspace (process agents in a bubblewrap sandbox) and is judged by Maven in fresh buggy and clean trees; results go to a SQLite database in --run, and a rerun resumes. Offline agents: witness (positive control), none (negative control), existing-tests (the suite's give-away), scripted (--script)",
      )
      .usage('<bench> --agent <name> [options]')
      .argument(
        '<bench>',
        "a benchmark directory from 'witnessgym build' (with --task repair: an instance file)",
      ),
  )
    .addOption(
      new Option(
        '--task <task>',
        "test: write a test exposing each case's bug (the paper's task); repair: fix each repair instance of <instances.jsonl> (witnessgym case export --as repair), judged in the sandbox by the instance's tests, with SWE-bench predictions written to the run directory (offline agents gold, none, plausible, alternative; a coding agent gets the base tree and the problem statement in the sandbox)",
      )
        .choices(['test', 'repair'])
        .default('test'),
    )
    .option('--seed <n>', 'repair: seed of the plausible agent', wholeNumber('--seed'), 1)
    .option('--setting <setting>', 'NoEC, WithEC or both', 'both')
    .option('--attempts <n>', 'attempts per case and setting', positiveInteger('--attempts'), 3)
    .option(
      '--cases <filter...>',
      'case id globs (commons-csv@*) and key=value terms (type, bucket, depth, project, category)',
    )
    .option('--concurrency <n>', 'items evaluated at once', positiveInteger('--concurrency'), 1)
    .option('--run <dir>', 'where the results database lives (default <bench>/evaluation)')
    .option(
      '--shard <i/N>',
      "only this machine's share of the work, by each unit's key (1/4 to 4/4 on four machines, as array jobs run); unite the outputs with 'witnessgym merge'",
    )
    .option(
      '--queue <url>',
      "run the attempts as jobs on the workers of this Redis queue (redis://host:6379; see 'witnessgym worker'): the benchmark and --run must be at the same path on every host",
    )
    .option(
      '--agent-concurrency <n>',
      "with --queue: at most this many attempts at once across all workers (the agent API's spend)",
      positiveInteger('--agent-concurrency'),
    )
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
}

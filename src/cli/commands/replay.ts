import { Option, type Command } from 'commander';
import { describeVerdict } from '../../core/verdict.js';
import { RUNNERS } from '../../runners/index.js';
import type { RunnerName } from '../../runners/types.js';
import { replayProjectClass } from '../../stages/0-corpus/driver.js';
import type { ReplayResult } from '../../stages/0-corpus/replay.js';
import { cacheFrom, EXIT_USAGE, EXIT_VERDICT, positiveInteger, printJson } from '../common.js';

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
  const result = await replayProjectClass(
    project,
    {
      runner: options.runner,
      testClass: options.test,
      runs: options.runs,
      ...(options.timeout !== undefined ? { timeoutMs: options.timeout * 1000 } : {}),
      keep: options.keep ?? false,
      ...(options.recipe !== undefined ? { recipe: options.recipe } : {}),
    },
    cacheFrom(command),
  );
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

/** `witnessgym replay`. */
export function register(program: Command): void {
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
}

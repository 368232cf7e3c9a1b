#!/usr/bin/env node
import { Command, CommanderError } from 'commander';
import { UserError, errorMessage } from '../core/errors.js';
import { packageVersion } from '../core/package-root.js';
import { CorpusBuildError } from '../stages/0-corpus/fetch.js';
import * as build from './commands/build.js';
import * as benchCase from './commands/case.js';
import * as corpus from './commands/corpus.js';
import * as evaluate from './commands/evaluate.js';
import * as inject from './commands/inject.js';
import * as instances from './commands/instances.js';
import * as merge from './commands/merge.js';
import * as realism from './commands/realism.js';
import * as replay from './commands/replay.js';
import * as report from './commands/report.js';
import * as rescore from './commands/rescore.js';
import * as strengthen from './commands/strengthen.js';
import * as trace from './commands/trace.js';
import * as transform from './commands/transform.js';
import * as worker from './commands/worker.js';
import { EXIT_INTERNAL, EXIT_USAGE, EXIT_VERDICT, printJson } from './common.js';

/** The commands, in the order help lists them; each registers its flags and handler. */
const COMMANDS = [
  corpus,
  replay,
  trace,
  inject,
  transform,
  benchCase,
  build,
  evaluate,
  instances,
  report,
  rescore,
  realism,
  strengthen,
  merge,
  worker,
];

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

  for (const command of COMMANDS) command.register(program);
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

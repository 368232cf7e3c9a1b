import { Command, InvalidArgumentError } from 'commander';
import { cacheLayout, resolveCacheDir, type CacheLayout } from '../core/cache.js';
import { progressSink } from '../events/render.js';
import type { EventSink } from '../events/types.js';
import type { RecipeRequest } from '../project/project.js';

/* What every command shares: exit codes, output, progress, and the parsers of common flags. */

/** Exit codes: 0 success or Passed, 1 a non-passing verdict or a failed build, 2 a user mistake. */
export const EXIT_VERDICT = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERNAL = 3;

interface GlobalOptions {
  cacheDir?: string;
}

export function cacheFrom(command: Command): CacheLayout {
  return cacheLayout(resolveCacheDir(command.optsWithGlobals<GlobalOptions>().cacheDir));
}

export function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value, null, 2)}\n`);
}

/** Runs long work with the progress display that suits where stderr goes (see progressSink). */
export async function withProgress<T>(
  json: boolean,
  work: (events: EventSink) => Promise<T>,
): Promise<T> {
  const sink = progressSink({ json });
  try {
    return await work(sink);
  } finally {
    sink.stop();
  }
}

export function progress(line: string): void {
  process.stderr.write(`${line}\n`);
}

export function positiveInteger(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 1) {
      throw new InvalidArgumentError(`${name} must be a positive whole number`);
    }
    return parsed;
  };
}

export function wholeNumber(name: string) {
  return (value: string): number => {
    const parsed = Number(value);
    if (!Number.isInteger(parsed) || parsed < 0) {
      throw new InvalidArgumentError(`${name} must be a whole number`);
    }
    return parsed;
  };
}

/** What `--recipe` and `--maven-arg` ask of a command's project. */
export function recipeRequest(options: { recipe?: string; mavenArg?: string[] }): RecipeRequest {
  return {
    ...(options.recipe ? { recipe: options.recipe } : {}),
    mavenArgs: options.mavenArg ?? [],
  };
}

/** Commander's collector for a repeatable option. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

/** The agent flags `inject` and `transform` share with `--engine agent` (see agents/flags.ts). */
export function withAgentOptions(command: Command): Command {
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

export const MAVEN_ARG = '--maven-arg <arg>';
export const MAVEN_ARG_HELP =
  'a flag added to every Maven run of this project (repeatable), e.g. --maven-arg=-Dmaven.compiler.release=8';

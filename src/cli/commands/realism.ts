import path from 'node:path';
import { InvalidArgumentError, type Command } from 'commander';
import { agentAdapterFrom, agentNetwork } from '../../agents/flags.js';
import { UserError } from '../../core/errors.js';
import { sandboxAvailability } from '../../sandbox/bwrap.js';
import { defaultDefects4JDir } from '../../realism/patches.js';
import { runRealism } from '../../realism/realism.js';
import { renderRealism } from '../../realism/render.js';
import { DEFAULT_STUDY } from '../../realism/study.js';
import {
  collect,
  EXIT_VERDICT,
  positiveInteger,
  printJson,
  progress,
  wholeNumber,
} from '../common.js';

interface RealismFlags {
  defects4j?: string;
  out?: string;
  seed: number;
  resamples: number;
  folds: number;
  json?: boolean;
  judge?: string;
  model?: string;
  baseUrl?: string;
  agentCommand?: string;
  agentBin?: string;
  agentArg?: string[];
  temperature?: number;
  judgeTimeout: number;
  judgePairs?: number;
  bugsOnly?: boolean;
  allowEndpoint?: string[];
  network: boolean;
}

/**
 * A process judge runs in the sandbox, seeing only an empty workspace: blind as the built-in
 * loop, whose one turn has no tool to open the key with.
 */
async function judgeConfinement(judge: string, options: RealismFlags) {
  const availability = await sandboxAvailability();
  if (availability.kind === 'Unavailable') {
    throw new UserError(
      `--judge ${judge} runs in a bubblewrap sandbox, which is unavailable (${availability.reason}): install it with 'apt-get install bubblewrap'`,
    );
  }
  return {
    network: agentNetwork({
      agent: judge,
      network: options.network,
      ...(options.allowEndpoint ? { allowEndpoint: options.allowEndpoint } : {}),
    }),
  };
}

async function realism(benches: string[], options: RealismFlags): Promise<void> {
  const judge = options.judge
    ? {
        adapter: agentAdapterFrom({
          agent: options.judge,
          agentCommand: options.agentCommand,
          agentBin: options.agentBin,
          agentArg: options.agentArg,
          model: options.model,
          baseUrl: options.baseUrl,
          temperature: options.temperature,
          // One answer, no tools: a judgement is a single turn.
          maxTurns: options.judge === 'openai' ? 1 : undefined,
          agentTimeout: options.judgeTimeout,
        }),
        timeoutMs: options.judgeTimeout * 1000,
        maxPairs: options.judgePairs,
        ...(options.judge === 'openai'
          ? {}
          : { confined: await judgeConfinement(options.judge, options) }),
      }
    : undefined;
  const report = await runRealism({
    benches,
    view: options.bugsOnly ? 'bugs' : 'cases',
    defects4j: options.defects4j ?? defaultDefects4JDir(),
    out: options.out ?? path.join(benches[0]!, 'realism'),
    seed: options.seed,
    study: {
      discriminator: { ...DEFAULT_STUDY.discriminator, folds: options.folds, seed: options.seed },
      bootstrap: { ...DEFAULT_STUDY.bootstrap, resamples: options.resamples, seed: options.seed },
    },
    judge,
    log: options.json ? () => {} : progress,
  });
  if (options.json) printJson(report);
  else process.stdout.write(renderRealism(report));
  // A control that fails makes the other numbers unreadable: the discriminator is not measuring.
  const { positive, negative } = report.discriminator.controls;
  process.exitCode = positive.kind === 'Passed' && negative.kind === 'Passed' ? 0 : EXIT_VERDICT;
}

function temperature(value: string): number {
  const parsed = Number(value);
  if (value.trim() === '' || !Number.isFinite(parsed) || parsed < 0 || parsed > 2) {
    throw new InvalidArgumentError('--temperature must be a number from 0 to 2');
  }
  return parsed;
}

/** `witnessgym realism`. */
export function register(program: Command): void {
  program
    .command('realism')
    .description(
      "measure how far the benchmarks' injected patches can be told from real bugs: each case's patch against a size-matched Defects4J patch (fixed → buggy), both rendered alike; an L2 logistic-regression discriminator scored out of fold (AUC overall, per depth and per feature family, 90% cluster-bootstrap CI, TOST against (0.45, 0.55)), its positive and negative controls, and with --judge the paper's LLM-judge protocol; writes the blind pairs and report.json to --out",
    )
    .argument('<bench...>', "benchmark directories made by 'witnessgym build'")
    .option(
      '--defects4j <dir>',
      'Defects4J data: <Project>/patches/<n>.src.patch (default $WITNESSGYM_DEFECTS4J, else ../shared/data/defects4j beside the checkout)',
    )
    .option(
      '--out <dir>',
      'where the pairs, patches, key, report and judgements go (default <first bench>/realism)',
    )
    .option(
      '--seed <n>',
      'seed of the matching, folds, bootstrap and blind ids',
      wholeNumber('--seed'),
      1,
    )
    .option(
      '--resamples <n>',
      'cluster-bootstrap resamples',
      positiveInteger('--resamples'),
      10_000,
    )
    .option(
      '--folds <n>',
      'cross-validation folds',
      positiveInteger('--folds'),
      DEFAULT_STUDY.discriminator.folds,
    )
    .option(
      '--judge <agent>',
      'also judge every pair with an agent (openai, claude-code, codex, opencode, command): 3 single-patch judgements per patch, 2 pairwise per pair, one row each in <out>/realism.sqlite; resumable',
    )
    .option(
      '--judge-pairs <n>',
      'judge at most this many pairs (a seeded draw)',
      positiveInteger('--judge-pairs'),
    )
    .option('--model <model>', "the judge's model (required by openai)")
    .option(
      '--base-url <url>',
      'openai: the OpenAI-compatible endpoint; key from $WITNESSGYM_OPENAI_API_KEY or $OPENAI_API_KEY',
    )
    .option('--temperature <t>', 'openai: sampling temperature (0 to 2)', temperature)
    .option(
      '--agent-command <command>',
      'command judge: a shell command; the prompt arrives on stdin or in {prompt_file}',
    )
    .option('--agent-bin <path>', 'claude-code, codex, opencode: the executable to run')
    .option(
      '--agent-arg <arg>',
      'claude-code, codex, opencode: an extra argument (repeatable)',
      collect,
    )
    .option(
      '--allow-endpoint <host:port>',
      "an endpoint the sandboxed judge may reach through the harness's proxy (repeatable; replaces the judge's defaults as in evaluate: claude-code api.anthropic.com:443, codex api.openai.com:443, command none)",
      collect,
    )
    .option('--no-network', 'let the sandboxed judge reach nothing, not even its model')
    .option(
      '--judge-timeout <seconds>',
      'limit for one judgement',
      positiveInteger('--judge-timeout'),
      300,
    )
    .option(
      '--bugs-only',
      "each bug's injection patch alone (depth 0, once per bug) instead of each case's whole patch: the bug's realism apart from its transformations'",
    )
    .option('--json', 'machine-readable output')
    .action(realism);
}

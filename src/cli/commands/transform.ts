import { Option, type Command } from 'commander';
import { runTransform, type TransformStageOptions } from '../../stages/3-transform/driver.js';
import { implementedOperators } from '../../stages/3-transform/operators/index.js';
import {
  cacheFrom,
  collect,
  EXIT_VERDICT,
  MAVEN_ARG,
  positiveInteger,
  printJson,
  recipeRequest,
  wholeNumber,
  withAgentOptions,
  withProgress,
} from '../common.js';

async function transform(
  project: string,
  options: TransformStageOptions & { json?: boolean; recipe?: string; mavenArg?: string[] },
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    runTransform(project, { ...options, ...recipeRequest(options) }, cacheFrom(command), events),
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

/** `witnessgym transform`. */
export function register(program: Command): void {
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
}

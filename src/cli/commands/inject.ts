import { readdirSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { DEFAULT_ATTEMPTS } from '../../agents/engine.js';
import { runInject, type InjectStageOptions } from '../../stages/2-inject/driver.js';
import type { InjectSummary, TypeSummary } from '../../stages/2-inject/records.js';
import { bugTypesDir } from '../../stages/2-inject/spec.js';
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

type InjectCommandOptions = InjectStageOptions & {
  json?: boolean;
  recipe?: string;
  mavenArg?: string[];
};

/** Why a type got fewer bugs than asked for, in words. */
function shortfall(type: TypeSummary, summary: InjectSummary): string {
  if (type.ended === 'tries-exhausted') {
    return summary.engine.kind === 'agent'
      ? `its ${summary.maxTries} agent tasks (--max-tries) were spent`
      : `its ${summary.maxTries} tries (--max-tries) were spent; raise --max-tries to try more of its ${type.sitesFound ?? '?'} sites`;
  }
  if (type.sitesFound === 0) return 'no site of this type in the methods the witnesses reach';
  return `every one of its ${type.sitesFound} sites was tried (${rejections(type)})`;
}

function rejections(type: TypeSummary): string {
  const counts = Object.entries(type.rejectedBy).map(([stage, count]) => `${count} ${stage}`);
  return counts.length > 0 ? `rejected: ${counts.join(', ')}` : 'none rejected';
}

/** How widely the accepted bugs are spread: a benchmark of one method's variants says little. */
function coverageLine({ coverage }: InjectSummary): string {
  const { accepted, files, members, witnesses } = coverage;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `${count(accepted, 'accepted bug', 'accepted bugs')} in ${count(files, 'file', 'files')} and ${count(members, 'method', 'methods')}, exposed by ${count(witnesses, 'witness class', 'witness classes')}`;
}

export function formatInjectSummary(summary: InjectSummary): string {
  const header = `${'type'.padEnd(46)} ${'sites'.padStart(6)} ${'tried'.padStart(6)} ${'accepted'.padStart(8)} ${'rate'.padStart(6)} ${'time'.padStart(8)}`;
  const rows = summary.types.map(
    (type) =>
      `${type.typeId.padEnd(46)} ${String(type.sitesFound ?? '-').padStart(6)} ${String(type.tried).padStart(6)} ${String(type.accepted).padStart(8)} ${`${Math.round(type.acceptanceRate * 100)}%`.padStart(6)} ${`${(type.durationMs / 1000).toFixed(1)} s`.padStart(8)}`,
  );
  const short = summary.types
    .filter((type) => type.ended !== 'count-reached')
    .map(
      (type) =>
        `  ${type.typeId}: ${type.accepted} of ${summary.wanted}, ${shortfall(type, summary)}`,
    );
  return [
    `${summary.project}: ${summary.engine.kind} engine, seed ${summary.seed}, ${(summary.durationMs / 1000).toFixed(1)} s`,
    header,
    ...rows,
    ...(short.length > 0
      ? [
          `${short.length} of ${summary.types.length} types fell short of --count ${summary.wanted}:`,
          ...short,
        ]
      : []),
    coverageLine(summary),
    `out: ${summary.out} (injections.jsonl, rejections.jsonl, summary.json${summary.engine.kind === 'agent' ? ', agent-runs/' : ''})`,
  ].join('\n');
}

/** The ids of the bug-type specs, named after their files, for help texts. */
function bugTypeIds(): string[] {
  return readdirSync(bugTypesDir())
    .filter((name) => name.endsWith('.yaml'))
    .map((name) => name.slice(0, -'.yaml'.length))
    .sort();
}

async function inject(
  project: string,
  options: InjectCommandOptions,
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    runInject(project, { ...options, ...recipeRequest(options) }, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatInjectSummary(summary)}\n`);
  // Short of the count asked for is a result the caller should notice, not a crash.
  process.exitCode = summary.types.every((type) => type.accepted >= options.count)
    ? 0
    : EXIT_VERDICT;
}

/** `witnessgym inject`. */
export function register(program: Command): void {
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
}

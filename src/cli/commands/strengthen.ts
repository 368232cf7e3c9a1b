import path from 'node:path';
import type { Command } from 'commander';
import type { Interval } from '../../metrics/interval.js';
import { reevaluate, type ReevaluationSummary } from '../../stages/7-strengthen/reevaluate.js';
import {
  strengthenInstances,
  type StrengthenStageOptions,
} from '../../stages/7-strengthen/driver.js';
import type { StrengthenSummary } from '../../stages/7-strengthen/strengthen-file.js';
import { RULE_FAMILIES } from '../../stages/7-strengthen/mutants.js';
import {
  cacheFrom,
  collect,
  EXIT_VERDICT,
  positiveInteger,
  printJson,
  wholeNumber,
  withAgentOptions,
  withProgress,
} from '../common.js';

function percent(part: number, whole: number): string {
  return whole === 0 ? 'n/a' : `${((100 * part) / whole).toFixed(1)} %`;
}

/** A Wilson interval as `[low–high %]`. */
function interval({ low, high }: Interval): string {
  return `[${(100 * low).toFixed(1)}–${(100 * high).toFixed(1)} %]`;
}

function mutantLines(mutants: NonNullable<StrengthenSummary['mutants']>): string[] {
  const count = (fates: Record<string, number>) =>
    Object.entries(fates)
      .map(([fate, n]) => `${fate} ${n}`)
      .join(', ');
  return [
    `mutants: ${count(mutants.byFate) || 'none'}`,
    ...Object.entries(mutants.byFamily).map(([family, fates]) => `  ${family}: ${count(fates)}`),
    `told from gold: ${mutants.generating.proven} for test generation (${mutants.generating.killed} killed by a kept test), ${mutants.heldOut.proven} held out; ${mutants.heldOut.unproven} unproven (${mutants.heldOut.file}: give it to reevaluate to measure the held-out kill rate)`,
    ...(mutants.judged.equivalent + mutants.judged.different + mutants.judged.undecided > 0
      ? [
          `the agent's votes on unproven survivors (not evidence): ${mutants.judged.equivalent} equivalent, ${mutants.judged.different} different, ${mutants.judged.undecided} undecided`,
        ]
      : []),
  ];
}

function formatStrengthen(summary: StrengthenSummary): string {
  const { coverage } = summary;
  return [
    `${summary.instances} instances: ${summary.strengthened} strengthened (${summary.testsAdded} tests added, ${summary.failToPassAdded} of them failing on the base tree) in ${(summary.durationMs / 60_000).toFixed(1)} min`,
    `outcomes: ${Object.entries(summary.outcomes)
      .map(([kind, count]) => `${kind} ${count}`)
      .join(', ')}`,
    `slice coverage: ${coverage.before}/${coverage.relevant} relevant lines (${percent(coverage.before, coverage.relevant)}) before, ${coverage.after}/${coverage.relevant} (${percent(coverage.after, coverage.relevant)}) after`,
    `candidates lost by gate: ${
      Object.entries(summary.losses)
        .map(([gate, count]) => `${gate} ${count}`)
        .join(', ') || 'none'
    }`,
    ...summary.skipped.map((entry) => `  left as is: ${entry.instanceId}: ${entry.reason}`),
    `correct alternatives of gold: ${summary.alternatives.guard} used by the guard, ${summary.alternatives.heldOut} held out (${summary.alternatives.heldOutFile}: give it to reevaluate to measure false negatives)`,
    ...Object.entries(summary.stages).map(
      ([stage, counts]) =>
        `stage ${stage}: ${counts.strengthened} instances given ${counts.testsAdded} tests`,
    ),
    ...(summary.mutants ? mutantLines(summary.mutants) : []),
    `strengthened instances: ${summary.strengthenedFile}`,
  ].join('\n');
}

function formatReevaluation(summary: ReevaluationSummary): string {
  const rows = summary.agents.map(
    (agent) =>
      `${agent.agent.padEnd(14)} ${percent(agent.acceptedBefore, agent.instances).padStart(8)} ${interval(agent.resolveBeforeCi)} → ${percent(agent.passesAfter, agent.instances).padStart(8)} ${interval(agent.resolveAfterCi)}  rank ${agent.rankBefore} → ${agent.rankAfter}  rejected ${agent.rejected} of ${agent.acceptedBefore}${agent.acceptedBefore > 0 ? ` ${interval(agent.rejectedShareCi)}` : ''}${agent.strippedTestEdits > 0 ? `, ${agent.strippedTestEdits} patches with test edits stripped` : ''}`,
  );
  const number = (value: number | null) => (value === null ? 'n/a' : value.toFixed(3));
  return [
    `${summary.instances} instances, ${summary.strengthenedInstances} strengthened; slice coverage ${summary.coverage.before}/${summary.coverage.relevant} → ${summary.coverage.after}/${summary.coverage.relevant}`,
    'agent           resolved before → after (Wilson 95 % intervals)',
    ...rows,
    `rejected ${summary.overall.rejected} of ${summary.overall.accepted} accepted patches (${summary.overall.rejectedShare === null ? 'n/a' : `${(100 * summary.overall.rejectedShare).toFixed(1)} % ${interval(summary.overall.rejectedShareCi)}`}); Spearman ρ ${number(summary.spearman)}, Kendall τ-b ${number(summary.kendallTauB)}`,
    ...summary.rejections.map(
      (row) =>
        `  rejected: ${row.agent} ${row.instanceId}: ${row.strengthened?.kind === 'Rejected' ? row.strengthened.failing.join(', ') : row.strengthened?.kind}`,
    ),
    ...summary.notEvaluated.map(
      (entry) => `  not evaluated: ${entry.agent} ${entry.instanceId}: ${entry.reason}`,
    ),
    `results: ${path.join(summary.out, 'reevaluation.sqlite')}`,
  ].join('\n');
}

async function strengthen(
  file: string,
  options: StrengthenStageOptions & { json?: boolean },
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    strengthenInstances(file, options, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatStrengthen(summary)}\n`);
  process.exitCode = summary.skipped.length === 0 ? 0 : EXIT_VERDICT;
}

async function reevaluateCommand(
  file: string,
  options: { predictions: string[]; out: string; json?: boolean },
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    reevaluate(file, options.predictions, { out: options.out, cache: cacheFrom(command), events }),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatReevaluation(summary)}\n`);
  process.exitCode = summary.notEvaluated.length === 0 ? 0 : EXIT_VERDICT;
}

/** `witnessgym strengthen`, `witnessgym reevaluate`. */
export function register(program: Command): void {
  withAgentOptions(
    program
      .command('strengthen')
      .description(
        "strengthen repair instances' tests (SWE-ABS): slice gold's change; Stage I (coverage) measures the slice's coverage by the instance's tests with JaCoCo and amplifies those tests where they miss relevant lines; Stage II (mutation) tries plausible wrong patches of gold, keeps those the suite lets pass that a probe tells from gold, and writes tests that kill them. A new test is kept only if it passes on gold in 3 fresh runs and under another locale and time zone, passes gold's correct alternatives, adds coverage (Stage I) or kills a mutant in 3 runs (Stage II), and compiles against the base tree. Writes <out>/strengthened.jsonl (drop-in for SWE-bench-style harnesses, originals kept as original_*), <out>/instances/<id>/ and <out>/summary.json; a rerun resumes. Instances must have passed 'witnessgym instances validate'",
      )
      .argument('<instances.jsonl>', 'an instance file')
      .requiredOption('--out <dir>', '(required) where to write the strengthened instances')
      .option(
        '--stages <list>',
        "coverage (Stage I: tests where the suite misses lines of gold's slice), mutation (Stage II: plausible wrong patches of gold the suite lets pass, and tests that kill them), or both: coverage,mutation",
        'coverage',
      )
      .option(
        '--hold-out <share>',
        "share of Stage II's surviving mutants no test is written for: re-evaluating them (held-out-mutants.jsonl) measures whether the new tests catch wrong patches they were not written for",
        Number.parseFloat,
        0.5,
      )
      .option(
        '--mutants-per-family <n>',
        'Stage II, deterministic engine: mutants tried per family and instance (partial gold, operator, bug type, extreme), drawn by the seed; the patch that leaves gold out is always tried',
        positiveInteger('--mutants-per-family'),
        6,
      )
      .option(
        '--mutant-families <list>',
        `Stage II, deterministic engine: the rules' families to try, comma-separated (${RULE_FAMILIES.join(', ')})`,
        RULE_FAMILIES.join(','),
      )
      .option(
        '--agent-mutants <n>',
        "Stage II, agent engine: wrong variants of gold asked of the agent per instance (SWE-ABS's mutant prompt), each with --attempts tries",
        positiveInteger('--agent-mutants'),
        2,
      )
      .option('--seed <n>', 'seed of every random choice', wholeNumber('--seed'), 1)
      .option(
        '--engine <engine>',
        "who writes the new tests: deterministic (amplifies the instance's tests; no model) or agent (--agent; the paper's generation, coverage-feedback and decoupling prompts, every test gated in the sandbox)",
        'deterministic',
      ),
  )
    .option(
      '--attempts <n>',
      'agent engine: attempts per phase, each told why the last was not kept',
      positiveInteger('--attempts'),
      3,
    )
    .option(
      '--allow-endpoint <host:port>',
      "agent engine: an endpoint the sandboxed agent may reach through the harness's proxy (repeatable; replaces the agent's defaults)",
      collect,
    )
    .option('--no-network', 'agent engine: let the sandboxed agent reach nothing')
    .option('--sandbox-read <path...>', 'agent engine: host paths the sandboxed agent may read')
    .option(
      '--sandbox-write <path...>',
      'agent engine: host paths the sandboxed agent may read and write',
    )
    .option(
      '--shard <i/N>',
      "only this machine's share of the work, by each unit's key (1/4 to 4/4 on four machines, as array jobs run); unite the outputs with 'witnessgym merge'",
    )
    .option(
      '--queue <url>',
      "strengthen each instance as a job on the workers of this Redis queue (redis://host:6379; see 'witnessgym worker'; deterministic engine): the instance file's directory and --out must be at the same path on every host",
    )
    .option('--json', 'machine-readable output')
    .action(strengthen);
  program
    .command('reevaluate')
    .description(
      "re-judge agents' patches with strengthened tests (SWE-ABS): only patches the original tests accept are run again, in the sandbox, with test-file edits stripped and counted; a patch passes iff every test of the strengthened suite passes. Prints resolve rates before and after, rank changes, Spearman's ρ and Kendall's τ-b, and every rejection with its failing tests; results in <out>/reevaluation.sqlite, and a rerun reuses them",
    )
    .argument('<strengthened.jsonl>', "witnessgym strengthen's output")
    .requiredOption(
      '--predictions <file...>',
      '(required) SWE-bench predictions files (instance_id, model_name_or_path, model_patch), e.g. evaluate --task repair runs',
    )
    .requiredOption('--out <dir>', '(required) where to write the results')
    .option('--json', 'machine-readable output')
    .action(reevaluateCommand);
}

import type { Command } from 'commander';
import { rescoreRun, type RescoreStageOptions } from '../../stages/5-evaluate/driver.js';
import type { RescoreEntry, RescoreResult } from '../../stages/5-evaluate/rescore.js';
import { cacheFrom, EXIT_VERDICT, positiveInteger, printJson, withProgress } from '../common.js';

function entryLine(entry: RescoreEntry): string {
  const { key } = entry;
  const item = `${key.caseId}  ${key.agent}  ${key.setting}  attempt ${key.attempt}`;
  switch (entry.kind) {
    case 'NotRescored':
      return `  ${item}: ${entry.before.kind}, not rescored: ${entry.reason}`;
    case 'Changed':
    case 'Unchanged':
      return `  ${item}: ${entry.before.kind} → ${entry.after.kind}${entry.earlier ? ' (rescored earlier)' : ''}`;
  }
}

function formatRescore(result: RescoreResult): string {
  const lines = [
    `rescored ${result.runDir} (benchmark ${result.bench}) with verifier ${result.verifier}`,
  ];
  const headings: Record<RescoreEntry['kind'], string> = {
    Changed: 'changed',
    NotRescored: 'not rescored',
    Unchanged: 'unchanged',
  };
  for (const kind of ['Changed', 'NotRescored', 'Unchanged'] as const) {
    const entries = result.entries.filter((entry) => entry.kind === kind);
    if (entries.length === 0) continue;
    lines.push('', `${headings[kind]} (${entries.length}):`, ...entries.map(entryLine));
  }
  lines.push(
    '',
    `${result.rows} rows: ${result.rows - result.notJudgedByVerifier} judged by the verifier (${result.rescoredNow} rescored now, ${result.rescoredEarlier} earlier by this verifier): ${result.changed} changed, ${result.unchanged} unchanged, ${result.notRescored} not rescored; ${result.notJudgedByVerifier} settled before the verifier ran (NoTest, Violation, AgentTimeout, AgentFailed)`,
  );
  return lines.join('\n');
}

async function rescore(
  runDir: string,
  options: RescoreStageOptions & { json?: boolean },
  command: Command,
): Promise<void> {
  const result = await withProgress(options.json ?? false, (events) =>
    rescoreRun(runDir, options, cacheFrom(command), events),
  );
  if (options.json) printJson(result);
  else process.stdout.write(`${formatRescore(result)}\n`);
  // Rows that could not be judged again (case or project missing) are a result to notice.
  process.exitCode = result.notRescored === 0 ? 0 : EXIT_VERDICT;
}

/** `witnessgym rescore`. */
export function register(program: Command): void {
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
}

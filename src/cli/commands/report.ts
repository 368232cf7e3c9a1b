import path from 'node:path';
import type { Command } from 'commander';
import { runTables } from '../../stages/6-report/driver.js';
import { renderTables } from '../../stages/6-report/tables.js';
import { printJson } from '../common.js';

async function report(runDir: string, options: { json?: boolean }): Promise<void> {
  const tables = await runTables(path.resolve(runDir));
  if (options.json) printJson(tables);
  else process.stdout.write(renderTables(tables));
}

/** `witnessgym report`. */
export function register(program: Command): void {
  program
    .command('report')
    .description(
      "print the paper's tables (success by agent and setting, by bug type and bucket, by bucket, by depth, the diagnoses, the give-away rate) from an evaluation's run directory, every agent evaluated into it",
    )
    .argument('<run>', "a run directory of 'witnessgym evaluate' (default <bench>/evaluation)")
    .option('--json', 'machine-readable output')
    .action(report);
}

import type { Command } from 'commander';
import { mergeOutputs, type MergeResult } from '../../pipeline/merge.js';
import { EXIT_VERDICT, printJson } from '../common.js';

function formatMerge(result: MergeResult): string {
  const lines = [
    `merged ${result.sources.length} ${result.kind} outputs into ${result.out}: ${result.added} units taken, ${result.same} already there the same, ${result.conflicts.length} conflicts`,
    ...result.conflicts.map(
      (conflict) => `conflict: ${conflict.unit}: ${conflict.what} (${conflict.from}'s left out)`,
    ),
  ];
  if (result.next) lines.push(`next: ${result.next}`);
  return lines.join('\n');
}

async function merge(outputs: string[], options: { out: string; json?: boolean }): Promise<void> {
  const result = await mergeOutputs(outputs, options.out);
  if (options.json) printJson(result);
  else process.stdout.write(`${formatMerge(result)}\n`);
  // A conflict is a result to look at: two runs of one unit disagreed.
  process.exitCode = result.conflicts.length === 0 ? 0 : EXIT_VERDICT;
}

/** `witnessgym merge`. */
export function register(program: Command): void {
  program
    .command('merge')
    .description(
      "unite the outputs of --shard i/N runs (evaluation run directories, benchmarks, or strengthening outputs, all of one kind) into --out: the union of their units, each unit keyed as in its run; the same unit with another result is a conflict, reported (exit 1), the first output's kept",
    )
    .argument('<outputs...>', "the shards' output directories")
    .requiredOption('--out <dir>', 'the merged output (made, or added to)')
    .option('--json', 'machine-readable output')
    .action(merge);
}

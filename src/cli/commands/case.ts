import { UserError } from '../../core/errors.js';
import path from 'node:path';
import { Option, type Command } from 'commander';
import {
  allVerified,
  exportCases,
  exportRepairCases,
  materialiseCaseDir,
  verifyCases,
  type MaterialiseCaseOptions,
} from '../../stages/4-archive/driver.js';
import type { ExportSummary } from '../../stages/4-archive/export.js';
import {
  DEFAULT_P2P_CLASSES,
  type RepairExportSummary,
} from '../../stages/4-archive/export-repair.js';
import type { MaterialiseOutcome } from '../../stages/4-archive/materialise.js';
import {
  verifyOutcomesFile,
  type BenchVerifySummary,
} from '../../stages/4-archive/verify-bench.js';
import type { VerifyOutcome } from '../../stages/4-archive/verify.js';
import { cacheFrom, EXIT_VERDICT, positiveInteger, printJson, withProgress } from '../common.js';

function formatMaterialise(outcome: MaterialiseOutcome): string {
  if (outcome.kind === 'Corrupt') return `corrupt case: ${outcome.reason}`;
  return `${outcome.side} tree (state ${outcome.state})${outcome.witnessHidden ? ', witness left out' : ''}: ${outcome.dir}`;
}

function formatExport(summary: ExportSummary): string {
  return [
    `${summary.cases} cases: ${summary.written} snapshots written, ${summary.existing} already there${summary.corrupt.length > 0 ? `, ${summary.corrupt.length} corrupt (left out)` : ''}`,
    ...summary.corrupt.map((entry) => `  ${entry.caseId}: ${entry.reason}`),
    `index: ${path.join(summary.out, 'cases.jsonl')}`,
  ].join('\n');
}

function formatBenchVerify(summary: BenchVerifySummary): string {
  const verified = summary.outcomes.filter((outcome) => outcome.kind === 'Verified').length;
  const others = summary.outcomes.filter((outcome) => outcome.kind !== 'Verified');
  return [
    `${summary.cases} cases: ${summary.earlier + verified} verified (${summary.earlier} by an earlier run, ${verified} now, in ${(summary.durationMs / 60_000).toFixed(1)} min; ${summary.cleanRuns} clean-tree runs served them), ${others.length} not`,
    ...others.map((outcome) => `  ${formatVerify(outcome)}`),
    `outcomes: ${verifyOutcomesFile(summary.bench)}`,
  ].join('\n');
}

function formatVerify(outcome: VerifyOutcome): string {
  switch (outcome.kind) {
    case 'Verified': {
      const methods = Object.entries(outcome.buggy.failures)
        .map(([method, exception]) => `${method} (${exception})`)
        .join(', ');
      return `${outcome.caseId}: verified in ${(outcome.durationMs / 1000).toFixed(1)} s: fails on buggy (${outcome.buggy.verdict}: ${methods}), passes on clean`;
    }
    case 'Refuted':
      return `${outcome.caseId}: refuted on the ${outcome.side} tree: ${outcome.reason} (${outcome.verdict})`;
    case 'Corrupt':
      return `${outcome.caseId}: corrupt case: ${outcome.reason}`;
  }
}

async function caseMaterialise(
  caseDir: string,
  options: MaterialiseCaseOptions & { json?: boolean },
  command: Command,
): Promise<void> {
  const outcome = await materialiseCaseDir(caseDir, options, cacheFrom(command));
  if (options.json) printJson(outcome);
  else process.stdout.write(`${formatMaterialise(outcome)}\n`);
  process.exitCode = outcome.kind === 'Materialised' ? 0 : EXIT_VERDICT;
}

function formatRepairExport(summary: RepairExportSummary): string {
  return [
    `${summary.instances} repair instances: ${summary.written} snapshots written, ${summary.existing} already there${summary.skipped.length > 0 ? `, ${summary.skipped.length} cases left out` : ''}`,
    ...summary.skipped.map((entry) => `  ${entry.caseId}: ${entry.reason}`),
    ...summary.duplicates.map(
      (entry) =>
        `  ${entry.caseId}: the same base tree and gold as ${entry.sameAs}, not exported again`,
    ),
    `instances: ${summary.instancesFile}`,
  ].join('\n');
}

async function caseExport(
  benches: string[],
  options: {
    out: string;
    as: 'snapshots' | 'repair';
    p2pClasses: number;
    hideWitness?: boolean;
    json?: boolean;
  },
  command: Command,
): Promise<void> {
  if (options.as === 'repair') {
    const repair = await exportRepairCases(benches, options, cacheFrom(command));
    if (options.json) printJson(repair);
    else process.stdout.write(`${formatRepairExport(repair)}\n`);
    process.exitCode = repair.skipped.length === 0 ? 0 : EXIT_VERDICT;
    return;
  }
  if (benches.length !== 1) {
    throw new UserError(
      'case export --as snapshots takes one benchmark; --as repair takes several',
    );
  }
  const summary = await exportCases(benches[0]!, options, cacheFrom(command));
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatExport(summary)}\n`);
  process.exitCode = summary.corrupt.length === 0 ? 0 : EXIT_VERDICT;
}

async function caseVerify(
  target: string,
  options: { workers: number; again?: boolean; json?: boolean },
  command: Command,
): Promise<void> {
  const result = await withProgress(options.json ?? false, (events) =>
    verifyCases(target, options, cacheFrom(command), events),
  );
  if (options.json) printJson(result.kind === 'Case' ? result.outcome : result.summary);
  else {
    process.stdout.write(
      `${result.kind === 'Case' ? formatVerify(result.outcome) : formatBenchVerify(result.summary)}\n`,
    );
  }
  process.exitCode = allVerified(result) ? 0 : EXIT_VERDICT;
}

/** `witnessgym case materialise|export|verify`. */
export function register(program: Command): void {
  const benchCase = program
    .command('case')
    .description(
      'the cases of a benchmark: materialise a tree, export snapshots, verify with Maven',
    );
  benchCase
    .command('materialise')
    // The American spelling, which earlier releases used, keeps working.
    .alias('materialize')
    .description(
      "write a case's buggy tree (or the clean one) from the corpus's pristine tree and the case's patches, without version control or build output; exit 1 when the case's files do not hold what its record says",
    )
    .argument('<case>', 'a case directory of a benchmark (<bench>/<case-id>)')
    .requiredOption('--out <dir>', '(required) a new or empty directory to write the tree into')
    .option('--clean', 'the clean tree (the pristine project) instead of the buggy one')
    .option('--hide-witness', "leave the witness's test file out (an evaluation workspace)")
    .option('--json', 'machine-readable output')
    .action(caseMaterialise);
  benchCase
    .command('export')
    .description(
      "write every case's buggy tree as a full snapshot <out>/<case-id>/ and the benchmark's index as <out>/cases.jsonl (one line per case); snapshots already there are kept",
    )
    .argument('<bench...>', 'a benchmark directory (with --as repair, several)')
    .requiredOption('--out <dir>', '(required) where to write the snapshots and the index')
    .option('--hide-witness', "leave each witness's test file out")
    .addOption(
      new Option(
        '--as <form>',
        "snapshots: each case's buggy tree and cases.jsonl; repair: SWE-bench-style repair instances (<out>/instances.jsonl: base = the buggy tree without the tests exposing the bug, patch = the fix, test_patch = those tests) with each base tree under <out>/snapshots/",
      )
        .choices(['snapshots', 'repair'])
        .default('snapshots'),
    )
    .option(
      '--p2p-classes <n>',
      'with --as repair: test classes reaching the bug whose methods join PASS_TO_PASS, the most focused first',
      positiveInteger('--p2p-classes'),
      DEFAULT_P2P_CLASSES,
    )
    .option('--json', 'machine-readable output')
    .action(caseExport);
  benchCase
    .command('verify')
    .description(
      'recheck a case, or every case of a benchmark, with Maven: the witness must fail on the buggy tree with the recorded signature (the same failing methods, each with the same exception type) and pass on the clean tree; a benchmark records each outcome in verify/outcomes.jsonl and a rerun skips the verified cases; exit 1 when one is not verified',
    )
    .argument('<case|bench>', 'a case directory (<bench>/<case-id>) or a benchmark directory')
    .option(
      '--workers <n>',
      "a benchmark's cases verified at once, each with its own Maven copy",
      positiveInteger('--workers'),
      2,
    )
    .option('--again', 'verify again the cases an earlier run verified')
    .option('--json', 'machine-readable output')
    .action(caseVerify);
}

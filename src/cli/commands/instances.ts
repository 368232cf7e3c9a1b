import { Option, type Command } from 'commander';
import { UserError } from '../../core/errors.js';
import { importInstances } from '../../repair/import.js';
import { validateInstances } from '../../stages/7-strengthen/driver.js';
import type { InstanceValidity } from '../../stages/7-strengthen/validate.js';
import type { ValidationSummary } from '../../stages/7-strengthen/validate-file.js';
import {
  dropFailingTests,
  type WitnessDropSummary,
} from '../../stages/7-strengthen/witness-drop.js';
import { cacheFrom, EXIT_VERDICT, positiveInteger, printJson, withProgress } from '../common.js';

function formatValidity(outcome: InstanceValidity): string {
  const seconds = `${(outcome.durationMs / 1000).toFixed(1)} s`;
  switch (outcome.kind) {
    case 'Valid':
      return `${outcome.instanceId}: valid (${seconds})`;
    case 'Invalid':
      return `${outcome.instanceId}: invalid on the ${outcome.side} tree: ${outcome.problems.join('; ')}`;
    case 'Flaky':
      return `${outcome.instanceId}: flaky on the ${outcome.side} tree: ${outcome.classes.join(', ')}`;
    case 'Broken':
      return `${outcome.instanceId}: broken on the ${outcome.side} tree: ${outcome.reason}`;
  }
}

function formatValidation(summary: ValidationSummary): string {
  const valid = summary.outcomes.filter((outcome) => outcome.kind === 'Valid').length;
  const others = summary.outcomes.filter((outcome) => outcome.kind !== 'Valid');
  return [
    `${summary.instances} instances: ${summary.earlier} decided by an earlier run; now ${valid} valid, ${others.length} not, in ${(summary.durationMs / 60_000).toFixed(1)} min`,
    ...others.map((outcome) => `  ${formatValidity(outcome)}`),
    `outcomes: ${summary.file}`,
  ].join('\n');
}

async function instancesValidate(
  file: string,
  options: { workers: number; again?: boolean; json?: boolean },
  command: Command,
): Promise<void> {
  const summary = await withProgress(options.json ?? false, (events) =>
    validateInstances(file, options, cacheFrom(command), events),
  );
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatValidation(summary)}\n`);
  process.exitCode = summary.outcomes.every((outcome) => outcome.kind === 'Valid')
    ? 0
    : EXIT_VERDICT;
}

async function instancesImport(
  from: string,
  options: {
    format: 'multi-swe-bench' | 'defects4j';
    snapshots: string;
    bug?: number[];
    out: string;
    json?: boolean;
  },
): Promise<void> {
  const source =
    options.format === 'multi-swe-bench'
      ? ({ kind: 'multi-swe-bench', records: from, snapshots: options.snapshots } as const)
      : ({
          kind: 'defects4j',
          projectDir: from,
          bugs: options.bug ?? [],
          snapshots: options.snapshots,
        } as const);
  if (source.kind === 'defects4j' && source.bugs.length === 0) {
    throw new UserError('--format defects4j needs --bug <id> (repeatable)');
  }
  const instances = await importInstances(source, options.out);
  if (options.json)
    printJson({ out: options.out, instances: instances.map((entry) => entry.instance_id) });
  else process.stdout.write(`${instances.length} instances written to ${options.out}\n`);
}

function formatWitnessDrop(summary: WitnessDropSummary): string {
  const total = summary.written + summary.skipped.length;
  return [
    summary.written > 0
      ? `${summary.written} of ${total} instances written to ${summary.out} without their FAIL_TO_PASS tests`
      : `none of ${total} instances kept: nothing written to ${summary.out}`,
    ...summary.skipped.map((entry) => `  ${entry.instanceId}: ${entry.reason}`),
  ].join('\n');
}

async function instancesDropFailing(
  file: string,
  options: { out: string; json?: boolean },
  command: Command,
): Promise<void> {
  const summary = await dropFailingTests(file, { out: options.out, cache: cacheFrom(command) });
  if (options.json) printJson(summary);
  else process.stdout.write(`${formatWitnessDrop(summary)}\n`);
  process.exitCode = summary.skipped.length === 0 ? 0 : EXIT_VERDICT;
}

/** `witnessgym instances import|validate|drop-failing`. */
export function register(program: Command): void {
  const instances = program
    .command('instances')
    .description(
      'repair instances (SWE-bench layout, for Java/Maven): import and validate them, or make their witness-drop control',
    );
  instances
    .command('import')
    .description(
      "write an instance file from another layout: Multi-SWE-bench records (JSONL; class-level test names expanded to the class's test methods) or a Defects4J project folder (gold = src.patch reversed, FAIL_TO_PASS = the trigger tests); the snapshots stay where they are",
    )
    .argument(
      '<from>',
      'Multi-SWE-bench records (JSONL), or a Defects4J project folder (framework/projects/<Project>)',
    )
    .addOption(
      new Option('--format <format>', 'the layout of <from>')
        .choices(['multi-swe-bench', 'defects4j'])
        .makeOptionMandatory(),
    )
    .requiredOption(
      '--snapshots <dir>',
      '(required) the base trees: <dir>/<instance_id> (Multi-SWE-bench) or <dir>/<Project>-<bug>b (a Defects4J buggy checkout), or <dir> itself when it is the one tree',
    )
    .option(
      '--bug <id>',
      'defects4j: a bug id (repeatable)',
      (value: string, previous: number[] = []) => [...previous, positiveInteger('--bug')(value)],
    )
    .requiredOption('--out <file>', '(required) the instance file to write')
    .option('--json', 'machine-readable output')
    .action(instancesImport);
  instances
    .command('validate')
    .description(
      "S0: in 3 fresh Maven runs each, an instance's FAIL_TO_PASS tests must fail and its PASS_TO_PASS tests pass on the base tree with the test patch, and all pass on the gold tree with it; outcomes go to validation.jsonl beside the file, and a rerun skips instances already decided; exit 1 when one is not valid",
    )
    .argument(
      '<instances.jsonl>',
      'an instance file (witnessgym case export --as repair writes one)',
    )
    .option(
      '--workers <n>',
      'instances validated at once, each with its own Maven copy',
      positiveInteger('--workers'),
      1,
    )
    .option('--again', 'validate again the instances an earlier run decided')
    .option('--json', 'machine-readable output')
    .action(instancesValidate);
  instances
    .command('drop-failing')
    .description(
      'the witness-drop control of `witnessgym strengthen`: every instance without its FAIL_TO_PASS tests (their methods removed from the test patch, FAIL_TO_PASS empty, the removed ids in `control`), so a patch that does nothing is accepted and a strengthening run must recover a test that fails on the base and passes on gold; run `instances validate` and `strengthen` on the output. An instance whose FAIL_TO_PASS is empty or names a method its test class does not declare (an inherited one, say) is left out and reported; exit 1 when one is',
    )
    .argument('<instances.jsonl>', 'an instance file')
    .requiredOption('--out <file>', '(required) the instance file to write')
    .option('--json', 'machine-readable output')
    .action(instancesDropFailing);
}

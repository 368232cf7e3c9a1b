import path from 'node:path';
import type { CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { mavenTestRunner } from '../runners/maven.js';
import { CASE_RECORD, caseIds, readCaseFile } from '../stages/4-archive/archive.js';
import { exportBenchmark, type ExportSummary } from '../stages/4-archive/export.js';
import {
  caseProject,
  materialiseCase,
  type MaterialiseOutcome,
} from '../stages/4-archive/materialize.js';
import { verifyCase, type VerifyOutcome } from '../stages/4-archive/verify.js';
import {
  verifyBenchmark,
  verifyOutcomesFile,
  type BenchVerifySummary,
} from '../stages/4-archive/verify-bench.js';
import type { EventSink } from '../events/types.js';
import { exists } from '../core/fs.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';

/* `witnessgym case materialize|export|verify`: the case archive's commands. */

export interface MaterializeCommandOptions {
  out: string;
  clean?: boolean;
  hideWitness?: boolean;
}

export async function runMaterializeCommand(
  caseDir: string,
  options: MaterializeCommandOptions,
  cache: CacheLayout,
): Promise<MaterialiseOutcome> {
  const dir = path.resolve(caseDir);
  const record = await readCaseFile(dir);
  return materialiseCase(dir, record, await caseProject(record, cache), options.out, {
    side: options.clean ? 'clean' : 'buggy',
    hideWitness: options.hideWitness ?? false,
  });
}

export function formatMaterialise(outcome: MaterialiseOutcome): string {
  if (outcome.kind === 'Corrupt') return `corrupt case: ${outcome.reason}`;
  return `${outcome.side} tree (state ${outcome.state})${outcome.witnessHidden ? ', witness left out' : ''}: ${outcome.dir}`;
}

export async function runExportCommand(
  bench: string,
  options: { out: string; hideWitness?: boolean },
  cache: CacheLayout,
): Promise<ExportSummary> {
  if (path.resolve(options.out).startsWith(`${path.resolve(bench)}${path.sep}`)) {
    throw new UserError(`--out ${options.out} is inside the benchmark ${bench}: export elsewhere`);
  }
  return exportBenchmark(bench, options.out, cache, { hideWitness: options.hideWitness ?? false });
}

export function formatExport(summary: ExportSummary): string {
  return [
    `${summary.cases} cases: ${summary.written} snapshots written, ${summary.existing} already there${summary.corrupt.length > 0 ? `, ${summary.corrupt.length} corrupt (left out)` : ''}`,
    ...summary.corrupt.map((entry) => `  ${entry.caseId}: ${entry.reason}`),
    `index: ${path.join(summary.out, 'cases.jsonl')}`,
  ].join('\n');
}

export interface VerifyCommandOptions {
  /** Cases verified at once when the target is a benchmark, each with its own Maven copy. */
  workers: number;
  again?: boolean;
}

export type VerifyCommandResult =
  { kind: 'Case'; outcome: VerifyOutcome } | { kind: 'Benchmark'; summary: BenchVerifySummary };

/** Verifies one case directory, or every case of a benchmark directory. */
export async function runVerifyCommand(
  target: string,
  options: VerifyCommandOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<VerifyCommandResult> {
  if (await exists(path.join(target, CASE_RECORD))) {
    const maven = mavenTestRunner(mavenToolchain, cache);
    try {
      return { kind: 'Case', outcome: await verifyCase(target, { cache, maven }) };
    } finally {
      await maven.close();
    }
  }
  if ((await caseIds(target)).length === 0) {
    throw new UserError(
      `${target} is neither a case (no ${CASE_RECORD}) nor a benchmark holding cases: pass <bench>/<case-id> or <bench>`,
    );
  }
  const mavens = Array.from({ length: options.workers }, () =>
    mavenTestRunner(mavenToolchain, cache),
  );
  try {
    const summary = await verifyBenchmark(target, {
      cache,
      mavens,
      events,
      again: options.again ?? false,
    });
    return { kind: 'Benchmark', summary };
  } finally {
    await Promise.all(mavens.map((maven) => maven.close()));
  }
}

/** Whether every case the command looked at is verified. */
export function allVerified(result: VerifyCommandResult): boolean {
  return result.kind === 'Case'
    ? result.outcome.kind === 'Verified'
    : result.summary.outcomes.every((outcome) => outcome.kind === 'Verified');
}

export function formatBenchVerify(summary: BenchVerifySummary): string {
  const verified = summary.outcomes.filter((outcome) => outcome.kind === 'Verified').length;
  const others = summary.outcomes.filter((outcome) => outcome.kind !== 'Verified');
  return [
    `${summary.cases} cases: ${summary.earlier + verified} verified (${summary.earlier} by an earlier run, ${verified} now, in ${(summary.durationMs / 60_000).toFixed(1)} min; ${summary.cleanRuns} clean-tree runs served them), ${others.length} not`,
    ...others.map((outcome) => `  ${formatVerify(outcome)}`),
    `outcomes: ${verifyOutcomesFile(summary.bench)}`,
  ].join('\n');
}

export function formatVerify(outcome: VerifyOutcome): string {
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

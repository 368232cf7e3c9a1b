import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import type { EventSink } from '../../events/types.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { CASE_RECORD, caseIds, readCaseFile } from './archive.js';
import { exportBenchmark, type ExportSummary } from './export.js';
import { exportRepairInstances, type RepairExportSummary } from './export-repair.js';
import { caseProject, materialiseCase, type MaterialiseOutcome } from './materialise.js';
import { verifyBenchmark, type BenchVerifySummary } from './verify-bench.js';
import { verifyCase, type VerifyOutcome } from './verify.js';

/* The case archive's drivers: `witnessgym case materialise|export|verify`. */

export interface MaterialiseCaseOptions {
  out: string;
  clean?: boolean;
  hideWitness?: boolean;
}

/** A case directory's buggy (or clean) tree, written into `out`. */
export async function materialiseCaseDir(
  caseDir: string,
  options: MaterialiseCaseOptions,
  cache: CacheLayout,
): Promise<MaterialiseOutcome> {
  const dir = path.resolve(caseDir);
  const record = await readCaseFile(dir);
  return materialiseCase(dir, record, await caseProject(record, cache), options.out, {
    side: options.clean ? 'clean' : 'buggy',
    hideWitness: options.hideWitness ?? false,
    hideFixtures: options.hideWitness ?? false,
  });
}

/** Every case of a benchmark as a full snapshot, with the index, outside the benchmark. */
export async function exportCases(
  bench: string,
  options: { out: string; hideWitness?: boolean },
  cache: CacheLayout,
): Promise<ExportSummary> {
  if (path.resolve(options.out).startsWith(`${path.resolve(bench)}${path.sep}`)) {
    throw new UserError(`--out ${options.out} is inside the benchmark ${bench}: export elsewhere`);
  }
  return exportBenchmark(bench, options.out, cache, { hideWitness: options.hideWitness ?? false });
}

/**
 * Every case of the benchmarks as a repair instance with its base tree, outside them; a case that
 * gives the same base and gold as an earlier one is listed, not exported again.
 */
export async function exportRepairCases(
  benches: readonly string[],
  options: { out: string; p2pClasses: number },
  cache: CacheLayout,
): Promise<RepairExportSummary> {
  for (const bench of benches) {
    if (path.resolve(options.out).startsWith(`${path.resolve(bench)}${path.sep}`)) {
      throw new UserError(
        `--out ${options.out} is inside the benchmark ${bench}: export elsewhere`,
      );
    }
  }
  return exportRepairInstances(benches, options.out, cache, { p2pClasses: options.p2pClasses });
}

export interface VerifyCasesOptions {
  /** Cases verified at once when the target is a benchmark, each with its own Maven copy. */
  workers: number;
  again?: boolean;
}

export type VerifyCasesResult =
  { kind: 'Case'; outcome: VerifyOutcome } | { kind: 'Benchmark'; summary: BenchVerifySummary };

/** Verifies one case directory, or every case of a benchmark directory. */
export async function verifyCases(
  target: string,
  options: VerifyCasesOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<VerifyCasesResult> {
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
export function allVerified(result: VerifyCasesResult): boolean {
  return result.kind === 'Case'
    ? result.outcome.kind === 'Verified'
    : result.summary.outcomes.every((outcome) => outcome.kind === 'Verified');
}

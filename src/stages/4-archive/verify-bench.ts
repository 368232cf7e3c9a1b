import { runPool } from '../../core/pool.js';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import type { SingleVerdict } from '../../core/verdict.js';
import type { EventSink } from '../../events/types.js';
import { appendRecords, defineRecord, readRecords } from '../../records/record.js';
import type { TestRunner } from '../../runners/types.js';
import { benchLayout, caseIds } from './archive.js';
import { CaseFailureSignatureSchema } from './case.js';
import { verifyCase, type VerifyOutcome } from './verify.js';

/*
 * `witnessgym case verify <bench>`: every case of a benchmark rechecked with Maven, resumably.
 * Each outcome is appended to `verify/outcomes.jsonl` as it is decided; a rerun skips the cases
 * already verified (a case id is its content, so a verified id stays verified) and redoes the rest.
 */

const VerifyOutcomeSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('Verified'),
    caseId: z.string(),
    buggy: z.strictObject({
      verdict: z.enum(['TestFailed', 'TestErrored']),
      failures: CaseFailureSignatureSchema,
    }),
    durationMs: z.number(),
  }),
  z.strictObject({
    kind: z.literal('Refuted'),
    caseId: z.string(),
    side: z.enum(['buggy', 'clean']),
    reason: z.string(),
    verdict: z.string(),
    durationMs: z.number(),
  }),
  z.strictObject({ kind: z.literal('Corrupt'), caseId: z.string(), reason: z.string() }),
]);

export const VerifyLine = defineRecord({
  kind: 'case-verify',
  version: 1,
  schema: z.strictObject({ outcome: VerifyOutcomeSchema, at: z.string() }),
});

export function verifyOutcomesFile(bench: string): string {
  return path.join(benchLayout(bench).root, 'verify', 'outcomes.jsonl');
}

export interface BenchVerifySummary {
  bench: string;
  cases: number;
  /** Verified by an earlier run and not redone. */
  earlier: number;
  outcomes: VerifyOutcome[];
  /** Distinct (project, witness class) pairs whose clean run served several cases. */
  cleanRuns: number;
  durationMs: number;
}

export interface BenchVerifyOptions {
  cache: CacheLayout;
  /** One Maven runner per worker, each closed by the caller. */
  mavens: readonly TestRunner[];
  events: EventSink;
  /** Verify again the cases an earlier run verified. */
  again?: boolean;
}

export async function verifyBenchmark(
  bench: string,
  options: BenchVerifyOptions,
): Promise<BenchVerifySummary> {
  const started = Date.now();
  const file = verifyOutcomesFile(bench);
  const ids = await caseIds(bench);
  const verifiedBefore = new Set(
    options.again
      ? []
      : (await readRecords(file, VerifyLine)).records
          .filter((line) => line.outcome.kind === 'Verified')
          .map((line) => line.outcome.caseId),
  );
  const queue = ids.filter((id) => !verifiedBefore.has(id));
  const earlier = ids.length - queue.length;
  // The clean tree of a project is the same for every case: one Maven run per witness class
  // answers for all the cases that class witnesses.
  const cleanRuns = new Map<string, Promise<SingleVerdict>>();
  const outcomes: VerifyOutcome[] = [];
  const layout = benchLayout(bench);
  const subject = path.basename(layout.root);
  options.events.emit({
    kind: 'StageStarted',
    stage: 'verify',
    subject,
    total: queue.length,
    unit: 'cases',
  });
  await runPool(queue, { workers: options.mavens.length }, async (id, worker) => {
    const outcome = await verifyCase(layout.caseDir(id), {
      cache: options.cache,
      maven: options.mavens[worker]!,
      cleanRuns,
    });
    await appendRecords(file, VerifyLine, [{ outcome, at: new Date().toISOString() }]);
    outcomes.push(outcome);
    options.events.emit({
      kind: 'ItemDone',
      stage: 'verify',
      done: outcomes.length,
      total: queue.length,
      item: id,
      outcome: verifyWord(outcome),
    });
  });
  options.events.emit({
    kind: 'StageFinished',
    stage: 'verify',
    subject,
    durationMs: Date.now() - started,
  });
  return {
    bench: layout.root,
    cases: ids.length,
    earlier,
    outcomes: outcomes.sort((a, b) => (a.caseId < b.caseId ? -1 : 1)),
    cleanRuns: cleanRuns.size,
    durationMs: Date.now() - started,
  };
}

function verifyWord(outcome: VerifyOutcome): string {
  switch (outcome.kind) {
    case 'Verified':
      return `verified (${outcome.buggy.verdict} on buggy, passes on clean)`;
    case 'Refuted':
      return `refuted on the ${outcome.side} tree: ${outcome.reason}`;
    case 'Corrupt':
      return `corrupt: ${outcome.reason}`;
  }
}

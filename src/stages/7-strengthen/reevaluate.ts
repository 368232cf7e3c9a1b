import { openSqliteStore } from '../../records/sqlite.js';
import { mkdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { sha256Text } from '../../core/fs.js';
import type { EventSink } from '../../events/types.js';
import { wilsonInterval, type Interval } from '../../metrics/interval.js';
import { competitionRanks, kendallTauB, spearmanRho } from '../../metrics/ranking.js';
import { patchOf } from '../../project/state.js';
import { originalInstance, type RepairInstance } from '../../repair/instance.js';
import { resolveInstance } from '../../repair/project.js';
import { readInstanceFile } from '../../repair/read.js';
import {
  applyProductionChanges,
  baseSources,
  preparedInstanceTree,
  verifyRepairPatch,
  type PatchVerdict,
} from '../../repair/verify-patch.js';
import { isolatedJavaSetup, type JavaSandboxSetup } from '../../sandbox/java-runs.js';
import type { PreparedSide } from '../../sandbox/prepared-tree.js';
import type { ProjectLayout } from '../../toolchains/layout.js';
import { RepairStore, testsIdOf } from '../5-evaluate/repair/store.js';

/*
 * `witnessgym reevaluate <strengthened.jsonl> --predictions FILE...`: SWE-ABS's re-evaluation.
 * Only patches the original tests accept are run again; a patch passes the strengthened suite
 * iff every test of it passes (a compile error of the new tests against the patch is its own
 * verdict). Every run is in the sandbox; a patch's edits outside production sources (test
 * files above all) are stripped and counted. Each rejection keeps the failing tests and the
 * patch's difference from gold, for audit.
 */

const PredictionSchema = z.object({
  instance_id: z.string(),
  model_name_or_path: z.string().min(1),
  model_patch: z.string().nullable(),
});
type Prediction = z.infer<typeof PredictionSchema>;

/** SWE-bench predictions: JSON lines, or one JSON array (or object keyed by instance). */
export async function readPredictions(file: string): Promise<Prediction[]> {
  const text = await readFile(file, 'utf8').catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') throw new UserError(`predictions file ${file} does not exist`);
    throw error;
  });
  const trimmed = text.trim();
  let values: unknown[];
  try {
    if (trimmed.startsWith('[')) values = JSON.parse(trimmed) as unknown[];
    else if (trimmed.startsWith('{') && !trimmed.includes('\n')) values = [JSON.parse(trimmed)];
    else
      values = trimmed
        .split('\n')
        .filter((line) => line.trim() !== '')
        .map((line) => JSON.parse(line) as unknown);
  } catch (error) {
    throw new UserError(`${file}: not JSON lines nor a JSON array (${(error as Error).message})`);
  }
  return values.map((value, index) => {
    const parsed = PredictionSchema.safeParse(value);
    if (!parsed.success) {
      throw new UserError(
        `${file}: prediction ${index + 1} is not {instance_id, model_name_or_path, model_patch}: ${parsed.error.issues[0]!.message}`,
      );
    }
    return parsed.data;
  });
}

export type StrengthenedVerdict =
  | { kind: 'NotStrengthened' }
  | { kind: 'Passes' }
  | { kind: 'Rejected'; failing: string[] }
  | { kind: 'TestsDoNotCompile'; messages: string[] }
  /** The strengthened run did not come to a verdict (timeout, tests not run). */
  | { kind: 'NotJudged'; reason: string };

export interface ReevaluationRow {
  agent: string;
  instanceId: string;
  patchId: string;
  /** Under the original tests. */
  accepted: boolean;
  original: string;
  strengthened: StrengthenedVerdict | null;
  /** Files the patch touched outside production sources, never applied. */
  stripped: string[];
  /** For a rejection: the patch's production change against gold's. */
  diffAgainstGold: string | null;
}

function verdictLine(verdict: PatchVerdict): string {
  switch (verdict.kind) {
    case 'Judged':
      return verdict.judgement.kind === 'Resolved'
        ? 'Resolved'
        : `Unresolved: ${[...verdict.judgement.stillFailing, ...verdict.judgement.broken].join(', ') || verdict.judgement.notJudged.map((entry) => entry.reason).join('; ')}`;
    case 'DoesNotApply':
      return `DoesNotApply: ${verdict.reason}`;
    case 'CompileFailed':
      return `CompileFailed (${verdict.scope})`;
    case 'Timeout':
      return 'Timeout';
  }
}

function strengthenedVerdict(verdict: PatchVerdict): StrengthenedVerdict {
  if (verdict.kind === 'CompileFailed' && verdict.scope === 'tests') {
    return {
      kind: 'TestsDoNotCompile',
      messages: verdict.messages.map((m) => `${m.file}:${m.line ?? '?'}: ${m.message}`),
    };
  }
  if (verdict.kind !== 'Judged') return { kind: 'NotJudged', reason: verdictLine(verdict) };
  const { judgement } = verdict;
  if (judgement.kind === 'Resolved') return { kind: 'Passes' };
  const failing = [...judgement.stillFailing, ...judgement.broken];
  return failing.length > 0
    ? { kind: 'Rejected', failing }
    : {
        kind: 'NotJudged',
        reason: judgement.notJudged.map((entry) => `${entry.test}: ${entry.reason}`).join('; '),
      };
}

const SCHEMA = `
CREATE TABLE IF NOT EXISTS reevaluations (
  agent TEXT NOT NULL,
  instance_id TEXT NOT NULL,
  patch_id TEXT NOT NULL,
  tests_id TEXT NOT NULL,
  row TEXT NOT NULL,
  PRIMARY KEY (agent, instance_id, patch_id, tests_id)
);
`;

export interface AgentReevaluation {
  agent: string;
  instances: number;
  acceptedBefore: number;
  passesAfter: number;
  rejected: number;
  resolveBefore: number;
  resolveAfter: number;
  /** Wilson 95 % intervals of the two rates, over all instances. */
  resolveBeforeCi: Interval;
  resolveAfterCi: Interval;
  drop: number;
  /**
   * Rejected of accepted, with its Wilson 95 % interval: for held-out mutants the kill rate, for
   * correct alternatives the false-negative rate.
   */
  rejectedShare: number | null;
  rejectedShareCi: Interval;
  rankBefore: number;
  rankAfter: number;
  strippedTestEdits: number;
}

export interface ReevaluationSummary {
  out: string;
  instances: number;
  strengthenedInstances: number;
  coverage: { relevant: number; before: number; after: number };
  agents: AgentReevaluation[];
  overall: {
    accepted: number;
    rejected: number;
    rejectedShare: number | null;
    rejectedShareCi: Interval;
  };
  spearman: number | null;
  kendallTauB: number | null;
  rejections: ReevaluationRow[];
  notEvaluated: { agent: string; instanceId: string; reason: string }[];
}

/** The patch's production change against gold's, both applied to the base sources. */
function diffAgainstGold(
  base: ReadonlyMap<string, string>,
  instance: RepairInstance,
  patch: string,
  layout: ProjectLayout,
): string | null {
  const gold = applyProductionChanges(base, instance.patch, layout);
  const agent = applyProductionChanges(base, patch, layout);
  if (gold.kind !== 'Applied' || agent.kind !== 'Applied') return null;
  const files = [...new Set([...gold.sources.keys(), ...agent.sources.keys()])].sort();
  const changes = files
    .filter((file) => gold.sources.get(file) !== agent.sources.get(file))
    .map((file) => ({
      file: `${layout.mainSources}/${file}`,
      before: gold.sources.get(file) ?? '',
      after: agent.sources.get(file) ?? '',
    }));
  return patchOf(changes).diff;
}

function earlierKey(instanceId: string, agent: string, patch: string, testsId: string): string {
  return sha256Text(JSON.stringify([instanceId, agent, patch, testsId]));
}

export async function reevaluate(
  strengthenedFile: string,
  predictionFiles: readonly string[],
  options: { out: string; cache: CacheLayout; events: EventSink },
): Promise<ReevaluationSummary> {
  const instances = await readInstanceFile(strengthenedFile);
  const byId = new Map(instances.map((instance) => [instance.instance_id, instance]));
  const fileDir = path.dirname(path.resolve(strengthenedFile));
  const predictions = (await Promise.all(predictionFiles.map(readPredictions))).flat();
  // A patch `evaluate --task repair` judged with the same tests is not judged again.
  const judgedEarlier = new Map(
    [...new Set(predictionFiles.map((file) => path.dirname(path.resolve(file))))]
      .flatMap((dir) => RepairStore.judgedRows(dir))
      .filter((row) => row.testsId !== undefined)
      .map((row) => [earlierKey(row.instanceId, row.agent, row.patch, row.testsId!), row] as const),
  );
  mkdirSync(options.out, { recursive: true });
  const db = openSqliteStore(path.join(options.out, 'reevaluation.sqlite'), {
    schema: SCHEMA,
    version: 1,
    otherwise: 'use another --out directory',
  });
  const setup: JavaSandboxSetup = await isolatedJavaSetup();
  const prepared = new Map<
    string,
    Promise<{ tree: PreparedSide; subject: Awaited<ReturnType<typeof resolveInstance>> }>
  >();
  const preparedFor = (instance: RepairInstance) => {
    const key = sha256Text(JSON.stringify([instance.instance_id, instance.test_patch]));
    let entry = prepared.get(key);
    if (!entry) {
      entry = (async () => {
        const subject = await resolveInstance(instance, fileDir, options.cache);
        return { tree: await preparedInstanceTree(subject, 'base', options.cache), subject };
      })();
      prepared.set(key, entry);
    }
    return entry;
  };
  const rows: ReevaluationRow[] = [];
  const notEvaluated: ReevaluationSummary['notEvaluated'] = [];
  options.events.emit({
    kind: 'StageStarted',
    stage: 'strengthen',
    subject: 'reevaluate',
    total: predictions.length,
    unit: 'patches',
  });
  const started = Date.now();
  try {
    for (const [index, prediction] of predictions.entries()) {
      const agent = prediction.model_name_or_path;
      const instance = byId.get(prediction.instance_id);
      if (!instance) {
        notEvaluated.push({
          agent,
          instanceId: prediction.instance_id,
          reason: 'not an instance of the strengthened file',
        });
        continue;
      }
      const patch = prediction.model_patch ?? '';
      const patchId = sha256Text(patch).slice(0, 16);
      const testsId = sha256Text(instance.test_patch).slice(0, 16);
      const stored = db
        .prepare(
          `SELECT row FROM reevaluations WHERE agent = ? AND instance_id = ? AND patch_id = ? AND tests_id = ?`,
        )
        .get(agent, instance.instance_id, patchId, testsId) as { row: string } | undefined;
      if (stored) {
        rows.push(JSON.parse(stored.row) as ReevaluationRow);
        continue;
      }
      const original = originalInstance(instance);
      const earlier = judgedEarlier.get(
        earlierKey(instance.instance_id, agent, patch, testsIdOf(original)),
      );
      let accepted: boolean;
      let originalLine: string;
      let stripped: string[];
      if (earlier) {
        accepted = earlier.verdict.kind === 'Resolved';
        originalLine = `${earlier.verdict.kind} (as evaluate --task repair judged it)`;
        stripped = earlier.stripped;
      } else {
        const before = await preparedFor(original);
        const judged = await verifyRepairPatch(
          original,
          patch,
          before.tree,
          before.subject.project.layout,
          setup,
        );
        accepted = judged.kind === 'Judged' && judged.judgement.kind === 'Resolved';
        originalLine = verdictLine(judged);
        stripped = judged.stripped;
      }
      let strengthened: StrengthenedVerdict | null = null;
      let diff: string | null = null;
      if (accepted) {
        if (!instance.strengthening) strengthened = { kind: 'NotStrengthened' };
        else {
          const after = await preparedFor(instance);
          const layout = after.subject.project.layout;
          strengthened = strengthenedVerdict(
            await verifyRepairPatch(instance, patch, after.tree, layout, setup),
          );
          if (strengthened.kind !== 'Passes') {
            diff = diffAgainstGold(
              await baseSources(after.tree.sourcesDir),
              instance,
              patch,
              layout,
            );
          }
        }
      }
      const row: ReevaluationRow = {
        agent,
        instanceId: instance.instance_id,
        patchId,
        accepted,
        original: originalLine,
        strengthened,
        stripped,
        diffAgainstGold: diff,
      };
      db.prepare(`INSERT OR REPLACE INTO reevaluations VALUES (?, ?, ?, ?, ?)`).run(
        agent,
        instance.instance_id,
        patchId,
        testsId,
        JSON.stringify(row),
      );
      rows.push(row);
      options.events.emit({
        kind: 'ItemDone',
        stage: 'strengthen',
        done: index + 1,
        total: predictions.length,
        item: `${agent} ${instance.instance_id}`,
        outcome: accepted
          ? `accepted; strengthened: ${strengthened?.kind}`
          : `not accepted (${row.original})`,
      });
    }
  } finally {
    db.close();
  }
  options.events.emit({
    kind: 'StageFinished',
    stage: 'strengthen',
    subject: 'reevaluate',
    durationMs: Date.now() - started,
  });
  return summarise(instances, rows, notEvaluated, options.out);
}

/** Per-agent resolve rates before and after, ranks, and the rank correlations. */
export function summarise(
  instances: readonly RepairInstance[],
  rows: readonly ReevaluationRow[],
  notEvaluated: ReevaluationSummary['notEvaluated'],
  out: string,
): ReevaluationSummary {
  const agents = [...new Set(rows.map((row) => row.agent))].sort();
  const total = instances.length;
  const perAgent = agents.map((agent) => {
    const own = rows.filter((row) => row.agent === agent);
    const accepted = own.filter((row) => row.accepted);
    const passes = accepted.filter(
      (row) => row.strengthened?.kind === 'Passes' || row.strengthened?.kind === 'NotStrengthened',
    );
    return {
      agent,
      instances: total,
      acceptedBefore: accepted.length,
      passesAfter: passes.length,
      rejected: accepted.length - passes.length,
      resolveBefore: accepted.length / total,
      resolveAfter: passes.length / total,
      resolveBeforeCi: wilsonInterval(accepted.length, total),
      resolveAfterCi: wilsonInterval(passes.length, total),
      drop: (accepted.length - passes.length) / total,
      rejectedShare:
        accepted.length === 0 ? null : (accepted.length - passes.length) / accepted.length,
      rejectedShareCi: wilsonInterval(accepted.length - passes.length, accepted.length),
      strippedTestEdits: own.filter((row) => row.stripped.length > 0).length,
    };
  });
  const ranksBefore = competitionRanks(perAgent.map((entry) => entry.resolveBefore));
  const ranksAfter = competitionRanks(perAgent.map((entry) => entry.resolveAfter));
  const accepted = perAgent.reduce((sum, entry) => sum + entry.acceptedBefore, 0);
  const rejected = perAgent.reduce((sum, entry) => sum + entry.rejected, 0);
  const coverage = instances.reduce(
    (sum, instance) => {
      const measured = instance.strengthening?.coverage;
      return measured
        ? {
            relevant: sum.relevant + measured.relevant,
            before: sum.before + measured.before,
            after: sum.after + measured.after,
          }
        : sum;
    },
    { relevant: 0, before: 0, after: 0 },
  );
  return {
    out: path.resolve(out),
    instances: total,
    strengthenedInstances: instances.filter(
      (instance) => (instance.strengthening?.added.length ?? 0) > 0,
    ).length,
    coverage,
    agents: perAgent.map((entry, index) => ({
      ...entry,
      rankBefore: ranksBefore[index]!,
      rankAfter: ranksAfter[index]!,
    })),
    overall: {
      accepted,
      rejected,
      rejectedShare: accepted === 0 ? null : rejected / accepted,
      rejectedShareCi: wilsonInterval(rejected, accepted),
    },
    spearman: spearmanRho(
      perAgent.map((entry) => entry.resolveBefore),
      perAgent.map((entry) => entry.resolveAfter),
    ),
    kendallTauB: kendallTauB(
      perAgent.map((entry) => entry.resolveBefore),
      perAgent.map((entry) => entry.resolveAfter),
    ),
    rejections: rows.filter(
      (row) =>
        row.accepted &&
        row.strengthened !== null &&
        row.strengthened.kind !== 'Passes' &&
        row.strengthened.kind !== 'NotStrengthened',
    ),
    notEvaluated,
  };
}

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { runPool } from '../../core/pool.js';
import type { JobCoordinator } from '../../jobs/coordinator.js';
import { inShard, type Shard } from '../../jobs/shard.js';
import { writeFileAtomic, writeJsonAtomic } from '../../core/fs.js';
import { specText } from '../../agents/types.js';
import type { GoldAlternative } from './alternatives.js';
import type { EventSink } from '../../events/types.js';
import { defineRecord, readRecordFile, recordId, writeRecordFile } from '../../records/record.js';
import type { RepairInstance } from '../../repair/instance.js';
import { readInstanceFile, writeInstanceFile } from '../../repair/read.js';
import { ENGINE_VERSION } from './engine-version.js';
import {
  openInstanceRunner,
  queuedInstance,
  type InstanceSettings,
  type InstanceUnitResult,
} from './instance-job.js';
import {
  type InstanceStrengthening,
  type StageOneEngine,
  type StrengthenStage,
} from './strengthen.js';
import type { MutantRecord } from './stage-two.js';
import type { AmplifiedClass } from './stage-one.js';
import { recordedValidity } from './validate-file.js';
import { RULE_FAMILIES, type RuleFamily } from './mutants.js';

/*
 * `witnessgym strengthen <instances.jsonl> --stages coverage --out DIR`: every instance S0 found
 * valid, strengthened one after the other. Per instance, `instances/<id>/report.json` (the slice,
 * coverage before and after, every test kept with where it came from, every candidate lost and
 * the gate that lost it) and the new test classes under `instances/<id>/tests/`; then
 * `strengthened.jsonl` (every instance, strengthened ones with their `original_*`) and
 * `summary.json`. A report is keyed by the instance, the seed and the engine's version: a rerun
 * redoes only what is missing, and writes the same bytes.
 */

/** The held-out correct alternatives, as predictions `reevaluate` judges (its false negatives). */
export const HELD_OUT_MODEL = 'held-out-alternative';
/** Stage II's held-out mutants told from gold (wrong patches the new tests were not written for). */
export const HELD_OUT_MUTANT_MODEL = 'held-out-mutant';
/** Survivors no probe told from gold, either half: a test rejecting one may be too strict. */
export const UNPROVEN_MUTANT_MODEL = 'unproven-mutant';

const InstanceReportFile = defineRecord({
  kind: 'strengthen-instance-report',
  version: 1,
  schema: z.strictObject({
    key: z.string(),
    instanceId: z.string(),
    outcome: z.string(),
    /** The instance as strengthened (or unchanged), for strengthened.jsonl. */
    instance: z.unknown(),
    report: z.unknown(),
  }),
});

export interface StrengthenSummary {
  out: string;
  strengthenedFile: string;
  instances: number;
  /** Instances S0 did not find valid, or not validated: left as they are. */
  skipped: { instanceId: string; reason: string }[];
  outcomes: Record<string, number>;
  strengthened: number;
  testsAdded: number;
  failToPassAdded: number;
  coverage: { relevant: number; before: number; after: number };
  losses: Record<string, number>;
  /** Correct alternatives of gold the guard used, and those held out (a predictions file). */
  alternatives: { guard: number; heldOut: number; heldOutFile: string };
  /** Per stage asked: instances given a test by it, and its tests. */
  stages: Partial<Record<StrengthenStage, { strengthened: number; testsAdded: number }>>;
  /** Stage II's mutants by fate, overall and per family; null when the stage was not asked. */
  mutants: {
    byFate: Record<string, number>;
    byFamily: Record<string, Record<string, number>>;
    /** Generating-half mutants told from gold, and those a kept test kills. */
    generating: { proven: number; killed: number };
    /** Held-out mutants told from gold, and unproven survivors: a predictions file for reevaluate. */
    heldOut: { proven: number; unproven: number; file: string };
    /**
     * The agent engine's equivalence votes on unproven survivors, by majority of 3 (SWE-ABS's
     * judge): recorded, never counted as evidence either way.
     */
    judged: { equivalent: number; different: number; undecided: number };
  } | null;
  durationMs: number;
}

/** The engine, an agent's runs kept under `dir` (one file per phase). */
function agentRunsIn(engine: StageOneEngine, dir: string): StageOneEngine {
  if (engine.kind !== 'agent') return engine;
  return {
    kind: 'agent',
    setup: {
      ...engine.setup,
      saveRun: async (phase, result) => {
        await mkdir(dir, { recursive: true });
        await writeJsonAtomic(path.join(dir, `${phase}.json`), result);
      },
    },
  };
}

function summaryOf(outcome: InstanceStrengthening): unknown {
  if (outcome.kind === 'NotSliced') return outcome;
  if (outcome.kind === 'NotMeasured') return outcome;
  // The instance itself goes to strengthened.jsonl, not into the report again.
  return { ...outcome, instance: undefined };
}

/** What names an engine's work in a report's key: the agent and its arguments, or the amplifier. */
function engineKey(engine: StageOneEngine): unknown {
  return engine.kind === 'agent'
    ? { kind: 'agent', spec: specText(engine.setup.adapter.spec), attempts: engine.setup.attempts }
    : { kind: 'deterministic' };
}

export async function strengthenInstanceFile(
  instancesFile: string,
  options: {
    out: string;
    seed: number;
    engine: StageOneEngine;
    stages: readonly StrengthenStage[];
    holdOut: number;
    mutantsPerFamily: number;
    mutantFamilies: readonly RuleFamily[];
    agentMutants: number;
    cache: CacheLayout;
    events: EventSink;
    /** Each instance as a job on a queue's workers (strengthen --queue); here otherwise. */
    queue?: JobCoordinator;
    /** Only the instances of this shard (by id). */
    shard?: Shard;
  },
): Promise<StrengthenSummary> {
  const started = Date.now();
  const instances = (await readInstanceFile(instancesFile)).filter(
    (instance) => !options.shard || inShard(options.shard, instance.instance_id),
  );
  const fileDir = path.dirname(path.resolve(instancesFile));
  const validity = await recordedValidity(instancesFile);
  const out = path.resolve(options.out);
  await mkdir(out, { recursive: true });
  const settings: InstanceSettings = {
    seed: options.seed,
    stages: options.stages,
    holdOut: options.holdOut,
    mutantsPerFamily: options.mutantsPerFamily,
    mutantFamilies: options.mutantFamilies,
    agentMutants: options.agentMutants,
  };
  const here = options.queue ? undefined : await openInstanceRunner(options.cache);
  const unit = async (instance: RepairInstance, dir: string): Promise<InstanceUnitResult> => {
    if (options.queue) {
      return queuedInstance(options.queue, {
        instance,
        fileDir,
        out,
        ...settings,
        stages: [...settings.stages],
        mutantFamilies: [...settings.mutantFamilies],
      });
    }
    return here!.strengthen(instance, fileDir, {
      ...settings,
      engine: agentRunsIn(options.engine, path.join(dir, 'agent')),
    });
  };
  const skipped: StrengthenSummary['skipped'] = [];
  const results: RepairInstance[] = new Array<RepairInstance>(instances.length);
  type Report = {
    instanceId: string;
    outcome: string;
    report: InstanceStrengthening | null;
    stored: unknown;
  };
  const reportAt: (Report | undefined)[] = new Array<Report | undefined>(instances.length);
  let done = 0;
  options.events.emit({
    kind: 'StageStarted',
    stage: 'strengthen',
    subject: path.basename(instancesFile),
    total: instances.length,
    unit: 'instances',
  });
  try {
    // On a queue every instance is in flight at once: the workers decide how many run.
    const workers = options.queue ? instances.length : 1;
    await runPool([...instances.entries()], { workers }, async ([index, instance]) => {
      const dir = path.join(out, 'instances', instance.instance_id);
      const recorded = validity.get(instance.instance_id);
      let outcomeWord: string;
      if (!recorded || recorded.instance !== recordId(instance)) {
        skipped.push({
          instanceId: instance.instance_id,
          reason: "not validated: run 'witnessgym instances validate' first",
        });
        results[index] = instance;
        outcomeWord = 'not validated';
      } else if (recorded.outcome.kind !== 'Valid') {
        skipped.push({
          instanceId: instance.instance_id,
          reason: `S0 found it ${recorded.outcome.kind.toLowerCase()}`,
        });
        results[index] = instance;
        outcomeWord = 'skipped (S0)';
      } else {
        const key = recordId({
          instance: recordId(instance),
          seed: options.seed,
          engine: ENGINE_VERSION,
          by: engineKey(options.engine),
          stages: options.stages,
          ...(options.stages.includes('mutation')
            ? {
                holdOut: options.holdOut,
                mutants:
                  options.engine.kind === 'agent' ? options.agentMutants : options.mutantsPerFamily,
                // Only when some are left out, so reports of runs with every family still count.
                ...(options.engine.kind !== 'agent' &&
                options.mutantFamilies.length < RULE_FAMILIES.length
                  ? { families: options.mutantFamilies }
                  : {}),
              }
            : {}),
        });
        const reportFile = path.join(dir, 'report.json');
        const earlier = await readRecordFile(reportFile, InstanceReportFile).catch(() => undefined);
        if (earlier?.key === key) {
          results[index] = earlier.instance as RepairInstance;
          reportAt[index] = {
            instanceId: instance.instance_id,
            outcome: earlier.outcome,
            report: null,
            stored: earlier.report,
          };
          outcomeWord = `${earlier.outcome} (earlier run)`;
        } else {
          const { outcome, clock } = await unit(instance, dir);
          options.events.emit({
            kind: 'Note',
            stage: 'strengthen',
            message: `${instance.instance_id}: ${clock}`,
          });
          const strengthened = 'instance' in outcome ? outcome.instance : instance;
          if (outcome.kind === 'Strengthened') {
            for (const entry of [...outcome.classes, ...(outcome.mutation?.classes ?? [])]) {
              const target = path.join(dir, 'tests', entry.file);
              await mkdir(path.dirname(target), { recursive: true });
              await writeFile(target, entry.source);
            }
          }
          await mkdir(dir, { recursive: true });
          await writeRecordFile(reportFile, InstanceReportFile, {
            key,
            instanceId: instance.instance_id,
            outcome: outcome.kind,
            instance: strengthened,
            report: summaryOf(outcome),
          });
          results[index] = strengthened;
          reportAt[index] = {
            instanceId: instance.instance_id,
            outcome: outcome.kind,
            report: outcome,
            stored: summaryOf(outcome),
          };
          outcomeWord = outcome.kind;
        }
      }
      options.events.emit({
        kind: 'ItemDone',
        stage: 'strengthen',
        done: ++done,
        total: instances.length,
        item: instance.instance_id,
        outcome: outcomeWord,
      });
    });
  } finally {
    await here?.close();
  }
  const reports = reportAt.filter((entry) => entry !== undefined);
  const strengthenedFile = path.join(out, 'strengthened.jsonl');
  // A snapshot is named relative to its instance file: from the output directory now.
  const relocated = results.map((instance) => ({
    ...instance,
    snapshot: path.isAbsolute(instance.snapshot)
      ? instance.snapshot
      : path.relative(out, path.resolve(fileDir, instance.snapshot)),
  }));
  await writeInstanceFile(strengthenedFile, relocated);
  const heldOut = reports.flatMap((entry) =>
    (
      (entry.stored as { alternatives?: { heldOut: GoldAlternative[] } | null }).alternatives
        ?.heldOut ?? []
    ).map((alternative) => ({
      instance_id: entry.instanceId,
      model_name_or_path: HELD_OUT_MODEL,
      model_patch: alternative.patch,
      operator: alternative.operator,
    })),
  );
  const heldOutFile = path.join(out, 'held-out-alternatives.jsonl');
  await writeFileAtomic(heldOutFile, heldOut.map((line) => `${JSON.stringify(line)}\n`).join(''));
  const stored = reports.map(
    (entry) =>
      entry.stored as {
        classes?: AmplifiedClass[];
        mutation?: { classes: AmplifiedClass[]; mutants: MutantRecord[] } | null;
      },
  );
  const mutantsOf = (index: number) => stored[index]!.mutation?.mutants ?? [];
  const mutantPredictions = reports.flatMap((entry, index) =>
    mutantsOf(index).flatMap((mutant) => {
      const model =
        mutant.fate.kind === 'Unproven'
          ? UNPROVEN_MUTANT_MODEL
          : mutant.fate.kind === 'NonEquivalent' && mutant.half === 'held-out'
            ? HELD_OUT_MUTANT_MODEL
            : undefined;
      return model
        ? [
            {
              instance_id: entry.instanceId,
              model_name_or_path: model,
              model_patch: mutant.patch,
              mutant: mutant.id,
              family: mutant.family,
              operator: mutant.operator,
            },
          ]
        : [];
    }),
  );
  const heldOutMutantsFile = path.join(out, 'held-out-mutants.jsonl');
  const askedMutation = options.stages.includes('mutation');
  if (askedMutation) {
    await writeFileAtomic(
      heldOutMutantsFile,
      mutantPredictions.map((line) => `${JSON.stringify(line)}\n`).join(''),
    );
  }
  const allMutants = reports.flatMap((_, index) => mutantsOf(index));
  const byFate: Record<string, number> = {};
  const byFamily: Record<string, Record<string, number>> = {};
  for (const mutant of allMutants) {
    byFate[mutant.fate.kind] = (byFate[mutant.fate.kind] ?? 0) + 1;
    const family = (byFamily[mutant.family] ??= {});
    family[mutant.fate.kind] = (family[mutant.fate.kind] ?? 0) + 1;
  }
  const judged = { equivalent: 0, different: 0, undecided: 0 };
  for (const mutant of allMutants) {
    const votes = mutant.fate.kind === 'Unproven' ? mutant.fate.votes : undefined;
    if (!votes) continue;
    if (votes.equivalent >= 2) judged.equivalent++;
    else if (votes.different >= 2) judged.different++;
    else judged.undecided++;
  }
  const provenIn = (half: MutantRecord['half']) =>
    allMutants.filter((mutant) => mutant.half === half && mutant.fate.kind === 'NonEquivalent');
  const stageCount = (classesOf: (index: number) => readonly AmplifiedClass[]) => ({
    strengthened: reports.filter((_, index) => classesOf(index).length > 0).length,
    testsAdded: reports.reduce(
      (sum, _, index) => sum + classesOf(index).reduce((n, entry) => n + entry.methods.length, 0),
      0,
    ),
  });
  const outcomes: Record<string, number> = {};
  const losses: Record<string, number> = {};
  const coverage = { relevant: 0, before: 0, after: 0 };
  for (const entry of reports) {
    outcomes[entry.outcome] = (outcomes[entry.outcome] ?? 0) + 1;
    const stored = entry.stored as {
      before?: { relevant: number; covered: number };
      after?: { covered: number } | null;
      losses?: { gate: string; tests: string[] }[];
    };
    if (stored.before) {
      coverage.relevant += stored.before.relevant;
      coverage.before += stored.before.covered;
      coverage.after += stored.after?.covered ?? stored.before.covered;
    }
    for (const loss of stored.losses ?? [])
      losses[loss.gate] = (losses[loss.gate] ?? 0) + loss.tests.length;
  }
  const added = results.flatMap((instance) => instance.strengthening?.added ?? []);
  const summary: StrengthenSummary = {
    out,
    strengthenedFile,
    instances: instances.length,
    skipped,
    outcomes,
    strengthened: results.filter((instance) => (instance.strengthening?.added.length ?? 0) > 0)
      .length,
    testsAdded: added.length,
    failToPassAdded: results.reduce(
      (sum, instance) =>
        sum +
        (instance.strengthening
          ? instance.FAIL_TO_PASS.length - (instance.original_FAIL_TO_PASS?.length ?? 0)
          : 0),
      0,
    ),
    coverage,
    losses,
    alternatives: {
      guard: reports.reduce(
        (sum, entry) =>
          sum +
          ((entry.stored as { alternatives?: { guard: unknown[] } | null }).alternatives?.guard
            .length ?? 0),
        0,
      ),
      heldOut: heldOut.length,
      heldOutFile,
    },
    stages: {
      ...(options.stages.includes('coverage')
        ? { coverage: stageCount((index) => stored[index]!.classes ?? []) }
        : {}),
      ...(askedMutation
        ? { mutation: stageCount((index) => stored[index]!.mutation?.classes ?? []) }
        : {}),
    },
    mutants: askedMutation
      ? {
          byFate,
          byFamily,
          generating: {
            proven: provenIn('generating').length,
            killed: provenIn('generating').filter(
              (mutant) =>
                mutant.fate.kind === 'NonEquivalent' && (mutant.fate.killedBy?.length ?? 0) > 0,
            ).length,
          },
          heldOut: {
            proven: provenIn('held-out').length,
            unproven: byFate['Unproven'] ?? 0,
            file: heldOutMutantsFile,
          },
          judged,
        }
      : null,
    durationMs: Date.now() - started,
  };
  await writeJsonAtomic(path.join(out, 'summary.json'), { ...summary, durationMs: undefined });
  options.events.emit({
    kind: 'StageFinished',
    stage: 'strengthen',
    subject: path.basename(instancesFile),
    durationMs: summary.durationMs,
  });
  return summary;
}

import path from 'node:path';
import { z } from 'zod';
import {
  buildInputsId,
  countedCases,
  describeCaseStop,
  runBuild,
  type BuildCaseRecord,
  type BuildResult,
} from './pipeline.js';
import { archiveCase, toolVersions } from '../stages/4-archive/archive.js';
import { JobCoordinator } from '../jobs/coordinator.js';
import { inShard, parseShard } from '../jobs/shard.js';
import { queuedCaseUnit } from './case-job.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';
import {
  cellKey,
  DEPTHS,
  loadPlan,
  PLAN_BUCKETS,
  planCells,
  type Depth,
  type Plan,
  type PlanBucket,
  type PlanCell,
} from './plan.js';
import type { CoWitnessPolicy } from '../checks/suite.js';
import type { CacheLayout } from '../core/cache.js';
import type { PhaseClock } from '../core/phase-clock.js';
import { UserError } from '../core/errors.js';
import { note, type EventSink } from '../events/types.js';
import { withLock } from '../records/lock.js';
import {
  caseEvolution,
  evolutionByDepth,
  operatorOccurrences,
  type DepthEvolution,
} from '../metrics/patch-evolution.js';
import { resolveFetchedProject, type FetchedProjectRef } from '../project/project.js';
import { cumulativePatches, treeReader } from '../project/state.js';
import { defineRecord, readRecordFile, writeRecordFile } from '../records/record.js';
import { loadBugTypeSpecs } from '../stages/2-inject/spec.js';
import { deterministicSource } from '../stages/3-transform/candidates.js';
import { operatorFor } from '../stages/3-transform/operators/index.js';
import { loadTransformSpecs } from '../stages/3-transform/spec.js';

export interface BuildCommandOptions {
  plan?: string;
  types?: string;
  depths?: string;
  buckets?: string;
  perCell?: number;
  /** The command line's cells form a controlled depth series (one bug at every depth). */
  sameBugAcrossDepths?: boolean;
  seed: number;
  workers: number;
  out: string;
  maven: boolean;
  maxTries: number;
  spare: number;
  candidates: number;
  otherClasses: number;
  collateralLimit: number;
  /** A case that other existing classes expose: refused (the default), or kept with them hidden. */
  coWitnesses?: CoWitnessPolicy;
  /** A redis:// URL: each bug's transformation and suite check run as jobs on its workers. */
  queue?: string;
  /** `--shard i/N`: only the cells of this machine's bug types (types never share a bug). */
  shard?: string;
  /** Where the transformations' time goes, for bench:build-throughput (no flag). */
  clock?: PhaseClock;
  json?: boolean;
}

/** What a build was last asked for; a rerun into the same directory must keep its seed. */
const BuildInputsFile = defineRecord({
  kind: 'build-inputs',
  version: 1,
  schema: z.strictObject({
    id: z.string(),
    projects: z.array(z.string()),
    plan: z.string(),
    seed: z.number().int(),
    cells: z.array(z.string()),
  }),
});

export interface CellRow {
  typeId: string;
  bucket: string;
  depth: number;
  /** The group's own operator sequence, if it has one. */
  sequence?: string[];
  wanted: number;
  archived: number;
  /** Why the cell is short; empty when it is full. */
  reasons: string[];
}

export interface SuiteTally {
  checked: number;
  givenAway: number;
  hidden: number;
  unfinished: number;
  jvmMs: number;
  mavenMs: number;
}

/** The whole-suite check's outcomes per bug type, from the ledger's kept cases. */
export function suiteTallies(
  ledger: readonly BuildCaseRecord[],
  typeOf: (entry: BuildCaseRecord) => string,
): Record<string, SuiteTally> {
  const tallies: Record<string, SuiteTally> = {};
  for (const entry of ledger) {
    if (!entry.suite) continue;
    const tally = (tallies[typeOf(entry)] ??= {
      checked: 0,
      givenAway: 0,
      hidden: 0,
      unfinished: 0,
      jvmMs: 0,
      mavenMs: 0,
    });
    tally.checked++;
    if (entry.suite.kind === 'GivenAway') tally.givenAway++;
    if (entry.suite.kind === 'Hidden') tally.hidden++;
    if (entry.suite.kind === 'Unfinished') tally.unfinished++;
    for (const run of entry.suite.runs) {
      if (run.runner === 'jvm') tally.jvmMs += run.durationMs;
      else tally.mavenMs += run.durationMs;
    }
  }
  return tallies;
}

export interface BuildSummary {
  out: string;
  plan: string;
  seed: number;
  wanted: number;
  archived: number;
  cells: CellRow[];
  /** Bugs tried in cells and where the others were lost: the acceptance rate of each stage. */
  stages: {
    inject: { tried: number; accepted: number };
    transform: { tried: number; kept: number; shortAt: Record<string, number> };
    /**
     * Per bug type, the kept cases the whole existing suite was run on: how many other classes
     * refused (or made hide, with `--co-witnesses hide`), how many it could not judge, and its time.
     */
    suite: Record<string, SuiteTally>;
  };
  /** This run's wall time over the cases it archived. */
  msPerCase: number | null;
  evolution: DepthEvolution[];
  operators: [string, number][];
  durationMs: number;
}

/** Each comma-separated entry of a list option; an empty entry is kept, so it is refused. */
function listOf(value: string): string[] {
  return value.split(',').map((entry) => entry.trim());
}

/** Refuses the first entry of `--<option>` that is not one of `known`, echoing what was typed. */
function checkedList<T extends string | number>(
  option: string,
  typed: string,
  known: readonly T[],
  parse: (entry: string) => T | undefined,
): T[] {
  return listOf(typed).map((entry) => {
    const value = parse(entry);
    if (value === undefined || !known.includes(value)) {
      throw new UserError(`--${option}: '${entry}' is not one of ${known.join(', ')}`);
    }
    return value;
  });
}

/**
 * The command line's cells: one group over the given types, buckets and depths, each list
 * checked here so a mistyped entry is a usage error before anything is written.
 */
export function commandLinePlan(
  base: Plan,
  options: Pick<
    BuildCommandOptions,
    'types' | 'depths' | 'buckets' | 'perCell' | 'sameBugAcrossDepths'
  >,
  knownTypes: readonly string[],
): Plan {
  const depths = checkedList('depths', options.depths ?? DEPTHS.join(','), DEPTHS, (entry) =>
    /^\d+$/.test(entry) ? (Number(entry) as Depth) : undefined,
  );
  const buckets = checkedList(
    'buckets',
    options.buckets ?? PLAN_BUCKETS.join(','),
    PLAN_BUCKETS,
    (entry) => entry as PlanBucket,
  );
  const types = options.types ?? 'all';
  return {
    ...base,
    name: 'command-line',
    description: 'cells from the command line',
    groups: [
      {
        purpose: 'command line',
        types: types === 'all' ? 'all' : checkedList('types', types, knownTypes, (entry) => entry),
        except: [],
        buckets,
        depths,
        perCell: options.perCell ?? 1,
        sameBugAcrossDepths: options.sameBugAcrossDepths ?? false,
      },
    ],
  };
}

/** Records what the build is asked for; a directory of another seed or ledger version is refused. */
export async function recordedInputs(
  out: string,
  inputs: z.infer<typeof BuildInputsFile.schema>,
): Promise<void> {
  const file = path.join(out, 'build', 'inputs.json');
  const earlier = await readRecordFile(file, BuildInputsFile);
  if (earlier && earlier.id !== inputs.id) {
    // The id is the seed's and the ledger version's: with the same seed, the ledger is older.
    throw new UserError(
      earlier.seed === inputs.seed
        ? `${out} holds a build an older witnessgym wrote (its ledger records stops another way): pass another --out`
        : `${out} holds a build with --seed ${earlier.seed}: rerun with that seed to continue or extend it, or pass another --out`,
    );
  }
  await writeRecordFile(file, BuildInputsFile, inputs);
}

/** Table 9 by depth over the archived cases, from their cumulative step patches. */
async function evolutionOf(
  result: BuildResult,
): Promise<{ evolution: DepthEvolution[]; operators: [string, number][] }> {
  const cases = [];
  for (const { project, record } of result.kept) {
    if (record.outcome.kind !== 'Kept') continue;
    const patches = await cumulativePatches(record.outcome.state, treeReader(project.root));
    // The first patch is the injection; the metrics follow the transformation steps.
    cases.push(caseEvolution(patches.slice(1)));
  }
  return {
    evolution: evolutionByDepth(cases),
    operators: operatorOccurrences(result.kept.map(({ record }) => record.sequence)),
  };
}

/** `witnessgym build`: a plan's cases from the projects, into a benchmark directory. */
export async function runBuildCommand(
  projectArguments: readonly string[],
  options: BuildCommandOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<BuildSummary> {
  const started = Date.now();
  const explicit =
    options.types ??
    options.depths ??
    options.buckets ??
    options.perCell ??
    options.sameBugAcrossDepths;
  if (options.plan && explicit !== undefined) {
    throw new UserError(
      '--plan and --types/--depths/--buckets/--per-cell/--same-bug-across-depths exclude each other (a plan group says sameBugAcrossDepths: true)',
    );
  }
  if (!options.plan && explicit === undefined) {
    throw new UserError(
      'say what to build: --plan <name|file> (plans/: paper, smoke, coverage, acceptance), or --types, --depths, --buckets and --per-cell',
    );
  }
  // Cells from the command line take the paper plan's operator sequence for each depth.
  const basePlan = await loadPlan(options.plan ?? 'paper');
  const [types, transforms] = await Promise.all([loadBugTypeSpecs(), loadTransformSpecs()]);
  const plan = options.plan
    ? basePlan
    : commandLinePlan(
        basePlan,
        options,
        types.map((type) => type.id),
      );
  const shard = options.shard ? parseShard(options.shard) : undefined;
  const cells = planCells(plan, types, transforms).filter(
    (cell) => !shard || inShard(shard, cell.typeId),
  );
  const sourcesFor = (sequence: readonly string[]) =>
    sequence.map((id) =>
      deterministicSource(
        operatorFor(transforms.find((spec) => spec.id === id)!),
        options.candidates,
      ),
    );
  // Every operator the plan uses must have code before anything is built.
  for (const cell of cells) sourcesFor(cell.sequence);
  const projects: FetchedProjectRef[] = [];
  for (const argument of projectArguments) {
    projects.push(await resolveFetchedProject(argument, cache, { mavenArgs: [] }));
  }
  const out = path.resolve(options.out);
  // Two builds into one directory would both take the same bugs: the second waits its turn.
  const result = await withLock(
    path.join(out, 'build', 'lock'),
    { purpose: 'build', log: (line) => note(events, 'build', line) },
    async () => {
      await recordedInputs(out, {
        id: buildInputsId(options.seed),
        projects: projects.map((project) => project.label),
        plan: plan.name,
        seed: options.seed,
        cells: cells.map((cell) => `${cellKey(cell.key)}×${cell.wanted}`),
      });
      const tools = await toolVersions(mavenToolchain);
      const coWitnesses = options.coWitnesses ?? 'refuse';
      const coordinator = options.queue ? await JobCoordinator.open(options.queue) : undefined;
      return runBuild({
        cache,
        projects,
        cells,
        specs: types.filter((type) => cells.some((cell) => cell.typeId === type.id)),
        sourcesFor,
        transforms,
        seed: options.seed,
        workers: options.workers,
        out,
        maven: options.maven,
        maxTries: options.maxTries,
        candidates: options.candidates,
        spare: options.spare,
        otherClassLimit: options.otherClasses,
        collateralLimit: options.collateralLimit,
        coWitnesses,
        ...(options.clock ? { clock: options.clock } : {}),
        ...(coordinator
          ? {
              queuedUnit: queuedCaseUnit(coordinator, {
                out,
                candidates: options.candidates,
                maven: options.maven,
                otherClassLimit: options.otherClasses,
                coWitnesses,
              }),
            }
          : {}),
        archive: async ({ project, injection, transform, contexts, coWitnesses }) => {
          const archived = await archiveCase(
            { project, injection, transform, contexts, tools, coWitnesses },
            out,
          );
          return archived.kind === 'Refused'
            ? archived
            : { kind: 'Archived', caseId: archived.caseId };
        },
        events,
      }).finally(() => coordinator?.close());
    },
  );
  return summarise(result, cells, plan, options, out, Date.now() - started);
}

async function summarise(
  result: BuildResult,
  cells: readonly PlanCell[],
  plan: Plan,
  options: BuildCommandOptions,
  out: string,
  durationMs: number,
): Promise<BuildSummary> {
  const counted = countedCases(result.ledger);
  const archivedIn = (cell: PlanCell) =>
    result.ledger.filter((entry) => cellKey(entry.cell) === cellKey(cell.key) && counted.has(entry))
      .length;
  const rows: CellRow[] = cells.map((cell) => ({
    typeId: cell.typeId,
    bucket: cell.bucket,
    depth: cell.depth,
    ...(cell.key.sequence ? { sequence: cell.key.sequence } : {}),
    wanted: cell.wanted,
    archived: archivedIn(cell),
    reasons: result.shortfalls.find((short) => short.cell === cell)?.reasons ?? [],
  }));
  const shortAt: Record<string, number> = {};
  for (const entry of result.ledger) {
    if (entry.outcome.kind === 'Short') {
      const stop = describeCaseStop(entry.outcome.stoppedAt);
      shortAt[stop] = (shortAt[stop] ?? 0) + 1;
    }
  }
  const archivedNow = result.ledger
    .slice(result.resumed)
    .filter((entry) => counted.has(entry)).length;
  const { evolution, operators } = await evolutionOf(result);
  return {
    out,
    plan: plan.name,
    seed: options.seed,
    wanted: cells.reduce((sum, cell) => sum + cell.wanted, 0),
    archived: rows.reduce((sum, row) => sum + Math.min(row.wanted, row.archived), 0),
    cells: rows,
    stages: {
      inject: {
        tried: result.injected.reduce((sum, entry) => sum + entry.tried, 0),
        accepted: result.injected.reduce((sum, entry) => sum + entry.accepted, 0),
      },
      transform: {
        tried: result.ledger.length,
        kept: counted.size,
        shortAt,
      },
      suite: suiteTallies(result.ledger, (entry) => entry.cell.typeId),
    },
    msPerCase: archivedNow > 0 ? Math.round(result.durationMs / archivedNow) : null,
    evolution,
    operators,
    durationMs,
  };
}

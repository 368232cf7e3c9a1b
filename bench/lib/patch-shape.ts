/**
 * The shape of patches for bench/patch-shape: accepted injections (from inject output
 * directories, or from an inject run made here) and the Defects4J patches of the same project,
 * measured alike and summarised per project.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { cacheLayout, resolveCacheDir } from '../../src/core/cache.js';
import {
  CHANGED_LINE_BUCKETS,
  diffHunks,
  patchSize,
  summariseSizes,
  type PatchSize,
  type SizeSummary,
} from '../../src/core/diff-stats.js';
import { exists, makeTempDir, removeTree } from '../../src/core/fs.js';
import type { EventSink } from '../../src/events/types.js';
import { EDIT_KINDS, editKind, type EditKind } from '../../src/lang/java/edit-kind.js';
import { resolveFetchedProject } from '../../src/project/project.js';
import { readRecords } from '../../src/records/record.js';
import { witnessContexts } from '../../src/stages/2-inject/contexts.js';
import { injectWithRules } from '../../src/stages/2-inject/inject.js';
import { InjectionLine, type InjectionRecord } from '../../src/stages/2-inject/records.js';
import { loadBugTypeSpecs, selectBugTypes } from '../../src/stages/2-inject/spec.js';
import { mavenToolchain } from '../../src/toolchains/maven/maven.js';

/** One measured patch: an injection (its id and bug type) or a Defects4J bug (its number). */
export interface ShapedPatch {
  source: string;
  size: PatchSize;
  /** One per hunk, in order. */
  kinds: EditKind[];
}

/**
 * Java files only: a few Defects4J patches also change resources (Codec 14 deletes a 206-line
 * rule file), and injections change Java sources alone.
 */
export function shapeOf(source: string, diff: string): ShapedPatch {
  const hunks = diffHunks(diff).filter((hunk) => hunk.file.endsWith('.java'));
  return { source, size: patchSize(hunks), kinds: hunks.map(editKind) };
}

export function shapeOfInjection(record: InjectionRecord): ShapedPatch {
  const diff = record.state.patches.map((patch) => patch.diff).join('');
  return shapeOf(`${record.id} ${record.bugType.id}`, diff);
}

/** Accepted injections of the given inject output directories, by project, each id once. */
export async function readInjections(dirs: readonly string[]): Promise<InjectionRecord[]> {
  const byId = new Map<string, InjectionRecord>();
  for (const dir of dirs) {
    const file = path.join(dir, 'injections.jsonl');
    if (!(await exists(file)))
      throw new Error(`${dir} has no injections.jsonl: not an inject --out`);
    for (const record of (await readRecords(file, InjectionLine)).records) {
      byId.set(record.id, record);
    }
  }
  return [...byId.values()];
}

export interface InjectRun {
  projects: readonly string[];
  types: string;
  count: number;
  maxTries: number;
  seed: number;
  events: EventSink;
}

/**
 * Injects into each project as `witnessgym inject` does (its defaults: a Maven replay of each
 * accepted bug, 25 collateral classes), into a temporary directory, and returns what it accepted.
 */
export async function injectForShape(run: InjectRun): Promise<InjectionRecord[]> {
  const cache = cacheLayout(resolveCacheDir());
  const specs = selectBugTypes(await loadBugTypeSpecs(), run.types);
  const accepted: InjectionRecord[] = [];
  for (const name of run.projects) {
    const project = await resolveFetchedProject(name, cache);
    const contexts = await witnessContexts(project, cache, run.events);
    const out = await makeTempDir('patch-shape');
    try {
      await injectWithRules({
        cache,
        project,
        toolchain: mavenToolchain,
        specs,
        contexts,
        count: run.count,
        maxTries: run.maxTries,
        seed: run.seed,
        out,
        collateralLimit: 25,
        mavenCheck: true,
        events: run.events,
      });
      accepted.push(...(await readInjections([out])));
    } finally {
      await removeTree(out);
    }
  }
  return accepted;
}

/** Every production patch of one Defects4J project, in bug order. */
export async function readDefects4J(root: string, project: string): Promise<ShapedPatch[]> {
  const dir = path.join(root, project, 'patches');
  const names = (await readdir(dir)).filter((name) => name.endsWith('.src.patch'));
  const bug = (name: string) => Number.parseInt(name, 10);
  const shaped: ShapedPatch[] = [];
  for (const name of names.sort((a, b) => bug(a) - bug(b))) {
    shaped.push(shapeOf(`${project}-${bug(name)}`, await readFile(path.join(dir, name), 'utf8')));
  }
  return shaped;
}

export interface ShapeSummary extends SizeSummary {
  hunksTotal: number;
  /** Hunks of each edit kind, every kind listed. */
  kinds: Record<EditKind, number>;
}

export function summariseShapes(patches: readonly ShapedPatch[]): ShapeSummary {
  const all = patches.flatMap((patch) => patch.kinds);
  const kinds = Object.fromEntries(
    EDIT_KINDS.map((kind) => [kind, all.filter((found) => found === kind).length]),
  ) as Record<EditKind, number>;
  return {
    ...summariseSizes(patches.map((patch) => patch.size)),
    hunksTotal: all.length,
    kinds,
  };
}

/** Where accepted bugs of a project sit: how many distinct files and methods they change. */
export function siteSpread(records: readonly InjectionRecord[]): {
  files: number;
  methods: number;
} {
  return {
    files: new Set(records.map((record) => record.site.file)).size,
    methods: new Set(records.map((record) => `${record.site.file}#${record.site.member}`)).size,
  };
}

const percent = (share: number) => `${Math.round(share * 100)}%`;
const number = (value: number) => (Number.isInteger(value) ? String(value) : value.toFixed(1));

/** The rows of one project's table: one column per summary (injected, then Defects4J). */
export function shapeRows(summaries: readonly ShapeSummary[]): string[][] {
  const row = (label: string, cell: (summary: ShapeSummary) => string) => [
    label,
    ...summaries.map(cell),
  ];
  const kindCell = (kind: EditKind) => (summary: ShapeSummary) =>
    summary.hunksTotal === 0
      ? '-'
      : `${percent(summary.kinds[kind] / summary.hunksTotal)} (${summary.kinds[kind]})`;
  return [
    row('patches', (s) => String(s.patches)),
    row('changed lines, median', (s) => number(s.changedLines.median)),
    row('changed lines, mean', (s) => number(s.changedLines.mean)),
    row('larger side, median', (s) => number(s.largerSide.median)),
    row('larger side, mean', (s) => number(s.largerSide.mean)),
    row('hunks, median', (s) => number(s.hunks.median)),
    row('hunks, mean', (s) => number(s.hunks.mean)),
    row('files, median', (s) => number(s.files.median)),
    row('files, mean', (s) => number(s.files.mean)),
    ...CHANGED_LINE_BUCKETS.map(({ label }) =>
      row(`changed lines ${label}`, (s) => percent(s.changedLineBuckets[label])),
    ),
    row('1 hunk', (s) => percent(s.oneHunk)),
    row('> 1 file', (s) => percent(s.severalFiles)),
    row('hunks by edit kind', (s) => String(s.hunksTotal)),
    ...EDIT_KINDS.map((kind) => row(`  ${kind}`, kindCell(kind))),
  ];
}

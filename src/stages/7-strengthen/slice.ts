import type { ModifiedLines } from '../../repair/patch.js';
import type { StatementScope, StatementUnit } from '../../toolchains/jvm/slicer.js';

/*
 * The lines of a fixed file that matter to a gold patch, after SWE-ABS (A.3): a bidirectional
 * slice from the lines the patch changes. Forward follows def→use, backward use→def, each for a
 * bounded number of hops, first within the members the patch touches, then across the file;
 * the relevant lines are the executable lines of what the slice reached. Tests that cover them
 * are the ones worth strengthening.
 *
 * Where this differs from SWE-ABS:
 * - Symbols are javac's (see toolchains/jvm/slicer.ts), not names: a local that shadows a field,
 *   a lambda parameter named like an outer local, and `this.x` versus `x` are told apart or
 *   joined as the compiler does. SWE-ABS matched variables by name.
 * - A hunk part that only deletes lines keeps an anchor line where the deletion was, so a
 *   removed guard still seeds a slice. SWE-ABS dropped such parts.
 * - Like SWE-ABS the slice is flow-insensitive: a unit that defines a symbol reaches every unit
 *   that uses it, wherever it stands.
 */

function sortedNumbers(values: Iterable<number>): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

export interface SliceOptions {
  /** Hops taken within the members the seeds are in. */
  scopedHops: number;
  /** Hops taken afterwards across the whole file, from everything reached so far. */
  unscopedHops: number;
}

/** SWE-ABS's bounds. */
export const SWE_ABS_HOPS: SliceOptions = { scopedHops: 5, unscopedHops: 1 };

/** Why a unit is in the slice; a unit reached both ways has both. */
export type Reach =
  { kind: 'Seed' } | { kind: 'Forward'; step: Step } | { kind: 'Backward'; step: Step };

export interface Step {
  /** The hop's number within its phase (scoped, then unscoped), from 1. */
  hop: number;
  scoped: boolean;
  /** The unit it was reached from, and the symbol that one defines (forward) or uses. */
  from: number;
  symbol: string;
}

export interface Slice {
  /** Ids of the units the modified lines map to. */
  seeds: number[];
  /** Every line of the seeds and the units reached forward. */
  forward: number[];
  /** Every line of the seeds and the units reached backward. */
  backward: number[];
  /** Every line of the executable units among both. */
  relevant: number[];
  /** Each unit in the slice, by id, with how it was reached. */
  byUnit: { unit: number; reached: Reach[] }[];
}

function scopeKey(scope: StatementScope): string {
  return `${scope.owner} ${scope.kind} ${scope.name} ${scope.start}-${scope.end}`;
}

function span(unit: { start: number; end: number }): number {
  return unit.end - unit.start;
}

function linesOf(unit: StatementUnit): number[] {
  return Array.from({ length: unit.end - unit.start + 1 }, (_, offset) => unit.start + offset);
}

/** The units that contain `line` most narrowly: a body's statement rather than its header. */
function innermostAt(units: readonly StatementUnit[], line: number): StatementUnit[] {
  const containing = units.filter((unit) => unit.start <= line && line <= unit.end);
  const narrowest = Math.min(...containing.map(span));
  return containing.filter((unit) => span(unit) === narrowest);
}

/**
 * An anchor on a line no unit holds (a brace, a blank line): the nearest unit after it in the
 * member around it, else the nearest before it. Outside every member it seeds nothing.
 */
function nearestInScope(units: readonly StatementUnit[], line: number): StatementUnit[] {
  const scopes = units
    .map((unit) => unit.scope)
    .filter((scope) => scope.start <= line && line <= scope.end);
  if (scopes.length === 0) return [];
  const narrowest = Math.min(...scopes.map(span));
  const key = scopeKey(scopes.find((scope) => span(scope) === narrowest)!);
  const inScope = units.filter((unit) => scopeKey(unit.scope) === key);
  const after = inScope.filter((unit) => unit.start > line);
  if (after.length > 0) {
    const first = Math.min(...after.map((unit) => unit.start));
    return innermostAt(after, first);
  }
  const before = inScope.filter((unit) => unit.end < line);
  if (before.length === 0) return [];
  const last = Math.max(...before.map((unit) => unit.end));
  return innermostAt(
    before.filter((unit) => unit.end === last),
    last,
  );
}

/** The units the modified lines fall in; an anchor off every unit takes the nearest one. */
function seedUnits(units: readonly StatementUnit[], modified: ModifiedLines): number[] {
  const seeds = new Set<number>();
  for (const line of modified.changed) {
    for (const unit of innermostAt(units, line)) seeds.add(unit.id);
  }
  for (const line of modified.anchors) {
    const at = innermostAt(units, line);
    for (const unit of at.length > 0 ? at : nearestInScope(units, line)) seeds.add(unit.id);
  }
  return sortedNumbers(seeds);
}

type Direction = 'Forward' | 'Backward';

/**
 * Follows one direction from the seeds: forward, a unit that uses what a reached unit defines;
 * backward, a unit that defines what a reached unit uses. Breadth first, so each unit records
 * its fewest hops; in id and symbol order, so the result is the same on every run.
 */
function follow(
  units: readonly StatementUnit[],
  seeds: readonly number[],
  direction: Direction,
  options: SliceOptions,
): Map<number, Step | null> {
  const byId = new Map(units.map((unit) => [unit.id, unit]));
  const reached = new Map<number, Step | null>(seeds.map((id) => [id, null]));
  const gives = (unit: StatementUnit) => (direction === 'Forward' ? unit.defs : unit.uses);
  const takes = (unit: StatementUnit) => (direction === 'Forward' ? unit.uses : unit.defs);

  const step = (frontier: number[], candidates: StatementUnit[], hop: number, scoped: boolean) => {
    const providers = new Map<string, number>();
    for (const id of [...frontier].sort((a, b) => a - b)) {
      for (const symbol of gives(byId.get(id)!)) {
        if (!providers.has(symbol)) providers.set(symbol, id);
      }
    }
    const next: number[] = [];
    for (const unit of candidates) {
      if (reached.has(unit.id)) continue;
      const symbol = [...takes(unit)].sort().find((taken) => providers.has(taken));
      if (symbol === undefined) continue;
      reached.set(unit.id, { hop, scoped, from: providers.get(symbol)!, symbol });
      next.push(unit.id);
    }
    return next;
  };

  const seedScopes = new Set(seeds.map((id) => scopeKey(byId.get(id)!.scope)));
  const inSeedScopes = units.filter((unit) => seedScopes.has(scopeKey(unit.scope)));
  let frontier = [...seeds];
  for (let hop = 1; hop <= options.scopedHops && frontier.length > 0; hop++) {
    frontier = step(frontier, inSeedScopes, hop, true);
  }
  // The scoped hops looked only inside the seeds' members: across the file, every unit reached
  // so far is a starting point.
  frontier = [...reached.keys()];
  for (let hop = 1; hop <= options.unscopedHops && frontier.length > 0; hop++) {
    frontier = step(frontier, [...units], hop, false);
  }
  return reached;
}

/**
 * The slice of a file's units from the lines a patch modified. A modified line belongs to the
 * narrowest unit that spans it; a line no unit spans (a brace, a blank line) seeds nothing unless
 * it is an anchor. Units are identified by `id`, which must be unique.
 */
export function sliceOf(
  units: readonly StatementUnit[],
  seedLines: ModifiedLines,
  options: SliceOptions = SWE_ABS_HOPS,
): Slice {
  const ordered = [...units].sort((a, b) => a.id - b.id);
  const seeds = seedUnits(ordered, seedLines);
  const forward = follow(ordered, seeds, 'Forward', options);
  const backward = follow(ordered, seeds, 'Backward', options);
  const seedSet = new Set(seeds);

  const byUnit: Slice['byUnit'] = [];
  const relevant = new Set<number>();
  for (const unit of ordered) {
    const reached: Reach[] = [];
    if (seedSet.has(unit.id)) reached.push({ kind: 'Seed' });
    const forwardStep = forward.get(unit.id);
    if (forwardStep) reached.push({ kind: 'Forward', step: forwardStep });
    const backwardStep = backward.get(unit.id);
    if (backwardStep) reached.push({ kind: 'Backward', step: backwardStep });
    if (reached.length === 0) continue;
    byUnit.push({ unit: unit.id, reached });
    if (unit.executable) for (const line of linesOf(unit)) relevant.add(line);
  }
  const byId = new Map(ordered.map((unit) => [unit.id, unit]));
  const linesOfAll = (ids: Iterable<number>) =>
    sortedNumbers([...ids].flatMap((id) => linesOf(byId.get(id)!)));
  return {
    seeds,
    forward: linesOfAll(forward.keys()),
    backward: linesOfAll(backward.keys()),
    relevant: sortedNumbers(relevant),
    byUnit,
  };
}

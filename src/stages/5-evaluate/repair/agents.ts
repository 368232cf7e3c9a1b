import { sidePath } from '../../../core/diff-stats.js';
import { applyPatch, parsePatch, type StructuredPatch } from 'diff';
import { seededRandom, shuffled } from '../../../core/random.js';
import { applyLineMutant, lineMutants } from '../../../mutants/line-operators.js';
import { patchOf } from '../../../project/state.js';
import type { RepairInstance } from '../../../repair/instance.js';
import { modifiedLines } from '../../../repair/patch.js';
import type { PatchVerdict } from '../../../repair/verify-patch.js';

/*
 * Offline repair agents, the calibration of a repair evaluation: `gold` submits the instance's
 * fix (it must resolve every instance), `none` submits an empty patch (it must resolve none), and
 * `plausible` submits a wrong-looking patch that the instance's own tests accept, where it finds
 * one: the patches a strengthened suite must learn to reject. Its families:
 *   - partial-gold: the fix with one of its hunks left out (an incomplete fix);
 *   - site-mutant: the fix with one more operator edit (LINE_OPERATORS) on or beside a line it
 *     changes (a different edit at the bug site).
 * `alternative` submits a known correct fix other than gold, where the instance has one.
 * "Wrong" is not proven here: an edit may be equivalent to the fix. Stage II decides that by
 * evidence; the rows say which family each patch came from.
 */

export type RepairProposal =
  { kind: 'Patch'; diff: string; family: string | null } | { kind: 'NoPatch'; reason: string };

export interface RepairProposalContext {
  instance: RepairInstance;
  /** Reads a file of the base tree (project-relative), '' when it has none. */
  readBase: (file: string) => Promise<string>;
  seed: number;
  /** Judges a candidate with the instance's tests, as the evaluation would. */
  judge: (diff: string) => Promise<PatchVerdict>;
  /** Writes the base tree an agent is given (without the test patch's tests) into a new dir. */
  writeBase: (destination: string) => Promise<void>;
  /** The production source root, project-relative. */
  mainSources: string;
}

export interface RepairAgent {
  kind: 'agent';
  name: string;
  propose(context: RepairProposalContext): Promise<RepairProposal>;
}

export const goldAgent: RepairAgent = {
  kind: 'agent',
  name: 'gold',
  propose: ({ instance }) => Promise.resolve({ kind: 'Patch', diff: instance.patch, family: null }),
};

export const noneAgent: RepairAgent = {
  kind: 'agent',
  name: 'none',
  // An empty patch, judged like any other: the base tree must fail the instance's tests.
  propose: () => Promise.resolve({ kind: 'Patch', diff: '', family: null }),
};

/**
 * A correct fix that is not gold's (a witnessgym case's bug reverted, its refactoring kept): the
 * held-out control of strengthening. Every strengthened suite must still accept it; one that
 * rejects it over-fits to gold (a false negative).
 */
export const alternativeAgent: RepairAgent = {
  kind: 'agent',
  name: 'alternative',
  propose: ({ instance }) =>
    Promise.resolve(
      instance.origin.kind === 'witnessgym-case' && instance.origin.correct_alternative !== null
        ? { kind: 'Patch', diff: instance.origin.correct_alternative, family: 'bug-only revert' }
        : { kind: 'NoPatch', reason: 'the instance has no known correct alternative to gold' },
    ),
};

/** Candidates the plausible agent judges per instance, at most. */
export const PLAUSIBLE_TRIES = 6;
/** How far from a line the fix changes a site mutant may be. */
const SITE_REACH = 2;

interface Candidate {
  family: 'partial-gold' | 'site-mutant';
  detail: string;
  diff: string;
}

function fileOf(filePatch: StructuredPatch): string {
  return sidePath(filePatch.newFileName) ?? sidePath(filePatch.oldFileName) ?? '';
}

/** Every candidate wrong patch of an instance, in a fixed order. */
export async function plausibleCandidates(
  instance: RepairInstance,
  readBase: (file: string) => Promise<string>,
): Promise<Candidate[]> {
  const gold = parsePatch(instance.patch);
  const hunkCount = gold.reduce((sum, filePatch) => sum + filePatch.hunks.length, 0);
  const candidates: Candidate[] = [];
  for (const filePatch of gold) {
    const file = fileOf(filePatch);
    if (filePatch.newFileName === '/dev/null' || filePatch.oldFileName === '/dev/null') continue;
    const base = await readBase(file);
    const fixed = applyPatch(base, filePatch);
    if (fixed === false) continue;
    const others = gold.filter((other) => other !== filePatch);
    const withOthers = async (text: string): Promise<string> => {
      const changes = [{ file, before: base, after: text }];
      for (const other of others) {
        const otherFile = fileOf(other);
        const otherBase = await readBase(otherFile);
        const otherFixed = applyPatch(otherBase, other);
        if (otherFixed !== false)
          changes.push({ file: otherFile, before: otherBase, after: otherFixed });
      }
      return patchOf(changes).diff;
    };
    if (hunkCount > 1) {
      for (const [index] of filePatch.hunks.entries()) {
        const partial = applyPatch(base, {
          ...filePatch,
          hunks: filePatch.hunks.filter((_, kept) => kept !== index),
        });
        if (partial === false || partial === base || partial === fixed) continue;
        candidates.push({
          family: 'partial-gold',
          detail: `${file}: hunk ${index + 1} of ${filePatch.hunks.length} left out`,
          diff: await withOthers(partial),
        });
      }
    }
    const near = new Set(
      modifiedLines(instance.patch, file).changed.flatMap((line) =>
        Array.from({ length: 2 * SITE_REACH + 1 }, (_, offset) => line - SITE_REACH + offset),
      ),
    );
    for (const mutant of lineMutants(fixed)) {
      if (!near.has(mutant.line)) continue;
      const mutated = applyLineMutant(fixed, mutant);
      if (mutated === base) continue;
      candidates.push({
        family: 'site-mutant',
        detail: `${file}:${mutant.line} ${mutant.operator}`,
        diff: await withOthers(mutated),
      });
    }
  }
  return candidates;
}

export const plausibleAgent: RepairAgent = {
  kind: 'agent',
  name: 'plausible',
  async propose({ instance, readBase, seed, judge }) {
    const candidates = await plausibleCandidates(instance, readBase);
    if (candidates.length === 0) {
      return { kind: 'NoPatch', reason: 'no partial fix or site mutant of the gold patch exists' };
    }
    // Site mutants first: a partial fix that leaves out a hunk undoing a refactoring (a
    // witnessgym case's transformation steps) may behave exactly as gold does.
    const random = seededRandom(seed);
    const tried = [
      ...shuffled(
        candidates.filter((candidate) => candidate.family === 'site-mutant'),
        random,
      ),
      ...shuffled(
        candidates.filter((candidate) => candidate.family === 'partial-gold'),
        random,
      ),
    ].slice(0, PLAUSIBLE_TRIES);
    for (const candidate of tried) {
      const verdict = await judge(candidate.diff);
      if (verdict.kind === 'Judged' && verdict.judgement.kind === 'Resolved') {
        return {
          kind: 'Patch',
          diff: candidate.diff,
          family: `${candidate.family}: ${candidate.detail}`,
        };
      }
    }
    return {
      kind: 'NoPatch',
      reason: `none of ${tried.length} candidates (of ${candidates.length}) passes the instance's tests`,
    };
  },
};

export const REPAIR_AGENTS: readonly RepairAgent[] = [
  goldAgent,
  noneAgent,
  plausibleAgent,
  alternativeAgent,
];

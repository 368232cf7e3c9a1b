import { diffHunks, mean, type DiffHunk } from '../core/diff-stats.js';
import { similarity } from '../core/sequence-matcher.js';

/*
 * The paper's patch-evolution metrics (Table 9, Figures 7 and 8). A case's step patches are
 * cumulative: step k's patch takes the clean tree to the state after injection and k
 * transformation steps, so the last one is the final buggy patch (hence 1.00× accumulation and
 * 100% first-step retention at depth 1, as in the paper). Lines are the diff's non-empty changed
 * lines, compared with surrounding whitespace trimmed (a re-indented line is the same line).
 */

/** The non-empty changed lines of a patch, in order, each with its side (`+` or `-`). */
function changedLines(hunks: readonly DiffHunk[]): string[] {
  return hunks.flatMap((hunk) =>
    hunk.lines
      .filter((line) => line.kind !== 'context' && line.text.trim() !== '')
      .map((line) => `${line.kind === 'added' ? '+' : '-'}${line.text.trim()}`),
  );
}

/** Share of `earlier`'s added lines still added by `final`, each final line matched once. */
function addedLineRetention(earlier: readonly string[], final: readonly string[]): number {
  const added = earlier.filter((line) => line.startsWith('+'));
  if (added.length === 0) return 1;
  const left = new Map<string, number>();
  for (const line of final) if (line.startsWith('+')) left.set(line, (left.get(line) ?? 0) + 1);
  let kept = 0;
  for (const line of added) {
    const count = left.get(line) ?? 0;
    if (count > 0) {
      kept++;
      left.set(line, count - 1);
    }
  }
  return kept / added.length;
}

export interface StepEvolution {
  /** The step's added lines the final patch still adds (0 to 1). */
  retention: number;
  /** difflib's ratio between the step's changed lines and the final patch's. */
  similarity: number;
  lines: number;
}

export interface CaseEvolution {
  depth: number;
  finalLines: number;
  hunks: number;
  files: number;
  /** Changed lines of all step patches over the final patch's: 1 when nothing was reworked. */
  lineAccumulation: number;
  steps: StepEvolution[];
}

/** A case's metrics from its cumulative step patches, in order (the last is the final patch). */
export function caseEvolution(stepPatches: readonly string[]): CaseEvolution {
  const finalPatch = stepPatches[stepPatches.length - 1];
  if (finalPatch === undefined) throw new Error('a case has at least one step patch');
  const finalHunks = diffHunks(finalPatch);
  const final = changedLines(finalHunks);
  const steps = stepPatches.map((patch) => {
    const lines = changedLines(diffHunks(patch));
    return {
      retention: addedLineRetention(lines, final),
      similarity: similarity(lines, final),
      lines: lines.length,
    };
  });
  const total = steps.reduce((sum, step) => sum + step.lines, 0);
  return {
    depth: stepPatches.length,
    finalLines: final.length,
    hunks: finalHunks.length,
    files: new Set(finalHunks.map((hunk) => hunk.file)).size,
    lineAccumulation: final.length === 0 ? 1 : total / final.length,
    steps,
  };
}

export interface DepthEvolution {
  depth: number;
  runs: number;
  finalLines: number;
  hunks: number;
  files: number;
  lineAccumulation: number;
  firstStepRetention: number;
  firstStepSimilarity: number;
  /** Means over the first and second half of the steps (Figure 8), for depths of 2 or more. */
  earlySteps: { retention: number; similarity: number } | null;
  lateSteps: { retention: number; similarity: number } | null;
}

/** Table 9 and Figure 8: the cases' metrics averaged per depth, shallowest first. */
export function evolutionByDepth(cases: readonly CaseEvolution[]): DepthEvolution[] {
  const depths = [...new Set(cases.map((entry) => entry.depth))].sort((a, b) => a - b);
  return depths.map((depth) => {
    const group = cases.filter((entry) => entry.depth === depth);
    const over = (pick: (entry: CaseEvolution) => number) => mean(group.map(pick));
    const half = (late: boolean) => {
      if (depth < 2) return null;
      const cut = Math.floor(depth / 2);
      const steps = group.flatMap((entry) =>
        late ? entry.steps.slice(cut) : entry.steps.slice(0, cut),
      );
      return {
        retention: mean(steps.map((step) => step.retention)),
        similarity: mean(steps.map((step) => step.similarity)),
      };
    };
    return {
      depth,
      runs: group.length,
      finalLines: over((entry) => entry.finalLines),
      hunks: over((entry) => entry.hunks),
      files: over((entry) => entry.files),
      lineAccumulation: over((entry) => entry.lineAccumulation),
      firstStepRetention: over((entry) => entry.steps[0]!.retention),
      firstStepSimilarity: over((entry) => entry.steps[0]!.similarity),
      earlySteps: half(false),
      lateSteps: half(true),
    };
  });
}

/** How often each operator occurs over the cases' sequences (Figure 6), most frequent first. */
export function operatorOccurrences(sequences: readonly (readonly string[])[]): [string, number][] {
  const counts = new Map<string, number>();
  for (const sequence of sequences)
    for (const id of sequence) counts.set(id, (counts.get(id) ?? 0) + 1);
  return [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
}

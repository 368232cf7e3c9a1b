import { parsePatch } from 'diff';

/*
 * The size of a unified diff (git's form, or jsdiff's without the `diff --git` line): files,
 * hunks and changed lines, counted as the diff shows them (comment and blank lines included), so
 * injected patches and historical ones are measured alike. Both are written with 3 lines of
 * context, which is what makes their hunk counts comparable.
 */

export interface DiffLine {
  kind: 'context' | 'added' | 'removed';
  text: string;
}

/** One hunk: the file it changes and its lines in order, without the +/-/space prefix. */
export interface DiffHunk {
  file: string;
  lines: DiffLine[];
  /** The 1-based line of the new file the hunk starts at. */
  newStart?: number;
}

const LINE_KINDS: Record<string, DiffLine['kind'] | undefined> = {
  ' ': 'context',
  '+': 'added',
  '-': 'removed',
};

/** Project-relative path of a diff side; null for /dev/null or no name. */
export function sidePath(name: string | undefined): string | null {
  if (!name || name === '/dev/null') return null;
  return name.replace(/^[ab]\//, '');
}

/** Every hunk of a diff; file headers without hunks (mode or binary changes) add none. */
export function diffHunks(diff: string): DiffHunk[] {
  const hunks: DiffHunk[] = [];
  for (const filePatch of parsePatch(diff)) {
    const file = sidePath(filePatch.newFileName) ?? sidePath(filePatch.oldFileName) ?? '';
    for (const hunk of filePatch.hunks) {
      const lines: DiffLine[] = [];
      for (const line of hunk.lines) {
        // `\ No newline at end of file` belongs to the line before it and changes nothing.
        const kind = LINE_KINDS[line[0] ?? ''];
        if (kind) lines.push({ kind, text: line.slice(1) });
      }
      hunks.push({ file, lines, newStart: hunk.newStart });
    }
  }
  return hunks;
}

/** The size of one patch. */
export interface PatchSize {
  files: number;
  hunks: number;
  added: number;
  removed: number;
  /** Added plus removed lines. */
  changedLines: number;
  /** The larger of added and removed: a one-line replacement is 1, not 2. */
  largerSide: number;
}

export function patchSize(hunks: readonly DiffHunk[]): PatchSize {
  const count = (kind: DiffLine['kind']) =>
    hunks.reduce((sum, hunk) => sum + hunk.lines.filter((line) => line.kind === kind).length, 0);
  const added = count('added');
  const removed = count('removed');
  return {
    files: new Set(hunks.map((hunk) => hunk.file)).size,
    hunks: hunks.length,
    added,
    removed,
    changedLines: added + removed,
    largerSide: Math.max(added, removed),
  };
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

export function mean(values: readonly number[]): number {
  return values.length === 0 ? 0 : values.reduce((sum, value) => sum + value, 0) / values.length;
}

export interface Spread {
  median: number;
  mean: number;
}

/** Changed-line buckets, each an upper bound (inclusive); the last catches the rest. */
export const CHANGED_LINE_BUCKETS = [
  { label: '<= 2', max: 2 },
  { label: '3-5', max: 5 },
  { label: '6-10', max: 10 },
  { label: '> 10', max: Infinity },
] as const;

/** The sizes of a set of patches, each share a fraction (0 to 1) of the patches. */
export interface SizeSummary {
  patches: number;
  changedLines: Spread;
  largerSide: Spread;
  hunks: Spread;
  files: Spread;
  /** Share of patches with at most 2 changed lines. */
  atMostTwoLines: number;
  oneHunk: number;
  severalFiles: number;
  /** Share of patches per changed-line bucket, in the order of CHANGED_LINE_BUCKETS. */
  changedLineBuckets: Record<(typeof CHANGED_LINE_BUCKETS)[number]['label'], number>;
}

export function summariseSizes(sizes: readonly PatchSize[]): SizeSummary {
  const spread = (pick: (size: PatchSize) => number): Spread => {
    const values = sizes.map(pick);
    return { median: median(values), mean: mean(values) };
  };
  const share = (holds: (size: PatchSize) => boolean) =>
    sizes.length === 0 ? 0 : sizes.filter(holds).length / sizes.length;
  const bucketOf = (size: PatchSize) =>
    CHANGED_LINE_BUCKETS.find((bucket) => size.changedLines <= bucket.max)!.label;
  const buckets = Object.fromEntries(
    CHANGED_LINE_BUCKETS.map((bucket) => [
      bucket.label,
      share((size) => bucketOf(size) === bucket.label),
    ]),
  ) as SizeSummary['changedLineBuckets'];
  return {
    patches: sizes.length,
    changedLines: spread((size) => size.changedLines),
    largerSide: spread((size) => size.largerSide),
    hunks: spread((size) => size.hunks),
    files: spread((size) => size.files),
    atMostTwoLines: share((size) => size.changedLines <= 2),
    oneHunk: share((size) => size.hunks === 1),
    severalFiles: share((size) => size.files > 1),
    changedLineBuckets: buckets,
  };
}

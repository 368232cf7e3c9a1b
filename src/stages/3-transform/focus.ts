import { diffHunks } from '../../core/diff-stats.js';
import type { TextEdit } from '../../lang/java/syntax.js';

/*
 * Where the bug is in a file that transformation steps keep rewriting: the lines the bug's patch
 * added (or, for a deletion, the line after it), found again by their text, since a step may
 * move them (into a helper) or re-indent them, but keeps them.
 */

/** The bug's anchor: its file and the trimmed lines that mark it, in order. */
export interface BugAnchor {
  file: string;
  lines: string[];
  /**
   * The 0-based line the anchor was last seen at: of several places with the same lines (a
   * deletion's next line is often `}` or `/**`), the nearest one is the bug's.
   */
  near?: number;
}

/** The anchor of a bug patch (clean → buggy): its first hunk's added lines, else the next line. */
export function bugAnchor(patch: string): BugAnchor | undefined {
  const [hunk] = diffHunks(patch);
  if (!hunk) return undefined;
  // The new file's line of each hunk line (a removed one: the line it was removed before).
  let line = (hunk.newStart ?? 1) - 1;
  const at = hunk.lines.map((entry) => (entry.kind === 'removed' ? line : line++));
  const marking = (index: number) => (hunk.newStart === undefined ? {} : { near: at[index]! });
  const marks = (entry: (typeof hunk.lines)[number]) =>
    entry.kind === 'added' && entry.text.trim() !== '';
  const firstAdded = hunk.lines.findIndex(marks);
  if (firstAdded >= 0) {
    const added = hunk.lines.filter(marks);
    return {
      file: hunk.file,
      lines: added.map((entry) => entry.text.trim()),
      ...marking(firstAdded),
    };
  }
  // A deletion: the first line that follows the removed ones.
  const lastRemoved = hunk.lines.map((entry) => entry.kind).lastIndexOf('removed');
  const next = hunk.lines.findIndex(
    (entry, index) => index > lastRemoved && entry.text.trim() !== '',
  );
  return next >= 0
    ? { file: hunk.file, lines: [hunk.lines[next]!.text.trim()], ...marking(next) }
    : undefined;
}

/** The UTF-16 offset each of `lines` (a source split at '\n') starts at. */
export function lineStarts(lines: readonly string[]): number[] {
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  return starts;
}

/**
 * The range of `source` holding the anchor's lines (consecutive, in order), if still there, and
 * the line it starts on: of several such places, the one nearest the anchor's last known line.
 */
export function locateAnchor(
  source: string,
  anchor: BugAnchor,
): { start: number; end: number; line: number } | undefined {
  const lines = source.split('\n');
  const starts = lineStarts(lines);
  const trimmed = lines.map((line) => line.trim());
  let found: number | undefined;
  for (let i = 0; i + anchor.lines.length <= lines.length; i++) {
    if (!anchor.lines.every((text, k) => trimmed[i + k] === text)) continue;
    if (anchor.near === undefined) {
      found = i;
      break;
    }
    if (found === undefined || Math.abs(i - anchor.near) < Math.abs(found - anchor.near)) found = i;
  }
  if (found === undefined) return undefined;
  const last = found + anchor.lines.length - 1;
  return {
    start: starts[found]! + (lines[found]!.length - lines[found]!.trimStart().length),
    end: starts[last]! + lines[last]!.trimEnd().length,
    line: found,
  };
}

/** The anchor after a step's edits: the same lines, with any the step rewrote re-read. */
export function anchorAfter(
  anchor: BugAnchor,
  focus: { start: number; end: number },
  edits: readonly TextEdit[],
  after: string,
): BugAnchor {
  // Where the edits moved the focus to: edits before it shift it, edits in it stretch it.
  let start = focus.start;
  let end = focus.end;
  for (const edit of [...edits].sort((a, b) => a.start - b.start)) {
    const shift = edit.text.length - (edit.end - edit.start);
    if (edit.end <= focus.start) {
      start += shift;
      end += shift;
    } else if (edit.start < focus.end) {
      end += shift;
    }
  }
  const lineStart = after.lastIndexOf('\n', start - 1) + 1;
  const line = after.slice(0, lineStart).split('\n').length - 1;
  const kept = locateAnchor(after, { ...anchor, near: line });
  if (kept) return { ...anchor, ...(anchor.near === undefined ? {} : { near: kept.line }) };
  // The step rewrote the bug's own lines (a rerouted call in them): follow them by offset.
  const lineEnd = after.indexOf('\n', end);
  const text = after.slice(lineStart, lineEnd === -1 ? after.length : lineEnd);
  return {
    file: anchor.file,
    lines: text
      .split('\n')
      .map((entry) => entry.trim())
      .filter(Boolean),
    ...(anchor.near === undefined ? {} : { near: line }),
  };
}

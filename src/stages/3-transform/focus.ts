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
}

/** The anchor of a bug patch (clean → buggy): its first hunk's added lines, else the next line. */
export function bugAnchor(patch: string): BugAnchor | undefined {
  const [hunk] = diffHunks(patch);
  if (!hunk) return undefined;
  const added = hunk.lines.filter((line) => line.kind === 'added' && line.text.trim() !== '');
  if (added.length > 0) return { file: hunk.file, lines: added.map((line) => line.text.trim()) };
  // A deletion: the first line that follows the removed ones.
  const lastRemoved = hunk.lines.map((line) => line.kind).lastIndexOf('removed');
  const next = hunk.lines.slice(lastRemoved + 1).find((line) => line.text.trim() !== '');
  return next ? { file: hunk.file, lines: [next.text.trim()] } : undefined;
}

/** The range of `source` holding the anchor's lines (consecutive, in order), if still there. */
export function locateAnchor(
  source: string,
  anchor: BugAnchor,
): { start: number; end: number } | undefined {
  const lines = source.split('\n');
  const starts: number[] = [];
  let offset = 0;
  for (const line of lines) {
    starts.push(offset);
    offset += line.length + 1;
  }
  const trimmed = lines.map((line) => line.trim());
  for (let i = 0; i + anchor.lines.length <= lines.length; i++) {
    if (anchor.lines.every((text, k) => trimmed[i + k] === text)) {
      const last = i + anchor.lines.length - 1;
      const lastText = lines[last]!;
      return {
        start: starts[i]! + (lines[i]!.length - lines[i]!.trimStart().length),
        end: starts[last]! + lastText.trimEnd().length,
      };
    }
  }
  return undefined;
}

/** The anchor after a step's edits: the same lines, with any the step rewrote re-read. */
export function anchorAfter(
  anchor: BugAnchor,
  focus: { start: number; end: number },
  edits: readonly TextEdit[],
  after: string,
): BugAnchor {
  if (locateAnchor(after, anchor)) return anchor;
  // The step rewrote the bug's own lines (a rerouted call in them): follow them by offset.
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
  const lineEnd = after.indexOf('\n', end);
  const text = after.slice(lineStart, lineEnd === -1 ? after.length : lineEnd);
  return {
    file: anchor.file,
    lines: text
      .split('\n')
      .map((line) => line.trim())
      .filter(Boolean),
  };
}

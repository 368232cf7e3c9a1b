import { diffHunks } from '../../core/diff-stats.js';

/**
 * The lines of the buggy files a bug changed, by project-relative file: every added line, and
 * where lines were only removed (a deleted guard), the buggy line now standing in their place —
 * the statement a test must run past for the deletion to matter.
 */
export function changedBuggyLines(bugPatch: string): Map<string, number[]> {
  const byFile = new Map<string, Set<number>>();
  for (const hunk of diffHunks(bugPatch)) {
    const lines = byFile.get(hunk.file) ?? new Set<number>();
    byFile.set(hunk.file, lines);
    let line = hunk.newStart ?? 1;
    let removedSinceLast = false;
    for (const entry of hunk.lines) {
      if (entry.kind === 'removed') {
        removedSinceLast = true;
        continue;
      }
      if (entry.kind === 'added' || removedSinceLast) lines.add(line);
      removedSinceLast = false;
      line++;
    }
  }
  return new Map([...byFile].map(([file, lines]) => [file, [...lines].sort((a, b) => a - b)]));
}

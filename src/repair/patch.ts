import { sidePath } from '../core/diff-stats.js';
import { parsePatch } from 'diff';
/*
 * Unified diffs rewritten. Defects4J stores each bug's patch in the fixed → buggy direction;
 * a repair instance's gold patch goes base (buggy) → fixed, so it is the stored patch reversed.
 * Done on the diff's own lines rather than through jsdiff's parse and format, which would drop
 * git's `index` lines and the hunk headers' function context, and reverse the order of files.
 */

/** A diff as parts: file names, hunks, and every other line (git's extended headers, say). */
type PatchPart =
  | { kind: 'FileNames'; oldName: string; newName: string }
  | { kind: 'Hunk'; oldRange: string; newRange: string; context: string; lines: HunkLine[] }
  | { kind: 'Line'; text: string };

/** A hunk's line with the `\ No newline at end of file` marker that belongs to it, if any. */
interface HunkLine {
  text: string;
  marker?: string;
}

interface ScannedPatch {
  parts: PatchPart[];
  endsWithNewline: boolean;
}

const HUNK_HEADER = /^@@ -(\d+(?:,\d+)?) \+(\d+(?:,\d+)?) @@(.*)$/s;

/** The number of lines a hunk header's range covers: `12,7` is 7 lines, a bare `12` one. */
function rangeLength(range: string): number {
  const comma = range.indexOf(',');
  return comma === -1 ? 1 : Number(range.slice(comma + 1));
}

/**
 * Reads the hunk whose header is at `lines[start]`; returns it and the index after it. Its
 * length comes from the header's counts, not from the lines' first characters: a removed line
 * that reads `-- x` looks like a file header.
 */
function scanHunk(lines: readonly string[], start: number): { hunk: PatchPart; next: number } {
  const [, oldRange, newRange, context] = HUNK_HEADER.exec(lines[start]!)! as unknown as string[];
  let oldLeft = rangeLength(oldRange!);
  let newLeft = rangeLength(newRange!);
  const body: HunkLine[] = [];
  let at = start + 1;
  const attachMarker = () => {
    const last = body.at(-1);
    if (!last) throw new Error(`line ${at + 1}: "\\" marker before any line of its hunk`);
    last.marker = lines[at]!;
    at++;
  };
  while (oldLeft > 0 || newLeft > 0) {
    const line = lines[at];
    if (line === undefined) throw new Error(`the hunk at line ${start + 1} ends early`);
    const sign = line[0] ?? ' '; // an empty line is a context line whose space was trimmed
    if (sign === '\\') {
      attachMarker();
      continue;
    }
    if (sign === ' ') {
      oldLeft--;
      newLeft--;
    } else if (sign === '-') oldLeft--;
    else if (sign === '+') newLeft--;
    else throw new Error(`line ${at + 1}: ${JSON.stringify(line)} is not a line of a hunk`);
    if (oldLeft < 0 || newLeft < 0) {
      throw new Error(`the hunk at line ${start + 1} has more lines than its header counts`);
    }
    body.push({ text: line });
    at++;
  }
  while (lines[at]?.startsWith('\\')) attachMarker();
  return {
    hunk: {
      kind: 'Hunk',
      oldRange: oldRange!,
      newRange: newRange!,
      context: context!,
      lines: body,
    },
    next: at,
  };
}

function scanPatch(diff: string): ScannedPatch {
  const lines = diff.split('\n');
  const endsWithNewline = lines.at(-1) === '';
  if (endsWithNewline) lines.pop();
  const parts: PatchPart[] = [];
  for (let at = 0; at < lines.length;) {
    const line = lines[at]!;
    if (HUNK_HEADER.test(line)) {
      const { hunk, next } = scanHunk(lines, at);
      parts.push(hunk);
      at = next;
    } else if (line.startsWith('--- ')) {
      const next = lines[at + 1];
      if (!next?.startsWith('+++ ')) throw new Error(`line ${at + 1}: "---" without "+++"`);
      parts.push({ kind: 'FileNames', oldName: line.slice(4), newName: next.slice(4) });
      at += 2;
    } else {
      parts.push({ kind: 'Line', text: line });
      at++;
    }
  }
  return { parts, endsWithNewline };
}

function renderPatch({ parts, endsWithNewline }: ScannedPatch): string {
  const out: string[] = [];
  for (const part of parts) {
    if (part.kind === 'Line') out.push(part.text);
    else if (part.kind === 'FileNames') out.push(`--- ${part.oldName}`, `+++ ${part.newName}`);
    else {
      out.push(`@@ -${part.oldRange} +${part.newRange} @@${part.context}`);
      for (const line of part.lines) {
        out.push(line.text);
        if (line.marker !== undefined) out.push(line.marker);
      }
    }
  }
  return out.join('\n') + (endsWithNewline ? '\n' : '');
}

/**
 * A file name moved to the other side of a diff: git names the old side `a/…` and the new side
 * `b/…`, so a name that changes sides changes prefix; `/dev/null` and unprefixed names stay.
 */
function toOldSide(name: string): string {
  return name.startsWith('b/') ? `a/${name.slice(2)}` : name;
}

function toNewSide(name: string): string {
  return name.startsWith('a/') ? `b/${name.slice(2)}` : name;
}

/**
 * `diff --git a/X b/Y` → `diff --git a/Y b/X`. The two names are split where the halves name
 * the same file (any file but a renamed one), else at the one ` b/` there is.
 */
function reverseGitHeader(line: string): string {
  const names = line.slice('diff --git '.length);
  if (names.startsWith('"')) throw new Error(`quoted file names are not supported: ${line}`);
  const splits: number[] = [];
  for (let at = names.indexOf(' '); at !== -1; at = names.indexOf(' ', at + 1)) splits.push(at);
  const strip = (name: string) => name.replace(/^[ab]\//, '');
  const same = splits.find((at) => strip(names.slice(0, at)) === strip(names.slice(at + 1)));
  const renamed = splits.filter((at) => names.startsWith('b/', at + 1));
  const split = same ?? (renamed.length === 1 ? renamed[0] : undefined);
  if (split === undefined) throw new Error(`cannot tell the two file names apart in: ${line}`);
  return `diff --git ${toOldSide(names.slice(split + 1))} ${toNewSide(names.slice(0, split))}`;
}

/** Removed lines become added ones and back; in each run of changes the removed go first. */
function reverseHunkLines(lines: readonly HunkLine[]): HunkLine[] {
  const isChange = (line: HunkLine) => line.text[0] === '-' || line.text[0] === '+';
  const flipped = (line: HunkLine, sign: string) => ({ ...line, text: sign + line.text.slice(1) });
  const out: HunkLine[] = [];
  for (let index = 0; index < lines.length;) {
    if (!isChange(lines[index]!)) {
      out.push(lines[index]!);
      index++;
      continue;
    }
    let end = index;
    while (end < lines.length && isChange(lines[end]!)) end++;
    const run = lines.slice(index, end);
    out.push(...run.filter((line) => line.text[0] === '+').map((line) => flipped(line, '-')));
    out.push(...run.filter((line) => line.text[0] === '-').map((line) => flipped(line, '+')));
    index = end;
  }
  return out;
}

/** Git's extended header lines that name one thing for each side, in the order git writes them. */
const SIDE_PAIRS = [
  ['old mode ', 'new mode '],
  ['rename from ', 'rename to '],
] as const;

/**
 * A unified diff reversed: applying it undoes the original. Names and sides swap (`---`/`+++`,
 * git's `a/`/`b/`, `index` ids, modes, created ↔ deleted, renames), removed lines become added
 * ones and back, and hunk ranges swap. Lines outside files and hunks are kept as they are.
 * Throws on what cannot be reversed from the patch alone (binary patches, copies) or on a
 * malformed patch.
 */
export function reversePatch(diff: string): string {
  const scanned = scanPatch(diff);
  const parts: PatchPart[] = [];
  const texts = scanned.parts.map((part) => (part.kind === 'Line' ? part.text : undefined));
  for (let at = 0; at < scanned.parts.length; at++) {
    const part = scanned.parts[at]!;
    if (part.kind === 'FileNames') {
      parts.push({
        kind: 'FileNames',
        oldName: toOldSide(part.newName),
        newName: toNewSide(part.oldName),
      });
      continue;
    }
    if (part.kind === 'Hunk') {
      parts.push({
        ...part,
        oldRange: part.newRange,
        newRange: part.oldRange,
        lines: reverseHunkLines(part.lines),
      });
      continue;
    }
    const line = part.text;
    if (line.startsWith('GIT binary patch') || line.startsWith('Binary files ')) {
      throw new Error('a binary patch cannot be reversed');
    }
    if (line.startsWith('copy from ')) {
      throw new Error('a copy cannot be reversed (its source is not in the patch)');
    }
    const pair = SIDE_PAIRS.find(([first]) => line.startsWith(first));
    if (pair) {
      const [first, second] = pair;
      const next = texts[at + 1];
      if (!next?.startsWith(second)) throw new Error(`"${line}" is not followed by "${second}"`);
      parts.push(
        { kind: 'Line', text: first + next.slice(second.length) },
        { kind: 'Line', text: second + line.slice(first.length) },
      );
      at++;
      continue;
    }
    const index = /^index ([0-9a-f]+)\.\.([0-9a-f]+)(.*)$/s.exec(line);
    let text = line;
    if (line.startsWith('diff --git ')) text = reverseGitHeader(line);
    else if (index) text = `index ${index[2]}..${index[1]}${index[3]}`;
    else if (line.startsWith('new file mode ')) text = `deleted ${line.slice('new '.length)}`;
    else if (line.startsWith('deleted file mode ')) text = `new ${line.slice('deleted '.length)}`;
    parts.push({ kind: 'Line', text });
  }
  return renderPatch({ parts, endsWithNewline: scanned.endsWithNewline });
}

/**
 * The diff with git's `a/` and `b/` on its `---`/`+++` names, so `git apply` (which strips one
 * directory) finds the files: an svn diff names them from the root, without them. A pair that
 * already reads `a/…` and `b/…` is kept.
 */
export function withGitPrefixes(diff: string): string {
  const scanned = scanPatch(diff);
  const hasPrefix = (name: string, prefix: string) =>
    name === '/dev/null' || name.startsWith(prefix);
  const prefixed = (name: string, prefix: string) => (name === '/dev/null' ? name : prefix + name);
  return renderPatch({
    ...scanned,
    parts: scanned.parts.map((part) =>
      part.kind !== 'FileNames' || (hasPrefix(part.oldName, 'a/') && hasPrefix(part.newName, 'b/'))
        ? part
        : { ...part, oldName: prefixed(part.oldName, 'a/'), newName: prefixed(part.newName, 'b/') },
    ),
  });
}

/** The new side's lines a patch touches in one file. */
export interface ModifiedLines {
  /** Lines the patch adds (a changed line is a removed line plus an added one). */
  changed: number[];
  /** For each part that only removes lines: the new-side line the removal stands before. */
  anchors: number[];
}

const NO_NEWLINE_MARKER = '\\';

/** jsdiff keeps a blank context line whose space was stripped as an empty line. */
function isContext(line: string): boolean {
  return line === '' || line.startsWith(' ');
}

/** A line that only closes blocks (`}`, `});`, `} else {`): a removal before it ended a block. */
function closesBlock(text: string): boolean {
  return text.trimStart().startsWith('}');
}

/**
 * The lines of `file` in the fixed version (the patch's new side) that the patch adds, and an
 * anchor for each part that only deletes: the line the deletion stands before, or the line
 * before the deletion when it ended a block or the file. Sorted, without repeats.
 */
export function modifiedLines(goldPatch: string, file: string): ModifiedLines {
  const changed = new Set<number>();
  const anchors = new Set<number>();
  for (const filePatch of parsePatch(goldPatch)) {
    if (sidePath(filePatch.newFileName) !== file) continue;
    for (const hunk of filePatch.hunks) {
      const lines = hunk.lines.filter((line) => !line.startsWith(NO_NEWLINE_MARKER));
      const showsContext = lines.some(isContext);
      // jsdiff numbers an empty new side from the line after it, as for any other hunk.
      let newLine = hunk.newStart;
      let index = 0;
      while (index < lines.length) {
        if (isContext(lines[index]!)) {
          newLine++;
          index++;
          continue;
        }
        let adds = false;
        for (; index < lines.length && !isContext(lines[index]!); index++) {
          if (!lines[index]!.startsWith('+')) continue;
          changed.add(newLine);
          newLine++;
          adds = true;
        }
        if (adds) continue;
        const following = lines[index]?.slice(1);
        // A hunk with context but none after the deletion ends at the end of the file; one
        // without any context (-U0) cannot tell, and the line after is the better guess.
        const endsBlockOrFile = following === undefined ? showsContext : closesBlock(following);
        anchors.add(endsBlockOrFile && newLine > 1 ? newLine - 1 : newLine);
      }
    }
  }
  return { changed: sorted(changed), anchors: sorted(anchors) };
}

function sorted(values: Iterable<number>): number[] {
  return [...new Set(values)].sort((a, b) => a - b);
}

import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePatch } from 'diff';
import { z } from 'zod';
import { diffHunks, patchSize, type DiffHunk, type PatchSize } from '../core/diff-stats.js';
import { UserError } from '../core/errors.js';
import { exists } from '../core/fs.js';
import { packageRoot } from '../core/package-root.js';

/*
 * The two sides of the realism study as a reviewer sees them: the injected patches of built
 * benchmarks (each case's clean → buggy diff) and the Defects4J patches (fixed → buggy, the bug's
 * direction), both rendered alike so no side can be told by its formatting: Java files only,
 * paths cut to the file's name, no `diff --git`/`index` lines or timestamps, hunk headers without
 * the enclosing declaration git prints, the same context lines, LF line ends.
 */

export const CONTEXT_LINES = 3;

/** Corpus project → its Defects4J project (json-simple and commons-io have none). */
export const DEFECTS4J_PROJECTS: Readonly<Record<string, string>> = {
  'commons-codec': 'Codec',
  'commons-csv': 'Csv',
  'commons-lang3': 'Lang',
  'jackson-core': 'JacksonCore',
  'joda-time': 'Time',
};

/** A patch of either side, rendered for review and measured. */
export interface RealismPatch {
  /** `injected:<case id>` or `defects4j:<Project>-<n>`. */
  key: string;
  side: 'injected' | 'real';
  /** The corpus project of an injected case; the Defects4J project of a real bug. */
  project: string;
  /** Injected: the injection every case of one bug shares; real: the bug. */
  cluster: string;
  /** Transformation depth of an injected case; null for a real bug. */
  depth: number | null;
  /** The bug type of an injected case; null for a real bug. */
  bugType: string | null;
  text: string;
  hunks: DiffHunk[];
  size: PatchSize;
}

interface RenderedHunk {
  file: string;
  oldFile: string | null;
  newFile: string | null;
  oldStart: number;
  newStart: number;
  /** With their +/-/space prefix. */
  lines: string[];
}

function fileName(name: string | undefined): string | null {
  if (!name || name === '/dev/null') return null;
  return path.posix.basename(name.replace(/\t.*$/, ''));
}

/**
 * One hunk cut to at most `context` lines of context at each end and split where more than
 * twice that separates two changes, as `diff -U<context>` would have written it.
 */
function recut(
  lines: string[],
  oldStart: number,
  newStart: number,
  context: number,
): { oldStart: number; newStart: number; lines: string[] }[] {
  const changed = lines.map((line) => line[0] === '+' || line[0] === '-');
  const pieces: { oldStart: number; newStart: number; lines: string[] }[] = [];
  let oldLine = oldStart;
  let newLine = newStart;
  const positions = lines.map((line) => {
    const at = { old: oldLine, new: newLine };
    if (line[0] !== '+') oldLine++;
    if (line[0] !== '-') newLine++;
    return at;
  });
  let index = 0;
  while (index < lines.length) {
    const first = changed.indexOf(true, index);
    if (first === -1) break;
    let last = first;
    for (let next = first + 1; next < lines.length; next++) {
      if (changed[next]) {
        if (next - last - 1 > 2 * context) break;
        last = next;
      }
    }
    const from = Math.max(index, first - context);
    const to = Math.min(lines.length - 1, last + context);
    pieces.push({
      oldStart: positions[from]!.old,
      newStart: positions[from]!.new,
      lines: lines.slice(from, to + 1),
    });
    index = last + 1;
  }
  return pieces;
}

/** The Java hunks of a diff, re-cut to `CONTEXT_LINES` and named by file name only. */
function renderedHunks(diff: string): RenderedHunk[] {
  const hunks: RenderedHunk[] = [];
  for (const filePatch of parsePatch(diff.replace(/\r(?=\n)/g, ''))) {
    const oldFile = fileName(filePatch.oldFileName);
    const newFile = fileName(filePatch.newFileName);
    const file = newFile ?? oldFile ?? '';
    if (!file.endsWith('.java')) continue;
    for (const hunk of filePatch.hunks) {
      // `\ No newline at end of file` changes nothing a reviewer reads.
      const lines = hunk.lines.filter((line) => /^[ +-]/.test(line));
      for (const piece of recut(lines, hunk.oldStart, hunk.newStart, CONTEXT_LINES)) {
        hunks.push({ file, oldFile, newFile, ...piece });
      }
    }
  }
  return hunks;
}

function hunkHeader(hunk: RenderedHunk): string {
  const count = (skip: string) => hunk.lines.filter((line) => line[0] !== skip).length;
  const oldCount = count('+');
  const newCount = count('-');
  // An empty side starts at the line before, as diff writes it.
  const oldStart = oldCount === 0 ? hunk.oldStart - 1 : hunk.oldStart;
  const newStart = newCount === 0 ? hunk.newStart - 1 : hunk.newStart;
  return `@@ -${oldStart},${oldCount} +${newStart},${newCount} @@`;
}

/** A diff in the study's one form (see the file comment); '' when it changes no Java file. */
export function renderPatch(diff: string): string {
  const out: string[] = [];
  let current: string | null = null;
  for (const hunk of renderedHunks(diff)) {
    if (hunk.file !== current) {
      current = hunk.file;
      out.push(hunk.oldFile ? `--- a/${hunk.oldFile}` : '--- /dev/null');
      out.push(hunk.newFile ? `+++ b/${hunk.newFile}` : '+++ /dev/null');
    }
    out.push(hunkHeader(hunk), ...hunk.lines);
  }
  return out.length === 0 ? '' : `${out.join('\n')}\n`;
}

/** A patch of either side from its diff, rendered and measured; null when it changes no Java file. */
export function measuredPatch(
  fields: Omit<RealismPatch, 'text' | 'hunks' | 'size'>,
  diff: string,
): RealismPatch | null {
  const text = renderPatch(diff);
  if (text === '') return null;
  const hunks = diffHunks(text);
  return { ...fields, text, hunks, size: patchSize(hunks) };
}

// Read loosely: benchmarks of earlier versions carry fewer fields, and only these matter here.
const IndexLine = z.object({
  instance_id: z.string(),
  project: z.string(),
  type_id: z.string(),
  depth: z.number().int(),
  patch: z.string(),
  injection_id: z.string().optional(),
});
const CaseJson = z.object({
  injection: z.string().optional(),
  injectionId: z.string().optional(),
  state: z.object({ patches: z.array(z.object({ id: z.string() })) }).optional(),
});

/** The case's injection: cases sharing it are one bug, however deep each was transformed. */
async function injectionOf(bench: string, line: z.infer<typeof IndexLine>): Promise<string> {
  if (line.injection_id) return line.injection_id;
  const caseFile = path.join(bench, line.instance_id, 'case.json');
  if (await exists(caseFile)) {
    const parsed = CaseJson.safeParse(JSON.parse(await readFile(caseFile, 'utf8')));
    if (parsed.success) {
      const { injection, injectionId, state } = parsed.data;
      const found = injectionId ?? injection ?? state?.patches[0]?.id;
      if (found) return found;
    }
  }
  return line.instance_id;
}

/**
 * What the injected side shows: each case's whole patch (the bug and its transformations), or
 * each bug's own injection patch once (depth 0), which tells the bug's realism apart from the
 * transformations'.
 */
export type InjectedView = 'cases' | 'bugs';

/** The injection's own patch: the first of the case's state (`steps/00-inject.patch`). */
async function injectionPatch(bench: string, caseId: string): Promise<string | null> {
  const caseFile = path.join(bench, caseId, 'case.json');
  if (!(await exists(caseFile))) return null;
  const state = z
    .object({ state: z.object({ patches: z.array(z.object({ file: z.string() })).min(1) }) })
    .safeParse(JSON.parse(await readFile(caseFile, 'utf8')));
  if (!state.success) return null;
  return readFile(path.join(bench, caseId, state.data.state.patches[0]!.file), 'utf8');
}

/** Every case of the benchmarks (`<bench>/cases.jsonl`), rendered; a case id once. */
export async function readInjectedPatches(
  benches: readonly string[],
  view: InjectedView = 'cases',
): Promise<RealismPatch[]> {
  const byKey = new Map<string, RealismPatch>();
  for (const bench of benches) {
    const index = path.join(bench, 'cases.jsonl');
    if (!(await exists(index))) {
      throw new UserError(
        `${bench} has no cases.jsonl: not a benchmark made by 'witnessgym build'`,
      );
    }
    const lines = (await readFile(index, 'utf8')).split('\n').filter((line) => line.trim());
    for (const [number, text] of lines.entries()) {
      const parsed = IndexLine.safeParse(JSON.parse(text));
      if (!parsed.success) {
        throw new UserError(`${index}:${number + 1}: not a case line (${parsed.error.message})`);
      }
      const line = parsed.data;
      const injection = await injectionOf(bench, line);
      const diff = view === 'cases' ? line.patch : await injectionPatch(bench, line.instance_id);
      if (diff === null) continue;
      const patch = measuredPatch(
        {
          key: view === 'cases' ? `injected:${line.instance_id}` : `injected:bug:${injection}`,
          side: 'injected',
          project: line.project,
          cluster: `injection:${injection}`,
          depth: view === 'cases' ? line.depth : 0,
          bugType: line.type_id,
        },
        diff,
      );
      if (patch) byKey.set(patch.key, patch);
    }
  }
  return [...byKey.values()];
}

/** `$WITNESSGYM_DEFECTS4J`, else the team's shared copy beside the checkout. */
export function defaultDefects4JDir(env: NodeJS.ProcessEnv = process.env): string {
  return env.WITNESSGYM_DEFECTS4J ?? path.resolve(packageRoot(), '..', 'shared/data/defects4j');
}

/**
 * Every Defects4J production patch under `root` (`<Project>/patches/<n>.src.patch`, as the
 * Defects4J framework keeps them, or `<Project>/<n>/src.patch`), rendered, in project and bug
 * order.
 */
export async function readDefects4JPatches(root: string): Promise<RealismPatch[]> {
  const setHow = `pass --defects4j DIR (a directory of <Project>/patches/<n>.src.patch) or set WITNESSGYM_DEFECTS4J`;
  if (!(await exists(root))) throw new UserError(`no Defects4J data at ${root}: ${setHow}`);
  const found: { project: string; bug: number; file: string }[] = [];
  for (const entry of await readdir(root, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const projectDir = path.join(root, entry.name);
    const patchesDir = path.join(projectDir, 'patches');
    if (await exists(patchesDir)) {
      for (const name of await readdir(patchesDir)) {
        const match = /^(\d+)\.src\.patch$/.exec(name);
        if (match)
          found.push({
            project: entry.name,
            bug: Number(match[1]),
            file: path.join(patchesDir, name),
          });
      }
    }
    for (const name of await readdir(projectDir)) {
      const file = path.join(projectDir, name, 'src.patch');
      if (/^\d+$/.test(name) && (await exists(file))) {
        found.push({ project: entry.name, bug: Number(name), file });
      }
    }
  }
  if (found.length === 0) throw new UserError(`no Defects4J patches under ${root}: ${setHow}`);
  found.sort((a, b) => a.project.localeCompare(b.project) || a.bug - b.bug);
  const patches: RealismPatch[] = [];
  for (const { project, bug, file } of found) {
    const id = `${project}-${bug}`;
    const patch = measuredPatch(
      {
        key: `defects4j:${id}`,
        side: 'real',
        project,
        cluster: `bug:${id}`,
        depth: null,
        bugType: null,
      },
      await readFile(file, 'utf8'),
    );
    if (patch) patches.push(patch);
  }
  return patches;
}

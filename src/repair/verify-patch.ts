import { sidePath } from '../core/diff-stats.js';
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { applyPatch, parsePatch } from 'diff';
import type { CacheLayout } from '../core/cache.js';
import { removeTree, sha256Text } from '../core/fs.js';
import type { CompileMessage } from '../core/verdict.js';
import { preparedTree, type PreparedSide } from '../sandbox/prepared-tree.js';
import {
  compileProduction,
  compileTests,
  runTestClass,
  type JavaSandboxSetup,
  type PreparedTree,
  type SourceFile,
} from '../sandbox/java-runs.js';
import type { ProjectLayout } from '../toolchains/layout.js';
import { instanceTestClasses, type RepairInstance } from './instance.js';
import { judgeRepair, type ClassRun, type RepairJudgement } from './judge.js';
import { materialiseTree, withTests, type RepairSubject } from './project.js';

/*
 * Judging a submitted patch of a repair instance. The patch is untrusted: only its changes to
 * production sources are applied, to the base tree's sources as the harness built them; those
 * are compiled and every test class the instance names runs against them, each step in a fresh
 * sandbox (src/sandbox/java-runs.ts). The tests are the instance's, compiled by the harness's
 * rules; edits to tests, build files or anything else are stripped and listed, never applied.
 */

export type PatchVerdict =
  | {
      kind: 'Judged';
      judgement: RepairJudgement;
      classes: ClassRun[];
      stripped: string[];
      durationMs: number;
    }
  /** A hunk of a production file does not apply to the base tree. */
  | { kind: 'DoesNotApply'; reason: string; stripped: string[]; durationMs: number }
  /** The patched production sources, or the instance's tests against them, do not compile. */
  | {
      kind: 'CompileFailed';
      scope: 'production' | 'tests';
      messages: CompileMessage[];
      stripped: string[];
      durationMs: number;
    }
  | { kind: 'Timeout'; phase: 'compile'; limitMs: number; stripped: string[]; durationMs: number };

/** Whether a project-relative file is a production source the verifier applies. */
function isProductionSource(layout: ProjectLayout, file: string): boolean {
  return file.startsWith(`${layout.mainSources}/`) && file.endsWith('.java');
}

/** Every production source of the base, by path relative to the source root. */
export async function baseSources(sourcesDir: string): Promise<Map<string, string>> {
  const sources = new Map<string, string>();
  for (const entry of await readdir(sourcesDir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile() || !entry.name.endsWith('.java')) continue;
    const file = path.join(entry.parentPath, entry.name);
    sources.set(
      path.relative(sourcesDir, file).split(path.sep).join('/'),
      await readFile(file, 'utf8'),
    );
  }
  return sources;
}

export type PatchedSources =
  | { kind: 'Applied'; sources: Map<string, string>; stripped: string[] }
  | { kind: 'DoesNotApply'; reason: string; stripped: string[] };

/**
 * The production sources with a patch's production changes applied; the files it touches
 * elsewhere are listed as stripped. Paths are relative to the production source root.
 */
export function applyProductionChanges(
  base: ReadonlyMap<string, string>,
  diff: string,
  layout: ProjectLayout,
): PatchedSources {
  const sources = new Map(base);
  const stripped: string[] = [];
  let filePatches;
  try {
    filePatches = diff.trim() === '' ? [] : parsePatch(diff);
  } catch (error) {
    return {
      kind: 'DoesNotApply',
      reason: `not a unified diff: ${(error as Error).message}`,
      stripped,
    };
  }
  for (const filePatch of filePatches) {
    const oldPath = sidePath(filePatch.oldFileName);
    const newPath = sidePath(filePatch.newFileName);
    const file = newPath ?? oldPath;
    if (file === null) continue;
    if (![oldPath, newPath].every((name) => name === null || isProductionSource(layout, name))) {
      stripped.push(file);
      continue;
    }
    const relative = (name: string) => name.slice(layout.mainSources.length + 1);
    const current = oldPath === null ? '' : sources.get(relative(oldPath));
    if (current === undefined) {
      return { kind: 'DoesNotApply', reason: `${oldPath} is not in the base tree`, stripped };
    }
    const next = applyPatch(current, filePatch);
    if (next === false)
      return { kind: 'DoesNotApply', reason: `a hunk of ${file} does not apply`, stripped };
    if (oldPath !== null) sources.delete(relative(oldPath));
    if (newPath !== null) sources.set(relative(newPath), next);
  }
  return { kind: 'Applied', sources, stripped: [...new Set(stripped)].sort() };
}

/** The instance's test classes' sources, as the prepared tree holds them. */
async function instanceTestSources(
  prepared: PreparedSide,
  layout: ProjectLayout,
  instance: RepairInstance,
): Promise<SourceFile[]> {
  const sources: SourceFile[] = [];
  for (const testClass of instanceTestClasses(instance).keys()) {
    const file = path.posix.join(
      layout.testSources,
      `${testClass.split('$')[0]!.replace(/\./g, '/')}.java`,
    );
    const content = await readFile(path.join(prepared.template, file), 'utf8').catch(
      () => undefined,
    );
    if (content !== undefined && !sources.some((source) => source.file === file)) {
      sources.push({ file, content });
    }
  }
  return sources;
}

/**
 * The harness's build of one of an instance's trees with its test patch (`base` judges every
 * patch; `gold` gates tests written for it), built once per state and build settings, kept in the
 * cache.
 */
export function preparedInstanceTree(
  subject: RepairSubject,
  side: 'base' | 'gold',
  cache: CacheLayout,
): Promise<PreparedSide> {
  const state = withTests(subject, side === 'base' ? subject.base : subject.gold);
  const key = sha256Text(JSON.stringify([state.id, subject.project.build])).slice(0, 16);
  return preparedTree({
    project: subject.project,
    cache,
    dir: path.join(
      cache.root,
      'evaluation-builds',
      `repair-${subject.instance.instance_id}-${key}`,
      side,
    ),
    label: { id: subject.instance.instance_id, side },
    write: (destination) => materialiseTree(state, subject.project, destination),
  });
}

export type PatchedTree =
  | { kind: 'Patched'; tree: PreparedTree; stripped: string[] }
  | Exclude<PatchVerdict, { kind: 'Judged' }>;

/**
 * `prepared` with a patch's production changes compiled in its place, in the sandbox; the tree's
 * production jar is the caller's to remove (`removeTree(path.dirname(tree.productionJar))`).
 */
export async function patchedTree(
  diff: string,
  prepared: PreparedSide,
  layout: ProjectLayout,
  setup: JavaSandboxSetup,
): Promise<PatchedTree> {
  const started = Date.now();
  const took = () => Date.now() - started;
  const patched = applyProductionChanges(await baseSources(prepared.sourcesDir), diff, layout);
  if (patched.kind === 'DoesNotApply') return { ...patched, durationMs: took() };
  const { stripped } = patched;
  const production = await compileProduction(
    prepared,
    [...patched.sources].map(([file, content]) => ({ file, content })),
    prepared.classesDir,
    setup,
  );
  if (production.kind === 'Timeout') {
    return {
      kind: 'Timeout',
      phase: 'compile',
      limitMs: production.limitMs,
      stripped,
      durationMs: took(),
    };
  }
  if (production.kind === 'CompileFailed') {
    return {
      kind: 'CompileFailed',
      scope: 'production',
      messages: production.messages,
      stripped,
      durationMs: took(),
    };
  }
  return {
    kind: 'Patched',
    tree: { ...prepared, productionJar: production.productionJar },
    stripped,
  };
}

/** How the instance's tests came out on a patched tree: every class, in the sandbox. */
export type TreeJudgement =
  | { kind: 'Judged'; judgement: RepairJudgement; classes: ClassRun[] }
  | { kind: 'Timeout'; phase: 'compile'; limitMs: number }
  | { kind: 'CompileFailed'; scope: 'tests'; messages: CompileMessage[] };

/** The instance's tests, compiled against `tree` and each class run once, in the sandbox. */
export async function judgedOnTree(
  instance: RepairInstance,
  tree: PreparedTree,
  prepared: PreparedSide,
  layout: ProjectLayout,
  setup: JavaSandboxSetup,
): Promise<TreeJudgement> {
  const tests = await compileTests(
    tree,
    await instanceTestSources(prepared, layout, instance),
    setup,
  );
  if (tests.kind === 'Timeout')
    return { kind: 'Timeout', phase: 'compile', limitMs: tests.limitMs };
  if (tests.kind === 'CompileFailed') {
    return { kind: 'CompileFailed', scope: 'tests', messages: tests.messages };
  }
  try {
    const classes: ClassRun[] = [];
    for (const testClass of instanceTestClasses(instance).keys()) {
      const run = await runTestClass(tree, tests.classes, testClass, setup);
      classes.push({ testClass, verdict: run.verdict });
    }
    return { kind: 'Judged', judgement: judgeRepair(instance, classes), classes };
  } finally {
    await removeTree(tests.classes);
  }
}

/**
 * A patch of an instance, judged in the sandbox on `prepared`: the harness's build of the base
 * tree with the test patch (its production sources and classes stay outside every sandbox).
 */
export async function verifyRepairPatch(
  instance: RepairInstance,
  diff: string,
  prepared: PreparedSide,
  layout: ProjectLayout,
  setup: JavaSandboxSetup,
): Promise<PatchVerdict> {
  const started = Date.now();
  const took = () => Date.now() - started;
  const patched = await patchedTree(diff, prepared, layout, setup);
  if (patched.kind !== 'Patched') return { ...patched, durationMs: took() };
  const { tree, stripped } = patched;
  try {
    const judged = await judgedOnTree(instance, tree, prepared, layout, setup);
    return { ...judged, stripped, durationMs: took() };
  } finally {
    await removeTree(path.dirname(tree.productionJar));
  }
}

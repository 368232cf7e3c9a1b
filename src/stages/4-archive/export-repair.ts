import { sidePath } from '../../core/diff-stats.js';
import { mkdir, readFile } from 'node:fs/promises';
import { applyPatch, parsePatch } from 'diff';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { projectCache } from '../../core/cache.js';
import { exists, sha256Text } from '../../core/fs.js';
import type { FileChange } from '../../core/file-change.js';
import type { FetchedProjectRef } from '../../project/project.js';
import { baseState, patchOf, stateFiles, treeReader, withPatch } from '../../project/state.js';
import { readRecords } from '../../records/record.js';
import { type RepairInstance } from '../../repair/instance.js';
import { reversePatch } from '../../repair/patch.js';
import { writeInstanceFile } from '../../repair/read.js';
import { declaredTestMethods } from '../../repair/test-methods.js';
import { materialiseTree } from '../../repair/project.js';
import { ExecutionContextLine, type ExecutionContextRecord } from '../1-trace/trace.js';
import { loadBugTypeSpecs } from '../2-inject/spec.js';
import { benchLayout, caseIds, loadCaseState, readCaseFile, readHiddenWitness } from './archive.js';
import type { CaseRecord } from './case.js';
import { caseProject } from './materialise.js';

/*
 * `witnessgym case export --as repair`: each case as a SWE-bench-style repair instance. The base
 * is the case's buggy tree without the tests that expose the bug (the witness and co-witnesses);
 * gold is the fix in that tree (buggy → clean: the opposite direction of `cases.jsonl`'s patch,
 * which runs clean → buggy); the test patch adds the hidden tests back. FAIL_TO_PASS are the
 * methods that expose the bug (Maven-confirmed when the case was built); PASS_TO_PASS are the
 * other test methods of those classes and of the classes whose clean trace reaches a member the
 * bug changes (the build's whole-suite check saw them pass on the buggy tree, the baseline on the
 * clean one; `witnessgym instances validate` checks both again).
 */

/** Classes reaching the bug whose methods become PASS_TO_PASS, the most focused first. */
export const DEFAULT_P2P_CLASSES = 5;

export interface RepairExportSummary {
  out: string;
  instancesFile: string;
  instances: number;
  /** Snapshots written now, and left as an earlier export wrote them. */
  written: number;
  existing: number;
  skipped: { caseId: string; reason: string }[];
  /** Cases whose base tree and gold patch an earlier case of the export already gives. */
  duplicates: { caseId: string; sameAs: string }[];
}

/**
 * The bug alone reverted in the buggy tree, the transformation steps kept: a fix that behaves as
 * gold does (the steps preserve behaviour) but reads differently. Null when the injection's
 * revert does not apply to the transformed code, or when it gives gold itself (no step changed
 * the files the bug is in).
 */
async function correctAlternative(
  caseDir: string,
  record: CaseRecord,
  buggyFiles: ReadonlyMap<string, string | null>,
  gold: string,
): Promise<string | null> {
  const injection = await readFile(path.join(caseDir, record.state.patches[0]!.file), 'utf8');
  const changes: FileChange[] = [];
  for (const filePatch of parsePatch(reversePatch(injection))) {
    const file = sidePath(filePatch.newFileName) ?? '';
    const buggy = buggyFiles.get(file);
    if (buggy === undefined || buggy === null) return null;
    // The steps moved lines, so a hunk applies where its lines first match: in a file of
    // look-alike methods (JsonObject's getters) that may be another method. Only a hunk whose
    // old side occurs once in the buggy file is sure to land where the bug is.
    const ambiguous = filePatch.hunks.some((hunk) => {
      const oldSide = hunk.lines
        .filter((line) => !line.startsWith('+') && !line.startsWith('\\'))
        .map((line) => line.slice(1))
        .join('\n');
      return buggy.split(oldSide).length !== 2;
    });
    if (ambiguous) return null;
    const fixed = applyPatch(buggy, filePatch, { fuzzFactor: 0 });
    if (fixed === false) return null;
    changes.push({ file, before: buggy, after: fixed });
  }
  const alternative = patchOf(changes).diff;
  return changes.length === 0 || alternative === gold ? null : alternative;
}

/** Test classes whose clean trace enters a member the case's bug changes, fewest methods first. */
function classesReachingBug(
  contexts: readonly ExecutionContextRecord[],
  record: CaseRecord,
  exclude: ReadonlySet<string>,
): string[] {
  const reaches = (entry: ExecutionContextRecord) =>
    entry.trace.some((location) =>
      record.bugMembers.some((member) =>
        member.cleanLine !== null
          ? location.className === member.binaryClass && location.line === member.cleanLine
          : location.file === member.file && location.method === member.name,
      ),
    );
  return contexts
    .filter(
      (entry) =>
        entry.testMethod === null &&
        entry.status === 'Passed' &&
        !exclude.has(entry.testClass) &&
        reaches(entry),
    )
    .sort((a, b) => a.size - b.size || (a.testClass < b.testClass ? -1 : 1))
    .map((entry) => entry.testClass);
}

function sourcePath(project: FetchedProjectRef, testClass: string): string {
  return path.posix.join(project.layout.testSources, `${testClass.replace(/\./g, '/')}.java`);
}

function problemStatement(record: CaseRecord, typeDescription: string): string {
  const location = record.bugMembers.map(
    (member) => `- ${member.binaryClass}.${member.name} (${member.file})`,
  );
  return [
    `The production code has a bug of this kind: ${record.bugType.name}.`,
    '',
    typeDescription.trim(),
    '',
    'Where it is:',
    ...location,
    '',
    'Fix the production code so that it behaves as intended. Do not change the tests.',
  ].join('\n');
}

interface ExportedCase {
  instance: RepairInstance;
  /** The instance's base: the project's base plus the one patch `origin.base_patch`. */
  base: ReturnType<typeof baseState>;
}

async function caseInstance(
  benchDir: string,
  record: CaseRecord,
  project: FetchedProjectRef,
  contexts: readonly ExecutionContextRecord[],
  descriptions: ReadonlyMap<string, string>,
  p2pClasses: number,
): Promise<ExportedCase | { kind: 'Skipped'; reason: string }> {
  const loaded = await loadCaseState(benchLayout(benchDir).caseDir(record.id), record);
  if (loaded.kind === 'Corrupt') return { kind: 'Skipped', reason: loaded.reason };
  const hidden = await readHiddenWitness(benchDir, record.id);
  if (hidden.kind === 'Corrupt') return { kind: 'Skipped', reason: hidden.reason };
  const readClean = treeReader(project.root);
  const buggyFiles = await stateFiles(loaded.state, readClean);

  const hiddenTests = [
    { testClass: record.officialTest.class, file: record.officialTest.path },
    ...record.coWitnesses.map((entry) => ({ testClass: entry.class, file: entry.path })),
  ];
  const hiddenTexts = new Map<string, string>();
  for (const test of hiddenTests) hiddenTexts.set(test.file, await readClean(test.file));
  if (hiddenTexts.get(record.officialTest.path) !== hidden.text) {
    return { kind: 'Skipped', reason: `${record.officialTest.path} is not the hidden witness` };
  }

  const bugChanges: FileChange[] = [];
  for (const [file, text] of buggyFiles) {
    bugChanges.push({ file, before: await readClean(file), after: text ?? '' });
  }
  const removals: FileChange[] = hiddenTests.map((test) => ({
    file: test.file,
    before: hiddenTexts.get(test.file)!,
    after: '',
  }));
  const basePatch = patchOf([...bugChanges, ...removals]);
  const gold = patchOf(
    bugChanges.map((change) => ({ file: change.file, before: change.after, after: change.before })),
  );
  const alternative = await correctAlternative(
    benchLayout(benchDir).caseDir(record.id),
    record,
    buggyFiles,
    gold.diff,
  );
  const testPatch = patchOf(
    hiddenTests.map((test) => ({
      file: test.file,
      before: '',
      after: hiddenTexts.get(test.file)!,
    })),
  );

  const failToPass = [
    ...Object.keys(record.expectedFailure).map(
      (method) => `${record.officialTest.class}#${method}`,
    ),
    ...record.coWitnesses.flatMap((entry) =>
      Object.keys(entry.failingMethods).map((method) => `${entry.class}#${method}`),
    ),
  ];
  const failing = new Set(failToPass);
  const exclude = new Set(hiddenTests.map((test) => test.testClass));
  // A co-witness recorded without failing methods (its class failed as a whole) has no method
  // known to pass on the buggy tree: none of its methods can be PASS_TO_PASS.
  const wholeClassFailures = new Set(
    record.coWitnesses
      .filter((entry) => Object.keys(entry.failingMethods).length === 0)
      .map((entry) => entry.class),
  );
  const passClasses = [
    ...hiddenTests.filter((test) => !wholeClassFailures.has(test.testClass)),
    ...classesReachingBug(contexts, record, exclude)
      .slice(0, p2pClasses)
      .map((testClass) => ({ testClass, file: sourcePath(project, testClass) })),
  ];
  const passToPass: string[] = [];
  for (const test of passClasses) {
    const text = hiddenTexts.get(test.file) ?? (await readClean(test.file));
    const simpleName = test.testClass.slice(test.testClass.lastIndexOf('.') + 1);
    const declared = await declaredTestMethods(text, simpleName);
    if (declared.kind === 'NoSuchClass') {
      return { kind: 'Skipped', reason: `${test.file} does not declare ${test.testClass}` };
    }
    for (const method of declared.methods) {
      const id = `${test.testClass}#${method}`;
      if (!failing.has(id) && !passToPass.includes(id)) passToPass.push(id);
    }
  }

  const instance: RepairInstance = {
    instance_id: record.id,
    repo: record.project.name,
    base_commit: record.project.commit,
    snapshot: `snapshots/${record.id}`,
    patch: gold.diff,
    test_patch: testPatch.diff,
    FAIL_TO_PASS: [...new Set(failToPass)].sort(),
    PASS_TO_PASS: passToPass.sort(),
    problem_statement: problemStatement(record, descriptions.get(record.bugType.id) ?? ''),
    module: record.moduleRoot,
    maven_flags: [],
    origin: {
      kind: 'witnessgym-case',
      case_id: record.id,
      project: record.project,
      base_patch: basePatch.diff,
      type_id: record.bugType.id,
      depth: record.transforms.depth,
      correct_alternative: alternative,
    },
  };
  return { instance, base: withPatch(baseState(record.project), basePatch) };
}

/**
 * Writes `<out>/instances.jsonl` and each instance's base tree under `<out>/snapshots/<id>/`. A
 * snapshot already there is complete (written beside and renamed), so a rerun writes only what
 * is missing; the instance file is rewritten whole, sorted, byte-identical for the same cases.
 */
export async function exportRepairInstances(
  benchDirs: readonly string[],
  outDir: string,
  cache: CacheLayout,
  options: { p2pClasses: number },
): Promise<RepairExportSummary> {
  const out = path.resolve(outDir);
  await mkdir(path.join(out, 'snapshots'), { recursive: true });
  const descriptions = new Map(
    (await loadBugTypeSpecs()).map((spec) => [spec.id, spec.description]),
  );
  const projects = new Map<
    string,
    { project: FetchedProjectRef; contexts: ExecutionContextRecord[] }
  >();
  const summary: RepairExportSummary = {
    out,
    instancesFile: path.join(out, 'instances.jsonl'),
    instances: 0,
    written: 0,
    existing: 0,
    skipped: [],
    duplicates: [],
  };
  const instances: RepairInstance[] = [];
  // Builds with other seeds or plans can reach the same bug: one instance per (base, gold).
  const seen = new Map<string, string>();
  for (const benchDir of benchDirs)
    for (const id of await caseIds(benchDir)) {
      const record = await readCaseFile(benchLayout(benchDir).caseDir(id));
      const key = `${record.project.name}@${record.project.version}`;
      let known = projects.get(key);
      if (!known) {
        const project = await caseProject(record, cache);
        const contexts = (
          await readRecords(projectCache(cache, record.project).contextMap, ExecutionContextLine)
        ).records;
        known = { project, contexts };
        projects.set(key, known);
      }
      const exported = await caseInstance(
        benchDir,
        record,
        known.project,
        known.contexts,
        descriptions,
        options.p2pClasses,
      );
      if ('kind' in exported) {
        summary.skipped.push({ caseId: id, reason: exported.reason });
        continue;
      }
      const identity = sha256Text(`${exported.base.id}\0${exported.instance.patch}`);
      const first = seen.get(identity);
      if (first !== undefined) {
        summary.duplicates.push({ caseId: id, sameAs: first });
        continue;
      }
      seen.set(identity, id);
      instances.push(exported.instance);
      const snapshot = path.join(out, exported.instance.snapshot);
      if (await exists(snapshot)) summary.existing++;
      else {
        await materialiseTree(exported.base, known.project, snapshot);
        summary.written++;
      }
    }
  summary.instances = instances.length;
  await writeInstanceFile(summary.instancesFile, instances);
  return summary;
}

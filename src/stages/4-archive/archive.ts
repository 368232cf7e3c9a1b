import { mkdir, readdir, readFile, rename, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { z } from 'zod';
import { UserError } from '../../core/errors.js';
import {
  exists,
  readTextIfExists,
  removeTree,
  sha256Text,
  writeFileAtomic,
} from '../../core/fs.js';
import { touchedMembers, type TouchedMember } from '../../lang/java/change.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import type { ProjectRef } from '../../project/project.js';
import {
  baseState,
  patchOf,
  sameBase,
  stateFiles,
  treeReader,
  withPatch,
  type ProjectState,
} from '../../project/state.js';
import { withLock } from '../../records/lock.js';
import { appendRecords, defineRecord, encodeRecord, readRecordFile } from '../../records/record.js';
import type { CoWitness } from '../../checks/suite.js';
import { testSourceFile } from '../../toolchains/layout.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import type { Toolchain } from '../../toolchains/types.js';
import { packageVersion } from '../../core/package-root.js';
import { ExecutionContextLine, type ExecutionContextRecord } from '../1-trace/trace.js';
import type { InjectionRecord } from '../2-inject/records.js';
import { loadBugTypeSpecs } from '../2-inject/spec.js';
import { expectedFailures, type TransformRecord } from '../3-transform/transform.js';
import { coWitnessesOthersUse, resourcesOnlyHiddenTestsName } from './hidden-tests.js';
import {
  CaseFile,
  CaseIndexLine,
  caseId,
  HiddenWitnessFile,
  indexEntry,
  type CaseIndexEntry,
  type CaseRecord,
  type HiddenWitness,
  type ToolVersions,
} from './case.js';
import {
  CONTEXT_SETTINGS,
  payloadDocument,
  payloadFile,
  VALIDATION_PROMPT_VERSION,
} from './payloads.js';

/*
 * The archive stage: a kept transformed case becomes one directory of a benchmark, named by its
 * content address, written whole or not at all (a temporary directory renamed into place), with
 * its witness in a hidden tree beside the cases and a line in the benchmark's index.
 *
 *   <bench>/cases.jsonl                  one line per case
 *   <bench>/<case-id>/case.json          the case record
 *   <bench>/<case-id>/bug.patch          clean → buggy, all steps in one patch
 *   <bench>/<case-id>/steps/00-inject.patch, 01-<operator>.patch, …
 *   <bench>/<case-id>/execution_context.json
 *   <bench>/<case-id>/tasks/NoEC.md, WithEC.md
 *   <bench>/hidden/<case-id>/witness.json, files/<test path> (and each co-witness and hidden
 *                                        resource at its path)
 */

export const CASE_RECORD = 'case.json';
export const BUG_PATCH = 'bug.patch';
const INDEX = 'cases.jsonl';
const HIDDEN = 'hidden';
const WITNESS_FILES = 'files';
const WITNESS_RECORD = 'witness.json';

export interface BenchLayout {
  root: string;
  index: string;
  caseDir: (id: string) => string;
  hiddenDir: (id: string) => string;
  /** The hidden copy of the witness file at its project-relative path. */
  hiddenFile: (id: string, file: string) => string;
}

export function benchLayout(bench: string): BenchLayout {
  const root = path.resolve(bench);
  return {
    root,
    index: path.join(root, INDEX),
    caseDir: (id) => path.join(root, id),
    hiddenDir: (id) => path.join(root, HIDDEN, id),
    hiddenFile: (id, file) => path.join(root, HIDDEN, id, WITNESS_FILES, file),
  };
}

/** `execution_context.json`: the witness class's context, and its methods' when traced per test. */
export const CaseContextFile = defineRecord({
  kind: 'case-execution-context',
  version: 1,
  schema: z.strictObject({
    caseId: z.string(),
    testClass: z.string(),
    context: ExecutionContextLine.schema,
    methods: z.array(ExecutionContextLine.schema),
  }),
});

/** What one case is made from; `contexts` may be the whole map (the witness's are picked). */
export interface CaseInput {
  project: ProjectRef;
  injection: InjectionRecord;
  transform: TransformRecord;
  contexts: readonly ExecutionContextRecord[];
  tools: ToolVersions;
  /** Other existing classes that expose the bug, left out of the workspace with the witness. */
  coWitnesses?: readonly CoWitness[];
}

export type ArchiveOutcome =
  | { kind: 'Archived'; caseId: string; dir: string }
  /** A complete case of this id was there already (an earlier or a concurrent run). */
  | { kind: 'Existing'; caseId: string; dir: string }
  | { kind: 'Refused'; reason: string };

/** The versions a case records, from the toolchain it is verified with. */
export async function toolVersions(toolchain: Toolchain): Promise<ToolVersions> {
  const versions = await toolchain.versions();
  return {
    witnessgym: packageVersion(),
    java: versions.java ?? 'unknown',
    maven: versions.maven ?? 'unknown',
  };
}

/** A patch's id as `patchOf` gives it: a hash of its text. */
function patchId(diff: string): string {
  return sha256Text(diff).slice(0, 16);
}

function stepFile(index: number, operator: string): string {
  return `steps/${String(index).padStart(2, '0')}-${operator}.patch`;
}

/** The state's changes against the project's base tree, file by file, sorted. */
async function combinedChanges(state: ProjectState, baseRoot: string) {
  const readBase = treeReader(baseRoot);
  const files = await stateFiles(state, readBase);
  const changes = [];
  for (const file of [...files.keys()].sort()) {
    changes.push({ file, before: await readBase(file), after: files.get(file) ?? '' });
  }
  return changes;
}

/** Writes a directory's contents beside `target`, then renames it into place; false if taken. */
async function writeDirAtomic(
  target: string,
  files: ReadonlyMap<string, string | Buffer>,
): Promise<boolean> {
  const temporary = path.join(
    path.dirname(target),
    `.tmp-${path.basename(target)}-${randomBytes(6).toString('hex')}`,
  );
  for (const [file, text] of files) {
    await mkdir(path.dirname(path.join(temporary, file)), { recursive: true });
    await writeFile(path.join(temporary, file), text);
  }
  try {
    await rename(temporary, target);
    return true;
  } catch (error) {
    await removeTree(temporary);
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOTEMPTY' || code === 'EEXIST') return false;
    throw error;
  }
}

function jsonText(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/** Why a transformed case cannot be archived, or what it archives from. */
function archivable(input: CaseInput):
  | { kind: 'Refused'; reason: string }
  | {
      kind: 'Archivable';
      state: ProjectState;
      classContext: ExecutionContextRecord;
      methodContexts: ExecutionContextRecord[];
    } {
  const { injection, transform, project } = input;
  const refuse = (reason: string) => ({ kind: 'Refused' as const, reason });
  if (transform.outcome.kind !== 'Kept') {
    return refuse(`transformed case ${transform.id} was not kept: ${transform.outcome.reason}`);
  }
  if (transform.injection !== injection.id) {
    return refuse(
      `transformed case ${transform.id} is of injection ${transform.injection}, not ${injection.id}`,
    );
  }
  const { state } = transform.outcome;
  if (!sameBase(state.base, project.base)) {
    return refuse(`transformed case ${transform.id} is not of ${project.label}'s pristine tree`);
  }
  if (state.patches.length !== transform.steps.length + 1) {
    return refuse(
      `transformed case ${transform.id} has ${state.patches.length} patches for ${transform.steps.length} steps (the bug's patch and one per step expected)`,
    );
  }
  const witness = injection.witness.testClass;
  const mine = input.contexts.filter((record) => record.testClass === witness);
  const classContext = mine.find((record) => record.testMethod === null);
  if (!classContext) return refuse(`no execution context of the witness ${witness} was given`);
  return {
    kind: 'Archivable',
    state,
    classContext,
    methodContexts: mine.filter((record) => record.testMethod !== null),
  };
}

/**
 * Archives one kept transformed case into `benchDir`: idempotent (a complete case of the same id
 * is left as it is), atomic (a case directory is there whole or not at all), and its index line
 * appended once.
 */
export async function archiveCase(input: CaseInput, benchDir: string): Promise<ArchiveOutcome> {
  const checked = archivable(input);
  if (checked.kind === 'Refused') return checked;
  const { project, injection, transform } = input;
  const { state, classContext, methodContexts } = checked;
  const bench = benchLayout(benchDir);
  const id = caseId({
    project: state.base,
    typeId: injection.bugType.id,
    site: injection.site,
    sequence: transform.sequence,
    seed: injection.seed,
  });
  const dir = bench.caseDir(id);
  if (await exists(path.join(dir, CASE_RECORD))) {
    await indexCase(bench, await readCaseFile(dir));
    return { kind: 'Existing', caseId: id, dir };
  }

  const changes = await combinedChanges(state, project.root);
  const bugPatch = patchOf(changes).diff;
  await loadJavaGrammar();
  const bugMembers: TouchedMember[] = changes
    .filter((change) => change.file.endsWith('.java') && change.after !== '')
    .flatMap((change) => touchedMembers(change));
  const specs = await loadBugTypeSpecs();
  const spec = specs.find((candidate) => candidate.id === injection.bugType.id);
  if (!spec) return { kind: 'Refused', reason: `no bug-type spec ${injection.bugType.id}` };
  const witness = injection.witness.testClass;
  const testPath = testSourceFile(project.layout, witness);
  const witnessText = await readFile(path.join(project.root, testPath), 'utf8');
  const expectedFailure = expectedFailures(transform);
  const coWitnesses = (input.coWitnesses ?? []).map((entry) => ({
    class: entry.testClass,
    path: testSourceFile(project.layout, entry.testClass),
    failingMethods: entry.failingMethods,
  }));
  const hiddenSources = [testPath, ...coWitnesses.map((entry) => entry.path)];
  const usedElsewhere = await coWitnessesOthersUse(
    project.root,
    project.layout,
    hiddenSources,
    coWitnesses.map((entry) => entry.path),
  );
  if (usedElsewhere.length > 0) {
    const { source, usedBy } = usedElsewhere[0]!;
    return {
      kind: 'Refused',
      reason: `the co-witness ${source} cannot leave the workspace: ${usedBy} uses it`,
    };
  }
  const hiddenResources = await resourcesOnlyHiddenTestsName(
    project.root,
    project.layout,
    hiddenSources,
  );

  const patchFiles = state.patches.map((patch, index) => ({
    file:
      index === 0 ? stepFile(0, 'inject') : stepFile(index, transform.steps[index - 1]!.operator),
    id: patch.id,
  }));
  const record: CaseRecord = {
    id,
    project: state.base,
    state: { id: state.id, patches: patchFiles },
    bugPatch: patchId(bugPatch),
    trace: { id: witness, bucket: classContext.bucket, size: classContext.size },
    bugType: injection.bugType,
    site: injection.site,
    injection: injection.id,
    transform: transform.id,
    transforms: { ids: [...transform.sequence], depth: transform.sequence.length },
    officialTest: { path: testPath, class: witness },
    verifyCommand: mavenToolchain.replayCommand(project.build, witness),
    bugRelatedFiles: changes.map((change) => change.file),
    bugMembers,
    moduleRoot: project.layout.module || '.',
    expectedFailure,
    seed: injection.seed,
    promptVersion: VALIDATION_PROMPT_VERSION,
    tools: input.tools,
    coWitnesses,
    hiddenResources,
  };
  const payloadInput = {
    case: record,
    typeDescription: spec.description,
    context: classContext,
    testSources: project.layout.testSources,
  };

  const hidden = new Map<string, string | Buffer>([
    [
      WITNESS_RECORD,
      jsonText(
        encodeRecord(
          {
            caseId: id,
            testClass: witness,
            path: testPath,
            sha256: sha256Text(witnessText),
            failingMethods: Object.keys(expectedFailure).sort(),
          },
          HiddenWitnessFile,
        ),
      ),
    ],
    [path.join(WITNESS_FILES, testPath), witnessText],
  ]);
  for (const file of [...coWitnesses.map((entry) => entry.path), ...hiddenResources]) {
    hidden.set(path.join(WITNESS_FILES, file), await readFile(path.join(project.root, file)));
  }
  // A hidden tree without its case is what a crash between the two renames leaves: redone.
  await mkdir(path.dirname(bench.hiddenDir(id)), { recursive: true });
  await removeTree(bench.hiddenDir(id));
  await writeDirAtomic(bench.hiddenDir(id), hidden);

  const files = new Map<string, string | Buffer>([
    [CASE_RECORD, jsonText(encodeRecord(record, CaseFile))],
    [BUG_PATCH, bugPatch],
    ...state.patches.map((patch, index) => [patchFiles[index]!.file, patch.diff] as const),
    [
      'execution_context.json',
      jsonText(
        encodeRecord(
          { caseId: id, testClass: witness, context: classContext, methods: methodContexts },
          CaseContextFile,
        ),
      ),
    ],
    ...CONTEXT_SETTINGS.map(
      (setting) => [payloadFile(setting), payloadDocument(payloadInput, setting)] as const,
    ),
  ]);
  await mkdir(bench.root, { recursive: true });
  const written = await writeDirAtomic(dir, files);
  await indexCase(bench, record);
  return written ? { kind: 'Archived', caseId: id, dir } : { kind: 'Existing', caseId: id, dir };
}

/** The case record of a case directory; a directory without one is not a case. */
export async function readCaseFile(dir: string): Promise<CaseRecord> {
  const record = await readRecordFile(path.join(dir, CASE_RECORD), CaseFile);
  if (!record) throw new CaseDirectoryError(dir);
  return record;
}

export class CaseDirectoryError extends UserError {
  constructor(readonly dir: string) {
    super(`${dir} is not a case directory (it has no ${CASE_RECORD})`);
    this.name = 'CaseDirectoryError';
  }
}

export type CaseState =
  | { kind: 'Loaded'; state: ProjectState; bugPatch: string }
  /** A patch file that is missing or was edited after the case was written. */
  | { kind: 'Corrupt'; reason: string };

/** The buggy state a case directory holds, checked against the ids its record names. */
export async function loadCaseState(dir: string, record: CaseRecord): Promise<CaseState> {
  let state = baseState(record.project);
  for (const patchFile of record.state.patches) {
    const diff = await readFile(path.join(dir, patchFile.file), 'utf8').catch(() => undefined);
    if (diff === undefined) return { kind: 'Corrupt', reason: `${patchFile.file} is missing` };
    const id = patchId(diff);
    if (id !== patchFile.id) {
      return {
        kind: 'Corrupt',
        reason: `${patchFile.file} was changed (patch id ${id}, recorded ${patchFile.id})`,
      };
    }
    state = withPatch(state, { id, diff });
  }
  if (state.id !== record.state.id) {
    return {
      kind: 'Corrupt',
      reason: `the patches give state ${state.id}, recorded ${record.state.id}`,
    };
  }
  const bugPatch = await readFile(path.join(dir, BUG_PATCH), 'utf8').catch(() => undefined);
  if (bugPatch === undefined) return { kind: 'Corrupt', reason: `${BUG_PATCH} is missing` };
  if (patchId(bugPatch) !== record.bugPatch) {
    return { kind: 'Corrupt', reason: `${BUG_PATCH} was changed after the case was written` };
  }
  return { kind: 'Loaded', state, bugPatch };
}

/** A case's hidden witness: its record and the file's text, checked against the recorded hash. */
export type HiddenWitnessState =
  { kind: 'Found'; witness: HiddenWitness; text: string } | { kind: 'Corrupt'; reason: string };

/** The hidden witness of a case of the benchmark `benchDir` (what evaluation's positive control submits). */
export async function readHiddenWitness(benchDir: string, id: string): Promise<HiddenWitnessState> {
  const bench = benchLayout(benchDir);
  const witness = await readRecordFile(
    path.join(bench.hiddenDir(id), WITNESS_RECORD),
    HiddenWitnessFile,
  );
  if (!witness) return { kind: 'Corrupt', reason: `the hidden witness of ${id} is missing` };
  const text = await readTextIfExists(bench.hiddenFile(id, witness.path));
  if (text === undefined || sha256Text(text) !== witness.sha256) {
    return {
      kind: 'Corrupt',
      reason: `the hidden copy of ${witness.path} is missing or was changed`,
    };
  }
  return { kind: 'Found', witness, text };
}

/** The ids of the complete cases of a benchmark, sorted. */
export async function caseIds(benchDir: string): Promise<string[]> {
  const bench = benchLayout(benchDir);
  const entries = await readdir(bench.root, { withFileTypes: true }).catch(() => []);
  const ids: string[] = [];
  for (const entry of entries) {
    if (!entry.isDirectory() || entry.name.startsWith('.') || entry.name === HIDDEN) continue;
    if (await exists(path.join(bench.caseDir(entry.name), CASE_RECORD))) ids.push(entry.name);
  }
  return ids.sort();
}

const INDEX_LOCK = '.cases.lock';

/**
 * Appends a case's index line unless a whole line of the index has it (a torn last line is cut
 * by the append), under a lock: workers share the file. The lines are searched as text, not
 * parsed: every case of a large build looks.
 */
async function indexCase(bench: BenchLayout, record: CaseRecord): Promise<void> {
  await withLock(
    path.join(bench.root, INDEX_LOCK),
    { purpose: 'case index', log: () => undefined },
    async () => {
      const text = (await readTextIfExists(bench.index)) ?? '';
      const whole = text.slice(0, text.lastIndexOf('\n') + 1);
      if (whole.includes(`"instance_id":${JSON.stringify(record.id)}`)) return;
      const patch = await readFile(path.join(bench.caseDir(record.id), BUG_PATCH), 'utf8');
      await appendRecords(bench.index, CaseIndexLine, [indexEntry(record, patch)]);
    },
  );
}

/** The text of an index file holding `entries`. */
export function indexText(entries: readonly CaseIndexEntry[]): string {
  return entries.map((entry) => `${JSON.stringify(encodeRecord(entry, CaseIndexLine))}\n`).join('');
}

/** Writes `cases.jsonl` afresh from the case directories (sorted by id); returns its entries. */
export async function rebuildIndex(benchDir: string): Promise<CaseIndexEntry[]> {
  const bench = benchLayout(benchDir);
  const entries: CaseIndexEntry[] = [];
  for (const id of await caseIds(benchDir)) {
    const record = await readCaseFile(bench.caseDir(id));
    entries.push(
      indexEntry(record, await readFile(path.join(bench.caseDir(id), BUG_PATCH), 'utf8')),
    );
  }
  await withLock(
    path.join(bench.root, INDEX_LOCK),
    { purpose: 'case index', log: () => undefined },
    () => writeFileAtomic(bench.index, indexText(entries)),
  );
  return entries;
}

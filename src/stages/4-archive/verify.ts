import { baselineClass } from '../../project/baseline.js';
import path from 'node:path';
import type { CacheLayout } from '../../core/cache.js';
import { readTextIfExists } from '../../core/fs.js';
import { failingMethodsOf, signatureMismatch } from '../../core/test-reports.js';
import { describeVerdict, type SingleVerdict } from '../../core/verdict.js';
import { pristineState } from '../../project/project.js';
import { compiledSources, WorkingCopy } from '../../project/working-copy.js';
import { timeLimit } from '../../runners/time-limits.js';
import type { TestRunner } from '../../runners/types.js';
import { loadCaseState, readCaseFile, readHiddenWitness } from './archive.js';
import type { CaseFailureSignature, CaseRecord } from './case.js';
import { caseProject } from './materialise.js';

/*
 * `witnessgym case verify`: a case is sound when, under Maven, its witness fails on the buggy tree
 * with the recorded signature (the same failing methods, each with the same exception type) and
 * passes on the clean tree.
 */

export type VerifyOutcome =
  | {
      kind: 'Verified';
      caseId: string;
      buggy: { verdict: 'TestFailed' | 'TestErrored'; failures: CaseFailureSignature };
      durationMs: number;
    }
  | {
      kind: 'Refuted';
      caseId: string;
      side: 'buggy' | 'clean';
      reason: string;
      verdict: string;
      durationMs: number;
    }
  /** The case directory or its hidden witness does not hold what its record says. */
  | { kind: 'Corrupt'; caseId: string; reason: string };

/** Whether the hidden witness is intact and is the file the project's tree holds. */
async function witnessProblem(
  caseDir: string,
  record: CaseRecord,
  projectRoot: string,
): Promise<string | undefined> {
  const hidden = await readHiddenWitness(path.dirname(caseDir), record.id);
  if (hidden.kind === 'Corrupt') return hidden.reason;
  const inTree = await readTextIfExists(path.join(projectRoot, hidden.witness.path));
  if (inTree !== hidden.text) {
    return `${hidden.witness.path} in the project's tree is not the witness the case was built with`;
  }
  return undefined;
}

export interface VerifyOptions {
  cache: CacheLayout;
  /** The ground truth (the Maven runner); closed by the caller. */
  maven: TestRunner;
  /**
   * Clean-tree runs shared by the cases of one verification, by project and witness class: the
   * clean tree and the command are the same, so is the answer.
   */
  cleanRuns?: Map<string, Promise<SingleVerdict>>;
}

export async function verifyCase(caseDir: string, options: VerifyOptions): Promise<VerifyOutcome> {
  const started = Date.now();
  const dir = path.resolve(caseDir);
  const record = await readCaseFile(dir);
  const project = await caseProject(record, options.cache);
  const loaded = await loadCaseState(dir, record);
  if (loaded.kind === 'Corrupt')
    return { kind: 'Corrupt', caseId: record.id, reason: loaded.reason };
  const witnessIssue = await witnessProblem(dir, record, project.root);
  if (witnessIssue) return { kind: 'Corrupt', caseId: record.id, reason: witnessIssue };

  const { maven } = options;
  const testClass = record.officialTest.class;
  const normalMs = baselineClass(project.baseline, testClass)?.durationMs;
  const copy = await WorkingCopy.create(
    project.root,
    pristineState(project),
    project.layout,
    'verify',
  );
  const runOn = async (state: typeof loaded.state): Promise<SingleVerdict> => {
    const changed = await copy.checkout(state);
    const target = {
      projectDir: copy.root,
      build: project.build,
      changed: compiledSources(changed),
    };
    const compiled = await maven.compile(target);
    if (compiled.kind === 'CompileFailed') return compiled.verdict;
    const run = await maven.run({
      target,
      testClass,
      timeoutMs: timeLimit(maven.name, 'run', normalMs),
    });
    return run.verdict;
  };
  const refuted = (
    side: 'buggy' | 'clean',
    reason: string,
    verdict: SingleVerdict,
  ): VerifyOutcome => ({
    kind: 'Refuted',
    caseId: record.id,
    side,
    reason,
    verdict: describeVerdict(verdict),
    durationMs: Date.now() - started,
  });
  try {
    const buggy = await runOn(loaded.state);
    if (buggy.kind !== 'TestFailed' && buggy.kind !== 'TestErrored') {
      return refuted('buggy', 'the witness does not fail on the buggy tree', buggy);
    }
    const failures = failingMethodsOf(buggy);
    const mismatch = signatureMismatch(record.expectedFailure, failures);
    if (mismatch) return refuted('buggy', `the failure signature differs: ${mismatch}`, buggy);
    const cleanKey = `${record.project.name}@${record.project.version}@${record.project.commit}:${testClass}`;
    let cleanRun = options.cleanRuns?.get(cleanKey);
    if (!cleanRun) {
      cleanRun = runOn(pristineState(project));
      options.cleanRuns?.set(cleanKey, cleanRun);
    }
    const clean = await cleanRun;
    if (clean.kind !== 'Passed') {
      return refuted('clean', 'the witness does not pass on the clean tree', clean);
    }
    return {
      kind: 'Verified',
      caseId: record.id,
      buggy: { verdict: buggy.kind, failures },
      durationMs: Date.now() - started,
    };
  } finally {
    await copy.close();
  }
}

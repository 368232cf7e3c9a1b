import { parsePatch } from 'diff';
import type { CacheLayout } from '../core/cache.js';
import { checkWithMaven, mavenConfirms, ReferenceRuns } from '../checks/runs.js';
import {
  judgeSuite,
  runSuiteMaven,
  runSuiteWarm,
  type CoWitnessPolicy,
  type GivenAway,
  type SuiteCheck,
  type SuiteRun,
} from '../checks/suite.js';
import { describeFailure } from '../checks/types.js';
import { sidePath } from '../core/diff-stats.js';
import type { FailingMethods } from '../core/test-reports.js';
import { baselineClass, isUsable, type BaselineClass } from '../project/baseline.js';
import { pristineState, type FetchedProjectRef } from '../project/project.js';
import type { ProjectState } from '../project/state.js';
import { compiledSources, WorkingCopy } from '../project/working-copy.js';
import { jvmTestRunner } from '../runners/jvm.js';
import { mavenTestRunner } from '../runners/maven.js';
import type { TestRunner } from '../runners/types.js';
import type { ExecutionContextRecord } from '../stages/1-trace/trace.js';
import type { JvmRunner } from '../toolchains/jvm/runner.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';

/** Time a whole-suite Maven run may take beyond three times the baseline suite's. */
const MAVEN_SUITE_SLACK_MS = 120_000;

/** The project files a state changes: its patches' paths. */
function changedFiles(state: ProjectState): Set<string> {
  const files = new Set<string>();
  for (const patch of state.patches) {
    for (const filePatch of parsePatch(patch.diff)) {
      for (const name of [filePatch.oldFileName, filePatch.newFileName]) {
        const file = sidePath(name);
        if (file) files.add(file);
      }
    }
  }
  return files;
}

/**
 * Whether a class's clean trace enters code of the changed files: a method of one, or a method
 * of a class with no source found whose top-level class one of them declares. A class without a
 * trace that passed counts as reaching.
 */
function reaches(context: ExecutionContextRecord | undefined, files: ReadonlySet<string>): boolean {
  if (!context || context.status !== 'Passed') return true;
  const changed = [...files];
  return context.trace.some((location) => {
    if (location.file !== null) return files.has(location.file);
    const declared = `/${location.className.split('$')[0]!.replace(/\./g, '/')}.java`;
    return changed.some((file) => file.endsWith(declared));
  });
}

/**
 * The whole existing suite on a case's final buggy state, once per case before it is archived:
 * in the warm JVM (cheap), the usable classes of the baseline but the witness whose clean trace
 * enters a file the state changes (a test that runs none of the changed code behaves as it did);
 * then, when the build confirms with Maven and the warm runs left the case standing, one `mvn
 * test` of every class, the ground truth, which also catches what a trace cannot see (reflection
 * over a changed class, say), and confirms the witness. A working copy of its own, beside the
 * transformer's, in the build's shared warm JVM.
 */
export class WholeSuite {
  private readonly references: ReferenceRuns;

  private constructor(
    private readonly cache: CacheLayout,
    private readonly project: FetchedProjectRef,
    private readonly copy: WorkingCopy,
    private readonly fast: TestRunner,
    private readonly maven: TestRunner | null,
    private readonly contexts: ReadonlyMap<string, ExecutionContextRecord>,
  ) {
    this.references = new ReferenceRuns(
      fast,
      (testClass) => baselineClass(project.baseline, testClass)?.durationMs,
    );
  }

  static async open(setup: {
    cache: CacheLayout;
    project: FetchedProjectRef;
    /** The project's execution contexts: a class's clean trace tells whether it can see a change. */
    contexts: readonly ExecutionContextRecord[];
    jvm: JvmRunner;
    copyName: string;
    maven: boolean;
  }): Promise<WholeSuite> {
    const { cache, project } = setup;
    const copy = await WorkingCopy.create(
      project.root,
      pristineState(project),
      project.layout,
      setup.copyName,
    );
    return new WholeSuite(
      cache,
      project,
      copy,
      jvmTestRunner(cache, setup.jvm),
      setup.maven ? mavenTestRunner(mavenToolchain, cache) : null,
      new Map(
        setup.contexts
          .filter((record) => record.testMethod === null)
          .map((record) => [record.testClass, record]),
      ),
    );
  }

  private usable(witness: string) {
    return this.project.baseline.classes.filter(
      (entry) => isUsable(entry) && entry.status === 'Passed' && entry.testClass !== witness,
    );
  }

  private warmRun(state: ProjectState, usable: readonly BaselineClass[], policy: CoWitnessPolicy) {
    const { project } = this;
    const files = changedFiles(state);
    const reaching = usable.filter((entry) => reaches(this.contexts.get(entry.testClass), files));
    return runSuiteWarm(
      this.fast,
      this.references,
      this.copy,
      pristineState(project),
      state,
      reaching.map((entry) => ({ testClass: entry.testClass, normalMs: entry.durationMs })),
      project.build,
      // One class giving the bug away refuses it; hidden, every such class must be known.
      { stopAtFirst: policy === 'refuse' },
    );
  }

  /**
   * The warm runs alone on a bug's state before its steps, when they refuse it: for a sequence
   * that keeps the bug's reach, what gives the bug away now gives it away after the steps.
   */
  async givenAwayBeforeSteps(state: ProjectState, witness: string): Promise<GivenAway | undefined> {
    const warm = await this.warmRun(state, this.usable(witness), 'refuse');
    if (warm.kind !== 'Passed') return undefined;
    const judged = judgeSuite([warm.evidence], 'refuse');
    return judged.kind === 'GivenAway' ? judged : undefined;
  }

  /**
   * The check of a case's final state. Its Maven run, which runs the witness too, is also the
   * case's Maven confirmation: the witness must fail there with `expected`, the failures its
   * steps recorded.
   */
  async check(
    state: ProjectState,
    witness: { testClass: string; expected: FailingMethods },
    policy: CoWitnessPolicy,
  ): Promise<SuiteCheck> {
    const { project, copy } = this;
    const usable = this.usable(witness.testClass);
    const runs: SuiteRun[] = [];
    const warm = await this.warmRun(state, usable, policy);
    if (warm.kind !== 'Passed') {
      return { kind: 'Unfinished', runs, reason: warm.kind === 'Failed' ? warm.reason : 'skipped' };
    }
    runs.push(warm.evidence);
    // A case the warm runs already refuse needs no Maven run to be refused.
    if (!this.maven || judgeSuite(runs, policy).kind === 'GivenAway')
      return judgeSuite(runs, policy);
    const changed = await copy.checkout(state);
    const target = {
      projectDir: copy.root,
      build: project.build,
      changed: compiledSources(changed),
    };
    const maven = await runSuiteMaven(this.maven, mavenToolchain, this.cache, target, {
      witness: witness.testClass,
      passedInBaseline: new Set(usable.map((entry) => entry.testClass)),
      timeoutMs: MAVEN_SUITE_SLACK_MS + 3 * project.baseline.suite.durationMs,
    });
    if (maven.kind !== 'Passed') {
      return {
        kind: 'Unfinished',
        runs,
        reason: maven.kind === 'Failed' ? maven.reason : 'skipped',
      };
    }
    let run = maven.evidence.run;
    let confirmed = mavenConfirms(maven.evidence.witness, witness.expected);
    if (confirmed.kind !== 'Passed') {
      // What the witness sees alone is what a case promises (`case verify` runs it so).
      confirmed = await checkWithMaven(
        this.maven,
        target,
        witness.testClass,
        baselineClass(project.baseline, witness.testClass)?.durationMs,
        witness.expected,
      );
      if (confirmed.kind === 'Passed') {
        run = { ...run, witness: confirmed.evidence.verdict, witnessRunAlone: true };
      }
    }
    runs.push(run);
    if (confirmed.kind !== 'Passed') {
      return { kind: 'WitnessRefuted', runs, reason: describeFailure(confirmed) };
    }
    return judgeSuite(runs, policy);
  }

  async close(): Promise<void> {
    await this.maven?.close();
    await this.fast.close();
    await this.copy.close();
  }
}

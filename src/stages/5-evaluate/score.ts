import type { CacheLayout } from '../../core/cache.js';
import { errorMessage, UserError } from '../../core/errors.js';
import { sandboxAvailability } from '../../sandbox/bwrap.js';
import { controlGroupSupport } from '../../sandbox/cgroup.js';
import { JACOCO_VERSION, ensureJacoco } from '../../coverage/jacoco.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import type { ProjectRef } from '../../project/project.js';
import { isolatedJavaSetup } from '../../sandbox/java-runs.js';
import type { CaseRecord } from '../4-archive/case.js';
import { preparedSide } from './prepared-case.js';
import { provenance, provenanceTools } from './provenance.js';
import {
  verifySubmission,
  type SubmissionVerdict,
  type SubmittedTest,
} from './verify-submission.js';

/*
 * The scorer, apart from the solver: it judges a stored submission (the test files an attempt
 * left) against a case, knowing nothing of the agent or its run. `evaluate` calls it after each
 * agent run, `rescore` over the submissions a run stored.
 */

export interface ScoreInput {
  caseDir: string;
  record: CaseRecord;
  project: ProjectRef;
  cache: CacheLayout;
  tests: readonly SubmittedTest[];
  /** Fresh runs per side. */
  runs: number;
  /** The whole verification's wall-clock budget. */
  timeoutMs: number;
  /**
   * Whether the static screen runs first (default). Off, only the sandbox stands between a test
   * and a verdict: what a study of the sandbox alone, or of the screen's effect, needs.
   */
  screen?: boolean;
}

/**
 * What the verdicts are made with, recorded in each row: the build tools, the sandbox and
 * witnessgym itself. Without a working sandbox nothing can be judged: a user error, said at once.
 */
export async function scorerTools(): Promise<Record<string, string>> {
  const sandbox = await sandboxAvailability();
  if (sandbox.kind === 'Unavailable') {
    throw new UserError(
      `the verifier runs every submitted test in a sandbox, which is unavailable: ${sandbox.reason} (install bubblewrap: apt-get install bubblewrap)`,
    );
  }
  return {
    ...(await mavenToolchain.versions()),
    jacoco: JACOCO_VERSION,
    bubblewrap: sandbox.version,
    controlGroups: await controlGroupSupport(),
    ...provenanceTools(await provenance()),
  };
}

/** The verifier's verdict on a submission; a fault of the harness is a `HarnessFault` verdict. */
export async function scoreSubmission(input: ScoreInput): Promise<SubmissionVerdict> {
  try {
    const context = {
      caseDir: input.caseDir,
      record: input.record,
      project: input.project,
      cache: input.cache,
    };
    return await verifySubmission({
      ...context,
      tests: input.tests,
      tools: {
        prepared: (side) => preparedSide(context, side),
        setup: await isolatedJavaSetup(),
        jacoco: await ensureJacoco(input.cache),
      },
      runs: input.runs,
      timeoutMs: input.timeoutMs,
      screen: input.screen ?? true,
    });
  } catch (error) {
    return {
      diagnosis: { kind: 'HarnessFault', reason: errorMessage(error) },
      paperSuccess: false,
      coverage: null,
      testClass: '',
      runs: [],
    };
  }
}

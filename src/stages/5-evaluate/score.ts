import type { CacheLayout } from '../../core/cache.js';
import { errorMessage } from '../../core/errors.js';
import {
  JACOCO_VERSION,
  coverageOfLines,
  ensureJacoco,
  jacocoAgentArg,
  readLineCoverage,
} from '../../coverage/jacoco.js';
import type { ProjectRef } from '../../project/project.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import type { CaseRecord } from '../4-archive/case.js';
import { provenance, provenanceTools } from './provenance.js';
import {
  verifySubmission,
  type CoverageProbe,
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
}

/** What the verdicts are made with, recorded in each row: the build tools and witnessgym itself. */
export async function scorerTools(): Promise<Record<string, string>> {
  return {
    ...(await mavenToolchain.versions()),
    jacoco: JACOCO_VERSION,
    ...provenanceTools(await provenance()),
  };
}

/** JaCoCo over the bug's packages. */
async function jacocoProbe(cache: CacheLayout, record: CaseRecord): Promise<CoverageProbe> {
  const jars = await ensureJacoco(cache);
  const packages = [
    ...new Set(
      record.bugMembers.map((member) => {
        const dot = member.binaryClass.lastIndexOf('.');
        return dot < 0 ? '*' : `${member.binaryClass.slice(0, dot)}.*`;
      }),
    ),
  ];
  return {
    jvmArgs: (dataFile) => [jacocoAgentArg(jars.agentJar, dataFile, packages)],
    async read(dataFile, classesDir) {
      const coverage = await readLineCoverage({
        cliJar: jars.cliJar,
        execFile: dataFile,
        classDirs: [classesDir],
        timeoutMs: 300_000,
      });
      if (coverage.kind !== 'Measured') {
        return { kind: 'Unavailable', reason: `no execution data (${coverage.cause})` };
      }
      return { kind: 'Read', covered: (file, lines) => coverageOfLines(coverage, file, lines) };
    },
  };
}

/** The verifier's verdict on a submission; a fault of the harness is a `HarnessFault` verdict. */
export async function scoreSubmission(input: ScoreInput): Promise<SubmissionVerdict> {
  const maven = mavenTestRunner(mavenToolchain, input.cache);
  try {
    return await verifySubmission({
      caseDir: input.caseDir,
      record: input.record,
      project: input.project,
      tests: input.tests,
      maven,
      coverage: await jacocoProbe(input.cache, input.record),
      runs: input.runs,
      timeoutMs: input.timeoutMs,
    });
  } catch (error) {
    return {
      diagnosis: { kind: 'HarnessFault', reason: errorMessage(error) },
      paperSuccess: false,
      coverage: null,
      testClass: '',
      runs: [],
    };
  } finally {
    await maven.close();
  }
}

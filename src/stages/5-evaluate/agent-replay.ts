import { baselineClass } from '../../project/baseline.js';
import type { CacheLayout } from '../../core/cache.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import type { SingleVerdict } from '../../core/verdict.js';
import { timeLimit } from '../../runners/time-limits.js';
import { compileTests, isolatedJavaSetup, runTestClass } from '../../sandbox/java-runs.js';
import type { ProjectRef } from '../../project/project.js';
import type { CaseRecord } from '../4-archive/case.js';
import { preparedSide } from './prepared-case.js';
import type { ReplayAnswer } from './replay-service.js';
import { workspaceSubmission } from './submission.js';

/*
 * What the `mvn` of a sandboxed agent does: the test class its `-Dtest=` names (else the official
 * test's) runs on the harness's build of the buggy side with the agent's current test files —
 * only those, compiled and run in sandboxes of their own as in verification — and the answer is
 * the verdict in Surefire's words. Production or build edits do not take effect here either; the
 * answer says so. Only the buggy side is ever run for the agent.
 */

export interface AgentReplayContext {
  caseDir: string;
  record: CaseRecord;
  project: ProjectRef;
  cache: CacheLayout;
  /** The tree the agent was given, and its workspace now. */
  given: string;
  workspace: string;
}

/** The class a Maven command line's `-Dtest=` selects first (`A,A$*`, `A#m`, `A*`), if any. */
export function requestedTestClass(args: readonly string[]): string | undefined {
  const selection = [...args].reverse().find((arg) => arg.startsWith('-Dtest='));
  const first = selection?.slice('-Dtest='.length).split(',')[0];
  const name = first?.replace(/#.*$/, '').replace(/\$.*$/, '').trim();
  return name ? name : undefined;
}

function verdictText(verdict: SingleVerdict, testClass: string): string {
  switch (verdict.kind) {
    case 'Passed':
      return `Tests run: ${verdict.counts.tests}, Failures: 0, Errors: 0, Skipped: ${verdict.counts.skipped}\n${testClass}: all tests passed\n`;
    case 'TestFailed':
    case 'TestErrored': {
      const { counts } = verdict;
      const lines = [
        `Tests run: ${counts.tests}, Failures: ${counts.failures}, Errors: ${counts.errors}, Skipped: ${counts.skipped}`,
      ];
      for (const failure of verdict.failures) {
        lines.push(
          `[${failure.category === 'failure' ? 'FAILURE' : 'ERROR'}] ${failure.testClass}.${failure.testMethod}: ${failure.exceptionType}: ${failure.message}`,
          ...failure.frames.map((frame) => `    at ${frame}`),
        );
      }
      return `${lines.join('\n')}\n`;
    }
    case 'CompileError':
      return `COMPILATION ERROR (${verdict.scope} sources)\n${verdict.messages
        .map((m) => `${m.file}:${m.line ?? '?'}:${m.column ?? '?'}: ${m.message}`)
        .join('\n')}\n`;
    case 'Timeout':
      return `the run hit its time limit of ${Math.round(verdict.limitMs / 1000)} s\n`;
    case 'Crashed':
      return `the test JVM crashed: ${verdict.reason}\n`;
    case 'NoTestsRan':
      return `no tests ran: ${verdict.reason}\n`;
    case 'InfraError':
      return `the build failed outside the tests: ${verdict.reason}\n`;
  }
}

export async function agentReplay(
  args: readonly string[],
  context: AgentReplayContext,
): Promise<ReplayAnswer> {
  const { project, record } = context;
  const testClass = requestedTestClass(args) ?? record.officialTest.class;
  const entries = await workspaceSubmission(context.given, context.workspace, project.layout);
  const tests = entries.flatMap((entry) => (entry.kind === 'Test' ? [entry] : []));
  const ignored = entries.filter((entry) => entry.kind === 'Violation').map((entry) => entry.file);
  const header = [
    `witnessgym: Maven runs outside the sandbox. Ran ${testClass} on the buggy code with your ${tests.length} test file(s).`,
    ...(ignored.length > 0
      ? [
          `Changes outside the test sources do not take effect (and are violations): ${ignored.join(', ')}`,
        ]
      : []),
  ].join('\n');
  const prepared = await preparedSide(context, 'buggy');
  const normalMs = baselineClass(project.baseline, testClass)?.durationMs;
  const defaults = await isolatedJavaSetup();
  const setup = {
    ...defaults,
    limits: { ...defaults.limits, wallMs: timeLimit('maven', 'run', normalMs) },
  };
  const compiled =
    tests.length > 0
      ? await compileTests(prepared, tests, setup)
      : ({ kind: 'Compiled', classes: await makeTempDir('sandbox-tests'), durationMs: 0 } as const);
  if (compiled.kind === 'CompileFailed') {
    return {
      exitCode: 1,
      output: `${header}\n${verdictText({ kind: 'CompileError', scope: 'test', messages: compiled.messages }, testClass)}`,
    };
  }
  if (compiled.kind === 'Timeout') {
    return {
      exitCode: 1,
      output: `${header}\n${verdictText({ kind: 'Timeout', phase: 'compile', limitMs: compiled.limitMs }, testClass)}`,
    };
  }
  try {
    const run = await runTestClass(prepared, compiled.classes, testClass, setup);
    return {
      exitCode: run.verdict.kind === 'Passed' ? 0 : 1,
      output: `${header}\n${verdictText(run.verdict, testClass)}`,
    };
  } finally {
    await removeTree(compiled.classes);
  }
}

import {
  runAgentTask,
  type AgentTaskOptions,
  type AgentTaskResult,
} from '../../../agents/engine.js';
import type { BugTypeSpec } from '../spec.js';
import { injectionSystemPrompt, injectionTaskPayload } from './prompts.js';
import { injectReportFormat, type InjectReport } from './report.js';

/** One injection job for an agent: a bug type, a witness test and the context it reaches. */
export interface InjectionTask {
  spec: BugTypeSpec;
  /** e.g. "commons-csv@1.9.0" */
  projectLabel: string;
  /** Absolute path of the project copy the agent edits (its working directory). */
  workspace: string;
  /** `testFile` is project-relative. */
  witness: { testClass: string; testFile: string };
  /** Trace summary; `anchors` are the candidate methods, file paths project-relative. */
  context: { size: number; bucket: string; anchors: { method: string; file: string }[] };
  /** Run verbatim from the workspace; an exit code other than 0 means the witness fails. */
  replayCommand: string;
  runId: string;
}

export type AgentInjectionResult = AgentTaskResult<InjectReport>;

export interface AgentInjectionOptions extends Omit<AgentTaskOptions<InjectReport>, 'task'> {
  task: InjectionTask;
}

/**
 * Stage 2's agent loop (§3.2, Appendix C): the injection prompts (Appendix I.1/I.2) and the
 * INJECT_REPORT_JSON line, run by the generic attempt loop.
 */
export function runAgentInjection(options: AgentInjectionOptions): Promise<AgentInjectionResult> {
  const { task } = options;
  return runAgentTask({
    ...options,
    task: {
      runId: task.runId,
      workspace: task.workspace,
      replayCommand: task.replayCommand,
      systemPrompt: injectionSystemPrompt(),
      userPrompt: (attempt) => injectionTaskPayload(task, attempt),
      report: injectReportFormat({ replayCommand: task.replayCommand, typeId: task.spec.id }),
      acceptedWithUnsoundReport:
        'The bug was exposed, but the attempt does not count without a sound final report line.',
    },
  });
}

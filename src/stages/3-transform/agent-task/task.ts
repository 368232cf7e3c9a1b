import {
  runAgentTask,
  type AgentTaskOptions,
  type AgentTaskResult,
} from '../../../agents/engine.js';
import type { TransformSpec } from '../spec.js';
import { transformSystemPrompt, transformTaskPayload } from './prompts.js';
import { transformReportFormat, type TransformReport } from './report.js';

/** One transformation step for an agent: an operator, the bug it must keep, and where it is. */
export interface TransformTask {
  spec: TransformSpec;
  /** e.g. "json-simple@2.3.0" */
  projectLabel: string;
  /** Absolute path of the copy of the step's state the agent edits (its working directory). */
  workspace: string;
  runId: string;
  bugType: { id: string; name: string };
  /** `testFile` is project-relative. */
  witness: { testClass: string; testFile: string };
  /** Trace summary; `anchors` are the candidate methods, file paths project-relative. */
  context: { size: number; bucket: string; anchors: { method: string; file: string }[] };
  /** This step's place in the case's sequence (1-based) and the operators before it. */
  step: { number: number; sequence: readonly { id: string; operator: string }[] };
  /** The bug's file and its lines as they read in the workspace now. */
  bug: { file: string; lines: readonly string[] };
  /** The `--release` level the project compiles at; null when its build does not say. */
  javaRelease: string | null;
  /** Run verbatim from the workspace; an exit code other than 0 means the witness fails. */
  replayCommand: string;
}

export type AgentTransformResult = AgentTaskResult<TransformReport>;

export interface AgentTransformOptions extends Omit<
  AgentTaskOptions<TransformReport>,
  'task' | 'attempts'
> {
  task: TransformTask;
}

/** The paper allows one attempt per transformation step (Appendix C): no retry with feedback. */
export const TRANSFORM_ATTEMPTS = 1;

/**
 * Stage 3's agent step: the transformation prompts (Appendix I.3) and the TRANSFORM_REPORT_JSON
 * line, run by the generic attempt loop with one attempt.
 */
export function runAgentTransform(options: AgentTransformOptions): Promise<AgentTransformResult> {
  const { task } = options;
  return runAgentTask({
    ...options,
    attempts: TRANSFORM_ATTEMPTS,
    task: {
      runId: task.runId,
      workspace: task.workspace,
      replayCommand: task.replayCommand,
      systemPrompt: transformSystemPrompt(),
      userPrompt: () => transformTaskPayload(task),
      report: transformReportFormat(task.spec.id),
      acceptedWithUnsoundReport:
        'The step kept the bug, but it does not count without a sound final report line.',
    },
  });
}

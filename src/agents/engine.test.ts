import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  runAgentTask,
  type AgentTask,
  type AgentTaskResult,
  type AttemptJudgement,
  type AttemptRecordWithoutJudgement,
} from './engine.js';
import type { AgentAdapter, AgentRunInput } from './types.js';

/* The loop with a task of another stage's shape: its own prompts and its own report line. */

const ToyReportSchema = z.object({ done: z.boolean() });
type ToyReport = z.infer<typeof ToyReportSchema>;

const task: AgentTask<ToyReport> = {
  runId: 'toy-1',
  workspace: '/nonexistent/workspace',
  replayCommand: 'node witness.mjs',
  systemPrompt: 'SYSTEM',
  userPrompt: (attempt) =>
    `attempt ${attempt.number} of ${attempt.of}` +
    (attempt.previous ? `\nafter ${attempt.previous.attempt}: ${attempt.previous.feedback}` : ''),
  report: { prefix: 'TOY_REPORT_JSON:', schema: ToyReportSchema, mismatches: () => [] },
  acceptedWithUnsoundReport: 'Sound work, unsound report.',
};

const REPORT = 'TOY_REPORT_JSON: {"done": true}';

/** An agent whose runs print the given final texts, in order, after exiting with code 0. */
function fakeAgent(finalTexts: string[], events: string[]) {
  const inputs: AgentRunInput[] = [];
  const adapter: AgentAdapter = {
    kind: 'agent',
    spec: { name: 'fake', model: 'fake-model' },
    run: async (input) => {
      inputs.push(input);
      events.push(`run ${inputs.length}`);
      const finalText = finalTexts[inputs.length - 1]!;
      return {
        outcome: { kind: 'Exited', code: 0, signal: null },
        finalText,
        transcript: finalText,
        durationMs: 1,
      };
    },
  };
  return { adapter, inputs };
}

function run(
  finalTexts: string[],
  verdicts: AttemptJudgement[],
  attempts = 3,
): Promise<{
  events: string[];
  inputs: AgentRunInput[];
  seen: AttemptRecordWithoutJudgement<ToyReport>[];
  result: AgentTaskResult<ToyReport>;
}> {
  const events: string[] = [];
  const seen: AttemptRecordWithoutJudgement<ToyReport>[] = [];
  const { adapter, inputs } = fakeAgent(finalTexts, events);
  return runAgentTask({
    task,
    adapter,
    attempts,
    reset: async () => void events.push('reset'),
    judge: async (attempt) => {
      seen.push(attempt);
      events.push(`judge ${attempt.attempt}`);
      return verdicts[seen.length - 1]!;
    },
    timeoutMs: 1000,
    log: () => {},
  }).then((result) => ({ events, inputs, seen, result }));
}

const rejected: AttemptJudgement = {
  kind: 'Rejected',
  reason: 'witness passes',
  feedback: 'The witness still passes.',
};
const accepted: AttemptJudgement = { kind: 'Accepted', summary: 'witness fails' };

describe('runAgentTask', () => {
  it("runs the task's prompts on a reset workspace, feeds back the verdict, stops at acceptance", async () => {
    const { events, inputs, seen, result } = await run(
      [REPORT, REPORT, 'never'],
      [rejected, accepted],
    );
    expect(events).toEqual(['reset', 'run 1', 'judge 1', 'reset', 'run 2', 'judge 2']);
    expect(result).toMatchObject({
      runId: 'toy-1',
      adapter: { name: 'fake', model: 'fake-model' },
      systemPrompt: 'SYSTEM',
      acceptedAttempt: 2,
      stop: 'accepted',
    });
    expect(result.attempts.map((a) => a.harness)).toEqual([rejected, accepted]);
    expect(result.attempts.map((a) => a.judgement.kind)).toEqual(['Rejected', 'Accepted']);
    expect(seen[0]!.report).toEqual({
      kind: 'Parsed',
      report: { done: true },
      mismatches: [],
      warnings: [],
    });
    expect(inputs.map((input) => input.userPrompt)).toEqual([
      'attempt 1 of 3',
      'attempt 2 of 3\nafter 1: Agent run: the agent exited with code 0.\nHarness verdict on the workspace: rejected: witness passes\nThe witness still passes.',
    ]);
    expect(inputs[0]).toMatchObject({
      workspace: task.workspace,
      systemPrompt: 'SYSTEM',
      replayCommand: task.replayCommand,
    });
  });

  it("fails an accepted workspace without the task's report line, in the task's words", async () => {
    const { inputs, result } = await run(['I did it.', REPORT], [accepted, accepted]);
    expect(result.acceptedAttempt).toBe(2);
    expect(result.attempts[0]!.harness).toEqual(accepted);
    expect(result.attempts[0]!.judgement).toEqual({
      kind: 'Rejected',
      reason: 'report: no line starting with TOY_REPORT_JSON: in the final output',
      feedback: [
        'Agent run: the agent exited with code 0.',
        'Report: no line starting with TOY_REPORT_JSON: in the final output.',
        'Harness verdict on the workspace: accepted (witness fails)',
        'Sound work, unsound report.',
      ].join('\n'),
    });
    expect(inputs[1]!.userPrompt).toContain('after 1: Agent run:');
  });

  it('ends with the attempts exhausted when none is accepted', async () => {
    const { result } = await run([REPORT, REPORT], [rejected, rejected], 2);
    expect(result.acceptedAttempt).toBeNull();
    expect(result.stop).toBe('attemptsExhausted');
    expect(result.attempts.map((a) => a.judgement.kind)).toEqual(['Rejected', 'Rejected']);
  });
});

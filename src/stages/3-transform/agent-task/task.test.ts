import { describe, expect, it } from 'vitest';
import type { AttemptJudgement } from '../../../agents/engine.js';
import type { AgentRunInput, AgentRunResult } from '../../../agents/types.js';
import { TRANSFORM_REPORT_PREFIX } from './report.js';
import { runAgentTransform } from './task.js';
import { demoTransformTask, DEMO_TRANSFORM_SPEC } from './test-support.js';

const sound = `${TRANSFORM_REPORT_PREFIX} ${JSON.stringify({
  ok: true,
  transform_id: DEMO_TRANSFORM_SPEC.id,
  changed_files: ['src/main/java/p/Counter.java'],
  edit_sites: ['Counter.add'],
  what_was_added_or_wrapped: 'x',
  what_was_preserved: 'x',
  what_was_replaced_or_overwritten: 'x',
  compatibility_with_previous_steps: 'x',
  expected_effect_on_stealth: 'x',
  expected_effect_on_trigger_depth: 'x',
})}`;

/** An in-memory agent answering every run with `finalText`. */
function agent(finalText: string) {
  const inputs: AgentRunInput[] = [];
  return {
    inputs,
    adapter: {
      kind: 'agent' as const,
      spec: { name: 'fake', model: 'fake-model' },
      run: async (input: AgentRunInput): Promise<AgentRunResult> => {
        inputs.push(input);
        return {
          outcome: { kind: 'Exited', code: 0, signal: null },
          finalText,
          transcript: finalText,
          durationMs: 1,
        };
      },
    },
  };
}

function transform(fake: ReturnType<typeof agent>, harness: AttemptJudgement) {
  let resets = 0;
  let judged = 0;
  const result = runAgentTransform({
    task: demoTransformTask(),
    adapter: fake.adapter,
    reset: async () => void resets++,
    judge: async () => {
      judged++;
      return harness;
    },
    timeoutMs: 1000,
    log: () => {},
  });
  return { result, counts: () => ({ resets, judged }) };
}

const rejected: AttemptJudgement = { kind: 'Rejected', reason: 'repairs', feedback: 'repairs' };
const accepted: AttemptJudgement = { kind: 'Accepted', summary: 'kept' };

describe('runAgentTransform', () => {
  it('runs once on a reset workspace with the transformation prompts, and keeps an accepted step', async () => {
    const fake = agent(`wrapped the update\n${sound}`);
    const run = transform(fake, accepted);
    const result = await run.result;
    expect(run.counts()).toEqual({ resets: 1, judged: 1 });
    expect(result.acceptedAttempt).toBe(1);
    expect(fake.inputs).toHaveLength(1);
    expect(fake.inputs[0]!.systemPrompt).toContain('bug-preserving transformation');
    expect(fake.inputs[0]!.userPrompt).toContain(`transform_id: ${DEMO_TRANSFORM_SPEC.id}`);
    expect(fake.inputs[0]!.replayCommand).toBe('node witness.mjs');
  });

  it('gives a rejected step no second attempt', async () => {
    const run = transform(agent(sound), rejected);
    const result = await run.result;
    expect(run.counts()).toEqual({ resets: 1, judged: 1 });
    expect(result).toMatchObject({ acceptedAttempt: null, stop: 'attemptsExhausted' });
    expect(result.attempts[0]!.judgement).toMatchObject({ kind: 'Rejected', reason: 'repairs' });
  });

  it('refuses a kept workspace whose report is malformed, and says why', async () => {
    const result = await transform(agent(`${TRANSFORM_REPORT_PREFIX} {"ok": tru`), accepted).result;
    expect(result.acceptedAttempt).toBeNull();
    expect(result.attempts[0]!.harness).toEqual(accepted);
    expect(result.attempts[0]!.judgement.kind).toBe('Rejected');
    if (result.attempts[0]!.judgement.kind === 'Rejected') {
      expect(result.attempts[0]!.judgement.reason).toMatch(
        /^report: the TRANSFORM_REPORT_JSON: line is not valid JSON/,
      );
    }
  });
});

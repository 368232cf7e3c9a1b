import { describe, expect, it } from 'vitest';
import type { AttemptJudgement, AttemptRecordWithoutJudgement } from '../../../agents/engine.js';
import type { AgentOutcome, AgentRunInput, AgentRunResult } from '../../../agents/types.js';
import type { InjectReport } from './report.js';
import { runAgentInjection, type InjectionTask } from './task.js';
import { DEMO_SPEC } from './test-support.js';

const spec = DEMO_SPEC;

const task: InjectionTask = {
  spec,
  projectLabel: 'demo@1.0',
  workspace: '/nonexistent/workspace',
  witness: { testClass: 'p.CounterTest', testFile: 'src/test/java/p/CounterTest.java' },
  context: {
    size: 3,
    bucket: 'short',
    anchors: [{ method: 'add', file: 'src/main/java/p/Counter.java' }],
  },
  replayCommand: 'node witness.mjs',
  runId: 'run-1',
};

function reportLine(overrides: Record<string, unknown> = {}): string {
  return `INJECT_REPORT_JSON: ${JSON.stringify({
    ok: true,
    git_changed_files: ['src/main/java/p/Counter.java'],
    repro_cmd: task.replayCommand,
    repro_exit_code: 1,
    observed_exception: null,
    call_chain: ['CounterTest', 'Counter.add'],
    notes: '',
    type_id: spec.id,
    target_files: ['src/main/java/p/Counter.java'],
    target_symbols: ['add'],
    selected_anchor: 'add',
    why_this_site: 'x',
    expected_trigger_path: 'x',
    stealth_rationale: 'x',
    bug_mechanism: 'x',
    preserved_prior_structure: 'x',
    possible_risks: 'x',
    ...overrides,
  })}`;
}

/** An in-memory agent whose runs return the given outcomes and texts, in order. */
function fakeAdapter(runs: { outcome?: AgentOutcome; finalText: string }[]) {
  const inputs: AgentRunInput[] = [];
  const events: string[] = [];
  return {
    inputs,
    events,
    adapter: {
      kind: 'agent' as const,
      spec: { name: 'fake', model: 'fake-model' },
      run: async (input: AgentRunInput): Promise<AgentRunResult> => {
        inputs.push(input);
        events.push(`run ${inputs.length}`);
        const run = runs[inputs.length - 1]!;
        return {
          outcome: run.outcome ?? { kind: 'Exited', code: 0, signal: null },
          finalText: run.finalText,
          transcript: run.finalText,
          durationMs: 5,
        };
      },
    },
  };
}

function scriptedJudge(verdicts: AttemptJudgement[], events: string[]) {
  const seen: AttemptRecordWithoutJudgement<InjectReport>[] = [];
  return {
    seen,
    judge: async (attempt: AttemptRecordWithoutJudgement<InjectReport>) => {
      seen.push(attempt);
      events.push(`judge ${attempt.attempt}`);
      return verdicts[seen.length - 1]!;
    },
  };
}

/** The engine on `task` with no-op resets, quiet logs, 3 attempts and a 1 s limit, unless overridden. */
function inject(
  agent: ReturnType<typeof fakeAdapter>,
  judge: (attempt: AttemptRecordWithoutJudgement<InjectReport>) => Promise<AttemptJudgement>,
  overrides: Partial<Parameters<typeof runAgentInjection>[0]> = {},
) {
  return runAgentInjection({
    task,
    adapter: agent.adapter,
    attempts: 3,
    reset: async () => {},
    judge,
    timeoutMs: 1000,
    log: () => {},
    ...overrides,
  });
}

const rejected: AttemptJudgement = {
  kind: 'Rejected',
  reason: 'witness passes',
  feedback: 'The witness p.CounterTest still passes (exit 0).',
};
const accepted: AttemptJudgement = { kind: 'Accepted', summary: 'TestFailed 3/3' };

describe('runAgentInjection', () => {
  it('resets before every attempt, feeds back the verdict and stops at the first acceptance', async () => {
    const agent = fakeAdapter([
      { finalText: reportLine({ repro_exit_code: 0 }) },
      { finalText: `edited\n${reportLine()}` },
      { finalText: 'never used' },
    ]);
    const { judge, seen } = scriptedJudge([rejected, accepted], agent.events);
    const result = await inject(agent, judge, {
      reset: async () => void agent.events.push('reset'),
    });
    expect(agent.events).toEqual(['reset', 'run 1', 'judge 1', 'reset', 'run 2', 'judge 2']);
    expect(result.acceptedAttempt).toBe(2);
    expect(result.stop).toBe('accepted');
    expect(result.attempts.map((a) => a.judgement.kind)).toEqual(['Rejected', 'Accepted']);
    expect(result.attempts[0]!.report.kind).toBe('Parsed');
    expect(seen[1]!.report.kind).toBe('Parsed');
    // The second prompt quotes what the harness said about the first attempt.
    expect(agent.inputs[0]!.userPrompt).not.toContain('PREVIOUS ATTEMPT FEEDBACK');
    expect(agent.inputs[1]!.userPrompt).toContain('PREVIOUS ATTEMPT FEEDBACK (attempt 1');
    expect(agent.inputs[1]!.userPrompt).toContain(
      'The witness p.CounterTest still passes (exit 0).',
    );
    expect(agent.inputs[1]!.userPrompt).toContain('Agent run: the agent exited with code 0.');
    expect(agent.inputs[1]!.replayCommand).toBe(task.replayCommand);
    expect(agent.inputs[1]!.systemPrompt).toBe(result.systemPrompt);
  });

  it('judges the workspace of a report-less attempt but fails it, and says why', async () => {
    const agent = fakeAdapter([
      { finalText: 'I injected the bug.' },
      { finalText: 'INJECT_REPORT_JSON: {"ok": tru' },
      { finalText: reportLine({ repro_cmd: 'mvn test' }) },
    ]);
    const { judge, seen } = scriptedJudge([accepted, accepted, accepted], agent.events);
    const result = await inject(agent, judge);
    expect(seen).toHaveLength(3);
    expect(result.acceptedAttempt).toBeNull();
    expect(result.stop).toBe('attemptsExhausted');
    expect(result.attempts.map((a) => a.report.kind)).toEqual(['Missing', 'Malformed', 'Parsed']);
    for (const attempt of result.attempts) {
      expect(attempt.harness).toEqual(accepted);
      expect(attempt.judgement.kind).toBe('Rejected');
    }
    expect(result.attempts[2]!.reportProblems[0]).toMatch(/^repro_cmd "mvn test" differs/);
    const second = agent.inputs[1]!.userPrompt;
    expect(second).toContain('Report: no line starting with INJECT_REPORT_JSON:');
    expect(second).toContain('Harness verdict on the workspace: accepted (TestFailed 3/3)');
    expect(second).toContain('does not count without a sound final report line');
  });

  it('never accepts on the agent word alone', async () => {
    const agent = fakeAdapter([{ finalText: reportLine({ ok: true }) }]);
    const { judge } = scriptedJudge([rejected], agent.events);
    const result = await inject(agent, judge, { attempts: 1 });
    expect(result.acceptedAttempt).toBeNull();
    expect(result.attempts[0]!.judgement).toMatchObject({
      kind: 'Rejected',
      reason: 'witness passes',
    });
  });

  it('stops without judging when the agent cannot start', async () => {
    const agent = fakeAdapter([
      { outcome: { kind: 'FailedToStart', reason: 'spawn claude ENOENT' }, finalText: '' },
    ]);
    const { judge, seen } = scriptedJudge([], agent.events);
    const result = await inject(agent, judge);
    expect(seen).toHaveLength(0);
    expect(result.stop).toBe('agentFailedToStart');
    expect(result.attempts).toHaveLength(1);
    expect(result.attempts[0]!.harness).toBeNull();
    expect(result.attempts[0]!.judgement).toMatchObject({
      kind: 'Rejected',
      reason: 'the agent failed to start: spawn claude ENOENT',
    });
  });

  it('tells the next attempt that the previous one timed out', async () => {
    const agent = fakeAdapter([
      { outcome: { kind: 'Timeout' }, finalText: '' },
      { finalText: reportLine() },
    ]);
    const { judge } = scriptedJudge([rejected, accepted], agent.events);
    const result = await inject(agent, judge, { timeoutMs: 90_000 });
    expect(result.acceptedAttempt).toBe(2);
    expect(result.attempts[0]!.judgement.kind).toBe('Rejected');
    expect(agent.inputs[1]!.userPrompt).toContain('the agent hit the time limit of 90 s');
  });

  it('refuses a non-positive attempt budget', async () => {
    const agent = fakeAdapter([]);
    await expect(inject(agent, async () => accepted, { attempts: 0 })).rejects.toThrow(
      'attempts must be a positive integer, not 0',
    );
  });
});

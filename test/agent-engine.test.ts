import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyProjectTree, exists, makeTempDir, removeTree } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { processGroupMembers, runProcess, shellJoin } from '../src/core/process.js';
import {
  createClaudeCodeAdapter,
  createCodexAdapter,
  createCommandAdapter,
  createOpenCodeAdapter,
} from '../src/agents/adapters/cli.js';
import { createOpenAIAdapter } from '../src/agents/adapters/openai.js';
import type { AttemptJudgement, AttemptRecordWithoutJudgement } from '../src/agents/engine.js';
import type { AgentAdapter } from '../src/agents/types.js';
import { injectionSystemPrompt } from '../src/stages/2-inject/agent-task/prompts.js';
import type { InjectReport } from '../src/stages/2-inject/agent-task/report.js';
import { runAgentInjection, type InjectionTask } from '../src/stages/2-inject/agent-task/task.js';
import type { BugTypeSpec } from '../src/stages/2-inject/spec.js';
import { startFakeOpenAI, type FakeOpenAI } from './fixtures/agents/fake-openai-server.js';

const FIXTURES = path.join(packageRoot(), 'test', 'fixtures', 'agents');
const PROJECT = path.join(FIXTURES, 'counter-project');
const SCRIPTED_AGENT = path.join(FIXTURES, 'scripted-agent.mjs');
const WITNESS = path.join(FIXTURES, 'witness.mjs');
const COUNTER = 'src/main/java/p/Counter.java';
const COUNTER_TEST = 'src/test/java/p/CounterTest.java';
const INVERT = { do: 'replace', file: COUNTER, from: 'if (step > 0)', to: 'if (step < 0)' };
const NO_OP = {
  do: 'replace',
  file: COUNTER,
  from: 'private int count;',
  to: 'private int count = 0;',
};

const spec: BugTypeSpec = {
  id: 'logic_predicate_inversion_in_guard',
  name: 'Guard Predicate Inversion',
  category: 'Logic',
  scope: 'intra_method_branch_condition',
  language: 'java',
  description: 'A guard condition is flipped or weakened, sending valid inputs to the wrong path.',
  structureConstraints: {
    requiredElements: ['if_block_guarding_non_trivial_logic'],
    forbiddenElements: ['conditions_that_are_constant_after_modification'],
  },
  runtimeEffect: { exceptionType: 'none', typicalFailureSignal: 'assertion failure' },
  triggerConditions: {
    testShape: 'tests feed valid and invalid inputs',
    inputProperties: 'one input relies on the original guard',
  },
  reach: 'method',
  changesSignature: false,
  codeql: null,
  example: { before: 'if (size > 0)', after: 'if (size >= 0)' },
};

let base: string;
let workspace: string;
let pristineCounter: string;
let pristineTest: string;

beforeEach(async () => {
  base = await makeTempDir('agent-engine');
  workspace = path.join(base, 'workspace');
  pristineCounter = await readFile(path.join(PROJECT, COUNTER), 'utf8');
  pristineTest = await readFile(path.join(PROJECT, COUNTER_TEST), 'utf8');
});

afterEach(async () => {
  await removeTree(base);
});

function task(): InjectionTask {
  return {
    spec,
    projectLabel: 'counter@1.0',
    workspace,
    witness: { testClass: 'p.CounterTest', testFile: COUNTER_TEST },
    context: { size: 2, bucket: 'short', anchors: [{ method: 'add', file: COUNTER }] },
    replayCommand: shellJoin([process.execPath, WITNESS]),
    runId: 'inject__test',
  };
}

async function reset(): Promise<void> {
  await removeTree(workspace);
  await copyProjectTree(PROJECT, workspace);
}

/** The harness side, in small: the witness must fail (not "not compile") and stay untouched. */
function harness() {
  const calls: AttemptRecordWithoutJudgement<InjectReport>[] = [];
  const judge = async (
    attempt: AttemptRecordWithoutJudgement<InjectReport>,
  ): Promise<AttemptJudgement> => {
    calls.push(attempt);
    if ((await readFile(path.join(workspace, COUNTER_TEST), 'utf8')) !== pristineTest) {
      return { kind: 'Rejected', reason: 'test edited', feedback: 'The witness test was edited.' };
    }
    const replay = await runProcess('/bin/sh', ['-c', task().replayCommand], { cwd: workspace });
    if (replay.exitCode === 1) return { kind: 'Accepted', summary: 'witness fails: TestFailed' };
    const reason = replay.exitCode === 0 ? 'witness still passes' : 'does not compile';
    return {
      kind: 'Rejected',
      reason,
      feedback: `The witness p.CounterTest ${reason} (replay exit ${replay.exitCode}).\n${replay.stdout}`,
    };
  };
  return { calls, judge };
}

interface RecordedRun {
  attempt: number;
  argv: string[];
  promptSource: 'stdin' | 'file';
  promptFile: string | null;
  prompt: string;
  cwd: string;
  watched: string | null;
}

/** Whether a process exists and is not a zombie (an init that does not reap keeps those). */
async function isAlive(pid: number): Promise<boolean> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0] !== 'Z';
  } catch {
    return false;
  }
}

async function writeScript(attempts: unknown[]): Promise<{ script: string; record: string }> {
  const script = path.join(base, `script-${Math.random().toString(36).slice(2)}.json`);
  const record = `${script}.record.jsonl`;
  await writeFile(script, JSON.stringify({ record, watch: COUNTER, attempts }));
  return { script, record };
}

async function recorded(record: string): Promise<RecordedRun[]> {
  const text = await readFile(record, 'utf8');
  return text
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line) as RecordedRun);
}

async function inject(adapter: AgentAdapter, attempts: number, timeoutMs = 60_000) {
  const { calls, judge } = harness();
  const log: string[] = [];
  const result = await runAgentInjection({
    task: task(),
    adapter,
    attempts,
    reset,
    judge,
    timeoutMs,
    log: (line) => log.push(line),
  });
  return { result, judged: calls, log };
}

const node = shellJoin([process.execPath, SCRIPTED_AGENT]);

describe('agent engine with the command adapter and the scripted agent', () => {
  it('rejects a wrong edit and a malformed report, resets each time, accepts the third attempt', async () => {
    const { script, record } = await writeScript([
      { actions: [NO_OP, { do: 'replay' }, { do: 'report', kind: 'valid' }] },
      { actions: [INVERT, { do: 'replay' }, { do: 'report', kind: 'malformed' }] },
      {
        actions: [
          INVERT,
          { do: 'replay' },
          { do: 'print', text: 'Inverted the guard.' },
          { do: 'report', kind: 'valid' },
        ],
      },
    ]);
    const adapter = createCommandAdapter({ command: `${node} --script ${shellJoin([script])}` });
    const { result, judged } = await inject(adapter, 3);

    expect(result.acceptedAttempt).toBe(3);
    expect(result.stop).toBe('accepted');
    expect(judged).toHaveLength(3);
    const [first, second, third] = result.attempts;
    expect(first!.outcome).toEqual({ kind: 'Exited', code: 0, signal: null });
    expect(first!.report).toMatchObject({ kind: 'Parsed', report: { repro_exit_code: 0 } });
    expect(first!.harness).toMatchObject({ kind: 'Rejected', reason: 'witness still passes' });
    expect(first!.judgement.kind).toBe('Rejected');
    expect(second!.report.kind).toBe('Malformed');
    expect(second!.harness).toEqual({ kind: 'Accepted', summary: 'witness fails: TestFailed' });
    expect(second!.judgement).toMatchObject({ kind: 'Rejected' });
    expect(third!.report).toMatchObject({
      kind: 'Parsed',
      mismatches: [],
      report: { repro_exit_code: 1, type_id: spec.id, git_changed_files: [COUNTER] },
    });
    expect(third!.judgement).toEqual({ kind: 'Accepted', summary: 'witness fails: TestFailed' });

    const runs = await recorded(record);
    expect(runs.map((run) => run.attempt)).toEqual([1, 2, 3]);
    // Every attempt started from clean sources: the no-op of attempt 1 and the inversion of
    // attempt 2 were gone.
    for (const run of runs) {
      expect(run.watched).toBe(pristineCounter);
      expect(run.cwd).toBe(workspace);
      expect(run.promptSource).toBe('stdin');
      expect(run.prompt.startsWith(injectionSystemPrompt())).toBe(true);
      expect(run.prompt).toContain(`replay_command: ${task().replayCommand}\n`);
    }
    expect(runs[0]!.prompt).not.toContain('PREVIOUS ATTEMPT FEEDBACK');
    expect(runs[1]!.prompt).toContain('PREVIOUS ATTEMPT FEEDBACK (attempt 1 was rejected');
    expect(runs[1]!.prompt).toContain(
      'The witness p.CounterTest witness still passes (replay exit 0)',
    );
    expect(runs[2]!.prompt).toContain('Report: the INJECT_REPORT_JSON: line is not valid JSON');
    expect(runs[2]!.prompt).toContain(
      'Harness verdict on the workspace: accepted (witness fails: TestFailed)',
    );
    // The accepted state is left for the harness to keep.
    expect(await readFile(path.join(workspace, COUNTER), 'utf8')).toContain('if (step < 0)');
  });

  it('hands the prompt over in a file outside the workspace for {prompt_file}', async () => {
    const { script, record } = await writeScript([
      { actions: [INVERT, { do: 'replay' }, { do: 'report', kind: 'valid' }] },
    ]);
    const adapter = createCommandAdapter({
      command: `${node} --script ${shellJoin([script])} --prompt-file {prompt_file}`,
    });
    const { result } = await inject(adapter, 3);
    expect(result.acceptedAttempt).toBe(1);
    const [run] = await recorded(record);
    expect(run!.promptSource).toBe('file');
    expect(run!.argv.at(-1)).toBe(run!.promptFile);
    expect(path.relative(workspace, run!.promptFile!).startsWith('..')).toBe(true);
    expect(run!.prompt.startsWith(injectionSystemPrompt())).toBe(true);
    expect(run!.prompt).toContain('TASK PAYLOAD:');
    expect(await exists(run!.promptFile!)).toBe(false);
  });

  it('kills a hanging agent and its children at the time limit, then tries again', async () => {
    const pidFile = path.join(base, 'pids.json');
    const { script } = await writeScript([
      { actions: [INVERT, { do: 'spawnSleeper', pidFile }, { do: 'hang' }] },
      { actions: [INVERT, { do: 'replay' }, { do: 'report', kind: 'valid' }] },
    ]);
    const adapter = createCommandAdapter({
      command: `${node} --script ${shellJoin([script])}`,
      graceMs: 500,
    });
    const { result } = await inject(adapter, 2, 2000);

    // The script never exits on its own: a timeout outcome with its group gone is the kill.
    expect(result.attempts[0]!.outcome).toEqual({ kind: 'Timeout' });
    expect(result.attempts[0]!.report.kind).toBe('Missing');
    const pids = JSON.parse(await readFile(pidFile, 'utf8')) as {
      agentPgid: number;
      sleeperPid: number;
    };
    expect(processGroupMembers(pids.agentPgid)).toEqual([]);
    expect(await isAlive(pids.sleeperPid)).toBe(false);
    // The workspace was judged as left (the inversion exposes the bug) but the report was missing.
    expect(result.attempts[0]!.harness?.kind).toBe('Accepted');
    expect(result.attempts[1]!.userPrompt).toContain('the agent hit the time limit of 2 s');
    expect(result.acceptedAttempt).toBe(2);
  });
});

describe('agent engine with the vendor CLI adapters against fakes on PATH', () => {
  async function fakeBin(names: string[]): Promise<string> {
    const bin = path.join(base, 'bin');
    await mkdir(bin, { recursive: true });
    for (const name of names) {
      const file = path.join(bin, name);
      await writeFile(file, `#!/bin/sh\nexec ${node} "$@"\n`);
      await chmod(file, 0o755);
    }
    return bin;
  }

  const oneGoodAttempt = [{ actions: [INVERT, { do: 'replay' }, { do: 'report', kind: 'valid' }] }];

  it('claude-code: print mode, our system prompt appended, payload on stdin', async () => {
    const bin = await fakeBin(['claude']);
    const { script, record } = await writeScript(oneGoodAttempt);
    const adapter = createClaudeCodeAdapter(
      {
        model: 'sonnet',
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, SCRIPTED_AGENT_SCRIPT: script },
      },
      {},
    );
    const { result } = await inject(adapter, 3);
    expect(result.acceptedAttempt).toBe(1);
    const [run] = await recorded(record);
    expect(run!.argv).toEqual([
      '-p',
      '--dangerously-skip-permissions',
      '--output-format',
      'text',
      '--append-system-prompt',
      injectionSystemPrompt(),
      '--disallowedTools',
      'WebSearch,WebFetch',
      '--model',
      'sonnet',
    ]);
    expect(run!.promptSource).toBe('stdin');
    expect(run!.prompt).toBe(result.attempts[0]!.userPrompt);
    expect(run!.prompt).not.toContain('MISSION:');
  });

  it('claude-code: the executable can be overridden with WITNESSGYM_CLAUDE_BIN', async () => {
    const bin = await fakeBin(['my-claude']);
    const { script, record } = await writeScript(oneGoodAttempt);
    const adapter = createClaudeCodeAdapter(
      { env: { SCRIPTED_AGENT_SCRIPT: script } },
      { WITNESSGYM_CLAUDE_BIN: path.join(bin, 'my-claude') },
    );
    const { result } = await inject(adapter, 1);
    expect(result.acceptedAttempt).toBe(1);
    expect((await recorded(record))[0]!.argv[0]).toBe('-p');
  });

  it('codex: exec with full access, prompt on stdin, final message read from its file', async () => {
    const bin = await fakeBin(['codex']);
    const { script, record } = await writeScript(oneGoodAttempt);
    const adapter = createCodexAdapter(
      { env: { PATH: `${bin}:${process.env.PATH ?? ''}`, SCRIPTED_AGENT_SCRIPT: script } },
      {},
    );
    const { result } = await inject(adapter, 3);
    expect(result.acceptedAttempt).toBe(1);
    const [run] = await recorded(record);
    expect(run!.argv).toEqual([
      'exec',
      '--sandbox',
      'danger-full-access',
      '--skip-git-repo-check',
      '-c',
      'web_search=disabled',
      '--output-last-message',
      expect.stringMatching(/last-message\.txt$/),
      '-',
    ]);
    expect(run!.prompt.startsWith(injectionSystemPrompt())).toBe(true);
    expect(run!.prompt).toContain(result.attempts[0]!.userPrompt);
    // The fake printed only "done" on stdout: the report came from the last-message file.
    expect(result.attempts[0]!.transcript).toContain('[stdout]\ndone\n');
    expect(result.attempts[0]!.report.kind).toBe('Parsed');
  });

  it('opencode: run with auto-approval, prompt on stdin', async () => {
    const bin = await fakeBin(['opencode']);
    const { script, record } = await writeScript(oneGoodAttempt);
    const adapter = createOpenCodeAdapter(
      {
        model: 'anthropic/claude-sonnet-4-5',
        env: { PATH: `${bin}:${process.env.PATH ?? ''}`, SCRIPTED_AGENT_SCRIPT: script },
      },
      {},
    );
    const { result } = await inject(adapter, 3);
    expect(result.acceptedAttempt).toBe(1);
    const [run] = await recorded(record);
    expect(run!.argv).toEqual(['run', '--auto', '--model', 'anthropic/claude-sonnet-4-5']);
    expect(run!.prompt.startsWith(injectionSystemPrompt())).toBe(true);
    expect(run!.prompt).toContain('REQUIRED FINAL OUTPUT:');
  });
});

describe('agent engine with the built-in openai agent against a fake endpoint', () => {
  let server: FakeOpenAI | undefined;

  afterEach(async () => {
    await server?.close();
    server = undefined;
  });

  function reportLine(): string {
    const t = task();
    return `INJECT_REPORT_JSON: ${JSON.stringify({
      ok: true,
      git_changed_files: [COUNTER],
      repro_cmd: t.replayCommand,
      repro_exit_code: 1,
      observed_exception: 'java.lang.AssertionError: expected:<3> but was:<-1>',
      call_chain: ['CounterTest.ignoresNonPositiveSteps', 'Counter.add'],
      notes: '',
      type_id: spec.id,
      target_files: [COUNTER],
      target_symbols: ['add'],
      selected_anchor: 'add',
      why_this_site: 'guarded update',
      expected_trigger_path: 'test -> add',
      stealth_rationale: 'one operator',
      bug_mechanism: 'inverted guard',
      preserved_prior_structure: 'everything else',
      possible_risks: 'none',
    })}`;
  }

  it('drives list/read/write/run_replay tool calls to an accepted second attempt', async () => {
    server = await startFakeOpenAI([
      // attempt 1: looks around, then ends without a report
      { toolCalls: [{ name: 'list_files', arguments: { path: '.', recursive: true } }] },
      { content: 'I am not sure where to inject.' },
      // attempt 2
      { toolCalls: [{ name: 'read_file', arguments: { path: COUNTER } }] },
      {
        toolCalls: [
          { name: 'write_file', arguments: { path: '../escape.txt', content: 'out' } },
          { name: 'read_file', arguments: { path: '/etc/hostname' } },
        ],
      },
      {
        toolCalls: [
          {
            name: 'replace_in_file',
            arguments: { path: COUNTER, old_text: 'if (step > 0)', new_text: 'if (step < 0)' },
          },
        ],
      },
      { toolCalls: [{ name: 'run_replay', arguments: {} }] },
      { content: `The guard is inverted.\n${reportLine()}` },
    ]);
    const adapter = createOpenAIAdapter(
      { baseURL: server.baseURL, model: 'fake-model', temperature: 0 },
      { WITNESSGYM_OPENAI_API_KEY: 'test-key' },
    );
    const { result } = await inject(adapter, 2);

    expect(result.acceptedAttempt).toBe(2);
    expect(result.attempts[0]!.outcome).toEqual({ kind: 'Completed' });
    expect(result.attempts[0]!.report.kind).toBe('Missing');
    expect(result.attempts[1]!.report.kind).toBe('Parsed');
    expect(await readFile(path.join(workspace, COUNTER), 'utf8')).toContain('if (step < 0)');
    expect(await exists(path.join(base, 'escape.txt'))).toBe(false);

    const requests = server.requests;
    expect(requests).toHaveLength(7);
    for (const request of requests) {
      expect(request.headers.authorization).toBe('Bearer test-key');
      expect(request.body.model).toBe('fake-model');
      expect(request.body.temperature).toBe(0);
      expect(request.body.tools?.map((tool) => tool.function.name)).toEqual([
        'list_files',
        'read_file',
        'search',
        'write_file',
        'replace_in_file',
        'run_replay',
      ]);
    }
    const toolResults = (index: number) =>
      requests[index]!.body.messages.filter((message) => message.role === 'tool');
    const first = requests[0]!.body.messages;
    expect(first.map((message) => message.role)).toEqual(['system', 'user']);
    expect(first[0]!.content).toBe(injectionSystemPrompt());
    expect(first[1]!.content).toContain('attempt: 1 of 2');
    // the listing went back to the model, answering the call it made
    const listing = toolResults(1);
    expect(listing).toHaveLength(1);
    expect(listing[0]!.tool_call_id).toBe(requests[1]!.body.messages[2]!.tool_calls![0]!.id);
    expect(listing[0]!.content).toContain(COUNTER);
    expect(listing[0]!.content).toContain(COUNTER_TEST);
    // attempt 2 is a fresh conversation that carries the feedback
    const second = requests[2]!.body.messages;
    expect(second).toHaveLength(2);
    expect(second[1]!.content).toContain('PREVIOUS ATTEMPT FEEDBACK (attempt 1');
    expect(second[1]!.content).toContain('no line starting with INJECT_REPORT_JSON:');
    expect(second[1]!.content).toContain('witness still passes');
    expect(toolResults(3)[0]!.content).toContain('if (step > 0) {');
    const refusals = toolResults(4).slice(1);
    expect(refusals.map((message) => message.content)).toEqual([
      "error: path '../escape.txt' is outside the repository; use repository-relative paths",
      "error: path '/etc/hostname' is outside the repository; use repository-relative paths",
    ]);
    expect(toolResults(5).at(-1)!.content).toBe(
      'replaced 1 occurrence in src/main/java/p/Counter.java',
    );
    const replay = toolResults(6).at(-1)!.content!;
    expect(replay).toMatch(/^exit code: 1\nreplay runs used: 1 of 3/);
    expect(replay).toContain('expected:<3> but was:<-1>');
  });

  it('stops when the endpoint refuses the first request', async () => {
    server = await startFakeOpenAI([{ status: 401, error: 'invalid api key' }]);
    const adapter = createOpenAIAdapter(
      { baseURL: server.baseURL, model: 'fake-model' },
      { OPENAI_API_KEY: 'wrong' },
    );
    const { result, judged } = await inject(adapter, 3);
    expect(result.stop).toBe('agentFailedToStart');
    expect(judged).toHaveLength(0);
    expect(result.attempts[0]!.outcome).toEqual({
      kind: 'FailedToStart',
      reason: expect.stringMatching(/^HTTP 401: .*invalid api key/),
    });
  });
});

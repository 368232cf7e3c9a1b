import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resolveCacheDir } from '../src/core/cache.js';
import { exists, makeTempDir } from '../src/core/fs.js';
import { packageRoot } from '../src/core/package-root.js';
import { shellJoin } from '../src/core/process.js';
import type { InjectionRecord, InjectSummary } from '../src/stages/2-inject/records.js';
import { startFakeOpenAI, type FakeOpenAI } from './fixtures/agents/fake-openai-server.js';
import { cli, fetchCorpus, readLines } from './helpers.js';

/* The agent engine on a real corpus project: agents edit a workspace, the harness judges it. */

const JSONER = 'src/main/java/org/json/simple/Jsoner.java';
const WITNESS = 'org.json.simple.JsonerTest';
const TYPE = 'logic_predicate_inversion_in_guard';
const AGENT = path.join(packageRoot(), 'test', 'fixtures', 'agents', 'scripted-agent.mjs');

interface AgentRun {
  adapter: { name: string };
  attempts: {
    judgement: { kind: string; reason?: string };
    report: { kind: string; report?: { repro_exit_code: number | null } };
  }[];
  acceptedAttempt: number | null;
}

async function agentRun(out: string, id: string): Promise<AgentRun> {
  return JSON.parse(await readFile(path.join(out, 'agent-runs', `${id}.json`), 'utf8')) as AgentRun;
}

let pristineJsoner: string;

beforeAll(async () => {
  const pristine = await fetchCorpus('json-simple');
  pristineJsoner = await readFile(path.join(pristine, JSONER), 'utf8');
});

describe('inject --engine agent --agent command (scripted agent)', () => {
  it('rejects a comment-only edit, then a malformed report, then accepts a real bug; the workspace is reset before each attempt', async () => {
    const dir = await makeTempDir('agent-inject');
    const script = path.join(dir, 'script.json');
    const record = path.join(dir, 'record.jsonl');
    const bug = { do: 'replace', file: JSONER, from: 'i < characters', to: 'i <= characters' };
    await writeFile(
      script,
      JSON.stringify({
        record,
        watch: JSONER,
        attempts: [
          {
            actions: [
              {
                do: 'replace',
                file: JSONER,
                from: 'final int characters',
                to: '/* length */ final int characters',
              },
              { do: 'report', kind: 'valid' },
            ],
          },
          { actions: [bug, { do: 'replay' }, { do: 'report', kind: 'malformed' }] },
          { actions: [bug, { do: 'replay' }, { do: 'report', kind: 'valid' }] },
        ],
      }),
    );
    const out = path.join(dir, 'out');
    const result = await cli([
      'inject',
      'json-simple',
      '--types',
      TYPE,
      '--test',
      WITNESS,
      '--engine',
      'agent',
      '--agent',
      'command',
      '--agent-command',
      shellJoin([process.execPath, AGENT, '--script', script]),
      '--max-tries',
      '1',
      '--out',
      out,
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    expect((result.json as InjectSummary).types[0]).toMatchObject({ accepted: 1, tried: 1 });

    const [accepted] = await readLines<InjectionRecord>(path.join(out, 'injections.jsonl'));
    expect(accepted).toMatchObject({
      engine: { kind: 'agent', agent: { name: 'command' }, attempts: 3 },
      bugType: { id: TYPE },
      witness: { testClass: WITNESS },
    });
    expect(accepted!.state.patches[0]!.diff).toContain(
      '+\t\tfor(int i = 0; i <= characters; i++){',
    );
    expect(accepted!.evidence.maven).toBe('TestErrored');
    expect(accepted!.evidence.reachedAs).toContain('Jsoner.escape');

    const run = await agentRun(out, accepted!.id);
    expect(run.acceptedAttempt).toBe(3);
    expect(run.adapter.name).toBe('command');
    expect(run.attempts.map((a) => a.judgement.kind)).toEqual(['Rejected', 'Rejected', 'Accepted']);
    expect(run.attempts[0]!.judgement.reason).toMatch(/^diff: only whitespace or comments/);
    expect(run.attempts[1]!.report.kind).toBe('Malformed');

    // Each attempt started from the clean file, and the agent's replay saw the witness fail.
    const attempts = await readLines<{ watched: string; prompt: string; cwd: string }>(record);
    expect(attempts.map((a) => a.watched === pristineJsoner)).toEqual([true, true, true]);
    expect(attempts[1]!.prompt).toContain('only whitespace or comments');
    expect(run.attempts[2]!.report).toMatchObject({ report: { repro_exit_code: 1 } });

    // The agent worked in a temporary copy away from the answers, removed afterwards.
    const workspace = attempts[0]!.cwd;
    expect(attempts.map((a) => a.cwd)).toEqual([workspace, workspace, workspace]);
    for (const answers of [out, resolveCacheDir()]) {
      expect(path.relative(answers, workspace).startsWith('..'), answers).toBe(true);
    }
    expect(await exists(workspace)).toBe(false);
    expect(await exists(path.join(out, 'workspace'))).toBe(false);
  });
});

describe('inject --engine agent --agent openai (fake endpoint)', () => {
  let server: FakeOpenAI | undefined;
  afterEach(async () => {
    await server?.close();
  });

  it('edits through tools, runs the replay, and the harness accepts the bug', async () => {
    const replayCommand = shellJoin([
      'node',
      path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js'),
      'replay',
      '.',
      '--recipe',
      'json-simple',
      '--test',
      WITNESS,
      '--runner',
      'jvm',
    ]);
    const report = {
      ok: true,
      git_changed_files: [JSONER],
      repro_cmd: replayCommand,
      repro_exit_code: 1,
      observed_exception: 'java.lang.StringIndexOutOfBoundsException',
      call_chain: [`${WITNESS}.testNestedSerialization`, 'Jsoner.escape'],
      notes: '',
      type_id: TYPE,
      target_files: [JSONER],
      target_symbols: ['escape'],
      selected_anchor: 'escape',
      why_this_site: 'the loop bound decides how much of the string is escaped',
      expected_trigger_path: 'JsonerTest -> Jsoner.serialize -> Jsoner.escape',
      stealth_rationale: 'one operator',
      bug_mechanism: 'the loop runs one index past the end',
      preserved_prior_structure: 'all else',
      possible_risks: 'none',
    };
    server = await startFakeOpenAI([
      { toolCalls: [{ name: 'search', arguments: { pattern: 'i < characters' } }] },
      {
        toolCalls: [
          {
            name: 'replace_in_file',
            arguments: { path: JSONER, old_text: 'i < characters', new_text: 'i <= characters' },
          },
        ],
      },
      { toolCalls: [{ name: 'run_replay', arguments: {} }] },
      { content: `Done.\nINJECT_REPORT_JSON: ${JSON.stringify(report)}` },
    ]);
    const out = path.join(await makeTempDir('agent-openai'), 'out');
    const result = await cli([
      'inject',
      'json-simple',
      '--types',
      TYPE,
      '--test',
      WITNESS,
      '--engine',
      'agent',
      '--agent',
      'openai',
      '--model',
      'fake-model',
      '--base-url',
      server.baseURL,
      '--max-tries',
      '1',
      '--out',
      out,
      '--json',
    ]);
    expect(result.exitCode, result.stderr).toBe(0);
    const [accepted] = await readLines<InjectionRecord>(path.join(out, 'injections.jsonl'));
    expect(accepted).toMatchObject({
      engine: { kind: 'agent', agent: { name: 'openai' } },
      bugType: { id: TYPE },
    });
    // The model saw the witness fail through its run_replay tool.
    const replayResult = server.requests[3]!.body.messages.filter((m) => m.role === 'tool').at(-1);
    expect(replayResult?.content).toMatch(/exit code: 1/);
    expect((await agentRun(out, accepted!.id)).acceptedAttempt).toBe(1);
  });
});

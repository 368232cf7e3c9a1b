import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { UserError } from '../../core/errors.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { createSandbox } from '../../sandbox/bwrap.js';
import { REPLAY_BUDGET, type AgentAdapter, type AgentRunInput } from '../types.js';
import { createClaudeCodeAdapter, createCommandAdapter } from './cli.js';
import { createAgentAdapter } from './index.js';
import { DEFAULT_MAX_TURNS } from './openai.js';

async function runIn(
  options: Parameters<typeof createAgentAdapter>[0],
  env: NodeJS.ProcessEnv = {},
) {
  return runAdapter(createAgentAdapter(options, env));
}

async function runAdapter(adapter: AgentAdapter) {
  const workspace = await makeTempDir('adapter-test');
  try {
    const input: AgentRunInput = {
      workspace,
      systemPrompt: 'SYSTEM',
      userPrompt: 'PAYLOAD',
      replayCommand: 'true',
      timeoutMs: 10_000,
      log: () => {},
    };
    return await adapter.run(input);
  } finally {
    await removeTree(workspace);
  }
}

describe('createAgentAdapter', () => {
  it('rejects usage mistakes as user errors', () => {
    const cases: [Parameters<typeof createAgentAdapter>[0], RegExp][] = [
      [
        { agent: 'gpt-engineer' },
        /^unknown agent 'gpt-engineer' \(known: claude-code, codex, opencode, command, openai\)$/,
      ],
      [{ agent: 'command' }, /needs --agent-command/],
      [
        { agent: 'claude-code', baseUrl: 'http://x' },
        /option 'baseUrl' does not apply to --agent claude-code/,
      ],
      [{ agent: 'codex', sandbox: 'none' }, /--sandbox must be one of/],
      [{ agent: 'openai' }, /needs --model/],
      [{ agent: 'openai', model: 'm', baseUrl: 'not a url' }, /is not a URL/],
      [
        { agent: 'openai', model: 'm', baseUrl: 'http://localhost:8000/v1', maxTurns: 0 },
        /--max-turns must be a positive integer/,
      ],
      [
        { agent: 'openai', model: 'm', baseUrl: 'https://api.example.com/v1' },
        /needs an API key for https:\/\/api\.example\.com: set WITNESSGYM_OPENAI_API_KEY or OPENAI_API_KEY/,
      ],
    ];
    for (const [options, message] of cases) {
      expect(() => createAgentAdapter(options, {}), JSON.stringify(options)).toThrow(UserError);
      expect(() => createAgentAdapter(options, {})).toThrow(message);
    }
  });

  it('needs no API key for a local endpoint, and takes one from the environment otherwise', () => {
    expect(
      createAgentAdapter({ agent: 'openai', model: 'm', baseUrl: 'http://127.0.0.1:9/v1' }, {}).spec
        .name,
    ).toBe('openai');
    expect(
      createAgentAdapter(
        { agent: 'openai', model: 'm', baseUrl: 'https://api.example.com/v1' },
        { WITNESSGYM_OPENAI_API_KEY: 'k' },
      ).spec.name,
    ).toBe('openai');
  });

  it('spells out every argument in the spec, defaults filled in, but not the API key', () => {
    expect(
      createAgentAdapter({ agent: 'command', agentCommand: 'my-agent --go' }, {}).spec,
    ).toEqual({ name: 'command', command: 'my-agent --go' });
    expect(createAgentAdapter({ agent: 'claude-code' }, {}).spec).toEqual({
      name: 'claude-code',
      bin: 'claude',
      model: null,
      extraArgs: [],
    });
    expect(
      createAgentAdapter(
        { agent: 'opencode', model: 'anthropic/claude-sonnet-4-5', agentArgs: ['--quiet'] },
        { WITNESSGYM_OPENCODE_BIN: '/opt/opencode' },
      ).spec,
    ).toEqual({
      name: 'opencode',
      bin: '/opt/opencode',
      model: 'anthropic/claude-sonnet-4-5',
      extraArgs: ['--quiet'],
    });
    expect(createAgentAdapter({ agent: 'codex', model: 'o3' }, {}).spec).toEqual({
      name: 'codex',
      bin: 'codex',
      model: 'o3',
      extraArgs: [],
      sandbox: 'danger-full-access',
    });
    const openai = createAgentAdapter(
      {
        agent: 'openai',
        model: 'm',
        baseUrl: 'https://api.example.com/v1',
        apiKey: 'secret-key',
        temperature: 0.2,
      },
      {},
    ).spec;
    expect(openai).toEqual({
      name: 'openai',
      baseURL: 'https://api.example.com/v1',
      model: 'm',
      temperature: 0.2,
      maxTurns: DEFAULT_MAX_TURNS,
      maxToolOutputChars: 20_000,
      replayBudget: REPLAY_BUDGET,
    });
    expect(JSON.stringify(openai)).not.toContain('secret-key');
  });

  it('reports a vendor CLI that is not installed as failing to start', async () => {
    const result = await runIn(
      { agent: 'claude-code' },
      { WITNESSGYM_CLAUDE_BIN: '/nonexistent/claude' },
    );
    expect(result.outcome).toMatchObject({ kind: 'FailedToStart' });
    expect(result.outcome.kind === 'FailedToStart' && result.outcome.reason).toMatch(
      /^exit code 127: .*\/nonexistent\/claude: not found/,
    );
  });

  it('declares IS_SANDBOX=1 to Claude Code run as root, unless the variable is set already', async () => {
    const dir = await makeTempDir('fake-claude');
    try {
      const claude = path.join(dir, 'claude');
      await writeFile(claude, '#!/bin/sh\ncat >/dev/null\necho "IS_SANDBOX=${IS_SANDBOX-unset}"\n');
      await chmod(claude, 0o755);
      const sandboxSeen = async (uid: number, env: Record<string, string> = {}) =>
        (await runAdapter(createClaudeCodeAdapter({ bin: claude, env }, {}, uid))).finalText.trim();
      expect(await sandboxSeen(0)).toBe('IS_SANDBOX=1');
      // Not root: left as inherited.
      expect(await sandboxSeen(1000)).toBe(`IS_SANDBOX=${process.env.IS_SANDBOX ?? 'unset'}`);
      expect(await sandboxSeen(0, { IS_SANDBOX: '0' })).toBe('IS_SANDBOX=0');
    } finally {
      await removeTree(dir);
    }
  });

  it("turns off the vendor CLIs' web tools, which reach past the egress allow-list", async () => {
    const dir = await makeTempDir('fake-vendor');
    try {
      const fake = path.join(dir, 'vendor');
      await writeFile(fake, '#!/bin/sh\ncat >/dev/null\necho "$@"\n');
      await chmod(fake, 0o755);
      const claudeArgs = (await runAdapter(createClaudeCodeAdapter({ bin: fake }, {}, 1000)))
        .finalText;
      expect(claudeArgs).toContain('--disallowedTools WebSearch,WebFetch');
      const codexArgs = (await runIn({ agent: 'codex' }, { WITNESSGYM_CODEX_BIN: fake }))
        .transcript;
      expect(codexArgs).toContain('-c web_search=disabled');
    } finally {
      await removeTree(dir);
    }
  });

  it('reports a command line whose program is missing as failing to start', async () => {
    const result = await runIn({ agent: 'command', agentCommand: 'no-such-agent-program --go' });
    expect(result.outcome).toMatchObject({ kind: 'FailedToStart' });
    expect(result.outcome.kind === 'FailedToStart' && result.outcome.reason).toMatch(
      /^exit code 127: .*not found/,
    );
  });

  it('gives a command agent the system prompt and payload on stdin and keeps its stdout', async () => {
    const result = await runIn({
      agent: 'command',
      agentCommand: 'cat; echo "exit soon" >&2; exit 3',
    });
    expect(result.outcome).toEqual({ kind: 'Exited', code: 3, signal: null });
    expect(result.finalText).toBe('SYSTEM\n\nPAYLOAD\n');
    expect(result.transcript).toContain('[stderr]\nexit soon');
  });

  it('runs a command agent inside a given sandbox: workspace writable, host files out of reach', async () => {
    const host = await makeTempDir('adapter-sandbox');
    const workspace = path.join(host, 'workspace');
    const secret = path.join(host, 'secret.txt');
    try {
      await mkdir(workspace);
      await writeFile(secret, 'host secret\n');
      const sandbox = await createSandbox({ workspace });
      const input: AgentRunInput = {
        workspace,
        systemPrompt: 'SYSTEM',
        userPrompt: 'PAYLOAD',
        replayCommand: 'true',
        timeoutMs: 10_000,
        log: () => {},
        sandbox,
      };
      const run = (command: string) => createCommandAdapter({ command }).run(input);
      try {
        // The prompt file sits in the adapter's scratch dir, which the sandbox must show.
        const byFile = await run(
          `cat {prompt_file}; cat ${secret} || echo unreadable; pwd; echo mine > Written.java`,
        );
        expect(byFile.outcome).toEqual({ kind: 'Exited', code: 0, signal: null });
        expect(byFile.finalText).toBe('SYSTEM\n\nPAYLOAD\nunreadable\n/workspace\n');
        expect(await readFile(path.join(workspace, 'Written.java'), 'utf8')).toBe('mine\n');
        const byStdin = await run('cat');
        expect(byStdin.finalText).toBe('SYSTEM\n\nPAYLOAD\n');
      } finally {
        await sandbox.dispose();
      }
    } finally {
      await removeTree(host);
    }
  });
});

import { UserError } from '../../core/errors.js';
import type { AgentAdapter } from '../types.js';
import {
  createClaudeCodeAdapter,
  createCodexAdapter,
  createCommandAdapter,
  createOpenCodeAdapter,
  type CodexSandbox,
} from './cli.js';
import { createOpenAIAdapter } from './openai.js';

export const AGENT_NAMES = ['claude-code', 'codex', 'opencode', 'command', 'openai'] as const;
export type AgentName = (typeof AGENT_NAMES)[number];

/** The agent options of `witnessgym inject --engine agent`, as the CLI parses them. */
export interface AgentCliOptions {
  agent: string;
  /** command: the command line (may hold `{prompt_file}`). */
  agentCommand?: string;
  /** claude-code, codex, opencode: the executable. */
  agentBin?: string;
  /** claude-code, codex, opencode: extra arguments after the adapter's own. */
  agentArgs?: string[];
  /** claude-code, codex, opencode, openai. */
  model?: string;
  /** openai: the endpoint; default OPENAI_BASE_URL, then https://api.openai.com/v1. */
  baseUrl?: string;
  /** openai: default from WITNESSGYM_OPENAI_API_KEY or OPENAI_API_KEY. */
  apiKey?: string;
  temperature?: number;
  maxTurns?: number;
  /** codex: the sandbox mode. */
  sandbox?: string;
}

const CODEX_SANDBOXES: readonly CodexSandbox[] = [
  'read-only',
  'workspace-write',
  'danger-full-access',
];

function only(options: AgentCliOptions, allowed: readonly (keyof AgentCliOptions)[]): void {
  const given = (Object.keys(options) as (keyof AgentCliOptions)[]).filter(
    (key) => key !== 'agent' && options[key] !== undefined,
  );
  const stray = given.find((key) => !allowed.includes(key));
  if (stray) throw new UserError(`option '${stray}' does not apply to --agent ${options.agent}`);
}

/** Builds the adapter `--agent <name>` and its options ask for; a usage mistake is a UserError. */
export function createAgentAdapter(
  options: AgentCliOptions,
  env: NodeJS.ProcessEnv = process.env,
): AgentAdapter {
  const name = options.agent as AgentName;
  switch (name) {
    case 'command':
      only(options, ['agentCommand']);
      if (!options.agentCommand) {
        throw new UserError(`--agent command needs --agent-command '<command line>'`);
      }
      return createCommandAdapter({ command: options.agentCommand });
    case 'claude-code':
    case 'opencode': {
      only(options, ['agentBin', 'agentArgs', 'model']);
      const vendor = { bin: options.agentBin, extraArgs: options.agentArgs, model: options.model };
      return name === 'claude-code'
        ? createClaudeCodeAdapter(vendor, env)
        : createOpenCodeAdapter(vendor, env);
    }
    case 'codex': {
      only(options, ['agentBin', 'agentArgs', 'model', 'sandbox']);
      const sandbox = options.sandbox as CodexSandbox | undefined;
      if (sandbox !== undefined && !CODEX_SANDBOXES.includes(sandbox)) {
        throw new UserError(`--sandbox must be one of ${CODEX_SANDBOXES.join(', ')}`);
      }
      return createCodexAdapter(
        { bin: options.agentBin, extraArgs: options.agentArgs, model: options.model, sandbox },
        env,
      );
    }
    case 'openai':
      only(options, ['model', 'baseUrl', 'apiKey', 'temperature', 'maxTurns']);
      if (!options.model) throw new UserError('--agent openai needs --model');
      return createOpenAIAdapter(
        {
          baseURL: options.baseUrl ?? env.OPENAI_BASE_URL ?? 'https://api.openai.com/v1',
          model: options.model,
          apiKey: options.apiKey,
          temperature: options.temperature,
          maxTurns: options.maxTurns,
        },
        env,
      );
    default:
      throw new UserError(`unknown agent '${options.agent}' (known: ${AGENT_NAMES.join(', ')})`);
  }
}

import type { AgentAdapter } from './types.js';
import { createAgentAdapter } from './adapters/index.js';

/** The agent flags `inject` and `transform` share (`--engine agent`), as the CLI parses them. */
export interface AgentFlags {
  agent?: string;
  agentCommand?: string;
  agentBin?: string;
  agentArg?: string[];
  model?: string;
  baseUrl?: string;
  temperature?: number;
  maxTurns?: number;
  sandbox?: string;
  /** Seconds, per agent run. */
  agentTimeout: number;
}

/** The adapter `--agent <name>` and its flags ask for; a usage mistake is a UserError. */
export function agentAdapterFrom(options: AgentFlags & { agent: string }): AgentAdapter {
  return createAgentAdapter({
    agent: options.agent,
    ...(options.agentCommand !== undefined ? { agentCommand: options.agentCommand } : {}),
    ...(options.agentBin !== undefined ? { agentBin: options.agentBin } : {}),
    ...(options.agentArg !== undefined ? { agentArgs: options.agentArg } : {}),
    ...(options.model !== undefined ? { model: options.model } : {}),
    ...(options.baseUrl !== undefined ? { baseUrl: options.baseUrl } : {}),
    ...(options.temperature !== undefined ? { temperature: options.temperature } : {}),
    ...(options.maxTurns !== undefined ? { maxTurns: options.maxTurns } : {}),
    ...(options.sandbox !== undefined ? { sandbox: options.sandbox } : {}),
  });
}

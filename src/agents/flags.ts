import { UserError } from '../core/errors.js';
import type { NetworkPolicy } from '../sandbox/bwrap.js';
import { parseEndpoint } from '../sandbox/egress-proxy.js';
import { VENDOR_ENDPOINTS } from './adapters/cli.js';
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

/** The flags that say what a sandboxed agent may reach (`--allow-endpoint`, `--no-network`). */
export interface NetworkFlags {
  agent: string;
  /**
   * The host:port endpoints the sandboxed agent may reach through the egress proxy (replacing
   * its default list); default: a vendor CLI's own (VENDOR_ENDPOINTS), none for `command`.
   */
  allowEndpoint?: string[];
  /** False (`--no-network`): the sandboxed agent reaches nothing, not even its model. */
  network?: boolean;
}

/** What the sandboxed agent may reach; a malformed endpoint is a UserError. */
export function agentNetwork(options: NetworkFlags): NetworkPolicy {
  if (options.network === false) {
    if (options.allowEndpoint?.length) {
      throw new UserError('--no-network and --allow-endpoint contradict each other');
    }
    return { kind: 'none' };
  }
  const endpoints = options.allowEndpoint ?? VENDOR_ENDPOINTS[options.agent] ?? [];
  for (const endpoint of endpoints) parseEndpoint(endpoint);
  return endpoints.length > 0 ? { kind: 'allow', endpoints } : { kind: 'none' };
}

import path from 'node:path';
import { z } from 'zod';
import { sandboxedAgentFrom } from '../../agents/sandboxed.js';
import { UserError } from '../../core/errors.js';
import {
  loadScript,
  offlineAgent,
  OFFLINE_AGENTS,
  type EvaluationAgent,
  type OfflineAgentName,
} from './offline-agents.js';

/*
 * The agent an evaluation asks for, as its flags say: plain data, so a queue's worker builds the
 * same agent on its own host (its API keys from its own environment, never from the payload).
 */
export const AgentRequestSchema = z.strictObject({
  agent: z.string(),
  /** An absolute path, on a directory every worker mounts. */
  script: z.string().optional(),
  agentCommand: z.string().optional(),
  agentBin: z.string().optional(),
  agentArg: z.array(z.string()).optional(),
  model: z.string().optional(),
  baseUrl: z.string().optional(),
  temperature: z.number().optional(),
  maxTurns: z.number().optional(),
  sandbox: z.string().optional(),
  /** Seconds, per agent run. */
  agentTimeout: z.number(),
  allowEndpoint: z.array(z.string()).optional(),
  network: z.boolean().optional(),
  sandboxRead: z.array(z.string()).optional(),
  sandboxWrite: z.array(z.string()).optional(),
});
export type AgentRequest = z.infer<typeof AgentRequestSchema>;

/** The request's fields of a larger set of flags (the CLI's), with its script path made absolute. */
export function agentRequestOf(flags: AgentRequest): AgentRequest {
  const given = flags as Record<string, unknown>;
  const request: Record<string, unknown> = {};
  for (const key of Object.keys(AgentRequestSchema.shape)) {
    if (given[key] !== undefined) request[key] = given[key];
  }
  if (typeof request.script === 'string') request.script = path.resolve(request.script);
  return AgentRequestSchema.parse(request);
}

/** The evaluation agent a request names: an offline agent, or a process agent in the sandbox. */
export async function evaluationAgent(request: AgentRequest): Promise<EvaluationAgent> {
  if ((OFFLINE_AGENTS as readonly string[]).includes(request.agent)) {
    const script = request.script ? await loadScript(request.script) : undefined;
    if (script && request.agent !== 'scripted') {
      throw new UserError(`--script applies to --agent scripted only`);
    }
    return offlineAgent(request.agent as OfflineAgentName, script);
  }
  if (request.script) throw new UserError(`--script applies to --agent scripted only`);
  const { adapter, ...sandbox } = await sandboxedAgentFrom(request);
  return {
    name: request.agent,
    attempts: { kind: 'AsAsked' },
    sandboxed: true,
    ...sandbox,
    forAttempt: async () => adapter,
  };
}

import path from 'node:path';
import { UserError } from '../core/errors.js';
import { exists } from '../core/fs.js';
import {
  createSandbox,
  sandboxAvailability,
  systemJavaArchiveDirs,
  type NetworkPolicy,
  type Sandbox,
} from '../sandbox/bwrap.js';
import { agentAdapterFrom, agentNetwork, type AgentFlags, type NetworkFlags } from './flags.js';
import type { AgentAdapter } from './types.js';

/** The sandbox flags of a command that runs a coding agent on untrusted ground. */
export interface SandboxFlags {
  /** Host paths the sandboxed agent may read, or read and write, at their own path. */
  sandboxRead?: string[];
  sandboxWrite?: string[];
}

export interface SandboxedAgent {
  adapter: AgentAdapter;
  network: NetworkPolicy;
  readOnly: string[];
  writable: string[];
}

/**
 * The adapter `--agent` asks for and what its sandbox may reach; a usage mistake (a missing path,
 * no bubblewrap) is a UserError.
 */
export async function sandboxedAgentFrom(
  options: AgentFlags & NetworkFlags & SandboxFlags & { agent: string },
): Promise<SandboxedAgent> {
  for (const dir of [...(options.sandboxRead ?? []), ...(options.sandboxWrite ?? [])]) {
    if (!(await exists(dir)))
      throw new UserError(`--sandbox-read/--sandbox-write: ${dir} does not exist`);
  }
  const adapter = agentAdapterFrom(options);
  const availability = await sandboxAvailability();
  if (availability.kind === 'Unavailable') {
    throw new UserError(
      `agent ${options.agent} runs in a bubblewrap sandbox, which is unavailable (${availability.reason}): install it with 'apt-get install bubblewrap'`,
    );
  }
  return {
    adapter,
    network: agentNetwork(options),
    readOnly: (options.sandboxRead ?? []).map((dir) => path.resolve(dir)),
    writable: (options.sandboxWrite ?? []).map((dir) => path.resolve(dir)),
  };
}

/**
 * What an agent sandbox shows empty: Debian's Maven, its jars and its repository (they hold corpus
 * projects: commons-lang3 3.12.0, commons-io 2.11.0) and every other directory of Java archives
 * under /usr (systemJavaArchiveDirs).
 */
export async function hiddenBuildDirs(): Promise<string[]> {
  return [
    '/usr/share/maven',
    '/usr/share/java',
    '/usr/share/maven-repo',
    ...(await systemJavaArchiveDirs()),
  ];
}

/**
 * The agent sandbox of a task whose agent cannot run the project's build (a repair patch, Stage
 * I's tests): no Maven and no Java archive of the system, which may hold any version of a project.
 */
export async function buildlessSandbox(
  workspace: string,
  agent: Omit<SandboxedAgent, 'adapter'>,
): Promise<Sandbox> {
  return createSandbox({
    workspace,
    network: agent.network,
    hiddenSystemDirs: await hiddenBuildDirs(),
    readOnly: agent.readOnly,
    writable: agent.writable,
  });
}

import type { CacheLayout } from '../../core/cache.js';
import type { EventSink } from '../../events/types.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { validateInstanceFile, type ValidationSummary } from './validate-file.js';
import { AGENT_NAMES } from '../../agents/adapters/index.js';
import type { AgentFlags } from '../../agents/flags.js';
import { sandboxedAgentFrom, type SandboxFlags } from '../../agents/sandboxed.js';
import { UserError } from '../../core/errors.js';
import { JobCoordinator } from '../../jobs/coordinator.js';
import { parseShard } from '../../jobs/shard.js';
import { strengthenInstanceFile, type StrengthenSummary } from './strengthen-file.js';
import type { StageOneEngine, StrengthenStage } from './strengthen.js';
import { RULE_FAMILIES, type RuleFamily } from './mutants.js';

const STAGES: readonly StrengthenStage[] = ['coverage', 'mutation'];

/** The stages `--stages` names, in pipeline order. */
export function stagesFrom(list: string): StrengthenStage[] {
  const named = list.split(',').map((stage) => stage.trim());
  const unknown = named.filter((stage) => !STAGES.includes(stage as StrengthenStage));
  if (unknown.length > 0 || named.length === 0) {
    throw new UserError(
      `--stages takes coverage and mutation, comma-separated, not '${unknown.join(',') || list}'`,
    );
  }
  return STAGES.filter((stage) => named.includes(stage));
}

/** `--mutant-families`: some of the rules' families, comma-separated, in generation order. */
export function mutantFamiliesFrom(list: string): RuleFamily[] {
  const named = list.split(',').map((family) => family.trim());
  const unknown = named.filter((family) => !RULE_FAMILIES.includes(family as RuleFamily));
  if (unknown.length > 0) {
    throw new UserError(
      `--mutant-families takes ${RULE_FAMILIES.join(', ')}, comma-separated, not '${unknown.join(',')}'`,
    );
  }
  return RULE_FAMILIES.filter((family) => named.includes(family));
}

/* The strengthening stage's drivers: `witnessgym instances validate`, `witnessgym strengthen`. */

/** S0 over an instance file, `workers` instances at once, each with its own Maven runner. */
export async function validateInstances(
  instancesFile: string,
  options: { workers: number; again?: boolean },
  cache: CacheLayout,
  events: EventSink,
): Promise<ValidationSummary> {
  const mavens = Array.from({ length: options.workers }, () =>
    mavenTestRunner(mavenToolchain, cache),
  );
  try {
    return await validateInstanceFile(instancesFile, {
      cache,
      mavens,
      events,
      ...(options.again ? { again: true } : {}),
    });
  } finally {
    await Promise.all(mavens.map((maven) => maven.close()));
  }
}

/** What `witnessgym strengthen` is asked. */
export interface StrengthenStageOptions extends Partial<AgentFlags>, SandboxFlags {
  out: string;
  seed: number;
  engine: string;
  attempts: number;
  /** `--stages`: coverage (Stage I), mutation (Stage II), comma-separated. */
  stages: string;
  /** `--hold-out`: share of Stage II's surviving mutants no test is written for. */
  holdOut: number;
  /** `--mutants-per-family` (the rules' families). */
  mutantsPerFamily: number;
  /** `--mutant-families`: the rules' families, comma-separated. */
  mutantFamilies: string;
  /** `--agent-mutants`: mutants the agent engine asks for per instance. */
  agentMutants: number;
  /** `--allow-endpoint`, `--no-network`: as `evaluate`'s. */
  allowEndpoint?: string[];
  network?: boolean;
  /** A redis:// URL: each instance is strengthened as a job on its workers. */
  queue?: string;
  /** `--shard i/N`: only this machine's share of the instances. */
  shard?: string;
}

/** `witnessgym strengthen`: the engine the flags ask for, then every instance of the file. */
export async function strengthenInstances(
  instancesFile: string,
  options: StrengthenStageOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<StrengthenSummary> {
  const stages = stagesFrom(options.stages);
  const mutantFamilies = mutantFamiliesFrom(options.mutantFamilies);
  if (!(options.holdOut >= 0 && options.holdOut < 1)) {
    throw new UserError(`--hold-out must be at least 0 and below 1, not ${options.holdOut}`);
  }
  let engine: StageOneEngine;
  if (options.engine === 'deterministic') {
    if (options.agent !== undefined) {
      throw new UserError('--agent applies to --engine agent only');
    }
    engine = { kind: 'deterministic' };
  } else if (options.engine === 'agent') {
    if (options.agent === undefined) {
      throw new UserError(`--engine agent needs --agent (one of ${AGENT_NAMES.join(', ')})`);
    }
    const sandboxed = await sandboxedAgentFrom({
      ...options,
      agent: options.agent,
      agentTimeout: options.agentTimeout ?? 1800,
    });
    engine = {
      kind: 'agent',
      setup: {
        ...sandboxed,
        attempts: options.attempts,
        timeoutMs: (options.agentTimeout ?? 1800) * 1000,
        saveRun: async () => undefined,
        log: (line) => events.emit({ kind: 'Note', stage: 'strengthen', message: line }),
      },
    };
  } else {
    throw new UserError(`--engine must be deterministic or agent, not '${options.engine}'`);
  }
  if (options.queue && engine.kind !== 'deterministic') {
    throw new UserError('--queue runs the deterministic engine only: drop --engine agent');
  }
  const coordinator = options.queue ? await JobCoordinator.open(options.queue) : undefined;
  return strengthenInstanceFile(instancesFile, {
    out: options.out,
    seed: options.seed,
    engine,
    stages,
    holdOut: options.holdOut,
    mutantsPerFamily: options.mutantsPerFamily,
    mutantFamilies,
    agentMutants: options.agentMutants,
    cache,
    events,
    ...(coordinator ? { queue: coordinator } : {}),
    ...(options.shard ? { shard: parseShard(options.shard) } : {}),
  }).finally(() => coordinator?.close());
}

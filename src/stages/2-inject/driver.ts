import path from 'node:path';
import { AGENT_NAMES } from '../../agents/adapters/index.js';
import { agentAdapterFrom, type AgentFlags } from '../../agents/flags.js';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import type { EventSink } from '../../events/types.js';
import { resolveFetchedProject, type RecipeRequest } from '../../project/project.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { witnessContexts } from './contexts.js';
import { injectWithAgent } from './inject-agent.js';
import { injectWithRules } from './inject.js';
import type { InjectSummary } from './records.js';
import { loadBugTypeSpecs, selectBugTypes } from './spec.js';

/** What `witnessgym inject` is asked: the bug types, the witnesses, the engine and its budget. */
export interface InjectStageOptions extends AgentFlags, RecipeRequest {
  types: string;
  test?: string[];
  engine: 'rules' | 'agent';
  attempts: number;
  count: number;
  maxTries?: number;
  seed: number;
  out: string;
  collateralLimit: number;
}

/** The inject stage on a fetched project: bugs of the types asked for, with their witnesses. */
export async function runInject(
  projectArgument: string,
  options: InjectStageOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<InjectSummary> {
  const specs = selectBugTypes(await loadBugTypeSpecs(), options.types);
  const project = await resolveFetchedProject(projectArgument, cache, options);
  const out = path.resolve(options.out);
  const contexts = await witnessContexts(project, cache, events, options.test);
  if (contexts.length === 0) {
    throw new UserError(
      `no test class of ${project.label} passes and reaches production code: nothing to inject into`,
    );
  }
  const common = {
    cache,
    project,
    toolchain: mavenToolchain,
    specs,
    contexts,
    count: options.count,
    maxTries: options.maxTries ?? (options.engine === 'rules' ? 60 : 2 * options.count),
    seed: options.seed,
    out,
    collateralLimit: options.collateralLimit,
    mavenCheck: true,
    events,
  };
  if (options.engine === 'rules') {
    if (options.agent) throw new UserError('--agent applies to --engine agent only');
    return (await injectWithRules(common)).summary;
  }
  if (!options.agent) {
    throw new UserError(`--engine agent needs --agent <${AGENT_NAMES.join('|')}>`);
  }
  return injectWithAgent(common, {
    adapter: agentAdapterFrom({ ...options, agent: options.agent }),
    attempts: options.attempts,
    agentTimeoutMs: options.agentTimeout * 1000,
  });
}

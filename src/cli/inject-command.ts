import path from 'node:path';
import { UserError } from '../core/errors.js';
import { projectCache, type CacheLayout } from '../core/cache.js';
import type { EventSink } from '../events/types.js';
import { resolveFetchedProject } from '../project/project.js';
import { witnessContexts } from '../stages/2-inject/contexts.js';
import { AGENT_NAMES } from '../agents/adapters/index.js';
import { agentAdapterFrom, type AgentFlags } from './agent-flags.js';
import { injectWithAgent } from '../stages/2-inject/inject-agent.js';
import { injectWithRules } from '../stages/2-inject/inject.js';
import type { InjectSummary, TypeSummary } from '../stages/2-inject/records.js';
import { loadBugTypeSpecs, selectBugTypes } from '../stages/2-inject/spec.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';

export interface InjectCommandOptions extends AgentFlags {
  types: string;
  test?: string[];
  engine: 'rules' | 'agent';
  attempts: number;
  count: number;
  maxTries?: number;
  seed: number;
  out: string;
  recipe?: string;
  mavenArg?: string[];
  collateralLimit: number;
  json?: boolean;
}

/** Why a type got fewer bugs than asked for, in words. */
function shortfall(type: TypeSummary, summary: InjectSummary): string {
  if (type.ended === 'tries-exhausted') {
    return summary.engine.kind === 'agent'
      ? `its ${summary.maxTries} agent tasks (--max-tries) were spent`
      : `its ${summary.maxTries} tries (--max-tries) were spent; raise --max-tries to try more of its ${type.sitesFound ?? '?'} sites`;
  }
  if (type.sitesFound === 0) return 'no site of this type in the methods the witnesses reach';
  return `every one of its ${type.sitesFound} sites was tried (${rejections(type)})`;
}

function rejections(type: TypeSummary): string {
  const counts = Object.entries(type.rejectedBy).map(([stage, count]) => `${count} ${stage}`);
  return counts.length > 0 ? `rejected: ${counts.join(', ')}` : 'none rejected';
}

/** How widely the accepted bugs are spread: a benchmark of one method's variants says little. */
function coverageLine({ coverage }: InjectSummary): string {
  const { accepted, files, members, witnesses } = coverage;
  const count = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;
  return `${count(accepted, 'accepted bug', 'accepted bugs')} in ${count(files, 'file', 'files')} and ${count(members, 'method', 'methods')}, exposed by ${count(witnesses, 'witness class', 'witness classes')}`;
}

export function formatInjectSummary(summary: InjectSummary): string {
  const header = `${'type'.padEnd(46)} ${'sites'.padStart(6)} ${'tried'.padStart(6)} ${'accepted'.padStart(8)} ${'rate'.padStart(6)} ${'time'.padStart(8)}`;
  const rows = summary.types.map(
    (type) =>
      `${type.typeId.padEnd(46)} ${String(type.sitesFound ?? '-').padStart(6)} ${String(type.tried).padStart(6)} ${String(type.accepted).padStart(8)} ${`${Math.round(type.acceptanceRate * 100)}%`.padStart(6)} ${`${(type.durationMs / 1000).toFixed(1)} s`.padStart(8)}`,
  );
  const short = summary.types
    .filter((type) => type.ended !== 'count-reached')
    .map(
      (type) =>
        `  ${type.typeId}: ${type.accepted} of ${summary.wanted}, ${shortfall(type, summary)}`,
    );
  return [
    `${summary.project}: ${summary.engine.kind} engine, seed ${summary.seed}, ${(summary.durationMs / 1000).toFixed(1)} s`,
    header,
    ...rows,
    ...(short.length > 0
      ? [
          `${short.length} of ${summary.types.length} types fell short of --count ${summary.wanted}:`,
          ...short,
        ]
      : []),
    coverageLine(summary),
    `out: ${summary.out} (injections.jsonl, rejections.jsonl, summary.json${summary.engine.kind === 'agent' ? ', agent-runs/' : ''})`,
  ].join('\n');
}

/** `witnessgym inject`: returns the summary; the caller prints it and sets the exit code. */
export async function runInjectCommand(
  projectArgument: string,
  options: InjectCommandOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<InjectSummary> {
  const specs = selectBugTypes(await loadBugTypeSpecs(), options.types);
  const project = await resolveFetchedProject(projectArgument, cache, {
    ...(options.recipe ? { recipe: options.recipe } : {}),
    mavenArgs: options.mavenArg ?? [],
  });
  const out = path.resolve(options.out);
  const map = projectCache(cache, project.base);
  const contexts = await witnessContexts(project, cache, map, options.test, events);
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
    return injectWithRules(common);
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

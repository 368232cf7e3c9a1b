import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import type { PhaseClock } from '../../core/phase-clock.js';
import type { TransformMemo } from './memo.js';
import { AGENT_NAMES } from '../../agents/adapters/index.js';
import type { CacheLayout } from '../../core/cache.js';
import { UserError } from '../../core/errors.js';
import { exists } from '../../core/fs.js';
import { note, type EventSink } from '../../events/types.js';
import {
  pristineState,
  resolveFetchedProject,
  type ProjectRef,
  type RecipeRequest,
} from '../../project/project.js';
import { WorkingCopy } from '../../project/working-copy.js';
import { appendRecords, readRecords, writeRecordFile } from '../../records/record.js';
import { jvmTestRunner } from '../../runners/jvm.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { witnessContexts } from '../2-inject/contexts.js';
import { InjectionLine } from '../2-inject/records.js';
import { agentSource, type AgentStepOptions } from './agent-source.js';
import { TransformAgentRunFile } from './agent-task/report.js';
import { deterministicSource, type CandidateSource } from './candidates.js';
import { operatorFor } from './operators/index.js';
import { loadTransformSpecs, selectTransforms, type TransformSpec } from './spec.js';
import {
  createTransformer,
  transformId,
  TransformLine,
  type TransformOptions,
  type TransformRecord,
  type Transformer,
} from './transform.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { TestRunner } from '../../runners/types.js';
import { JvmRunner } from '../../toolchains/jvm/runner.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { agentAdapterFrom, type AgentFlags } from '../../agents/flags.js';

/** What `witnessgym transform` is asked: the inject output, the operator sequence, the engine. */
export interface TransformStageOptions extends AgentFlags, RecipeRequest {
  from: string;
  engine: 'deterministic' | 'agent';
  transforms: string;
  out: string;
  maven: boolean;
  candidates: number;
  otherClasses: number;
}

export interface TransformSummary {
  project: string;
  sequence: string[];
  /** `deterministic`, or the agent's name. */
  engine: string;
  out: string;
  kept: number;
  short: number;
  /** Cases decided by an earlier run into the same directory. */
  resumed: number;
  durationMs: number;
}

/** The transform stage: the operator sequence on every injection of an inject output. */
export async function runTransform(
  projectArgument: string,
  options: TransformStageOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<TransformSummary> {
  const started = Date.now();
  const all = await loadTransformSpecs();
  const specs = selectTransforms(all, options.transforms);
  const sourcesFor = stepSources(specs, all, options);
  const out = path.resolve(options.out);
  const injectionsFile = path.join(path.resolve(options.from), 'injections.jsonl');
  if (!(await exists(injectionsFile))) {
    throw new UserError(
      `${injectionsFile} does not exist: pass the --out directory of an inject run`,
    );
  }
  const project = await resolveFetchedProject(projectArgument, cache, options);
  const sources = sourcesFor({ project, events, out });
  const injections = (await readRecords(injectionsFile, InjectionLine)).records.filter(
    (record) =>
      record.state.base.name === project.base.name &&
      record.state.base.commit === project.base.commit,
  );
  if (injections.length === 0) {
    throw new UserError(`${injectionsFile} holds no injection into ${project.label}`);
  }
  const casesFile = path.join(out, 'transformed.jsonl');
  const sequence = sources.map((source) => source.id);
  const done = new Set(
    (await readRecords(casesFile, TransformLine)).records.map((record) => record.id),
  );
  const todo = injections.filter((injection) => !done.has(transformId(injection, sources)));
  const contexts = await witnessContexts(project, cache, events);
  const { transformer, close } = await openTransformer({
    cache,
    project,
    contexts,
    copyName: 'transform',
    maven: options.maven,
    otherClassLimit: options.otherClasses,
    events,
  });
  const decided: TransformRecord[] = [];
  try {
    for (const injection of todo) {
      const record = await transformer.transform(injection, sources);
      // Each case is appended as soon as it is decided, so an interrupted run loses none.
      await appendRecords(casesFile, TransformLine, [record]);
      decided.push(record);
    }
  } finally {
    await close();
  }
  return {
    project: project.label,
    sequence,
    engine: options.engine === 'agent' ? options.agent! : 'deterministic',
    out,
    kept: decided.filter((record) => record.outcome.kind === 'Kept').length,
    short: decided.filter((record) => record.outcome.kind === 'Short').length,
    resumed: injections.length - todo.length,
    durationMs: Date.now() - started,
  };
}

/**
 * Each step's source, once the project is known: the operator's code, or the agent `--agent`
 * names (its runs kept in out). Flags and operators are checked at once, before any work.
 */
export function stepSources(
  specs: readonly TransformSpec[],
  all: readonly TransformSpec[],
  options: TransformStageOptions,
): (context: { project: ProjectRef; events: EventSink; out: string }) => CandidateSource[] {
  if (options.engine === 'deterministic') {
    if (options.agent) throw new UserError('--agent applies to --engine agent only');
    const sources = specs.map((spec) => deterministicSource(operatorFor(spec), options.candidates));
    return () => sources;
  }
  if (!options.agent) {
    throw new UserError(`--engine agent needs --agent <${AGENT_NAMES.join('|')}>`);
  }
  const adapter = agentAdapterFrom({ ...options, agent: options.agent });
  return ({ project, events, out }) => {
    const runs = path.join(out, 'agent-runs');
    const stepOptions: AgentStepOptions = {
      adapter,
      project,
      agentTimeoutMs: options.agentTimeout * 1000,
      operatorNames: new Map(all.map((spec) => [spec.id, spec.operator])),
      saveRun: async (id, result) => {
        await mkdir(runs, { recursive: true });
        await writeRecordFile(path.join(runs, `${id}.json`), TransformAgentRunFile, result);
      },
      log: (line) => note(events, 'agent', line),
    };
    return specs.map((spec) => agentSource(spec, stepOptions));
  };
}

/** What a transformer is set up with, besides the working copy and runners it opens. */
export interface TransformerSetup {
  cache: CacheLayout;
  project: ProjectRef;
  contexts: readonly ExecutionContextRecord[];
  /** The working copy's name, distinct among the copies open at once. */
  copyName: string;
  /** Confirm each kept case's final state with Maven. */
  maven: boolean;
  otherClassLimit: number;
  validation?: TransformOptions['validation'];
  events: EventSink;
  /** A warm JVM shared beyond this transformer, left running on close; its own otherwise. */
  jvm?: JvmRunner;
  /** The runner steps are validated with, given the warm JVM; the JVM's runner by default. */
  fast?: (jvm: JvmRunner) => TestRunner;
  /** Where the transformations' time goes (see TransformOptions.clock). */
  clock?: PhaseClock;
  /** Shared with the other transformers of a build (see TransformMemo). */
  memo?: TransformMemo;
}

export interface OpenTransformer {
  transformer: Transformer;
  /** Stops the runners and removes the working copy. */
  close(): Promise<void>;
}

/** A transformer in a working copy of its own, with the runners it validates with. */
export async function openTransformer(setup: TransformerSetup): Promise<OpenTransformer> {
  const { cache, project } = setup;
  const copy = await WorkingCopy.create(
    project.root,
    pristineState(project),
    project.layout,
    setup.copyName,
  );
  const jvm = setup.jvm ?? new JvmRunner(cache);
  const fast = setup.fast ? setup.fast(jvm) : jvmTestRunner(cache, jvm);
  const maven = setup.maven ? mavenTestRunner(mavenToolchain, cache) : null;
  const close = async () => {
    await maven?.close();
    await fast.close();
    if (!setup.jvm) await jvm.close();
    await copy.close();
  };
  try {
    const transformer = await createTransformer({
      cache,
      project,
      copy,
      fast,
      maven,
      contexts: setup.contexts,
      otherClassLimit: setup.otherClassLimit,
      ...(setup.validation ? { validation: setup.validation } : {}),
      ...(setup.clock ? { clock: setup.clock } : {}),
      ...(setup.memo ? { memo: setup.memo } : {}),
      events: setup.events,
    });
    return { transformer, close };
  } catch (error) {
    await close();
    throw error;
  }
}

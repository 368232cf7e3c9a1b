import path from 'node:path';
import { projectCache, type CacheLayout } from '../core/cache.js';
import { UserError } from '../core/errors.js';
import { exists } from '../core/fs.js';
import type { EventSink } from '../events/types.js';
import { pristineState, resolveFetchedProject } from '../project/project.js';
import { WorkingCopy } from '../project/working-copy.js';
import { appendRecords, readRecords } from '../records/record.js';
import { jvmTestRunner } from '../runners/jvm.js';
import { mavenTestRunner } from '../runners/maven.js';
import { witnessContexts } from '../stages/2-inject/contexts.js';
import { InjectionLine } from '../stages/2-inject/records.js';
import { operatorFor } from '../stages/3-transform/operators/index.js';
import { loadTransformSpecs, selectTransforms } from '../stages/3-transform/spec.js';
import {
  transformId,
  transformInjections,
  TransformLine,
  type TransformRecord,
} from '../stages/3-transform/transform.js';
import { JvmRunner } from '../toolchains/jvm/runner.js';
import { mavenToolchain } from '../toolchains/maven/maven.js';

export interface TransformCommandOptions {
  from: string;
  transforms: string;
  out: string;
  maven: boolean;
  candidates: number;
  otherClasses: number;
  recipe?: string;
  mavenArg?: string[];
}

export interface TransformSummary {
  project: string;
  sequence: string[];
  out: string;
  kept: number;
  short: number;
  /** Cases decided by an earlier run into the same directory. */
  resumed: number;
  durationMs: number;
}

/** `witnessgym transform`: the operator sequence on every injection of an inject output. */
export async function runTransformCommand(
  projectArgument: string,
  options: TransformCommandOptions,
  cache: CacheLayout,
  events: EventSink,
): Promise<TransformSummary> {
  const started = Date.now();
  const specs = selectTransforms(await loadTransformSpecs(), options.transforms);
  const operators = specs.map(operatorFor);
  const injectionsFile = path.join(path.resolve(options.from), 'injections.jsonl');
  if (!(await exists(injectionsFile))) {
    throw new UserError(
      `${injectionsFile} does not exist: pass the --out directory of an inject run`,
    );
  }
  const project = await resolveFetchedProject(projectArgument, cache, {
    ...(options.recipe ? { recipe: options.recipe } : {}),
    mavenArgs: options.mavenArg ?? [],
  });
  const injections = (await readRecords(injectionsFile, InjectionLine)).records.filter(
    (record) =>
      record.state.base.name === project.base.name &&
      record.state.base.commit === project.base.commit,
  );
  if (injections.length === 0) {
    throw new UserError(`${injectionsFile} holds no injection into ${project.label}`);
  }
  const out = path.resolve(options.out);
  const casesFile = path.join(out, 'transformed.jsonl');
  const sequence = operators.map((operator) => operator.id);
  const done = new Set(
    (await readRecords(casesFile, TransformLine)).records.map((record) => record.id),
  );
  const todo = injections.filter((injection) => !done.has(transformId(injection.id, sequence)));
  const contexts = await witnessContexts(
    project,
    cache,
    projectCache(cache, project.base),
    undefined,
    events,
  );
  const copy = await WorkingCopy.create(
    project.root,
    pristineState(project),
    project.layout,
    'transform',
  );
  const jvm = new JvmRunner(cache);
  const maven = options.maven ? mavenTestRunner(mavenToolchain, cache) : null;
  const decided: TransformRecord[] = [];
  try {
    await transformInjections(
      todo,
      operators,
      {
        cache,
        project,
        copy,
        fast: jvmTestRunner(cache, jvm),
        maven,
        contexts,
        otherClassLimit: options.otherClasses,
        candidatesPerStep: options.candidates,
        events,
      },
      async (record) => {
        // Each case is appended as soon as it is decided, so an interrupted run loses none.
        await appendRecords(casesFile, TransformLine, [record]);
        decided.push(record);
      },
    );
  } finally {
    await maven?.close();
    await jvm.close();
    await copy.close();
  }
  return {
    project: project.label,
    sequence,
    out,
    kept: decided.filter((record) => record.outcome.kind === 'Kept').length,
    short: decided.filter((record) => record.outcome.kind === 'Short').length,
    resumed: injections.length - todo.length,
    durationMs: Date.now() - started,
  };
}

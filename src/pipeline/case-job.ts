import path from 'node:path';
import { z } from 'zod';
import { GivenAwaySchema, SuiteCheckSchema } from '../checks/suite.js';
import { sha256Text } from '../core/fs.js';
import { silent } from '../events/types.js';
import { ArtefactStore } from '../jobs/artefacts.js';
import type { JobCoordinator } from '../jobs/coordinator.js';
import type { JobKind } from '../jobs/kind.js';
import type { FetchedProjectRef } from '../project/project.js';
import { RecipeSchema } from '../project/recipe.js';
import { projectOnHost } from '../stages/0-corpus/on-host.js';
import { ExecutionContextLine } from '../stages/1-trace/trace.js';
import { InjectionLine } from '../stages/2-inject/records.js';
import { deterministicSource } from '../stages/3-transform/candidates.js';
import { openTransformer } from '../stages/3-transform/driver.js';
import { operatorFor } from '../stages/3-transform/operators/index.js';
import { loadTransformSpecs } from '../stages/3-transform/spec.js';
import { TransformLine } from '../stages/3-transform/transform.js';
import { JvmRunner } from '../toolchains/jvm/runner.js';
import { caseUnitOf, type CaseUnit } from './pipeline.js';
import { WholeSuite } from './whole-suite.js';

/*
 * A build's unit as a job: a bug, a cell's operator sequence, and the settings the transformation
 * and the whole-suite check run with. The witnesses' execution contexts go by hash through the
 * build directory (which every host mounts); the worker returns the transformation record and
 * the kept case's suite check (or the suite check that refused the bug before its steps), and the
 * coordinator writes them, the ledger and the archive.
 */

const BuildCaseJobPayloadSchema = z.strictObject({
  /** Where the build's artefacts are: `<out>/build/artefacts`. */
  out: z.string(),
  recipe: RecipeSchema,
  base: z.strictObject({
    name: z.string(),
    version: z.string(),
    commit: z.string(),
    recipeHash: z.string(),
  }),
  /** The project's execution contexts, a JSON array stored by this hash. */
  contexts: z.string(),
  injection: InjectionLine.schema,
  sequence: z.array(z.string()),
  candidates: z.number().int().positive(),
  maven: z.boolean(),
  otherClassLimit: z.number().int().nonnegative(),
  coWitnesses: z.enum(['refuse', 'hide']),
  /** An earlier run's transformation of the bug: only its suite check is left. */
  transformed: TransformLine.schema.optional(),
});
type BuildCaseJobPayload = z.infer<typeof BuildCaseJobPayloadSchema>;

const BuildCaseJobResultSchema = z.discriminatedUnion('kind', [
  z.strictObject({
    kind: z.literal('Transformed'),
    record: TransformLine.schema,
    suite: SuiteCheckSchema.optional(),
  }),
  z.strictObject({
    kind: z.literal('GivenAwayBeforeSteps'),
    suite: GivenAwaySchema,
  }),
]);

function buildArtefacts(out: string): ArtefactStore {
  return new ArtefactStore(path.join(out, 'build', 'artefacts'));
}

export const buildCaseJob: JobKind<
  BuildCaseJobPayload,
  z.infer<typeof BuildCaseJobResultSchema>
> = {
  name: 'build-case',
  queue: 'build',
  payload: BuildCaseJobPayloadSchema,
  result: BuildCaseJobResultSchema,
  label: (payload) =>
    `${payload.base.name}@${payload.base.version} ${payload.injection.id} depth ${payload.sequence.length}`,
  async run(payload, context) {
    const { cache } = context;
    const project = await projectOnHost(payload.recipe, payload.base, cache);
    const contexts = z
      .array(ExecutionContextLine.schema)
      .parse(JSON.parse(await buildArtefacts(payload.out).get(payload.contexts)));
    const specs = await loadTransformSpecs();
    const sources = payload.sequence.map((id) => {
      const spec = specs.find((candidate) => candidate.id === id);
      if (!spec) throw new Error(`this witnessgym has no transformation operator '${id}'`);
      return deterministicSource(operatorFor(spec), payload.candidates);
    });
    const jvm = new JvmRunner(cache, 2);
    const transformer = await openTransformer({
      cache,
      project,
      contexts,
      copyName: 'unit',
      // The whole suite's Maven run confirms the witness too.
      maven: false,
      otherClassLimit: payload.otherClassLimit,
      events: silent,
      jvm,
    });
    try {
      const suite = await WholeSuite.open({
        cache,
        project,
        contexts,
        jvm,
        copyName: 'unit-suite',
        maven: payload.maven,
      });
      try {
        const unit = caseUnitOf({ ...transformer, suite }, payload.coWitnesses, specs);
        return await unit(payload.injection, sources, payload.transformed);
      } finally {
        await suite.close();
      }
    } finally {
      await transformer.close();
      await jvm.close();
    }
  },
};

/** The build's units of a project as jobs on `coordinator`'s queue (see BuildOptions.queuedUnit). */
export function queuedCaseUnit(
  coordinator: JobCoordinator,
  settings: Pick<
    BuildCaseJobPayload,
    'out' | 'candidates' | 'maven' | 'otherClassLimit' | 'coWitnesses'
  >,
) {
  return async (project: FetchedProjectRef, contexts: readonly unknown[]): Promise<CaseUnit> => {
    const contextsHash = await buildArtefacts(settings.out).put(JSON.stringify(contexts));
    return async (injection, sources, transformed) => {
      const payload: BuildCaseJobPayload = {
        ...settings,
        recipe: project.recipe,
        base: project.base,
        contexts: contextsHash,
        injection,
        sequence: sources.map((source) => source.id),
        ...(transformed ? { transformed } : {}),
      };
      const key = sha256Text(JSON.stringify({ job: buildCaseJob.name, payload }));
      return coordinator.submit(buildCaseJob, key, payload);
    };
  };
}

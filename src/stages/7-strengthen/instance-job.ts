import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import { errorMessage } from '../../core/errors.js';
import { sha256Text } from '../../core/fs.js';
import { PhaseClock } from '../../core/phase-clock.js';
import { ArtefactStore } from '../../jobs/artefacts.js';
import type { JobCoordinator } from '../../jobs/coordinator.js';
import type { JobKind } from '../../jobs/kind.js';
import { RepairInstanceSchema, type RepairInstance } from '../../repair/instance.js';
import { resolveInstance } from '../../repair/project.js';
import { mavenTestRunner } from '../../runners/maven.js';
import { timeLimit } from '../../runners/time-limits.js';
import { withTimeLimit } from '../../runners/wrappers.js';
import { isolatedJavaSetup } from '../../sandbox/java-runs.js';
import { mavenToolchain } from '../../toolchains/maven/maven.js';
import { RULE_FAMILIES } from './mutants.js';
import {
  strengthenInstance,
  type InstanceStrengthening,
  type StageOneEngine,
  type StrengthenSetup,
} from './strengthen.js';

/*
 * One instance's strengthening, run here or as a job on a queue's worker: the instance record and
 * its settings go in the payload (its snapshot by a path every host mounts); the outcome, which
 * carries its tests and mutants, goes back by hash through the output directory's artefacts.
 */

/** What an instance's strengthening runs with besides its engine. */
export type InstanceSettings = Pick<
  StrengthenSetup,
  'seed' | 'stages' | 'holdOut' | 'mutantsPerFamily' | 'mutantFamilies' | 'agentMutants'
>;

export interface InstanceUnitResult {
  outcome: InstanceStrengthening;
  /** Where its time went (PhaseClock's summary): for the log, never the report. */
  clock: string;
}

/** A Maven runner and the Java sandbox shared by the instances strengthened in one process. */
export async function openInstanceRunner(cache: CacheLayout) {
  const maven = withTimeLimit(mavenTestRunner(mavenToolchain, cache), () =>
    timeLimit('maven', 'run', undefined),
  );
  const java = await isolatedJavaSetup();
  return {
    async strengthen(
      instance: RepairInstance,
      fileDir: string,
      settings: InstanceSettings & { engine: StageOneEngine },
    ): Promise<InstanceUnitResult> {
      const clock = new PhaseClock();
      let outcome: InstanceStrengthening;
      try {
        const subject = await resolveInstance(instance, fileDir, cache);
        outcome = await strengthenInstance(subject, { ...settings, cache, maven, java, clock });
      } catch (error) {
        outcome = { kind: 'NotSliced', reason: `harness fault: ${errorMessage(error)}` };
      }
      return { outcome, clock: clock.summary() };
    },
    close: () => maven.close(),
  };
}

const InstanceJobPayloadSchema = z.strictObject({
  instance: RepairInstanceSchema,
  /** The instance file's directory, which its snapshot path is relative to. */
  fileDir: z.string(),
  /** The output directory, whose artefacts the outcome goes to. */
  out: z.string(),
  seed: z.number().int(),
  stages: z.array(z.enum(['coverage', 'mutation'])),
  holdOut: z.number(),
  mutantsPerFamily: z.number().int(),
  mutantFamilies: z.array(z.enum(RULE_FAMILIES)),
  agentMutants: z.number().int(),
});
type InstanceJobPayload = z.infer<typeof InstanceJobPayloadSchema>;

const InstanceJobResultSchema = z.strictObject({
  /** The outcome's JSON, stored by this hash. */
  outcome: z.string(),
  clock: z.string(),
});

function outcomeArtefacts(out: string): ArtefactStore {
  return new ArtefactStore(path.join(out, 'artefacts'));
}

export const strengthenInstanceJob: JobKind<
  InstanceJobPayload,
  z.infer<typeof InstanceJobResultSchema>
> = {
  name: 'strengthen-instance',
  queue: 'strengthen',
  payload: InstanceJobPayloadSchema,
  result: InstanceJobResultSchema,
  label: (payload) => `${payload.instance.instance_id} (${payload.stages.join(', ')})`,
  async run(payload, context) {
    const { instance, fileDir, out, ...settings } = payload;
    const runner = await openInstanceRunner(context.cache);
    try {
      const { outcome, clock } = await runner.strengthen(instance, fileDir, {
        ...settings,
        engine: { kind: 'deterministic' },
      });
      return { outcome: await outcomeArtefacts(out).put(JSON.stringify(outcome)), clock };
    } finally {
      await runner.close();
    }
  },
};

/** An instance strengthened by the deterministic engine on one of the queue's workers. */
export async function queuedInstance(
  coordinator: JobCoordinator,
  payload: InstanceJobPayload,
): Promise<InstanceUnitResult> {
  const key = sha256Text(JSON.stringify({ job: strengthenInstanceJob.name, payload }));
  const result = await coordinator.submit(strengthenInstanceJob, key, payload);
  // Written by this witnessgym's own worker from the same types: read back as it was made.
  const outcome = JSON.parse(
    await outcomeArtefacts(payload.out).get(result.outcome),
  ) as InstanceStrengthening;
  return { outcome, clock: result.clock };
}

import { runPool } from '../../core/pool.js';
import path from 'node:path';
import { z } from 'zod';
import type { CacheLayout } from '../../core/cache.js';
import type { EventSink } from '../../events/types.js';
import { appendRecords, defineRecord, readRecords, recordId } from '../../records/record.js';
import { readInstanceFile } from '../../repair/read.js';
import { resolveInstance } from '../../repair/project.js';
import type { TestRunner } from '../../runners/types.js';
import { validateInstance, type InstanceValidity } from './validate.js';

/*
 * `witnessgym instances validate <instances.jsonl>`: S0 for every instance, resumably. Each
 * outcome is appended as it is decided, keyed by the instance's content (an edited instance is
 * validated again); a rerun redoes only what has no outcome.
 */

const Side = z.enum(['base', 'gold']);
const ValiditySchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('Valid'), instanceId: z.string(), durationMs: z.number() }),
  z.strictObject({
    kind: z.literal('Invalid'),
    instanceId: z.string(),
    side: Side,
    problems: z.array(z.string()),
    durationMs: z.number(),
  }),
  z.strictObject({
    kind: z.literal('Flaky'),
    instanceId: z.string(),
    side: Side,
    classes: z.array(z.string()),
    durationMs: z.number(),
  }),
  z.strictObject({
    kind: z.literal('Broken'),
    instanceId: z.string(),
    side: Side,
    reason: z.string(),
    durationMs: z.number(),
  }),
]);

export const ValidationLine = defineRecord({
  kind: 'instance-validation',
  version: 1,
  schema: z.strictObject({
    /** Content id of the instance validated. */
    instance: z.string(),
    outcome: ValiditySchema,
    at: z.string(),
  }),
});

export function validationFile(instancesFile: string): string {
  return path.join(path.dirname(path.resolve(instancesFile)), 'validation.jsonl');
}

export interface ValidationSummary {
  file: string;
  instances: number;
  /** Decided by an earlier run and not redone. */
  earlier: number;
  outcomes: InstanceValidity[];
  durationMs: number;
}

/** The S0 outcome recorded for each instance of a file, by instance id (latest wins). */
export async function recordedValidity(
  instancesFile: string,
): Promise<Map<string, { instance: string; outcome: InstanceValidity }>> {
  const recorded = new Map<string, { instance: string; outcome: InstanceValidity }>();
  for (const line of (await readRecords(validationFile(instancesFile), ValidationLine)).records) {
    recorded.set(line.outcome.instanceId, line);
  }
  return recorded;
}

export async function validateInstanceFile(
  instancesFile: string,
  options: {
    cache: CacheLayout;
    mavens: readonly TestRunner[];
    events: EventSink;
    again?: boolean;
  },
): Promise<ValidationSummary> {
  const started = Date.now();
  const instances = await readInstanceFile(instancesFile);
  const file = validationFile(instancesFile);
  const recorded = options.again ? new Map() : await recordedValidity(instancesFile);
  const queue = instances.filter(
    (instance) => recorded.get(instance.instance_id)?.instance !== recordId(instance),
  );
  const outcomes: InstanceValidity[] = [];
  const subject = path.basename(instancesFile);
  options.events.emit({
    kind: 'StageStarted',
    stage: 'validate',
    subject,
    total: queue.length,
    unit: 'instances',
  });
  await runPool(queue, { workers: options.mavens.length }, async (instance, worker) => {
    const maven = options.mavens[worker]!;
    const resolved = await resolveInstance(
      instance,
      path.dirname(path.resolve(instancesFile)),
      options.cache,
    );
    const outcome = await validateInstance(resolved, { maven });
    await appendRecords(file, ValidationLine, [
      { instance: recordId(instance), outcome, at: new Date().toISOString() },
    ]);
    outcomes.push(outcome);
    options.events.emit({
      kind: 'ItemDone',
      stage: 'validate',
      done: outcomes.length,
      total: queue.length,
      item: instance.instance_id,
      outcome:
        outcome.kind === 'Valid'
          ? 'valid'
          : `${outcome.kind.toLowerCase()} on the ${outcome.side} tree`,
    });
  });
  options.events.emit({
    kind: 'StageFinished',
    stage: 'validate',
    subject,
    durationMs: Date.now() - started,
  });
  return {
    file,
    instances: instances.length,
    earlier: instances.length - queue.length,
    outcomes: outcomes.sort((a, b) => (a.instanceId < b.instanceId ? -1 : 1)),
    durationMs: Date.now() - started,
  };
}

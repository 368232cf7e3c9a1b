import path from 'node:path';
import { z } from 'zod';
import { sha256Text } from '../../core/fs.js';
import { ArtefactStore } from '../../jobs/artefacts.js';
import { UnitRefused, type JobKind } from '../../jobs/kind.js';
import { RecipeSchema } from '../../project/recipe.js';
import { projectOnHost } from '../0-corpus/on-host.js';
import { benchLayout, readCaseFile } from '../4-archive/archive.js';
import { evaluationAgent, AgentRequestSchema } from './agent-request.js';
import { openItemSession } from './attempt.js';
import { AttemptRowSchema, SettingSchema } from './records.js';
import { scorerTools } from './score.js';

/*
 * An evaluation attempt as a job: the payload names the case by path and id (the benchmark and
 * the run directory are on a path every host mounts), carries the item's earlier rows for the
 * prompt's feedback, and the agent's flags; the worker runs the attempt (attempt.ts) and returns
 * its row, its texts stored by hash beside the run.
 */

export const AttemptJobPayloadSchema = z.strictObject({
  bench: z.string(),
  runDir: z.string(),
  caseId: z.string(),
  /** The recipe of the case's project: a worker without it fetches it by this. */
  recipe: RecipeSchema,
  setting: SettingSchema,
  attempt: z.number().int().positive(),
  /** The attempts the item is given. */
  attempts: z.number().int().positive(),
  previous: z.array(AttemptRowSchema),
  agent: AgentRequestSchema,
  agentTimeoutMs: z.number().int().positive(),
  verifyTimeoutMs: z.number().int().positive(),
  /** The item's budget: what the earlier attempts used is taken off. */
  caseTimeoutMs: z.number().int().positive(),
  runs: z.number().int().positive(),
  screen: z.boolean(),
  faultRetries: z.number().int().nonnegative(),
  faultsBefore: z.number().int().nonnegative(),
});
export type AttemptJobPayload = z.infer<typeof AttemptJobPayloadSchema>;

export const AttemptJobResultSchema = z.strictObject({
  row: AttemptRowSchema,
  /** Hashes of the row's texts in the run's artefact directory. */
  texts: z.array(z.string()),
  faults: z.array(z.string()),
});
export type AttemptJobResult = z.infer<typeof AttemptJobResultSchema>;

/** Where a run's workers leave the texts of its attempts. */
export function attemptArtefacts(runDir: string): ArtefactStore {
  return new ArtefactStore(path.join(runDir, 'artefacts'));
}

/** The attempt's job id: its run and everything its payload asks, hashed. */
export function attemptJobKey(runId: string, payload: AttemptJobPayload): string {
  return sha256Text(JSON.stringify({ job: evaluateAttemptJob.name, runId, payload }));
}

export const evaluateAttemptJob: JobKind<AttemptJobPayload, AttemptJobResult> = {
  name: 'evaluate-attempt',
  queue: 'evaluate',
  payload: AttemptJobPayloadSchema,
  result: AttemptJobResultSchema,
  label: (payload) =>
    `${payload.caseId} ${payload.setting} ${payload.agent.agent} attempt ${payload.attempt}`,
  async run(payload, context) {
    const bench = benchLayout(payload.bench);
    const caseDir = bench.caseDir(payload.caseId);
    let record;
    try {
      record = await readCaseFile(caseDir);
    } catch (error) {
      throw new UnitRefused(`case ${payload.caseId} cannot be read on this host: ${String(error)}`);
    }
    await projectOnHost(payload.recipe, record.project, context.cache);
    const session = await openItemSession(
      bench.root,
      caseDir,
      record,
      payload.setting,
      path.join(context.workDir, 'item'),
      {
        cache: context.cache,
        agent: await evaluationAgent(payload.agent),
        attempts: payload.attempts,
        agentTimeoutMs: payload.agentTimeoutMs,
        verifyTimeoutMs: payload.verifyTimeoutMs,
        runs: payload.runs,
        screen: payload.screen,
        faultRetries: payload.faultRetries,
        tools: { ...(await scorerTools()), screen: payload.screen ? 'on' : 'off' },
      },
    );
    try {
      const used = payload.previous.reduce((sum, row) => sum + row.agentMs + row.verifyMs, 0);
      const outcome = await session.attempt({
        attempt: payload.attempt,
        previous: payload.previous,
        deadline: Date.now() + Math.max(0, payload.caseTimeoutMs - used),
        faultsBefore: payload.faultsBefore,
        beforeAgent: () => undefined,
      });
      const artefacts = attemptArtefacts(payload.runDir);
      const texts = [];
      for (const text of outcome.texts) texts.push(await artefacts.put(text));
      return { row: outcome.row, texts, faults: outcome.faults };
    } finally {
      await session.dispose();
    }
  },
};

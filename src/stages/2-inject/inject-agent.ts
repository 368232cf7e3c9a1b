import path from 'node:path';
import type { AttemptJudgement } from '../../agents/engine.js';
import { specText, type AgentAdapter, type AgentSpec } from '../../agents/types.js';
import { copyProjectTree, makeTempDir, removeTree, sha256Text } from '../../core/fs.js';
import { packageRoot } from '../../core/package-root.js';
import { note } from '../../events/types.js';
import { shellJoin } from '../../core/process.js';
import type { FileChange } from '../../core/file-change.js';
import type { ProjectRef } from '../../project/project.js';
import { testSourceFile } from '../../toolchains/layout.js';
import { workspaceChanges } from '../../agents/workspace-changes.js';
import { PROMPT_VERSION } from './agent-task/prompts.js';
import { runAgentInjection, type AgentInjectionResult } from './agent-task/task.js';
import {
  bugTypeRef,
  recordOutcome,
  typeRandom,
  announceType,
  typeSummary,
  withValidationSession,
  writeRunSummary,
  type InjectOptions,
} from './session.js';
import { AgentRunFile, type EngineRef, type InjectSummary, type TypeSummary } from './records.js';
import { writeRecordFile } from '../../records/record.js';
import { injectorFor } from './rules/index.js';
import { specHash } from './spec.js';
import { rejectionWithoutChecks, type ValidationOutcome } from './validate.js';
import { shuffled } from '../../core/random.js';

export interface AgentEngineOptions {
  adapter: AgentAdapter;
  /** Attempts per task (the paper's 3), the workspace reset before each. */
  attempts: number;
  /** Limit for one agent run. */
  agentTimeoutMs: number;
}

/** The command an agent runs to see whether its witness fails: the fast runner on its copy. */
export function replayCommandFor(project: ProjectRef, witness: string): string {
  return shellJoin([
    'node',
    path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js'),
    'replay',
    '.',
    ...(project.recipe ? ['--recipe', project.recipe.name] : []),
    '--test',
    witness,
    '--runner',
    'jvm',
  ]);
}

function lastReason(result: AgentInjectionResult): string {
  const judgement = result.attempts.at(-1)?.judgement;
  if (judgement?.kind === 'Rejected') return judgement.reason;
  return 'the agent did not start';
}

function judgementOf(outcome: ValidationOutcome): AttemptJudgement {
  if (outcome.kind === 'Accepted') {
    return {
      kind: 'Accepted',
      summary: `${outcome.evidence.failure.kind} in ${outcome.evidence.failure.testMethod}: ${outcome.evidence.structure}`,
    };
  }
  const verdict = outcome.verdict ? ` Verdict: ${outcome.verdict}.` : '';
  return {
    kind: 'Rejected',
    reason: `${outcome.stage}: ${outcome.reason}`,
    feedback: `The harness rejected the change at the ${outcome.stage} check: ${outcome.reason}.${verdict}`,
  };
}

/** What decides an agent task's result: the job (the payload), who does it and how it is asked. */
export interface AgentTaskIdParts {
  /** The state the agent starts from. */
  stateId: string;
  typeId: string;
  adapter: AgentSpec;
  attempts: number;
  /** The bug type's spec as it reads now: an edited spec gets new tasks. */
  specHash: string;
  seed: number;
  /** The task's index among the type's tasks, which picks its witness. */
  task: number;
}

/**
 * A task's content-addressed id. A run with another model, attempt budget or prompt version
 * gets other ids, so it never takes a result of this one for its own.
 */
export function agentTaskId(parts: AgentTaskIdParts): string {
  return sha256Text(
    [
      parts.stateId,
      parts.typeId,
      parts.specHash,
      'agent',
      specText(parts.adapter),
      parts.attempts,
      PROMPT_VERSION,
      parts.seed,
      parts.task,
    ].join('\0'),
  ).slice(0, 16);
}

/**
 * Stage 2 with a coding agent: per bug type, tasks (one witness each, in seeded order) of up to
 * `attempts` agent runs in a workspace reset before each run. The harness judges every attempt
 * itself — the same validation as the rules engine, on the changes it finds in the workspace.
 */
export async function injectWithAgent(
  options: InjectOptions,
  agent: AgentEngineOptions,
): Promise<InjectSummary> {
  return withValidationSession(options, async (session) => {
    // Outside the output and the cache, which hold the answers (accepted bugs, pristine sources).
    const scratch = await makeTempDir('inject-agent');
    const workspace = path.join(scratch, 'workspace');
    const reset = async () => {
      await removeTree(workspace);
      await copyProjectTree(options.project.root, workspace);
    };
    const types: TypeSummary[] = [];
    const engine: EngineRef = {
      kind: 'agent',
      agent: agent.adapter.spec,
      attempts: agent.attempts,
      promptVersion: PROMPT_VERSION,
    };
    try {
      for (const [index, spec] of options.specs.entries()) {
        const typeStarted = performance.now();
        const injector = injectorFor(spec.id);
        announceType(options, index, spec, null);
        const witnesses = shuffled(session.witnessOrder, typeRandom(options.seed, spec.id));
        for (let task = 0; task < options.maxTries; task++) {
          const tally = session.output.tally(bugTypeRef(spec), options.project.base, engine);
          if (tally.accepted >= options.count) break;
          const witness = witnesses[task % witnesses.length]!;
          const id = agentTaskId({
            stateId: session.reference.id,
            typeId: spec.id,
            specHash: specHash(spec),
            adapter: agent.adapter.spec,
            attempts: agent.attempts,
            seed: options.seed,
            task,
          });
          if (session.output.isDecided(id)) continue;
          const context = session.contextOf.get(witness)!;
          let last: { outcome: ValidationOutcome; changes: FileChange[] } | undefined;
          const result = await runAgentInjection({
            task: {
              spec,
              projectLabel: options.project.label,
              workspace,
              witness: {
                testClass: witness,
                testFile: testSourceFile(options.project.layout, witness),
              },
              context: {
                size: context.size,
                bucket: context.bucket,
                anchors: context.trace.slice(0, 12).map((location) => ({
                  method: `${location.className}.${location.signature}`,
                  file: location.file ?? '',
                })),
              },
              replayCommand: replayCommandFor(options.project, witness),
              runId: `inject-${id}`,
            },
            adapter: agent.adapter,
            attempts: agent.attempts,
            reset,
            judge: async () => {
              const changes = await workspaceChanges(options.project.root, workspace);
              const outcome = await session.validator.validate(
                spec,
                injector,
                witness,
                session.reference,
                changes,
              );
              last = { outcome, changes };
              return judgementOf(outcome);
            },
            timeoutMs: agent.agentTimeoutMs,
            log: (line) => note(options.events, 'agent', line),
          });
          await writeRecordFile(
            session.output.file(path.join('agent-runs', `${id}.json`)),
            AgentRunFile,
            result,
          );
          // The harness may have accepted the last change while the attempt failed on its report.
          const stage = result.stop === 'agentFailedToStart' ? 'agent' : 'report';
          const outcome: ValidationOutcome = !last
            ? rejectionWithoutChecks(stage, lastReason(result))
            : result.acceptedAttempt !== null || last.outcome.kind === 'Rejected'
              ? last.outcome
              : {
                  kind: 'Rejected',
                  stage,
                  reason: lastReason(result),
                  checks: last.outcome.checks,
                  timings: last.outcome.timings,
                };
          await recordOutcome(
            {
              session,
              options,
              spec,
              engine,
              id,
              witness: context,
              site: null,
            },
            outcome,
          );
        }
        types.push(
          typeSummary(
            spec,
            engine,
            session,
            options,
            { sites: null, triesLeft: false },
            Math.round(performance.now() - typeStarted),
          ),
        );
      }
    } finally {
      await removeTree(scratch);
    }
    return writeRunSummary(session, options, engine, types);
  });
}

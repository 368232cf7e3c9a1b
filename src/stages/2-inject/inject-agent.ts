import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { copyProjectTree, removeTree, sha256Text, writeJsonAtomic } from '../../core/fs.js';
import { packageRoot } from '../../core/package-root.js';
import { shellJoin } from '../../core/process.js';
import type { FileChange } from '../../core/file-change.js';
import { testSourceFile } from '../../toolchains/layout.js';
import {
  runAgentInjection,
  type AgentAdapter,
  type AgentInjectionResult,
  type AttemptJudgement,
} from './agent/engine.js';
import {
  recordOutcome,
  typeRandom,
  typeSummary,
  withValidationSession,
  type InjectOptions,
  type InjectSummary,
  type TypeSummary,
} from './inject.js';
import { injectorFor } from './rules/index.js';
import { rejectionWithoutChecks, type ValidationOutcome } from './validate.js';
import { shuffled } from '../../core/random.js';

export interface AgentEngineOptions {
  adapter: AgentAdapter;
  /** Attempts per task (the paper's 3), the workspace reset before each. */
  attempts: number;
  /** Limit for one agent run. */
  agentTimeoutMs: number;
}

/** Build output and version control are not the agent's sources. */
const NOT_SOURCES = new Set(['target', '.git']);

async function listFiles(root: string): Promise<Set<string>> {
  const files = new Set<string>();
  const walk = async (dir: string) => {
    for (const entry of await readdir(dir, { withFileTypes: true })) {
      if (NOT_SOURCES.has(entry.name) && dir === root) continue;
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) await walk(full);
      else files.add(path.relative(root, full).split(path.sep).join('/'));
    }
  };
  await walk(root);
  return files;
}

/**
 * What the agent changed, found by comparing its workspace with the pristine tree (not by
 * asking the agent or its git): added, edited and deleted files alike.
 */
export async function workspaceChanges(pristine: string, workspace: string): Promise<FileChange[]> {
  const [clean, edited] = await Promise.all([listFiles(pristine), listFiles(workspace)]);
  const changes: FileChange[] = [];
  for (const file of [...new Set([...clean, ...edited])].sort()) {
    const before = clean.has(file) ? await readFile(path.join(pristine, file), 'utf8') : '';
    const after = edited.has(file) ? await readFile(path.join(workspace, file), 'utf8') : '';
    if (before !== after) changes.push({ file, before, after });
  }
  return changes;
}

/** The command the agent runs to see whether its witness fails: the fast runner on its copy. */
function replayCommandFor(options: InjectOptions, witness: string): string {
  return shellJoin([
    'node',
    path.join(packageRoot(), 'dist', 'src', 'cli', 'main.js'),
    'replay',
    '.',
    ...(options.project.recipe ? ['--recipe', options.project.recipe.name] : []),
    '--test',
    witness,
    '--runner',
    'jvm',
  ]);
}

function lastReason(result: AgentInjectionResult): string {
  const judgement = result.attempts.at(-1)?.judgement;
  if (judgement && !judgement.accepted) return judgement.reason;
  return 'the agent did not start';
}

function judgementOf(outcome: ValidationOutcome): AttemptJudgement {
  if (outcome.kind === 'Accepted') {
    return {
      accepted: true,
      summary: `${outcome.evidence.failure.kind} in ${outcome.evidence.failure.testMethod}: ${outcome.evidence.structure}`,
    };
  }
  const verdict = outcome.verdict ? ` Verdict: ${outcome.verdict}.` : '';
  return {
    accepted: false,
    reason: `${outcome.stage}: ${outcome.reason}`,
    feedback: `The harness rejected the change at the ${outcome.stage} check: ${outcome.reason}.${verdict}`,
  };
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
  const started = performance.now();
  return withValidationSession(options, async (session) => {
    const workspace = path.join(session.output.dir, 'workspace');
    const reset = async () => {
      await removeTree(workspace);
      await copyProjectTree(options.project.root, workspace);
    };
    const types: TypeSummary[] = [];
    try {
      for (const spec of options.specs) {
        const typeStarted = performance.now();
        const injector = injectorFor(spec.id);
        const witnesses = shuffled(session.witnessOrder, typeRandom(options.seed, spec.id));
        for (let task = 0; task < options.maxTries; task++) {
          if (session.output.tally(spec.id).accepted >= options.count) break;
          const witness = witnesses[task % witnesses.length]!;
          const id = sha256Text(
            [options.project.label, spec.id, 'agent', agent.adapter.name, options.seed, task].join(
              '\0',
            ),
          ).slice(0, 16);
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
              replayCommand: replayCommandFor(options, witness),
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
            log: options.log,
          });
          await writeJsonAtomic(session.output.file(path.join('agent-runs', `${id}.json`)), result);
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
              engine: 'agent',
              id,
              witness: context,
              site: null,
            },
            outcome,
          );
        }
        types.push(
          typeSummary(spec, session.output, null, Math.round(performance.now() - typeStarted)),
        );
      }
    } finally {
      await removeTree(workspace);
    }
    return session.output.writeSummary({
      project: options.project.label,
      engine: 'agent',
      seed: options.seed,
      out: options.out,
      types,
      durationMs: Math.round(performance.now() - started),
    });
  });
}

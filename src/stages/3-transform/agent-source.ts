import path from 'node:path';
import { specText, type AgentAdapter } from '../../agents/types.js';
import { makeTempDir, removeTree, sha256Text } from '../../core/fs.js';
import type { FileChange } from '../../core/file-change.js';
import { touchedMembers } from '../../lang/java/change.js';
import type { ProjectRef } from '../../project/project.js';
import type { MethodLocation } from '../1-trace/locations.js';
import { materialise } from '../../project/state.js';
import { testSourceFile } from '../../toolchains/layout.js';
import { replayCommandFor } from '../2-inject/inject-agent.js';
import { workspaceChanges } from '../../agents/workspace-changes.js';
import { TRANSFORM_PROMPT_VERSION } from './agent-task/prompts.js';
import { runAgentTransform, type AgentTransformResult } from './agent-task/task.js';
import {
  followAnchor,
  type CandidateSource,
  type CandidateVerdict,
  type StepCandidate,
  type StepOffer,
  type StepSite,
} from './candidates.js';
import { transformSpecHash, type TransformSpec } from './spec.js';

export interface AgentStepOptions {
  adapter: AgentAdapter;
  /** Limit for the one agent run of a step. */
  agentTimeoutMs: number;
  project: ProjectRef;
  /** The operator names of every spec a sequence may name, by id, for the prompt. */
  operatorNames: ReadonlyMap<string, string>;
  /** Keeps a step's agent run (`agent-runs/<id>.json`), whatever its verdict. */
  saveRun: (id: string, result: AgentTransformResult) => Promise<void>;
  log: (line: string) => void;
}

/** The methods and constructors a change declares that its file did not declare before. */
function addedMembers(changes: readonly FileChange[]): string[] {
  return changes
    .filter((change) => change.file.endsWith('.java') && change.after !== '')
    .flatMap((change) => touchedMembers(change))
    .filter((member) => member.cleanLine === null && member.buggyLines !== null)
    .map((member) => member.name);
}

/** A report's free text in one line. */
function unprosed(text: string | string[]): string {
  return (typeof text === 'string' ? text : text.join('; ')).replace(/\s+/g, ' ').trim();
}

/** Prompts name the first few methods of the trace, those in the bug's file first. */
const ANCHOR_COUNT = 12;

function anchorsFirstIn(file: string, trace: readonly MethodLocation[]): MethodLocation[] {
  const inFile = trace.filter((location) => location.file === file);
  const elsewhere = trace.filter((location) => location.file !== file);
  return [...inFile, ...elsewhere].slice(0, ANCHOR_COUNT);
}

/** The id of a step's agent run: the state it starts from, the task and who is asked. */
export function agentStepRunId(spec: TransformSpec, site: StepSite, adapter: AgentAdapter): string {
  return sha256Text(
    [
      site.state.id,
      spec.id,
      transformSpecHash(spec),
      site.sequence.join(','),
      site.step,
      specText(adapter.spec),
      TRANSFORM_PROMPT_VERSION,
    ].join('\0'),
  ).slice(0, 16);
}

/**
 * A coding agent as a step's source: one run (the paper's one attempt per step) in a fresh copy
 * of the step's state, away from the output and the cache; its candidate is whatever it changed
 * there, judged by the stage like any other.
 */
export function agentSource(spec: TransformSpec, options: AgentStepOptions): CandidateSource {
  const { adapter, project } = options;
  return {
    id: spec.id,
    engine: `agent ${specText(adapter.spec)} prompts ${TRANSFORM_PROMPT_VERSION} spec ${transformSpecHash(spec)}`,
    async offer<Evidence>(
      site: StepSite,
      judge: (candidate: StepCandidate) => Promise<CandidateVerdict<Evidence>>,
    ): Promise<StepOffer<Evidence>> {
      const runId = agentStepRunId(spec, site, adapter);
      const scratch = await makeTempDir('transform-agent');
      const before = path.join(scratch, 'before');
      const workspace = path.join(scratch, 'workspace');
      const witness = site.injection.witness.testClass;
      let candidate: StepCandidate | undefined;
      let kept: { evidence: Evidence } | undefined;
      try {
        await materialise(site.state, project.root, before);
        const result = await runAgentTransform({
          task: {
            spec,
            projectLabel: project.label,
            workspace,
            runId: `transform-${runId}`,
            bugType: { id: site.injection.bugType.id, name: site.injection.bugType.name },
            witness: { testClass: witness, testFile: testSourceFile(project.layout, witness) },
            context: {
              size: site.context?.size ?? site.injection.witness.contextSize,
              bucket: site.context?.bucket ?? site.injection.witness.bucket,
              anchors: anchorsFirstIn(site.anchor.file, site.context?.trace ?? []).map(
                (location) => ({
                  method: `${location.className}.${location.signature}`,
                  file: location.file ?? '',
                }),
              ),
            },
            step: {
              number: site.step + 1,
              sequence: site.sequence.map((id) => ({
                id,
                operator: options.operatorNames.get(id) ?? id,
              })),
            },
            bug: { file: site.anchor.file, lines: site.anchor.lines },
            javaRelease: site.release,
            replayCommand: replayCommandFor(project, witness),
          },
          adapter,
          reset: async () => {
            await removeTree(workspace);
            await materialise(site.state, project.root, workspace);
          },
          judge: async (attempt) => {
            const changes = await workspaceChanges(before, workspace);
            const summary =
              attempt.report.kind === 'Parsed'
                ? unprosed(attempt.report.report.what_was_added_or_wrapped)
                : '';
            candidate = {
              description: summary
                ? `${spec.operator}: ${summary} (agent ${adapter.spec.name})`
                : `${spec.operator} by agent ${adapter.spec.name}`,
              changes,
              added: addedMembers(changes.filter((change) => change.file.endsWith('.java'))),
              anchor: followAnchor(site.anchor, site.focus, changes),
            };
            const verdict = await judge(candidate);
            if (verdict.kind === 'Rejected') {
              return { kind: 'Rejected', reason: verdict.reason, feedback: verdict.reason };
            }
            kept = { evidence: verdict.evidence };
            return {
              kind: 'Accepted',
              summary: `kept: ${changes.map((change) => change.file).join(', ')}`,
            };
          },
          timeoutMs: options.agentTimeoutMs,
          log: options.log,
        });
        await options.saveRun(runId, result);
        const description =
          candidate?.description ?? `${spec.operator} by agent ${adapter.spec.name}`;
        if (result.acceptedAttempt !== null && candidate && kept) {
          return {
            kind: 'Kept',
            candidate,
            evidence: kept.evidence,
            engine: {
              kind: 'agent',
              agent: adapter.spec,
              promptVersion: TRANSFORM_PROMPT_VERSION,
              run: runId,
            },
            rejected: [],
          };
        }
        const judgement = result.attempts.at(-1)?.judgement;
        const reason =
          judgement?.kind === 'Rejected' ? judgement.reason : 'the agent did not start';
        return { kind: 'NoneKept', reason, rejected: [{ description, reason }] };
      } finally {
        await removeTree(scratch);
      }
    },
  };
}

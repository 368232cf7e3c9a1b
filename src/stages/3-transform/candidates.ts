import { diffArrays } from 'diff';
import { z } from 'zod';
import { AgentSpecSchema } from '../../agents/records.js';
import type { FileChange } from '../../core/file-change.js';
import { applyEdits } from '../../lang/java/syntax.js';
import type { ProjectState } from '../../project/state.js';
import type { SourceModelOutcome } from '../../toolchains/jvm/source-model.js';
import type { ExecutionContextRecord } from '../1-trace/trace.js';
import type { InjectionRecord } from '../2-inject/records.js';
import { anchorAfter, locateAnchor, type BugAnchor } from './focus.js';
import type { TransformOperator, TransformSite } from './operators/types.js';
import type { GateRecord, ProbePlan, SiteProfile } from './profile.js';

/*
 * Where a step's candidates come from. The stage poses a site and judges each candidate the same
 * way, whoever made it: an operator's code (text edits to the bug's file, wrapped here) or a
 * coding agent (whatever it changed in its workspace, possibly several files).
 */

/** Who produced a kept step: an operator's code, or an agent (its spec, prompts and run). */
export const StepEngineSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('deterministic') }),
  z.strictObject({
    kind: z.literal('agent'),
    agent: AgentSpecSchema,
    promptVersion: z.number().int().positive(),
    /** The run's record: `agent-runs/<run>.json` beside the cases. */
    run: z.string(),
  }),
]);
export type StepEngine = z.infer<typeof StepEngineSchema>;

/** A step's starting point: the state before it and where its bug is. */
export interface StepSite {
  injection: InjectionRecord;
  /** The witness's class-level execution context, when the map has it. */
  context: ExecutionContextRecord | undefined;
  /** 0-based. */
  step: number;
  /** The whole sequence's operator ids, and the ids of the steps kept before this one. */
  sequence: readonly string[];
  state: ProjectState;
  anchor: BugAnchor;
  /** The text of the anchor's file in `state`, and the range of it that carries the bug. */
  source: string;
  focus: { start: number; end: number };
  /** Members earlier steps added. */
  added: readonly string[];
  /** javac's view of `source`, computed when asked for. */
  model: () => Promise<SourceModelOutcome>;
  /** The project's `--release` level, null when its build does not say. */
  release: string | null;
  /**
   * The values that reach a probe placed as `plan` says, recorded by the stage on a state with
   * the probe that is never kept; or why they could not be.
   */
  profile: (plan: ProbePlan) => Promise<SiteProfile | string>;
}

/** One way to take the step: file changes to the site's state. */
export interface StepCandidate {
  description: string;
  changes: FileChange[];
  /** Names of the members the step adds (for later steps, which wrap them last). */
  added: string[];
  /** The bug's anchor after the changes; undefined when its lines cannot be found any more. */
  anchor: BugAnchor | undefined;
  /** For a step that gates the bug on a condition: the condition and how rare it was observed. */
  gate?: GateRecord;
}

export type CandidateVerdict<Evidence> =
  { kind: 'Kept'; evidence: Evidence } | { kind: 'Rejected'; reason: string };

export interface Rejection {
  description: string;
  reason: string;
}

export type StepOffer<Evidence> =
  | {
      kind: 'Kept';
      candidate: StepCandidate;
      evidence: Evidence;
      engine: StepEngine;
      rejected: Rejection[];
    }
  | { kind: 'NoneKept'; reason: string; rejected: Rejection[] };

/** A step's candidates: offered to `judge` in order until one is kept. */
export interface CandidateSource {
  /** The operator the step applies. */
  id: string;
  /** What else decides its candidates, for case ids: `deterministic`, or the agent and prompts. */
  engine: string;
  offer<Evidence>(
    site: StepSite,
    judge: (candidate: StepCandidate) => Promise<CandidateVerdict<Evidence>>,
  ): Promise<StepOffer<Evidence>>;
}

/** What a profile that gave no candidate saw, for the reason a step falls short. */
function profiledCalls(profile: SiteProfile | undefined): string {
  if (!profile) return '';
  const calls = (failing: boolean) =>
    profile.observations
      .filter((observation) => (observation.failingMethod !== null) === failing)
      .reduce((sum, observation) => sum + observation.count, 0);
  return ` (profiled: ${calls(true)} calls from failing witness methods, ${calls(false)} others)`;
}

/** An operator's code as a step's source: its first `limit` candidates, most natural first. */
export function deterministicSource(operator: TransformOperator, limit: number): CandidateSource {
  return {
    id: operator.id,
    engine: 'deterministic',
    async offer<Evidence>(
      site: StepSite,
      judge: (candidate: StepCandidate) => Promise<CandidateVerdict<Evidence>>,
    ): Promise<StepOffer<Evidence>> {
      const analysis = await site.model();
      if (analysis.kind === 'Failed') {
        return { kind: 'NoneKept', reason: analysis.reason, rejected: [] };
      }
      const { source, focus, added } = site;
      const operatorSite: TransformSite = {
        source,
        focus,
        model: analysis.model,
        added,
        bug: site.injection.state.patches[0]!.diff,
      };
      // An operator that throws on one site loses that bug, with the error as the reason; the
      // build goes on with the others.
      const failed = (error: unknown): StepOffer<Evidence> => ({
        kind: 'NoneKept',
        reason: `${operator.id} failed on this site: ${(error as Error).message}`,
        rejected: [],
      });
      // An operator that places a probe sees the values that reached it first.
      if (operator.probe) {
        let plan: ProbePlan | undefined;
        try {
          plan = operator.probe(operatorSite);
        } catch (error) {
          return failed(error);
        }
        const profile = plan
          ? await site.profile(plan)
          : `${operator.id} has no site around the bug to profile`;
        if (typeof profile === 'string') return { kind: 'NoneKept', reason: profile, rejected: [] };
        operatorSite.profile = profile;
      }
      let candidates: ReturnType<TransformOperator['candidates']>;
      try {
        candidates = operator.candidates(operatorSite).slice(0, limit);
      } catch (error) {
        return failed(error);
      }
      if (candidates.length === 0) {
        return {
          kind: 'NoneKept',
          reason: `${operator.id} has no site around the bug${profiledCalls(operatorSite.profile)}`,
          rejected: [],
        };
      }
      const rejected: Rejection[] = [];
      for (const candidate of candidates) {
        const after = applyEdits(source, candidate.edits);
        const step: StepCandidate = {
          description: candidate.description,
          changes: [{ file: site.anchor.file, before: source, after }],
          added: candidate.added,
          anchor: anchorAfter(site.anchor, focus, candidate.edits, after),
          ...(candidate.gate ? { gate: candidate.gate } : {}),
        };
        const verdict = await judge(step);
        if (verdict.kind === 'Kept') {
          return {
            kind: 'Kept',
            candidate: step,
            evidence: verdict.evidence,
            engine: { kind: 'deterministic' },
            rejected,
          };
        }
        rejected.push({ description: candidate.description, reason: verdict.reason });
      }
      return { kind: 'NoneKept', reason: rejected.at(-1)!.reason, rejected };
    },
  };
}

/** The lines of `after` that a line diff maps the lines [first, last] of `before` onto. */
function mappedLines(before: string, after: string, first: number, last: number): string[] {
  // Per line of `before`, the range of `after` lines it became (a removed line: its replacement).
  const ranges: { start: number; end: number }[] = [];
  const parts = diffArrays(before.split('\n'), after.split('\n'));
  let a = 0;
  for (const [index, part] of parts.entries()) {
    const count = part.value.length;
    if (part.added) {
      a += count;
    } else if (part.removed) {
      const next = parts[index + 1];
      const end = next?.added ? a + next.value.length : a;
      for (let k = 0; k < count; k++) ranges.push({ start: a, end });
    } else {
      for (let k = 0; k < count; k++) ranges.push({ start: a + k, end: a + k + 1 });
      a += count;
    }
  }
  return after.split('\n').slice(ranges[first]!.start, ranges[last]!.end);
}

/**
 * Where the bug is after an agent's changes: its lines where they are now (in its file or one
 * the agent moved them to), else the lines a line diff maps them onto in its file; undefined
 * when none is left.
 */
export function followAnchor(
  anchor: BugAnchor,
  focus: { start: number; end: number },
  changes: readonly FileChange[],
): BugAnchor | undefined {
  const own = changes.find((change) => change.file === anchor.file);
  if (!own) return anchor;
  const kept = own.after === '' ? undefined : locateAnchor(own.after, anchor);
  if (kept) return anchor.near === undefined ? anchor : { ...anchor, near: kept.line };
  const moved = changes.find((change) => change.after !== '' && locateAnchor(change.after, anchor));
  if (moved) return { file: moved.file, lines: anchor.lines };
  const first = own.before.slice(0, focus.start).split('\n').length - 1;
  const last = own.before.slice(0, focus.end).split('\n').length - 1;
  const lines = mappedLines(own.before, own.after, first, last)
    .map((line) => line.trim())
    .filter(Boolean);
  return lines.length > 0 ? { file: anchor.file, lines } : undefined;
}

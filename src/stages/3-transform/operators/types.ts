import type { TextEdit } from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import type { GateRecord, ProbePlan, SiteProfile } from '../profile.js';

export type { ProbePlan, SiteProfile };

/** Where a transformation step works: one file of the buggy state, and where its bug is. */
export interface TransformSite {
  source: string;
  /** The UTF-16 range of `source` that carries the bug. */
  focus: { start: number; end: number };
  /** javac's view of `source`: the types of its locals and parameters. */
  model: SourceModel;
  /** Members earlier steps of the case added: wrapping them again is allowed, but comes last. */
  added?: readonly string[];
  /** The bug's own patch (clean → buggy): what the code was before the bug. */
  bug?: string;
  /** The values that reached the operator's probe, for an operator that places one. */
  profile?: SiteProfile;
}

/** One way to apply an operator at a site: edits to the site's file. */
export interface TransformCandidate {
  /** What the step does, in one line. */
  description: string;
  edits: TextEdit[];
  /** Names of the members the step adds. */
  added: string[];
  /** For a step that gates the bug on a condition: the condition and how rare it was observed. */
  gate?: GateRecord;
}

/** A transformation operator's code; its spec (specs/transforms/<id>.yaml) says what it may do. */
export interface TransformOperator {
  kind: 'transform';
  id: string;
  /** Candidate rewrites around the site's focus, most natural first. */
  candidates(site: TransformSite): TransformCandidate[];
  /**
   * Where to profile the values reaching the bug before `candidates` is asked: an operator that
   * has this gets `site.profile`, recorded by the stage with the probe in a state never kept.
   */
  probe?(site: TransformSite): ProbePlan | undefined;
}

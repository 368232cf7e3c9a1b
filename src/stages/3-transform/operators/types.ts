import type { TextEdit } from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';

/** Where a transformation step works: one file of the buggy state, and where its bug is. */
export interface TransformSite {
  source: string;
  /** The UTF-16 range of `source` that carries the bug. */
  focus: { start: number; end: number };
  /** javac's view of `source`: the types of its locals and parameters. */
  model: SourceModel;
  /** Members earlier steps of the case added: wrapping them again is allowed, but comes last. */
  added?: readonly string[];
}

/** One way to apply an operator at a site: edits to the site's file. */
export interface TransformCandidate {
  /** What the step does, in one line. */
  description: string;
  edits: TextEdit[];
  /** Names of the members the step adds. */
  added: string[];
}

/** A transformation operator's code; its spec (specs/transforms/<id>.yaml) says what it may do. */
export interface TransformOperator {
  kind: 'transform';
  id: string;
  /** Candidate rewrites around the site's focus, most natural first. */
  candidates(site: TransformSite): TransformCandidate[];
}

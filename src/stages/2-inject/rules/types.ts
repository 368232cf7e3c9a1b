import type { Node } from 'web-tree-sitter';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import type { TextEdit } from '../../../lang/java/syntax.js';
import type { ProjectTypes } from '../../../lang/java/type-index.js';

/**
 * How readily a maintainer would make a slip, as a reviewer would judge it: rank 0 (a
 * similar-operand slip, an off-by-one on a real bound, a dropped conjunct) is tried before 1,
 * and 1 before 2 (a rewrite that reads as a mistake only with some goodwill).
 */
export interface Plausibility {
  rank: 0 | 1 | 2;
  /** Why the rewrite reads like a human mistake, in a few words. */
  reason: string;
}

export function plausibility(rank: Plausibility['rank'], reason: string): Plausibility {
  return { rank, reason };
}

/** One way to inject a bug at one place: edits to the file holding the target method. */
export interface CandidateEdit {
  /** What the edit does, in one line, e.g. "if (size > 0) → if (size >= 0)". */
  description: string;
  edits: TextEdit[];
  plausibility: Plausibility;
}

/**
 * A bug type's code: where it can be injected in a method, how, and how to recognise a change
 * of that type (applied to the rules engine's edits and to whatever an agent wrote alike).
 */
export interface Injector {
  kind: 'injector';
  typeId: string;
  /**
   * Candidate edits inside (or, for class-level types, around) a reached method, in source order;
   * `types` are the project's own types, for a rule that depends on what the class inherits.
   */
  sites(method: Node, source: string, types: ProjectTypes): CandidateEdit[];
  /** Whether the change from `before` to `after` (roots of one file) has the type's structure. */
  check(before: Node, after: Node): StructuralCheck;
}

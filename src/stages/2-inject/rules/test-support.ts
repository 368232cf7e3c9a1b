/**
 * What the per-type unit tests ask of an injector: its rewrites in one member, each applied and
 * judged by the type's own structural check, as the validator would judge it.
 */
import { withJavaTree, withJavaTrees, type TextEdit } from '../../../lang/java/syntax.js';
import { ProjectTypes } from '../../../lang/java/type-index.js';
import { rewritesIn } from './rewrites.js';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import type { Injector, Plausibility } from './types.js';

export interface Mutation {
  methodKey: string;
  description: string;
  edits: TextEdit[];
  plausibility: Plausibility;
  source: string;
  check: StructuralCheck;
  /** The rewritten file parses without errors. */
  parses: boolean;
}

/** Whether a change matches the type's structural signature, judged on both files' syntax trees. */
export function checkChange(injector: Injector, before: string, after: string): StructuralCheck {
  return withJavaTrees(before, after, (a, b) => {
    if (b.hasError) return { kind: 'Mismatch', reason: 'the changed file does not parse' };
    return injector.check(a, b);
  });
}

/**
 * Every rewrite the injector offers in the member named `name` declared on `line`, in a project
 * whose types are those of `source` and `otherSources`.
 */
export function mutationsAt(
  injector: Injector,
  source: string,
  name: string,
  line: number,
  otherSources: readonly string[] = [],
): Mutation[] {
  const at = (memberName: string, declarationLine: number) =>
    memberName === name && declarationLine === line ? true : undefined;
  const types = ProjectTypes.fromSources([source, ...otherSources]);
  return rewritesIn(injector, source, at, types).map((rewrite) => {
    const parses = withJavaTree(rewrite.after, (root) => !root.hasError);
    return {
      methodKey: rewrite.member,
      description: rewrite.description,
      edits: rewrite.edits,
      plausibility: rewrite.plausibility,
      source: rewrite.after,
      parses,
      check: parses
        ? checkChange(injector, source, rewrite.after)
        : { kind: 'Mismatch', reason: 'does not parse' },
    };
  });
}

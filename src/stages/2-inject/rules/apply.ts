import type { Node } from 'web-tree-sitter';
import {
  applyEdits,
  declarationLine,
  descendants,
  memberKey,
  METHOD_TYPES,
  nameOf,
  withJavaTree,
  withJavaTrees,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import type { Injector, StructuralCheck } from './types.js';

/** A candidate bug: the rewritten file and what the type's own structural check says of it. */
export interface Mutation {
  methodKey: string;
  description: string;
  edits: TextEdit[];
  source: string;
  check: StructuralCheck;
  /** The rewritten file parses without errors. */
  parses: boolean;
}

/**
 * The method or constructor a trace location names: its name stands on `line` (constructors are
 * named after their class; `<clinit>` and lambdas have no declaration to rewrite).
 */
export function memberAt(root: Node, name: string, line: number): Node | null {
  return (
    descendants(root, METHOD_TYPES).find(
      (member) => declarationLine(member) === line && nameOf(member) === name,
    ) ?? null
  );
}

/** Whether a change matches the type's structural signature, judged on both files' syntax trees. */
export function checkChange(injector: Injector, before: string, after: string): StructuralCheck {
  return withJavaTrees(before, after, (a, b) => {
    if (b.hasError) return { ok: false, reason: 'the changed file does not parse' };
    return injector.check(a, b);
  });
}

/** Every rewrite the injector offers in the member at `name`/`line`, each applied and checked. */
export function mutationsAt(
  injector: Injector,
  source: string,
  name: string,
  line: number,
): Mutation[] {
  const candidates = withJavaTree(source, (root) => {
    const member = memberAt(root, name, line);
    if (!member) return [];
    const key = memberKey(member);
    return injector.sites(member, source).map((candidate) => ({ key, candidate }));
  });
  return candidates.map(({ key, candidate }) => {
    const mutated = applyEdits(source, candidate.edits);
    const parses = withJavaTree(mutated, (root) => !root.hasError);
    return {
      methodKey: key,
      description: candidate.description,
      edits: candidate.edits,
      source: mutated,
      parses,
      check: parses
        ? checkChange(injector, source, mutated)
        : { ok: false, reason: 'does not parse' },
    };
  });
}

import {
  applyEdits,
  declarationLine,
  descendants,
  memberKey,
  METHOD_TYPES,
  nameOf,
  withJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import type { ProjectTypes } from '../../../lang/java/type-index.js';
import type { Injector, Plausibility } from './types.js';

/** One rewrite an injector offers in one member of a file. */
export interface Rewrite<Mark> {
  /** What `pick` said of the member (its trace entry, say). */
  mark: Mark;
  /** The member's key, e.g. `add(Object)`. */
  member: string;
  description: string;
  edits: TextEdit[];
  plausibility: Plausibility;
  /** The whole file with the rewrite applied. */
  after: string;
}

/**
 * Every rewrite the injector offers in the file's methods and constructors that `pick` marks
 * (returns something other than undefined for), in file order. One parse per file.
 */
export function rewritesIn<Mark>(
  injector: Injector,
  source: string,
  pick: (name: string, declarationLine: number) => Mark | undefined,
  types: ProjectTypes,
): Rewrite<Mark>[] {
  return withJavaTree(source, (root) =>
    descendants(root, METHOD_TYPES).flatMap((member) => {
      const mark = pick(nameOf(member), declarationLine(member));
      if (mark === undefined) return [];
      const key = memberKey(member);
      return injector.sites(member, source, types).map((site) => ({
        mark,
        member: key,
        description: site.description,
        edits: site.edits,
        plausibility: site.plausibility,
        after: applyEdits(source, site.edits),
      }));
    }),
  );
}

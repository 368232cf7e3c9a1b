import type { Node } from 'web-tree-sitter';
import { withJavaTree, withJavaTrees } from '../lang/java/syntax.js';
import {
  apiSignatureChanges,
  semanticallyDifferent,
  touchedMembers,
  type TouchedMember,
} from '../lang/java/change.js';
import type { FileChange } from '../core/file-change.js';
import type { StructuralCheck } from '../lang/java/changed-members.js';
import { isProductionSource, type ProjectLayout } from '../toolchains/layout.js';
import { failed, passed, type CheckOutcome } from './types.js';

export interface DiffEvidence {
  /** The changes that differ in more than whitespace and comments. */
  meaningful: FileChange[];
  touched: TouchedMember[];
}

/**
 * The change touches production Java sources only, means something (not only whitespace or
 * comments), and parses.
 */
export function checkDiff(
  changes: readonly FileChange[],
  layout: ProjectLayout,
): CheckOutcome<DiffEvidence> {
  if (changes.length === 0) return failed('diff', 'no file changed');
  const outside = changes.find((change) => !isProductionSource(layout, change.file));
  if (outside) {
    return failed(
      'diff',
      `changes ${outside.file}, outside the production sources (${layout.mainSources})`,
    );
  }
  const meaningful = changes.filter(semanticallyDifferent);
  if (meaningful.length === 0) return failed('diff', 'only whitespace or comments changed');
  const broken = meaningful.find((change) => withJavaTree(change.after, (root) => root.hasError));
  if (broken) return failed('structure', `${broken.file} does not parse`);
  return passed({ meaningful, touched: meaningful.flatMap(touchedMembers) });
}

/** No public or protected member (or class) loses, alters or gains a signature. */
export function checkSignature(meaningful: readonly FileChange[]): CheckOutcome<null> {
  for (const change of meaningful) {
    const altered = apiSignatureChanges(change);
    if (altered.length > 0) {
      return failed('signature', `${change.file}: public or protected signature ${altered[0]}`);
    }
  }
  return passed(null);
}

/** At least one changed file has the structure `matcher` looks for; `what` names it. */
export function checkStructure(
  meaningful: readonly FileChange[],
  matcher: (before: Node, after: Node) => StructuralCheck,
  what: string,
): CheckOutcome<{ structure: string }> {
  const matches = meaningful.map((change) =>
    withJavaTrees(change.before, change.after, (a, b) => matcher(a, b)),
  );
  const matched = matches.find((match) => match.kind === 'Matches');
  if (matched?.kind === 'Matches') return passed({ structure: matched.evidence });
  const reasons = matches.map((match) => (match.kind === 'Mismatch' ? match.reason : ''));
  return failed('structure', `not a ${what} change: ${reasons.filter(Boolean).join('; ')}`);
}

import type { Node } from 'web-tree-sitter';
import { memberKey, members, membersInOrder, sameTokens } from '../../../lang/java/syntax.js';

/** A method or constructor that differs between two versions of a file (null: absent there). */
export interface MemberChange {
  key: string;
  before: Node | null;
  after: Node | null;
}

/**
 * Members whose tokens differ (comments and layout ignored), plus members only one version has,
 * matched by `memberKey` (enclosing classes, name, erased parameter types).
 */
export function changedMembers(before: Node, after: Node): MemberChange[] {
  const old = members(before);
  const now = members(after);
  const changes: MemberChange[] = [];
  for (const [key, node] of old) {
    const counterpart = now.get(key) ?? null;
    if (!counterpart || !sameTokens(node, counterpart))
      changes.push({ key, before: node, after: counterpart });
  }
  for (const [key, node] of now)
    if (!old.has(key)) changes.push({ key, before: null, after: node });
  return changes;
}

/**
 * Members changed in place (both versions present): paired by position when the two files have
 * the same members in the same order (see `membersInOrder`), else by key.
 */
export function changedInPlace(
  before: Node,
  after: Node,
): { key: string; before: Node; after: Node }[] {
  const paired = membersInOrder(before, after);
  if (paired) {
    return paired
      .filter(([a, b]) => !sameTokens(a, b))
      .map(([a, b]) => ({ key: memberKey(a), before: a, after: b }));
  }
  return changedMembers(before, after).flatMap((change) =>
    change.before && change.after
      ? [{ key: change.key, before: change.before, after: change.after }]
      : [],
  );
}

import type { Node } from 'web-tree-sitter';
import { members, sameTokens } from '../../../lang/java/syntax.js';

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

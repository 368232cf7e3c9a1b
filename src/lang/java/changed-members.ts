/**
 * Which members and classes differ between two versions of a file, and judging a change by them:
 * what a bug type's check and a transform operator's check both ask of a change.
 */
import type { Node } from 'web-tree-sitter';
import {
  descendants,
  enclosingClassPath,
  memberKey,
  members,
  membersInOrder,
  nameOf,
  sameTokens,
} from './syntax.js';

/** Whether a change has a looked-for structure: what shows that it does, or why it does not. */
export type StructuralCheck =
  { kind: 'Matches'; evidence: string } | { kind: 'Mismatch'; reason: string };

/** A method or constructor that differs between two versions of a file (null: absent there). */
export interface MemberChange {
  key: string;
  before: Node | null;
  after: Node | null;
}

/** A method or constructor present in both versions of a file, with other tokens in each. */
export interface InPlaceChange {
  key: string;
  before: Node;
  after: Node;
}

/** A class, enum or record present in both versions of a file, with other tokens in each. */
export interface ClassChange {
  /** Dotted path, e.g. `Outer.Inner`. */
  path: string;
  before: Node;
  after: Node;
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
export function changedInPlace(before: Node, after: Node): InPlaceChange[] {
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

/** Classes, enums and records of a file by dotted path (`Outer.Inner`); the first one wins. */
export function classesByPath(root: Node): Map<string, Node> {
  const byPath = new Map<string, Node>();
  for (const node of descendants(root, [
    'class_declaration',
    'enum_declaration',
    'record_declaration',
  ])) {
    const path = [enclosingClassPath(node), nameOf(node)].filter(Boolean).join('.');
    if (!byPath.has(path)) byPath.set(path, node);
  }
  return byPath;
}

/**
 * Classes, enums and records both versions declare at the same path whose tokens differ, in the
 * order of `before` (an enclosing class differs whenever a nested one does).
 */
export function changedClasses(before: Node, after: Node): ClassChange[] {
  const now = classesByPath(after);
  return [...classesByPath(before)].flatMap(([path, old]) => {
    const current = now.get(path);
    return current && !sameTokens(old, current) ? [{ path, before: old, after: current }] : [];
  });
}

/**
 * The first change `judge` finds a match in; else the last reason it gave, or `noMatch` when it
 * gave none (undefined: nothing to say of that change).
 */
export function firstMatch<Change>(
  changes: readonly Change[],
  judge: (change: Change) => StructuralCheck | undefined,
  noMatch: string,
): StructuralCheck {
  let reason = noMatch;
  for (const change of changes) {
    const verdict = judge(change);
    if (verdict?.kind === 'Matches') return verdict;
    if (verdict) reason = verdict.reason;
  }
  return { kind: 'Mismatch', reason };
}

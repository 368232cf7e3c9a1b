import {
  CLASS_TYPES,
  descendants,
  enclosingClassPath,
  field,
  isApiVisible,
  members,
  METHOD_TYPES,
  nameOf,
  sameTokens,
  signatureText,
  withJavaTrees,
  packageOf,
} from './syntax.js';
import type { Node } from 'web-tree-sitter';
import { z } from 'zod';
import type { FileChange } from '../../core/file-change.js';

/**
 * A method or constructor a change touches, located in both versions: the class and line range
 * identify it in a trace (which names the class, the method and its first line of code).
 */
export const TouchedMemberSchema = z.strictObject({
  file: z.string(),
  key: z.string(),
  /** Binary name of the declaring class, e.g. org.example.Outer$Inner. */
  binaryClass: z.string(),
  /** Method name; `<init>` for constructors. */
  name: z.string(),
  /** Declaration line in the clean file (as the execution-context map records it), if present. */
  cleanLine: z.number().int().nullable(),
  /** 1-based line range in the buggy file, if the member still exists there. */
  buggyLines: z.strictObject({ first: z.number().int(), last: z.number().int() }).nullable(),
});
export type TouchedMember = z.infer<typeof TouchedMemberSchema>;

function binaryClassName(member: Node, root: Node): string {
  const pkg = packageOf(root);
  const classes = enclosingClassPath(member).split('.').join('$');
  return pkg ? `${pkg}.${classes}` : classes;
}

function memberName(member: Node): string {
  return member.type === 'constructor_declaration' ? '<init>' : nameOf(member);
}

/** Members whose tokens differ between the versions, located in both. */
export function touchedMembers(change: FileChange): TouchedMember[] {
  return withJavaTrees(change.before, change.after, (before, after) => {
    const old = members(before);
    const now = members(after);
    const touched: TouchedMember[] = [];
    for (const key of new Set([...old.keys(), ...now.keys()])) {
      const a = old.get(key);
      const b = now.get(key);
      if (a && b && sameTokens(a, b)) continue;
      const node = (b ?? a)!;
      touched.push({
        file: change.file,
        key,
        binaryClass: binaryClassName(node, b ? after : before),
        name: memberName(node),
        cleanLine: a ? (field(a, 'name') ?? a).startPosition.row + 1 : null,
        buggyLines: b ? { first: b.startPosition.row + 1, last: b.endPosition.row + 1 } : null,
      });
    }
    return touched;
  });
}

/** Public and protected members (and classes) whose signature a change removes, alters or adds. */
export function apiSignatureChanges(change: FileChange): string[] {
  const visible = (root: Node) => {
    const signatures = new Map<string, string>();
    for (const member of descendants(root, METHOD_TYPES)) {
      if (isApiVisible(member)) {
        signatures.set(`${enclosingClassPath(member)}.${signatureText(member)}`, member.text);
      }
    }
    for (const type of descendants(root, CLASS_TYPES)) {
      if (isApiVisible(type) || type.parent?.type === 'program') {
        signatures.set(`${enclosingClassPath(type)} class ${nameOf(type)}`, '');
      }
    }
    return signatures;
  };
  return withJavaTrees(change.before, change.after, (before, after) => {
    const old = visible(before);
    const now = visible(after);
    return [
      ...[...old.keys()].filter((key) => !now.has(key)).map((key) => `removed or changed: ${key}`),
      ...[...now.keys()].filter((key) => !old.has(key)).map((key) => `added: ${key}`),
    ];
  });
}

/** Whether two versions differ in more than whitespace and comments. */
export function semanticallyDifferent(change: FileChange): boolean {
  return withJavaTrees(change.before, change.after, (a, b) => !sameTokens(a, b));
}

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
  withJavaTree,
  withJavaTrees,
} from '../../lang/java/syntax.js';
import type { Node } from 'web-tree-sitter';
import type { Injector, StructuralCheck } from './rules/types.js';
import type { BugTypeSpec } from './spec.js';

/** One file a candidate changes, by its path relative to the project root. */
export interface FileChange {
  file: string;
  before: string;
  after: string;
}

/**
 * A method or constructor a change touches, located in both versions: the class and line range
 * identify it in a trace (which names the class, the method and its first line of code).
 */
export interface TouchedMember {
  file: string;
  key: string;
  /** Binary name of the declaring class, e.g. org.example.Outer$Inner. */
  binaryClass: string;
  /** Method name; `<init>` for constructors. */
  name: string;
  /** Declaration line in the clean file (as the execution-context map records it), if present. */
  cleanLine: number | null;
  /** 1-based line range in the buggy file, if the member still exists there. */
  buggyLines: { first: number; last: number } | null;
}

/** Static findings on a change, before anything is compiled. */
export type StaticFinding =
  | { ok: true; structure: string; touched: TouchedMember[] }
  | { ok: false; stage: 'diff' | 'signature' | 'structure'; reason: string };

function packageOf(root: Node): string {
  const declaration = root.namedChildren.find((child) => child?.type === 'package_declaration');
  if (!declaration) return '';
  const name = declaration.namedChildren.find(
    (child) => child?.type === 'scoped_identifier' || child?.type === 'identifier',
  );
  return name?.text ?? '';
}

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

/**
 * The checks that need no build: the change touches production Java sources only, means
 * something, keeps the public API (unless the type is about a signature), parses, and has the
 * bug type's structure.
 */
export function staticFindings(
  changes: readonly FileChange[],
  productionRoot: string,
  spec: BugTypeSpec,
  injector: Injector,
): StaticFinding {
  if (changes.length === 0) return { ok: false, stage: 'diff', reason: 'no file changed' };
  const outside = changes.find(
    (change) => !change.file.startsWith(`${productionRoot}/`) || !change.file.endsWith('.java'),
  );
  if (outside) {
    return {
      ok: false,
      stage: 'diff',
      reason: `changes ${outside.file}, outside the production sources (${productionRoot})`,
    };
  }
  const meaningful = changes.filter(semanticallyDifferent);
  if (meaningful.length === 0) {
    return { ok: false, stage: 'diff', reason: 'only whitespace or comments changed' };
  }
  const broken = meaningful.find((change) => withJavaTree(change.after, (root) => root.hasError));
  if (broken) return { ok: false, stage: 'structure', reason: `${broken.file} does not parse` };
  if (!spec.changesSignature) {
    for (const change of meaningful) {
      const altered = apiSignatureChanges(change);
      if (altered.length > 0) {
        return {
          ok: false,
          stage: 'signature',
          reason: `${change.file}: public or protected signature ${altered[0]}`,
        };
      }
    }
  }
  const checks: StructuralCheck[] = meaningful.map((change) =>
    withJavaTrees(change.before, change.after, (a, b) => injector.check(a, b)),
  );
  const matched = checks.find((check) => check.kind === 'Matches');
  if (!matched) {
    const reasons = checks
      .map((check) => (check.kind === 'Mismatch' ? check.reason : ''))
      .filter(Boolean);
    return {
      ok: false,
      stage: 'structure',
      reason: `not a ${spec.name} change: ${reasons.join('; ')}`,
    };
  }
  return {
    ok: true,
    structure: matched.evidence,
    touched: meaningful.flatMap(touchedMembers),
  };
}

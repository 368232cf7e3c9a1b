import type { Node } from 'web-tree-sitter';
import { enclosingMember } from '../../../lang/java/extraction.js';
import {
  localDeclarations,
  resolveLocal,
  valueNames,
  type LocalDeclaration,
} from '../../../lang/java/scopes.js';
import {
  ancestor,
  classMembers,
  declaringClass,
  descendants,
  field,
  kids,
  modifierWords,
  nameOf,
  within,
  withJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import { fileStyle, type FileStyle } from '../../../lang/java/style.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { typeOf } from './extract-method.js';
import type { TransformCandidate, TransformSite } from './types.js';

/*
 * What the Data Flow operators share: the values of the bug's method that never change once
 * set (a parameter or a local nobody assigns again), where they are read, and javac's type for
 * them. Routing such a value through a holder, a container or a cache cannot change what any
 * read sees, since there is no second write.
 */

/** A parameter, loop variable or single-declarator local of a member, written once, with its reads. */
export interface StableValue {
  declaration: LocalDeclaration;
  /** For a declared local: its `local_variable_declaration` and the initial value. */
  local?: { statement: Node; value: Node };
  /** The identifiers reading the value, in source order (the member's own and its lambdas'). */
  reads: Node[];
  /** The type javac gives the value, as the file spells it. */
  type: string;
}

const OWNER_CLASSES = ['class_body', 'enum_body', 'interface_body'];

/** The method or constructor the site's focus lies in (its header included). */
export function focusMember(root: Node, focus: TransformSite['focus']): Node | null {
  const node = root.descendantForIndex(focus.start, Math.max(focus.start, focus.end - 1));
  return node ? enclosingMember(node) : null;
}

/** What an operator rewriting the member that holds the bug works with. */
export interface MemberScope {
  root: Node;
  member: Node;
  style: FileStyle;
}

/** The candidates `offer` makes in the method or constructor of the site's focus; none outside. */
export function candidatesInFocusMember(
  site: TransformSite,
  offer: (scope: MemberScope) => TransformCandidate[],
): TransformCandidate[] {
  return withJavaTree(site.source, (root) => {
    const member = focusMember(root, site.focus);
    return member ? offer({ root, member, style: fileStyle(site.source, root) }) : [];
  });
}

function isWrite(identifier: Node): boolean {
  const parent = identifier.parent;
  if (!parent) return false;
  if (parent.type === 'assignment_expression')
    return field(parent, 'left')?.equals(identifier) === true;
  return parent.type === 'update_expression';
}

/**
 * The member's values that are never assigned after their declaration, read at least once, with
 * a type javac can spell. A value read inside a class declared in the member is left out: a
 * member of that class could mean another variable of the same name.
 */
export function stableValues(member: Node, model: SourceModel): StableValue[] {
  const declarations = localDeclarations(member);
  const body = field(member, 'body');
  if (!body) return [];
  const uses = new Map<LocalDeclaration, Node[]>();
  for (const name of valueNames(body)) {
    const declaration = resolveLocal(name, declarations);
    if (!declaration) continue;
    uses.set(declaration, [...(uses.get(declaration) ?? []), name]);
  }
  const values: StableValue[] = [];
  for (const declaration of declarations) {
    const reads = uses.get(declaration) ?? [];
    if (reads.length === 0 || reads.some(isWrite)) continue;
    if (
      reads.some((read) => {
        const owner = ancestor(read, OWNER_CLASSES);
        return owner !== null && within(owner, member);
      })
    ) {
      continue;
    }
    let local: StableValue['local'];
    if (declaration.kind === 'local') {
      const statement = declaration.node.parent;
      const value = field(declaration.node, 'value');
      if (
        declaration.node.type !== 'variable_declarator' ||
        statement?.type !== 'local_variable_declaration' ||
        !value ||
        kids(statement).filter((k) => k.type === 'variable_declarator').length !== 1 ||
        !['block', 'constructor_body'].includes(statement.parent?.type ?? '')
      ) {
        continue;
      }
      local = { statement, value };
    } else if (
      !(declaration.kind === 'parameter' && declaration.node.type === 'formal_parameter') &&
      declaration.node.type !== 'enhanced_for_statement'
    ) {
      continue;
    }
    const type = typeOf(model, member, declaration);
    if (type === null) continue;
    values.push({ declaration, ...(local ? { local } : {}), reads, type });
  }
  return values;
}

/** Whether arrays of `type` can be created: not generic, not a type variable (javac forbids both). */
export function arrayComponentAllowed(type: string, model: SourceModel): boolean {
  if (type.includes('<') || type.includes('?')) return false;
  const variables = new Set([
    ...model.types.flatMap((t) => t.typeParameters),
    ...model.methods.flatMap((m) => m.typeParameters),
  ]);
  return !variables.has(type.replace(/(\[\])+$/, ''));
}

/**
 * Values ranked by how close they are to the bug: read in the focus first, then by the distance
 * of their nearest read, so the value rerouted is the one the bug works with.
 */
export function byClosenessToFocus<T extends { reads: readonly Node[] }>(
  values: readonly T[],
  focus: TransformSite['focus'],
): T[] {
  const distance = (value: T) =>
    Math.min(
      ...value.reads.map((read) => {
        if (read.startIndex >= focus.start && read.endIndex <= focus.end) return -1;
        return read.startIndex < focus.start
          ? focus.start - read.endIndex
          : read.startIndex - focus.end;
      }),
    );
  return [...values].sort((a, b) => distance(a) - distance(b));
}

/**
 * Whether `name` is free for a new local in `member`: no identifier of the member spells it, so it
 * neither clashes with a local nor shadows a field or a name a nested class uses; nor is it a
 * member of the file.
 */
export function freeLocalName(member: Node, name: string, taken: ReadonlySet<string>): boolean {
  return !taken.has(name) && !descendants(member, 'identifier').some((id) => id.text === name);
}

/** Whether the file's locals are mostly declared `final`, so an added one is written alike. */
export function finalLocals(root: Node): boolean {
  const declarations = descendants(root, 'local_variable_declaration');
  const final = declarations.filter((d) =>
    kids(d).some((k) => k.type === 'modifiers' && /\bfinal\b/.test(k.text)),
  );
  return declarations.length > 0 && final.length * 2 > declarations.length;
}

/** Edits replacing each read with `text`. */
export function readsReplaced(reads: readonly Node[], text: string): TextEdit[] {
  return reads.map((read) => ({ start: read.startIndex, end: read.endIndex, text }));
}

/** javac's type of the expression spanning `node`. */
export function typeAt(model: SourceModel, node: Node): string | null {
  return (
    model.expressions.find((e) => e.start === node.startIndex && e.end === node.endIndex)?.type ??
    null
  );
}

/** A value a derivation starts from: written once, with the nodes that read it. */
export interface Source {
  name: string;
  type: string;
  reads: readonly Node[];
  /** For a field: whether it is static. */
  isStatic?: boolean;
}

export function fromStableValue(value: StableValue): Source {
  return { name: value.declaration.name, type: value.type, reads: value.reads };
}

/**
 * The final fields of the member's class read in it (`values`, `this.values`), as sources. A
 * final field holds one value for the object's life, so it is as stable as a local written once;
 * constructors are left out, as they are where the field gets its value.
 */
export function finalFieldSources(member: Node, model: SourceModel): Source[] {
  const owner = declaringClass(member);
  const body = field(member, 'body');
  if (!owner || !body || member.type === 'constructor_declaration') return [];
  const locals = new Set(localDeclarations(member).map((declaration) => declaration.name));
  const sources: Source[] = [];
  for (const declaration of classMembers(owner)) {
    if (declaration.type !== 'field_declaration') continue;
    if (!modifierWords(declaration).includes('final')) continue;
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator')) {
      const name = nameOf(declarator);
      if (locals.has(name)) continue;
      const reads = [
        ...valueNames(body).filter((identifier) => identifier.text === name),
        ...descendants(body, 'field_access').filter(
          (access) =>
            field(access, 'object')?.type === 'this' && field(access, 'field')?.text === name,
        ),
      ]
        .filter((read) => {
          // In a class declared in the member, the name may mean that class's own field.
          const nested = ancestor(read, ['class_body', 'enum_body', 'interface_body']);
          return nested === null || !within(nested, member);
        })
        .sort((a, b) => a.startIndex - b.startIndex);
      const type = reads[0] ? typeAt(model, reads[0]) : null;
      const isStatic = modifierWords(declaration).includes('static');
      if (type) sources.push({ name, type, reads, isStatic });
    }
  }
  return sources;
}

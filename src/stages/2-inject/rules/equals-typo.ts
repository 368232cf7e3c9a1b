import type { Node } from 'web-tree-sitter';
import { changedClasses, firstMatch } from '../../../lang/java/changed-members.js';
import {
  CLASS_TYPES,
  classMembers,
  declaringClass,
  descendants,
  field,
  kids,
  modifierWords,
  nameOf,
  parameterTypeNames,
  simpleTypeName,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import { methodSignature, type ProjectTypes } from '../../../lang/java/type-index.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

export { methodSignature };

// The Object contract, shared by the equals and hashCode bug types.

function returnType(method: Node): string {
  return field(method, 'type')?.text ?? '';
}

/** An instance method with a body: only such a method can override one of Object's. */
function isConcreteInstanceMethod(member: Node): boolean {
  return (
    member.type === 'method_declaration' &&
    field(member, 'body') !== null &&
    !modifierWords(member).includes('static')
  );
}

/** `boolean equals(Object)` with a body: the override of `Object.equals`. */
export function isEqualsOverride(member: Node): boolean {
  if (!isConcreteInstanceMethod(member) || nameOf(member) !== 'equals') return false;
  const parameters = parameterTypeNames(member);
  return (
    returnType(member) === 'boolean' &&
    parameters.length === 1 &&
    simpleTypeName(parameters[0]!) === 'Object'
  );
}

/** `int hashCode()` with a body: the override of `Object.hashCode`. */
export function isHashCodeOverride(member: Node): boolean {
  return (
    isConcreteInstanceMethod(member) &&
    nameOf(member) === 'hashCode' &&
    returnType(member) === 'int' &&
    parameterTypeNames(member).length === 0
  );
}

/** The methods a class declares itself (not those of its nested or anonymous classes). */
export function declaredMethods(classNode: Node): Node[] {
  return classMembers(classNode).filter((member) => member.type === 'method_declaration');
}

/** Methods the later version of a class declares that the earlier one did not. */
export function gainedMethods(before: Node, after: Node): Node[] {
  const old = new Set(declaredMethods(before).map(methodSignature));
  return declaredMethods(after).filter((method) => !old.has(methodSignature(method)));
}

/**
 * The check of a typo type: a class stops overriding one of Object's methods and declares a
 * misnamed stand-in for it instead; `tradable` says which overrides may be traded (all, unless
 * given).
 */
export function tradedOverrideCheck(
  isOverride: (member: Node) => boolean,
  misnamed: (method: Node) => boolean,
  evidence: (classPath: string, standIn: Node) => string,
  noMatch: string,
  tradable: (override: Node) => boolean = () => true,
): Injector['check'] {
  return (before, after) =>
    firstMatch(
      changedClasses(before, after),
      ({ path, before: old, after: current }) => {
        const override = declaredMethods(old).find(isOverride);
        if (!override || !tradable(override) || declaredMethods(current).some(isOverride))
          return undefined;
        const standIn = gainedMethods(old, current).find(misnamed);
        return standIn && { kind: 'Matches', evidence: evidence(path, standIn) };
      },
      noMatch,
    );
}

function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min(previous[j]! + 1, current[j - 1]! + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/**
 * Whether a name other than `intended` reads as a slip for it: it contains the stem, whatever
 * the case (`equal`, `isEqual`, `hashcode`), or is within two edits of it (`equlas`, `hasCode`).
 */
export function namedLike(name: string, intended: string, stem: string): boolean {
  if (name === intended) return false;
  const lower = name.toLowerCase();
  return lower.includes(stem) || editDistance(lower, intended.toLowerCase()) <= 2;
}

/** The method's `@Override` annotations. */
function overrideAnnotations(method: Node): Node[] {
  const modifiers = kids(method).find((k) => k.type === 'modifiers');
  return (modifiers ? kids(modifiers) : []).filter(
    (annotation) =>
      annotation.type === 'marker_annotation' &&
      /^(java\.lang\.)?Override$/.test(field(annotation, 'name')?.text ?? ''),
  );
}

/** Whether the method says it overrides: a slip of its name or parameter would not compile. */
export function annotatedOverride(method: Node): boolean {
  return overrideAnnotations(method).length > 0;
}

/**
 * Whether a slip of the Object method `method` overrides could survive in real code: written
 * without `@Override` (with it the slip does not compile, and deleting it in the same edit gives
 * the bug away), in a class no project superclass obliges to implement it by declaring it
 * abstract (there no slip compiles, nor does its removal).
 */
export function slipCanSurvive(method: Node, owner: Node, types: ProjectTypes): boolean {
  return (
    !annotatedOverride(method) &&
    types.obligingSuperclass(owner, methodSignature(method)) === undefined
  );
}

// Typo in equals.

/** The slips offered: the one CodeQL looks for, and a case slip. */
const TYPO_NAMES = ['equal', 'Equals'];

/** A boolean method taking one argument that reads as a failed attempt at `equals(Object)`. */
function misnamedEquals(method: Node): boolean {
  if (method.type !== 'method_declaration' || modifierWords(method).includes('static'))
    return false;
  const parameters = parameterTypeNames(method);
  if (returnType(method) !== 'boolean' || parameters.length !== 1) return false;
  const name = nameOf(method);
  return name === 'equals'
    ? simpleTypeName(parameters[0]!) !== 'Object'
    : namedLike(name, 'equals', 'equal');
}

/** Skips parentheses upwards: the node's closest enclosing node that is not a parenthesis. */
function context(node: Node): { child: Node; parent: Node | null } {
  let child = node;
  while (child.parent?.type === 'parenthesized_expression') child = child.parent;
  return { child, parent: child.parent };
}

function sameNode(a: Node | null, b: Node): boolean {
  return a !== null && a.startIndex === b.startIndex && a.endIndex === b.endIndex;
}

/** Simple names of the class and of the types it extends or implements. */
function selfAndSupertypes(owner: Node): Set<string> {
  const names = new Set([nameOf(owner), 'Object']);
  const superclass = field(owner, 'superclass');
  for (const type of superclass ? kids(superclass) : []) names.add(simpleTypeName(type.text));
  const interfaces = field(owner, 'interfaces');
  const list = interfaces ? kids(interfaces).find((k) => k.type === 'type_list') : undefined;
  for (const type of list ? kids(list) : []) names.add(simpleTypeName(type.text));
  return names;
}

/**
 * Whether one use of the parameter still compiles, with the same meaning, once the parameter is
 * typed as the class itself: comparisons, instanceof and casts to the class or its supertypes,
 * Object's methods called on it, passing it on. Anything else (an assignment, a pattern, a call
 * to `equals` that would now recurse) is refused.
 */
function survivesNarrowing(use: Node, supertypes: Set<string>): boolean {
  const { child, parent } = context(use);
  if (!parent) return false;
  switch (parent.type) {
    case 'binary_expression':
      return ['==', '!='].includes(field(parent, 'operator')?.type ?? '');
    case 'instanceof_expression': {
      const type = field(parent, 'right');
      return (
        sameNode(field(parent, 'left'), child) &&
        field(parent, 'name') === null &&
        type !== null &&
        type.type !== 'record_pattern' &&
        supertypes.has(simpleTypeName(type.text))
      );
    }
    case 'cast_expression': {
      const type = field(parent, 'type');
      return type !== null && supertypes.has(simpleTypeName(type.text));
    }
    case 'method_invocation':
      // `other.equals(this)` would now pick the narrowed method and recurse.
      return sameNode(field(parent, 'object'), child) && field(parent, 'name')?.text !== 'equals';
    case 'argument_list': {
      const call = parent.parent;
      if (call?.type !== 'method_invocation' || field(call, 'name')?.text !== 'equals') return true;
      const receiver = field(call, 'object');
      return receiver !== null && receiver.type !== 'this';
    }
    case 'variable_declarator':
      return sameNode(field(parent, 'value'), child);
    default:
      return false;
  }
}

/**
 * The class's own type as a covariant parameter (`Range<T>` in `Range<T>`), or null when the body
 * would not compile or would change meaning with it, or an `equals` of that type exists already.
 */
function covariantType(method: Node, owner: Node): string | null {
  if (owner.type !== 'class_declaration' && owner.type !== 'record_declaration') return null;
  const className = nameOf(owner);
  if (declaredMethods(owner).some((m) => methodSignature(m) === `equals(${className})`))
    return null;
  const parameter = kids(field(method, 'parameters')!).find((p) => p.type === 'formal_parameter');
  const body = field(method, 'body');
  if (!parameter || !body) return null;
  const name = nameOf(parameter);
  // A lambda or local of the same name would make the uses below ambiguous.
  const redeclared = descendants(body, [
    'variable_declarator',
    'formal_parameter',
    'catch_formal_parameter',
    'inferred_parameters',
    'lambda_expression',
  ]).some((declaration) => {
    if (declaration.type === 'inferred_parameters')
      return kids(declaration).some((k) => k.text === name);
    if (declaration.type === 'lambda_expression')
      return field(declaration, 'parameters')?.text === name;
    return nameOf(declaration) === name;
  });
  if (redeclared) return null;
  const supertypes = selfAndSupertypes(owner);
  const uses = descendants(body, 'identifier').filter((identifier) => {
    if (identifier.text !== name) return false;
    const parent = identifier.parent;
    if (parent?.type === 'field_access') return !sameNode(field(parent, 'field'), identifier);
    if (parent?.type === 'method_invocation') return !sameNode(field(parent, 'name'), identifier);
    return true;
  });
  if (!uses.every((use) => survivesNarrowing(use, supertypes))) return null;
  const typeParameters = field(owner, 'type_parameters');
  if (!typeParameters) return className;
  const names = kids(typeParameters).map((parameter) => kids(parameter)[0]?.text ?? '?');
  return `${className}<${names.join(', ')}>`;
}

/** The root node of the file a node is in. */
function fileRoot(node: Node): Node {
  let root = node;
  while (root.parent) root = root.parent;
  return root;
}

/**
 * Method names a new method of the class could clash with: those it declares (any parameters),
 * those it calls without a receiver or through `this`/`super` (inherited ones among them), and
 * those of its supertypes declared in the same file.
 */
function namesInUse(owner: Node): Set<string> {
  const names = new Set(declaredMethods(owner).map(nameOf));
  for (const call of descendants(field(owner, 'body') ?? owner, 'method_invocation')) {
    const receiver = field(call, 'object');
    if (!receiver || receiver.type === 'this' || receiver.type === 'super')
      names.add(field(call, 'name')?.text ?? '');
  }
  const supertypes = selfAndSupertypes(owner);
  supertypes.delete(nameOf(owner));
  for (const type of descendants(fileRoot(owner), CLASS_TYPES)) {
    if (supertypes.has(nameOf(type)))
      for (const method of declaredMethods(type)) names.add(nameOf(method));
  }
  return names;
}

/**
 * An override renamed to each of `typos` that no method of its class, its calls or its
 * supertypes in the file already uses (an overload or an inherited `equal` would clash or be
 * called instead).
 */
export function typoRenames(
  method: Node,
  owner: Node,
  typos: readonly string[],
): { typo: string; edits: TextEdit[] }[] {
  const name = field(method, 'name')!;
  const taken = namesInUse(owner);
  return typos
    .filter((typo) => !taken.has(typo))
    .map((typo) => ({ typo, edits: [{ start: name.startIndex, end: name.endIndex, text: typo }] }));
}

/**
 * Renames `equals(Object)` to a slip of its name, or narrows its parameter to the class itself,
 * so that it no longer overrides `Object.equals`; only where the slip could survive.
 */
function sites(method: Node, _source: string, types: ProjectTypes): CandidateEdit[] {
  if (!isEqualsOverride(method)) return [];
  const owner = declaringClass(method);
  if (!owner || owner.type === 'interface_declaration') return [];
  if (!slipCanSurvive(method, owner, types)) return [];
  const candidates: CandidateEdit[] = typoRenames(method, owner, TYPO_NAMES).map(
    ({ typo, edits }) => ({
      description: `equals(Object) → ${typo}(Object): no longer overrides Object.equals`,
      edits,
      plausibility: plausibility(
        typo === 'equal' ? 0 : 1,
        typo === 'equal' ? 'the s of equals left off' : 'a case slip in the name',
      ),
    }),
  );
  const narrowed = covariantType(method, owner);
  const parameter = kids(field(method, 'parameters')!).find((p) => p.type === 'formal_parameter');
  const type = parameter ? field(parameter, 'type') : null;
  if (narrowed && type) {
    candidates.push({
      description: `equals(Object) → equals(${narrowed}): overloads instead of overriding Object.equals`,
      edits: [{ start: type.startIndex, end: type.endIndex, text: narrowed }],
      plausibility: plausibility(0, 'equals written for the class itself, a classic overload'),
    });
  }
  return candidates;
}

export const equalsTypoInjector: Injector = {
  kind: 'injector',
  typeId: 'api_equals_typo',
  sites,
  check: tradedOverrideCheck(
    isEqualsOverride,
    misnamedEquals,
    (path, typo) =>
      `${path} no longer overrides equals(Object): it declares boolean ${methodSignature(typo)} instead`,
    'no class trades its equals(Object), without @Override, for a misnamed or covariant equals method',
    (override) => !annotatedOverride(override),
  ),
};

import type { Node } from 'web-tree-sitter';
import {
  changedClasses,
  firstMatch,
  type ClassChange,
} from '../../../lang/java/changed-members.js';
import {
  classMembers,
  declaringClass,
  descendants,
  field,
  kids,
  modifierWords,
  nameOf,
  sameTokens,
  type TextEdit,
  unparenthesized,
} from '../../../lang/java/syntax.js';
import { declaredMethods, isEqualsOverride, isHashCodeOverride } from './equals-typo.js';
import { linesRemoval } from './hashed-without-hashcode.js';
import { identicalComparisonInjector } from './identical-comparison.js';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

/**
 * Calls that say nothing about which state a method reads: Object's own methods and the
 * plumbing of EqualsBuilder/HashCodeBuilder (their arguments are read instead).
 */
const PLUMBING_CALLS = new Set([
  'equals',
  'hashCode',
  'getClass',
  'append',
  'appendSuper',
  'isEquals',
  'toHashCode',
  'build',
]);
/** Static calls that make a hash code unstable: state no equals can compare. */
const UNSTABLE_CALLS = new Set([
  'System.identityHashCode',
  'System.currentTimeMillis',
  'System.nanoTime',
  'Math.random',
]);

/** Instance fields a class declares (record components included). */
function stateFields(owner: Node): Set<string> {
  const names = new Set<string>();
  for (const member of classMembers(owner)) {
    if (member.type !== 'field_declaration' || modifierWords(member).includes('static')) continue;
    for (const declarator of kids(member).filter((k) => k.type === 'variable_declarator'))
      names.add(nameOf(declarator));
  }
  const components = owner.type === 'record_declaration' ? field(owner, 'parameters') : null;
  for (const component of components ? kids(components) : []) names.add(nameOf(component));
  return names;
}

/** Names a method declares itself (parameters, locals), which hide fields of the same name. */
function localNames(method: Node): Set<string> {
  const names = new Set<string>();
  for (const declaration of descendants(method, [
    'formal_parameter',
    'catch_formal_parameter',
    'variable_declarator',
    'enhanced_for_statement',
  ]))
    names.add(nameOf(declaration));
  return names;
}

function sameNode(a: Node, b: Node): boolean {
  return a.startIndex === b.startIndex && a.endIndex === b.endIndex && a.type === b.type;
}

/**
 * What a field or accessor is about, so that `iLocale`, `_locale`, `mLocale`, `getLocale()` and
 * `locale` are one piece of state whichever way equals and hashCode reach it.
 */
function stateName(name: string): string {
  const bare = name
    .replace(/\(\)$/, '')
    .replace(/^_+/, '')
    .replace(/^(get|is|has|i|m)(?=[A-Z])/, '');
  return bare.charAt(0).toLowerCase() + bare.slice(1);
}

/**
 * The state a piece of equals or hashCode reads, by `stateName` (each with a name as written):
 * fields of the class (bare, `this.x` or `other.x`), accessor calls (`getX()`, `size()`), `super`
 * (its equals or hashCode) and unstable sources such as `System.identityHashCode`. `skip` leaves
 * one subtree out.
 */
function stateKeys(
  node: Node,
  fields: Set<string>,
  locals: Set<string>,
  skip?: Node,
): Map<string, string> {
  const keys = new Map<string, string>();
  const add = (key: string, written = key) => {
    if (!keys.has(key)) keys.set(key, written);
  };
  const visit = (current: Node) => {
    if (skip && sameNode(current, skip)) return;
    if (current.type === 'identifier') {
      if (fields.has(current.text) && !locals.has(current.text))
        add(stateName(current.text), current.text);
      return;
    }
    if (current.type === 'field_access') {
      const name = field(current, 'field')?.text ?? '';
      if (fields.has(name)) add(stateName(name), name);
      const object = field(current, 'object');
      if (object) visit(object);
      return;
    }
    if (current.type === 'method_invocation') {
      const name = field(current, 'name')?.text ?? '';
      const object = field(current, 'object');
      const typeReceiver =
        object?.type === 'identifier' &&
        /^[A-Z]/.test(object.text) &&
        !fields.has(object.text) &&
        !locals.has(object.text);
      if (object?.type === 'super') add('super');
      else if (typeReceiver) {
        if (UNSTABLE_CALLS.has(`${object.text}.${name}`)) add(`${object.text}.${name}()`);
      } else if (!PLUMBING_CALLS.has(name)) add(stateName(name), `${name}()`);
      if (object && !typeReceiver) visit(object);
      const args = field(current, 'arguments');
      if (args) visit(args);
      return;
    }
    for (const child of kids(current)) visit(child);
  };
  visit(node);
  return keys;
}

function keysOf(method: Node, skip?: Node): Map<string, string> {
  const owner = declaringClass(method);
  return stateKeys(method, owner ? stateFields(owner) : new Set(), localNames(method), skip);
}

/** The operands of a chain of one operator, e.g. `a && b && c` → [a, b, c]. */
function chainOperands(node: Node, operator: string): Node[] {
  if (node.type !== 'binary_expression' || field(node, 'operator')?.type !== operator)
    return [node];
  return [
    ...chainOperands(field(node, 'left')!, operator),
    ...chainOperands(field(node, 'right')!, operator),
  ];
}

/**
 * Deletes one operand of a chain with one of the operators next to it: the one before it, unless
 * that would join two lines and taking the one after it would not (`a && b &&⏎ c && d`).
 */
function operandRemoval(source: string, operands: Node[], index: number): TextEdit {
  const operand = operands[index]!;
  const previous = operands[index - 1];
  const next = operands[index + 1];
  const withPrevious = previous && { start: previous.endIndex, end: operand.endIndex, text: '' };
  const withNext = next && { start: operand.startIndex, end: next.startIndex, text: '' };
  const joinsLines = (edit: TextEdit) => source.slice(edit.start, edit.end).includes('\n');
  if (withPrevious && (!withNext || !joinsLines(withPrevious) || joinsLines(withNext)))
    return withPrevious;
  return withNext!;
}

function isChainRoot(node: Node, operator: string): boolean {
  const parent = node.parent;
  return (
    node.type === 'binary_expression' &&
    field(node, 'operator')?.type === operator &&
    !(parent?.type === 'binary_expression' && field(parent, 'operator')?.type === operator)
  );
}

/**
 * Whether an `&&` chain decides the value a return statement gives back: its ancestors up to the
 * return are parentheses, `||` and `&&`, or the branches of a conditional.
 */
function decidesReturn(chain: Node): boolean {
  let child = chain;
  for (let parent = chain.parent; parent; child = parent, parent = parent.parent) {
    if (parent.type === 'return_statement') return true;
    if (parent.type === 'parenthesized_expression') continue;
    if (
      parent.type === 'binary_expression' &&
      ['||', '&&'].includes(field(parent, 'operator')?.type ?? '')
    )
      continue;
    if (parent.type === 'ternary_expression' && !sameNode(field(parent, 'condition')!, child))
      continue;
    return false;
  }
  return false;
}

function returnsFalse(statement: Node | null): boolean {
  if (!statement) return false;
  if (statement.type === 'block') {
    const inner = kids(statement).filter(
      (k) => k.type !== 'line_comment' && k.type !== 'block_comment',
    );
    return inner.length === 1 && returnsFalse(inner[0]!);
  }
  return statement.type === 'return_statement' && kids(statement)[0]?.type === 'false';
}

/**
 * An `if` (with any `else if`s) whose only effect is `return false`: a check equals makes of some
 * state. Deleting it only lets more objects compare equal.
 */
function isRejection(statement: Node): boolean {
  if (statement.type !== 'if_statement') return false;
  const returns = descendants(statement, 'return_statement');
  const effects = descendants(statement, [
    'expression_statement',
    'local_variable_declaration',
    'throw_statement',
    'break_statement',
    'continue_statement',
    'yield_statement',
  ]);
  return returns.length > 0 && effects.length === 0 && returns.every(returnsFalse);
}

/** A part of equals that can go, and the edit that removes it. */
interface Removal {
  part: Node;
  edit: TextEdit;
  description: string;
}

function squash(text: string): string {
  return text.replace(/\s+/g, ' ');
}

function removals(method: Node, source: string): Removal[] {
  const body = field(method, 'body');
  if (!body) return [];
  const found: Removal[] = [];
  // An operand of `return a == other.a && b == other.b`.
  for (const chain of descendants(body, 'binary_expression')) {
    if (!isChainRoot(chain, '&&') || !decidesReturn(chain)) continue;
    const operands = chainOperands(chain, '&&');
    operands.forEach((operand, index) =>
      found.push({
        part: operand,
        edit: operandRemoval(source, operands, index),
        description: `${squash(operand.text)} dropped from the && chain`,
      }),
    );
  }
  for (const statement of descendants(body, 'if_statement')) {
    if (!isRejection(statement) || statement.parent?.type !== 'block') continue;
    const condition = unparenthesized(field(statement, 'condition')!);
    if (!isChainRoot(condition, '||')) {
      // `if (a != other.a) return false;`, unless its block would be left empty or without the
      // statement that ends it.
      const siblings = kids(statement.parent).filter(
        (k) => k.type !== 'line_comment' && k.type !== 'block_comment',
      );
      if (siblings.length > 1 && !sameNode(siblings.at(-1)!, statement)) {
        found.push({
          part: statement,
          edit: linesRemoval(source, statement, 'statement'),
          description: `${squash(field(statement, 'condition')!.text)} check deleted`,
        });
      }
      continue;
    }
    // One operand of `if (a != other.a || b != other.b) return false;` (not the whole check,
    // which would stop comparing several things at once).
    if (field(statement, 'alternative') || !returnsFalse(field(statement, 'consequence'))) continue;
    const operands = chainOperands(condition, '||');
    operands.forEach((operand, index) =>
      found.push({
        part: operand,
        edit: operandRemoval(source, operands, index),
        description: `${squash(operand.text)} dropped from the || condition`,
      }),
    );
  }
  // One `.append(a, other.a)` of `new EqualsBuilder()...isEquals()`.
  for (const call of descendants(body, 'method_invocation')) {
    if (field(call, 'name')?.text !== 'isEquals') continue;
    const appends: Node[] = [];
    let link = field(call, 'object');
    while (link?.type === 'method_invocation') {
      if (!['append', 'appendSuper'].includes(field(link, 'name')?.text ?? '')) break;
      appends.unshift(link);
      link = field(link, 'object');
    }
    const root = link;
    if (root?.type !== 'object_creation_expression' || appends.length < 2) continue;
    if (field(root, 'type')?.text !== 'EqualsBuilder') continue;
    for (const append of appends) {
      found.push({
        part: field(append, 'arguments')!,
        edit: { start: field(append, 'object')!.endIndex, end: append.endIndex, text: '' },
        description: `.${field(append, 'name')!.text}${squash(field(append, 'arguments')!.text)} dropped from the EqualsBuilder`,
      });
    }
  }
  return found.sort((a, b) => a.edit.start - b.edit.start);
}

/**
 * Makes equals stop comparing some state that hashCode still hashes: one operand of its `&&`
 * chain, one `if (...) return false;` check, one operand of such a check's `||` condition, or one
 * `append` of an EqualsBuilder. Only parts that hold the last reference to that state are offered.
 */
function sites(method: Node, source: string): CandidateEdit[] {
  if (!isEqualsOverride(method)) return [];
  const owner = declaringClass(method);
  const hashCode = owner ? declaredMethods(owner).find(isHashCodeOverride) : undefined;
  if (!hashCode) return [];
  const hashed = keysOf(hashCode);
  const fields = stateFields(owner!);
  const locals = localNames(method);
  const candidates: CandidateEdit[] = [];
  for (const removal of removals(method, source)) {
    const remaining = stateKeys(method, fields, locals, removal.part);
    const inPart = stateKeys(removal.part, fields, locals);
    const lost = [...inPart]
      .filter(([key]) => hashed.has(key) && !remaining.has(key))
      .map(([, written]) => written);
    if (lost.length === 0) continue;
    candidates.push({
      description: `${removal.description}: equals stops comparing ${lost.join(', ')}, which hashCode still uses`,
      edits: [removal.edit],
      plausibility: plausibility(0, 'a comparison dropped from equals (hashCode not updated)'),
    });
  }
  return candidates;
}

/** Where a changed class's hashCode uses state its equals no longer compares, or never did. */
function inconsistency({
  path,
  before: old,
  after: current,
}: ClassChange): StructuralCheck | undefined {
  const oldEquals = declaredMethods(old).find(isEqualsOverride);
  const oldHash = declaredMethods(old).find(isHashCodeOverride);
  const newEquals = declaredMethods(current).find(isEqualsOverride);
  const newHash = declaredMethods(current).find(isHashCodeOverride);
  if (!oldEquals || !oldHash || !newEquals || !newHash) return undefined;
  if (sameTokens(oldEquals, newEquals) && sameTokens(oldHash, newHash)) return undefined;
  const comparedBefore = keysOf(oldEquals);
  const hashedBefore = keysOf(oldHash);
  const compared = keysOf(newEquals);
  const hashed = keysOf(newHash);
  const dropped = [...hashed]
    .filter(([key]) => !compared.has(key) && comparedBefore.has(key))
    .map(([, written]) => written);
  if (dropped.length > 0) {
    return {
      kind: 'Matches',
      evidence: `${path}.equals no longer compares ${dropped.join(', ')}, which hashCode still uses`,
    };
  }
  const added = [...hashed]
    .filter(([key]) => !compared.has(key) && !hashedBefore.has(key))
    .map(([, written]) => written);
  if (added.length === 0) return undefined;
  return {
    kind: 'Matches',
    evidence: `${path}.hashCode now uses ${added.join(', ')}, which equals does not compare`,
  };
}

export const inconsistentEqualsHashCodeInjector: Injector = {
  kind: 'injector',
  typeId: 'api_inconsistent_equals_hashcode',
  sites,
  check(before, after) {
    // `value == other.value` → `other.value == other.value` also stops comparing value, but it is
    // the Comparison of Identical Values type.
    if (identicalComparisonInjector.check(before, after).kind === 'Matches') {
      return {
        kind: 'Mismatch',
        reason: 'the change compares a value with itself (another bug type)',
      };
    }
    return firstMatch(
      changedClasses(before, after),
      inconsistency,
      'no class has hashCode use state that its equals stops (or never started) comparing',
    );
  },
};

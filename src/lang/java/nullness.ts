import type { Node } from 'web-tree-sitter';
import {
  descendants,
  field,
  isComment,
  kids,
  nameOf,
  operatorOf,
  sameNode,
  statementsOf,
  tokens,
  unparenthesized,
} from './syntax.js';

/**
 * Null guards and the dereferences they protect, shared by the two Value Flow types: a value is
 * named by an access key (`x`, `this.x` as `x`, or an array slot `a[i]`); a dereference is a use
 * that throws NullPointerException on null (receiver of a call or field access, indexed array,
 * iterated value, switch subject); it is guarded when a condition, an early exit or an assertion
 * on the way to it proves the value non-null and nothing assigns the value in between.
 */

const JUMPS = new Set([
  'return_statement',
  'throw_statement',
  'continue_statement',
  'break_statement',
]);
/** Nodes holding a list of statements, from which a statement can be removed or unwrapped into. */
export const STATEMENT_LISTS = new Set([
  'block',
  'constructor_body',
  'switch_block_statement_group',
]);
/** Calls that stop on a null argument, so what follows may dereference it. */
const NON_NULL_ASSERTIONS = new Set(['requireNonNull', 'notNull', 'checkNotNull']);
/** One-argument helpers that are true for null (`StringUtils.isEmpty(s)`). */
const TRUE_FOR_NULL = new Set(['isEmpty', 'isBlank', 'isNull']);
/** One-argument helpers that are false for null (`StringUtils.isNotEmpty(s)`). */
const FALSE_FOR_NULL = new Set(['isNotEmpty', 'isNotBlank', 'nonNull']);
/** Calls reading an element of a collection, an iterator or a map entry. */
const ELEMENT_READS = new Set([
  'get',
  'next',
  'previous',
  'nextElement',
  'getValue',
  'elementAt',
  'peek',
  'poll',
  'pop',
  'getFirst',
  'getLast',
  'firstElement',
  'lastElement',
]);

export function argumentsOf(call: Node): Node[] {
  const list = field(call, 'arguments');
  return list ? kids(list).filter((k) => !isComment(k)) : [];
}

/** The key a null check or a dereference names: `x`, `this.x` (as `x`) or `a[i]`; else null. */
export function accessKey(node: Node | null): string | null {
  if (!node) return null;
  const bare = unparenthesized(node);
  if (bare.type === 'identifier') return bare.text;
  if (bare.type === 'field_access') {
    const name = field(bare, 'field');
    return field(bare, 'object')?.type === 'this' && name ? name.text : null;
  }
  if (bare.type === 'array_access') {
    const index = field(bare, 'index');
    const array = accessKey(field(bare, 'array'));
    const slot = index?.type === 'decimal_integer_literal' ? index.text : accessKey(index);
    return array !== null && slot !== null ? `${array}[${slot}]` : null;
  }
  return null;
}

export interface NullCheck {
  /** `x == null`, `null != this.x`, `Objects.isNull(x)`... */
  node: Node;
  key: string;
  /** `==` when the check is true for null. */
  operator: '==' | '!=';
}

function nullCheckOf(node: Node): NullCheck | null {
  if (node.type === 'binary_expression') {
    const operator = operatorOf(node);
    const left = field(node, 'left');
    const right = field(node, 'right');
    if ((operator !== '==' && operator !== '!=') || !left || !right) return null;
    const [l, r] = [unparenthesized(left), unparenthesized(right)];
    const other = r.type === 'null_literal' ? l : l.type === 'null_literal' ? r : null;
    const key = accessKey(other);
    return key ? { node, key, operator } : null;
  }
  if (node.type === 'method_invocation') {
    const name = field(node, 'name')?.text ?? '';
    const args = argumentsOf(node);
    const object = field(node, 'object');
    if ((name !== 'isNull' && name !== 'nonNull') || args.length !== 1) return null;
    if (object && object.text !== 'Objects' && object.text !== 'java.util.Objects') return null;
    const key = accessKey(args[0]!);
    return key ? { node, key, operator: name === 'isNull' ? '==' : '!=' } : null;
  }
  return null;
}

/** Every null check in a subtree, in source order. */
export function nullChecks(root: Node): NullCheck[] {
  return descendants(root, ['binary_expression', 'method_invocation'])
    .map(nullCheckOf)
    .filter((check): check is NullCheck => check !== null);
}

function singleArgumentHelper(node: Node, names: Set<string>, key: string): boolean {
  if (node.type !== 'method_invocation' || !names.has(field(node, 'name')?.text ?? ''))
    return false;
  const args = argumentsOf(node);
  return args.length === 1 && accessKey(args[0]!) === key;
}

/** Whether `condition` can only be true when `key` is not null. */
export function provesNonNull(condition: Node, key: string): boolean {
  const c = unparenthesized(condition);
  const check = nullCheckOf(c);
  if (check) return check.key === key && check.operator === '!=';
  if (c.type === 'instanceof_expression') return accessKey(field(c, 'left')) === key;
  if (c.type === 'binary_expression' && operatorOf(c) === '&&') {
    return [field(c, 'left'), field(c, 'right')].some((side) => side && provesNonNull(side, key));
  }
  if (c.type === 'unary_expression' && operatorOf(c) === '!') {
    const operand = field(c, 'operand');
    return !!operand && holdsForNull(operand, key);
  }
  return singleArgumentHelper(c, FALSE_FOR_NULL, key);
}

/** Whether `condition` is true whenever `key` is null. */
export function holdsForNull(condition: Node, key: string): boolean {
  const c = unparenthesized(condition);
  const check = nullCheckOf(c);
  if (check) return check.key === key && check.operator === '==';
  if (c.type === 'binary_expression' && operatorOf(c) === '||') {
    return [field(c, 'left'), field(c, 'right')].some((side) => side && holdsForNull(side, key));
  }
  if (c.type === 'unary_expression' && operatorOf(c) === '!') {
    const operand = field(c, 'operand');
    return !!operand && provesNonNull(operand, key);
  }
  return singleArgumentHelper(c, TRUE_FOR_NULL, key);
}

/** Whether a statement never completes normally (it returns, throws, breaks or continues). */
export function exits(statement: Node | null): boolean {
  if (!statement) return false;
  if (JUMPS.has(statement.type)) return true;
  if (statement.type === 'block') return exits(statementsOf(statement).at(-1) ?? null);
  if (statement.type === 'if_statement') {
    const alternative = field(statement, 'alternative');
    return !!alternative && exits(field(statement, 'consequence')) && exits(alternative);
  }
  return false;
}

/** Whether a statement ends by throwing (an exception, not a silent null path). */
export function throws(statement: Node | null): boolean {
  if (!statement) return false;
  if (statement.type === 'throw_statement') return true;
  if (statement.type === 'block') return throws(statementsOf(statement).at(-1) ?? null);
  return false;
}

export function assignsTo(statement: Node, key: string): boolean {
  const expression = statement.type === 'expression_statement' ? kids(statement)[0] : undefined;
  return (
    expression?.type === 'assignment_expression' && accessKey(field(expression, 'left')) === key
  );
}

function isFreshValue(node: Node | null): boolean {
  const bare = node ? unparenthesized(node) : null;
  return (
    !!bare &&
    ['object_creation_expression', 'array_creation_expression', 'string_literal'].includes(
      bare.type,
    )
  );
}

/** Whether, once `statement` has run, `key` holds a non-null value. */
function establishesNonNull(statement: Node, key: string): boolean {
  if (statement.type === 'if_statement') {
    const condition = field(statement, 'condition');
    const consequence = field(statement, 'consequence');
    const alternative = field(statement, 'alternative');
    if (!condition || !consequence) return false;
    if (holdsForNull(condition, key)) {
      return exits(consequence) || statementsOf(consequence).some((s) => assignsTo(s, key));
    }
    return provesNonNull(condition, key) && exits(alternative);
  }
  if (statement.type === 'expression_statement') {
    const expression = kids(statement)[0];
    if (expression?.type === 'method_invocation') {
      const name = field(expression, 'name')?.text ?? '';
      const first = argumentsOf(expression)[0];
      return NON_NULL_ASSERTIONS.has(name) && !!first && accessKey(first) === key;
    }
    return (
      expression?.type === 'assignment_expression' &&
      accessKey(field(expression, 'left')) === key &&
      isFreshValue(field(expression, 'right'))
    );
  }
  if (statement.type === 'local_variable_declaration') {
    return kids(statement).some(
      (d) =>
        d.type === 'variable_declarator' && nameOf(d) === key && isFreshValue(field(d, 'value')),
    );
  }
  return false;
}

/** Whether `key` may be given a null value between two offsets (a `new` object cannot be null). */
function assignedBetween(scope: Node, key: string, from: number, to: number): boolean {
  return descendants(scope, 'assignment_expression').some(
    (a) =>
      a.startIndex >= from &&
      a.startIndex < to &&
      accessKey(field(a, 'left')) === key &&
      !isFreshValue(field(a, 'right')),
  );
}

/** Uses of `key` inside `scope` that throw NullPointerException when it is null. */
export function dereferences(scope: Node, key: string): Node[] {
  return descendants(scope, ['identifier', 'field_access', 'array_access']).filter((node) => {
    if (accessKey(node) !== key) return false;
    // `((Number) x).intValue()` dereferences x as much as `x.intValue()` does.
    let outer = node;
    while (
      outer.parent?.type === 'parenthesized_expression' ||
      (outer.parent?.type === 'cast_expression' && sameNode(field(outer.parent, 'value'), outer))
    )
      outer = outer.parent;
    const parent = outer.parent;
    if (!parent) return false;
    switch (parent.type) {
      case 'method_invocation':
      case 'field_access':
        return sameNode(field(parent, 'object'), outer);
      case 'array_access':
        return sameNode(field(parent, 'array'), outer);
      case 'enhanced_for_statement':
        return sameNode(field(parent, 'value'), outer);
      case 'switch_expression':
        return sameNode(field(parent, 'condition'), outer);
      default:
        return false;
    }
  });
}

/** Whether a dereference is protected by a null check of its key within `member`. */
function isGuarded(deref: Node, key: string, member: Node): boolean {
  const clearFrom = (from: number) => !assignedBetween(member, key, from, deref.startIndex);
  let child = deref;
  for (let current = deref.parent; current; child = current, current = current.parent) {
    const condition = field(current, 'condition');
    switch (current.type) {
      case 'if_statement':
      case 'ternary_expression':
        if (condition && clearFrom(condition.endIndex)) {
          if (sameNode(child, field(current, 'consequence')) && provesNonNull(condition, key))
            return true;
          if (sameNode(child, field(current, 'alternative')) && holdsForNull(condition, key))
            return true;
        }
        break;
      case 'while_statement':
      case 'for_statement':
        if (condition && !sameNode(child, condition) && provesNonNull(condition, key)) return true;
        break;
      case 'binary_expression': {
        const left = field(current, 'left');
        if (!left || !sameNode(child, field(current, 'right')) || !clearFrom(left.endIndex)) break;
        if (operatorOf(current) === '&&' && provesNonNull(left, key)) return true;
        if (operatorOf(current) === '||' && holdsForNull(left, key)) return true;
        break;
      }
      default:
        if (STATEMENT_LISTS.has(current.type)) {
          for (const sibling of kids(current)) {
            if (sibling.startIndex >= child.startIndex) break;
            if (establishesNonNull(sibling, key) && clearFrom(sibling.endIndex)) return true;
          }
        }
    }
    if (sameNode(current, member)) break;
  }
  return false;
}

function unguardedDereferences(member: Node, key: string): Node[] {
  return dereferences(member, key).filter((deref) => !isGuarded(deref, key, member));
}

/** Whether an expression reads an element: `a[i]`, `list.get(i)`, `map.get(k)`, `it.next()`... */
function isElementRead(value: Node | null): boolean {
  let bare = value ? unparenthesized(value) : null;
  if (bare?.type === 'cast_expression') bare = field(bare, 'value');
  if (!bare) return false;
  if (bare.type === 'array_access') return true;
  if (bare.type !== 'method_invocation') return false;
  const name = field(bare, 'name')?.text ?? '';
  // `get` with no argument is a Supplier, a reference or an Optional, not a lookup.
  return ELEMENT_READS.has(name) && (name !== 'get' || argumentsOf(bare).length === 1);
}

/**
 * Whether a value is an element of a collection, map or array: an array slot, the variable of an
 * enhanced for, or a local read from an element (`T e = list.get(i)`, `V v = map.get(k)`,
 * `e = it.next()`). These belong to the Collection Element Null Dereference type.
 */
export function isCollectionElement(key: string, at: Node, member: Node): boolean {
  if (key.includes('[')) return true;
  for (let current = at.parent; current; current = current.parent) {
    if (current.type === 'enhanced_for_statement' && nameOf(current) === key) return true;
    if (sameNode(current, member)) break;
  }
  // Only a local holds an element read into it; a field read from a collection once is state.
  const locals = descendants(member, 'variable_declarator').filter((d) => nameOf(d) === key);
  if (locals.length === 0) return false;
  const declared = locals.some((d) => isElementRead(field(d, 'value')));
  const assigned = descendants(member, 'assignment_expression').some(
    (a) =>
      field(a, 'left')?.type === 'identifier' &&
      field(a, 'left')?.text === key &&
      isElementRead(field(a, 'right')),
  );
  return declared || assigned;
}

/** The whole condition a null check is part of (through `&&`, `||`, `!` and parentheses). */
export function conditionOf(node: Node): Node {
  let current = node;
  for (;;) {
    const parent = current.parent;
    if (!parent) return current;
    const operator = operatorOf(parent);
    const joins =
      parent.type === 'parenthesized_expression' ||
      (parent.type === 'binary_expression' && (operator === '&&' || operator === '||')) ||
      (parent.type === 'unary_expression' && operator === '!');
    if (!joins || (parent.type === 'parenthesized_expression' && isStatementCondition(parent)))
      return current;
    current = parent;
  }
}

/** Whether a node is the parenthesized condition of an `if`, a loop or a `switch`. */
export function isStatementCondition(node: Node): boolean {
  return !!node.parent && sameNode(field(node.parent, 'condition'), node);
}

function multiset(items: string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const item of items) counts.set(item, (counts.get(item) ?? 0) + 1);
  return counts;
}

function contains(outer: string[], inner: string[]): boolean {
  const available = multiset(outer);
  return [...multiset(inner)].every(([item, n]) => (available.get(item) ?? 0) >= n);
}

export interface DroppedGuard {
  key: string;
  /** A dereference of the key that no null check protects any more. */
  deref: Node;
  /** The null checks are all still there: a dereference moved ahead of them or past a reassignment. */
  moved: boolean;
}

/**
 * Whether a member lost the protection of a null check: some key checked for null in `before`
 * has fewer checks in `after` (none turned around or added) — or the same checks in the same
 * conditions — and more dereferences that no check protects.
 */
export function droppedNullGuard(
  before: Node,
  after: Node,
  relevant: (check: NullCheck, member: Node) => boolean,
): DroppedGuard | null {
  const keys = new Set(
    nullChecks(before)
      .filter((check) => relevant(check, before))
      .map((check) => check.key),
  );
  const describe = (member: Node, key: string) => {
    const checks = nullChecks(member).filter((check) => check.key === key);
    return {
      checks: checks.map((check) => `${key} ${check.operator} null`),
      conditions: checks.map((check) => tokens(conditionOf(check.node)).join(' ')),
    };
  };
  for (const key of keys) {
    const was = describe(before, key);
    const now = describe(after, key);
    // A check turned around or added is another bug type (a guard inversion), not this one.
    if (!contains(was.checks, now.checks)) continue;
    const lost = now.checks.length < was.checks.length;
    if (
      !lost &&
      !(contains(was.conditions, now.conditions) && contains(now.conditions, was.conditions))
    )
      continue;
    const old = unguardedDereferences(before, key).map((d) => tokens(d.parent ?? d).join(' '));
    const fresh = unguardedDereferences(after, key);
    if (fresh.length <= old.length) continue;
    const deref = fresh.find((d) => !old.includes(tokens(d.parent ?? d).join(' '))) ?? fresh[0]!;
    return { key, deref, moved: !lost };
  }
  return null;
}

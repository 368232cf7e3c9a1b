import type { Node } from 'web-tree-sitter';
import { changedMembers, firstMatch } from '../../../lang/java/changed-members.js';
import {
  descendants,
  field,
  indentationOf,
  kids,
  memberKey,
  members,
  METHOD_TYPES,
  nameOf,
  tokens,
  unparenthesized,
  withEditedJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

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
const STATEMENT_LISTS = new Set(['block', 'constructor_body', 'switch_block_statement_group']);
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

function same(a: Node | null | undefined, b: Node | null | undefined): boolean {
  return !!a && !!b && a.id === b.id;
}

function isComment(node: Node): boolean {
  return node.type === 'line_comment' || node.type === 'block_comment';
}

function operatorOf(node: Node): string {
  return field(node, 'operator')?.type ?? '';
}

export function argumentsOf(call: Node): Node[] {
  const list = field(call, 'arguments');
  return list ? kids(list).filter((k) => !isComment(k)) : [];
}

/** Statements of a block (or the statement itself), comments left out. */
function statementsOf(node: Node): Node[] {
  return node.type === 'block' ? kids(node).filter((k) => !isComment(k)) : [node];
}

function oneLine(text: string, limit = 70): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
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
function provesNonNull(condition: Node, key: string): boolean {
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
function holdsForNull(condition: Node, key: string): boolean {
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
function exits(statement: Node | null): boolean {
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
function throws(statement: Node | null): boolean {
  if (!statement) return false;
  if (statement.type === 'throw_statement') return true;
  if (statement.type === 'block') return throws(statementsOf(statement).at(-1) ?? null);
  return false;
}

function assignsTo(statement: Node, key: string): boolean {
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
      (outer.parent?.type === 'cast_expression' && same(field(outer.parent, 'value'), outer))
    )
      outer = outer.parent;
    const parent = outer.parent;
    if (!parent) return false;
    switch (parent.type) {
      case 'method_invocation':
      case 'field_access':
        return same(field(parent, 'object'), outer);
      case 'array_access':
        return same(field(parent, 'array'), outer);
      case 'enhanced_for_statement':
        return same(field(parent, 'value'), outer);
      case 'switch_expression':
        return same(field(parent, 'condition'), outer);
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
          if (same(child, field(current, 'consequence')) && provesNonNull(condition, key))
            return true;
          if (same(child, field(current, 'alternative')) && holdsForNull(condition, key))
            return true;
        }
        break;
      case 'while_statement':
      case 'for_statement':
        if (condition && !same(child, condition) && provesNonNull(condition, key)) return true;
        break;
      case 'binary_expression': {
        const left = field(current, 'left');
        if (!left || !same(child, field(current, 'right')) || !clearFrom(left.endIndex)) break;
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
    if (same(current, member)) break;
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
    if (same(current, member)) break;
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
function conditionOf(node: Node): Node {
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
function isStatementCondition(node: Node): boolean {
  return !!node.parent && same(field(node.parent, 'condition'), node);
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

export function describeDroppedGuard(memberKeyText: string, dropped: DroppedGuard): string {
  const use = oneLine((dropped.deref.parent ?? dropped.deref).text);
  return dropped.moved
    ? `${memberKeyText} dereferences \`${dropped.key}\` before or without its null check: ${use}`
    : `${memberKeyText} drops a null check of \`${dropped.key}\` and still dereferences it: ${use}`;
}

/** The file's line break. */
function eolOf(source: string): string {
  return source.includes('\r\n') ? '\r\n' : '\n';
}

/** The lines a statement occupies (indentation and line break included), if it has them to itself. */
function ownLines(source: string, node: Node): { start: number; end: number } | null {
  let start = node.startIndex;
  while (start > 0 && (source[start - 1] === ' ' || source[start - 1] === '\t')) start--;
  let end = node.endIndex;
  while (
    end < source.length &&
    (source[end] === ' ' || source[end] === '\t' || source[end] === '\r')
  )
    end++;
  if ((start === 0 || source[start - 1] === '\n') && source[end] === '\n')
    return { start, end: end + 1 };
  return null;
}

/** Removes a statement's lines, with a comment about null right above it and a doubled blank line. */
function removeStatement(source: string, statement: Node): TextEdit {
  const lines = ownLines(source, statement);
  if (!lines) return { start: statement.startIndex, end: statement.endIndex, text: '' };
  let { start, end } = lines;
  let top = statement;
  for (
    let previous = statement.previousNamedSibling;
    previous && isComment(previous) && previous.endPosition.row === top.startPosition.row - 1;
    previous = previous.previousNamedSibling
  ) {
    const range = ownLines(source, previous);
    if (!range || !/null/i.test(previous.text)) break;
    start = range.start;
    top = previous;
  }
  const blankAfter = /^[ \t]*\r?\n/.exec(source.slice(end));
  const before = source.slice(Math.max(0, start - 200), start);
  if (blankAfter && (/\n[ \t]*\r?\n$/.test(before) || /\{[ \t]*\r?\n$/.test(before)))
    end += blankAfter[0].length;
  return { start, end, text: '' };
}

/** A branch's statements as lines at `indent` (one indentation level out), or null. */
function unwrappedLines(source: string, branch: Node, indent: string): string | null {
  const parts = branch.type === 'block' ? kids(branch) : [branch];
  const first = parts[0];
  const last = parts.at(-1);
  if (!first || !last) return null;
  const eol = eolOf(source);
  const lineStart = source.lastIndexOf('\n', first.startIndex - 1) + 1;
  if (!/^[ \t]*$/.test(source.slice(lineStart, first.startIndex))) {
    // `} else if (...) {` goes on as it is: its lines already stand at the guard's indentation.
    if (branch.type !== 'block') return indent + branch.text + eol;
    // `{ a(); }` on the guard's own line
    if (first.startPosition.row !== last.endPosition.row) return null;
    return indent + source.slice(first.startIndex, last.endIndex) + eol;
  }
  const inner = indentationOf(source, first);
  return (
    source
      .slice(lineStart, last.endIndex)
      .split('\n')
      .map((line) => (inner && line.startsWith(inner) ? indent + line.slice(inner.length) : line))
      .join('\n') + eol
  );
}

/** Names that the unwrapped statements would declare and the method declares elsewhere. */
function clashes(member: Node, branch: Node): boolean {
  const declared = statementsOf(branch).flatMap((s) =>
    s.type === 'local_variable_declaration'
      ? kids(s)
          .filter((d) => d.type === 'variable_declarator')
          .map(nameOf)
      : s.type === 'class_declaration'
        ? [nameOf(s)]
        : [],
  );
  if (declared.length === 0) return false;
  const elsewhere = descendants(member, [
    'variable_declarator',
    'formal_parameter',
    'catch_formal_parameter',
    'enhanced_for_statement',
    'class_declaration',
  ])
    .filter((d) => d.startIndex < branch.startIndex || d.startIndex >= branch.endIndex)
    .map(nameOf);
  return declared.some((name) => elsewhere.includes(name));
}

/** `if (x != null) { body }` → body, one level out; a fallback `return` after it goes too. */
function unwrap(source: string, member: Node, guard: Node, kept: Node): TextEdit | null {
  const lines = ownLines(source, guard);
  if (!lines || statementsOf(kept).length === 0 || clashes(member, kept)) return null;
  const text = unwrappedLines(source, kept, indentationOf(source, guard));
  if (text === null) return null;
  let end = lines.end;
  if (exits(kept)) {
    // What followed would become unreachable: only a single fallback return may go with it.
    const following: Node[] = [];
    for (let next = guard.nextNamedSibling; next; next = next.nextNamedSibling)
      if (!isComment(next)) following.push(next);
    if (following.length > 0) {
      const fallback = following[0]!;
      const keptLast = statementsOf(kept).at(-1);
      if (following.length > 1 || fallback.type !== 'return_statement') return null;
      if (keptLast?.type !== 'return_statement') return null;
      const range = ownLines(source, fallback);
      if (!range || source.slice(lines.end, range.start).trim() !== '') return null;
      end = range.end;
    }
  }
  return { start: lines.start, end, text };
}

/** `if (x == null) return d; T y = x.m();` → `T y = x.m(); if (x == null) return d;` */
function moveBelow(source: string, guard: Node, key: string): CandidateEdit | null {
  const next = guard.nextNamedSibling;
  if (!next || !['local_variable_declaration', 'expression_statement'].includes(next.type))
    return null;
  if (next.startPosition.row <= guard.endPosition.row) return null;
  // The guard must still protect something, or it would be left as dead code at the end.
  let after = next.nextNamedSibling;
  while (after && isComment(after)) after = after.nextNamedSibling;
  if (!after) return null;
  const between = source.slice(guard.endIndex, next.startIndex);
  if (between.trim() !== '' || !ownLines(source, next)) return null;
  if (dereferences(next, key).length === 0 || descendants(next, 'lambda_expression').length > 0)
    return null;
  if (descendants(next, 'assignment_expression').some((a) => accessKey(field(a, 'left')) === key))
    return null;
  const declared = descendants(next, 'variable_declarator').map(nameOf);
  const used = new Set(descendants(guard, 'identifier').map((n) => n.text));
  if (declared.some((name) => used.has(name))) return null;
  return {
    description: `${oneLine(next.text)} moved above ${oneLine(guard.text, 40)}`,
    edits: [
      { start: guard.startIndex, end: next.endIndex, text: next.text + between + guard.text },
    ],
    plausibility: plausibility(2, 'a use reordered ahead of its guard'),
  };
}

function assignsOnly(statement: Node, key: string): boolean {
  const statements = statementsOf(statement);
  return statements.length > 0 && statements.every((s) => assignsTo(s, key));
}

/** The statement a null check decides, with the branch a null value takes. */
function rewritesOfIf(
  source: string,
  member: Node,
  guard: Node,
  check: NullCheck,
): CandidateEdit[] {
  const consequence = field(guard, 'consequence');
  const alternative = field(guard, 'alternative');
  const onNull = check.operator === '==' ? consequence : alternative;
  const kept = check.operator === '==' ? alternative : consequence;
  if (!consequence || throws(onNull)) return [];
  const label = oneLine(`${source.slice(guard.startIndex, consequence.startIndex)}…`, 50);
  const container = guard.parent;
  if (container?.type === 'if_statement' && same(field(container, 'alternative'), guard)) {
    // `} else if (x != null) {...}` → `} else {...}`; `} else if (x == null) return;` → gone
    if (kept) {
      return [
        {
          description: `${label} → else`,
          edits: [{ start: guard.startIndex, end: guard.endIndex, text: kept.text }],
          plausibility: plausibility(1, 'an else-if null test folded into a plain else'),
        },
      ];
    }
    const outer = field(container, 'consequence');
    if (!outer || !(exits(onNull) || assignsOnly(consequence, check.key))) return [];
    return [
      {
        description: `${label} removed`,
        edits: [{ start: outer.endIndex, end: guard.endIndex, text: '' }],
        plausibility: plausibility(1, 'a null case left out of an if-else chain'),
      },
    ];
  }
  if (!container || !STATEMENT_LISTS.has(container.type)) return [];
  if (!kept) {
    // An early exit or a default for null: `if (x == null) return ...;`, `if (x == null) x = d;`
    if (!exits(consequence) && !assignsOnly(consequence, check.key)) return [];
    const removal = {
      description: `${label} removed`,
      edits: [removeStatement(source, guard)],
      plausibility: plausibility(1, 'an early exit for null left out'),
    };
    const moved = moveBelow(source, guard, check.key);
    return moved ? [removal, moved] : [removal];
  }
  const edit = unwrap(source, member, guard, kept);
  const how = check.operator === '==' ? 'removed, its else branch kept' : 'unwrapped';
  return edit
    ? [
        {
          description: `${label} ${how}`,
          edits: [edit],
          plausibility: plausibility(0, 'a null guard around the work left out'),
        },
      ]
    : [];
}

const PRIMARIES = new Set([
  'identifier',
  'field_access',
  'array_access',
  'method_invocation',
  'object_creation_expression',
  'parenthesized_expression',
  'string_literal',
  'decimal_integer_literal',
  'null_literal',
  'true',
  'false',
  'this',
]);

/** Whether an expression stands where any expression may (no operator around it). */
function isFreeContext(node: Node): boolean {
  const parent = node.parent;
  if (!parent) return false;
  switch (parent.type) {
    case 'variable_declarator':
      return same(field(parent, 'value'), node);
    case 'assignment_expression':
      return same(field(parent, 'right'), node);
    case 'return_statement':
    case 'argument_list':
    case 'expression_statement':
    case 'parenthesized_expression':
      return true;
    default:
      return false;
  }
}

/**
 * `target` replaced by `kept`, without parentheses the result no longer needs:
 * `(s == null ? 0 : s.length())` → `s.length()`, `if (x != null && (a || b))` → `if (a || b)`.
 */
function replaceExpression(target: Node, kept: Node): TextEdit {
  let outer = target;
  const wrapper = target.parent;
  if (
    wrapper?.type === 'parenthesized_expression' &&
    !isStatementCondition(wrapper) &&
    (PRIMARIES.has(kept.type) || isFreeContext(wrapper))
  )
    outer = wrapper;
  const text = isFreeContext(outer) ? unparenthesized(kept).text : kept.text;
  return { start: outer.startIndex, end: outer.endIndex, text };
}

/** Rewrites that take away one null check, each keeping the code around it compilable. */
function rewritesOf(source: string, member: Node, check: NullCheck): CandidateEdit[] {
  let outer = check.node;
  while (outer.parent?.type === 'parenthesized_expression') outer = outer.parent;
  const parent = outer.parent;
  if (!parent) return [];
  if (parent.type === 'binary_expression') {
    // `x != null && x.m()` → `x.m()`, `x == null || x.isEmpty()` → `x.isEmpty()`
    const operator = operatorOf(parent);
    const guardOperator = check.operator === '!=' ? '&&' : '||';
    const left = field(parent, 'left');
    const right = field(parent, 'right');
    if (operator !== guardOperator || !left || !right) return [];
    const root = conditionOf(check.node);
    const statement = root.parent?.type === 'parenthesized_expression' ? root.parent.parent : null;
    if (statement?.type === 'if_statement' && same(field(statement, 'condition'), root.parent)) {
      const onNull = holdsForNull(root, check.key)
        ? field(statement, 'consequence')
        : provesNonNull(root, check.key)
          ? field(statement, 'alternative')
          : null;
      if (throws(onNull)) return [];
    }
    const edit = replaceExpression(parent, same(outer, left) ? right : left);
    return [
      {
        description: `${oneLine(parent.text)}: ${oneLine(outer.text)} dropped`,
        edits: [edit],
        plausibility: plausibility(0, 'a null-check conjunct dropped'),
      },
    ];
  }
  if (parent.type === 'if_statement' && same(field(parent, 'condition'), outer))
    return rewritesOfIf(source, member, parent, check);
  if (parent.type === 'ternary_expression' && same(field(parent, 'condition'), outer)) {
    // `x == null ? d : x.m()` → `x.m()`
    const kept = field(parent, check.operator === '==' ? 'alternative' : 'consequence');
    if (!kept) return [];
    return [
      {
        description: `${oneLine(parent.text)} → ${oneLine(kept.text)}`,
        edits: [replaceExpression(parent, kept)],
        plausibility: plausibility(1, 'a null default in a conditional left out'),
      },
    ];
  }
  return [];
}

/** The method or constructor starting at `offset` (edits inside a body leave its start in place). */
function memberStartingAt(root: Node, offset: number): Node | null {
  let node = root.descendantForIndex(offset);
  while (
    node &&
    !((METHOD_TYPES as readonly string[]).includes(node.type) && node.startIndex === offset)
  )
    node = node.parent;
  return node;
}

/**
 * Whether the structural check can see changes to `member`: members are matched by key, and of
 * two sharing one (`f(JsonParser.Feature)` and `f(JsonGenerator.Feature)`, anonymous classes)
 * only the first is compared.
 */
export function isComparable(member: Node): boolean {
  let root = member;
  while (root.parent) root = root.parent;
  return same(members(root).get(memberKey(member)), member);
}

/**
 * Candidate edits removing or moving the null guards of `relevant` values in a member, kept only
 * when the rewritten file parses and the member really dereferences the value unguarded.
 */
export function guardRemovalSites(
  member: Node,
  source: string,
  relevant: (check: NullCheck, member: Node) => boolean,
): CandidateEdit[] {
  const body = field(member, 'body');
  if (!body || !isComparable(member)) return [];
  const seen = new Set<string>();
  const candidates: CandidateEdit[] = [];
  for (const check of nullChecks(body)) {
    if (!relevant(check, member)) continue;
    for (const candidate of rewritesOf(source, member, check)) {
      const id = JSON.stringify(candidate.edits);
      if (seen.has(id)) continue;
      seen.add(id);
      const confirmed = withEditedJavaTree(member.tree, source, candidate.edits, (root) => {
        const after = root.hasError ? null : memberStartingAt(root, member.startIndex);
        return (
          !!after &&
          droppedNullGuard(member, after, (c, m) => c.key === check.key && relevant(c, m)) !== null
        );
      });
      if (confirmed) candidates.push(candidate);
    }
  }
  return candidates;
}

/** Values worth a guard removal: not collection elements (the other Value Flow type's sites). */
function plainValue(check: NullCheck, member: Node): boolean {
  return !isCollectionElement(check.key, check.node, member);
}

export const nullGuardRemovedInjector: Injector = {
  kind: 'injector',
  typeId: 'npe_intra_method_guard_removed',
  sites: (method, source) => guardRemovalSites(method, source, plainValue),
  check: (before, after) =>
    firstMatch(
      changedMembers(before, after),
      (change) => {
        if (!change.before || !change.after) return undefined;
        const dropped = droppedNullGuard(change.before, change.after, () => true);
        if (!dropped) return undefined;
        return { kind: 'Matches', evidence: describeDroppedGuard(change.key, dropped) };
      },
      'no changed method loses a null check (or moves a use ahead of one) while still dereferencing the value unguarded',
    ),
};

import type { Node } from 'web-tree-sitter';
import { changedMembers, firstMatch } from '../../../lang/java/changed-members.js';
import {
  accessKey,
  assignsTo,
  conditionOf,
  dereferences,
  droppedNullGuard,
  exits,
  holdsForNull,
  isCollectionElement,
  isStatementCondition,
  nullChecks,
  provesNonNull,
  STATEMENT_LISTS,
  throws,
  type DroppedGuard,
  type NullCheck,
} from '../../../lang/java/nullness.js';
import {
  descendants,
  field,
  indentationOf,
  isComment,
  kids,
  memberKey,
  members,
  METHOD_TYPES,
  nameOf,
  operatorOf,
  sameNode,
  statementsOf,
  unparenthesized,
  withEditedJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

/*
 * Intra-Function Null Dereference: rewrites that take away a null guard (or move a use ahead of
 * it), each kept only when the nullness analysis (lang/java/nullness.ts) confirms a dereference
 * left unguarded; the rewrites are shared with the Collection Element type.
 */

function oneLine(text: string, limit = 70): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
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
  if (container?.type === 'if_statement' && sameNode(field(container, 'alternative'), guard)) {
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
      return sameNode(field(parent, 'value'), node);
    case 'assignment_expression':
      return sameNode(field(parent, 'right'), node);
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
    if (
      statement?.type === 'if_statement' &&
      sameNode(field(statement, 'condition'), root.parent)
    ) {
      const onNull = holdsForNull(root, check.key)
        ? field(statement, 'consequence')
        : provesNonNull(root, check.key)
          ? field(statement, 'alternative')
          : null;
      if (throws(onNull)) return [];
    }
    const edit = replaceExpression(parent, sameNode(outer, left) ? right : left);
    return [
      {
        description: `${oneLine(parent.text)}: ${oneLine(outer.text)} dropped`,
        edits: [edit],
        plausibility: plausibility(0, 'a null-check conjunct dropped'),
      },
    ];
  }
  if (parent.type === 'if_statement' && sameNode(field(parent, 'condition'), outer))
    return rewritesOfIf(source, member, parent, check);
  if (parent.type === 'ternary_expression' && sameNode(field(parent, 'condition'), outer)) {
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
  return sameNode(members(root).get(memberKey(member)), member);
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

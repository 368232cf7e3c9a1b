import type { Node } from 'web-tree-sitter';
import {
  changedInPlace,
  firstMatch,
  type InPlaceChange,
} from '../../../lang/java/changed-members.js';
import {
  ancestor,
  field,
  ownDescendants,
  tokenLeaves,
  tokens,
  unparenthesized,
  within,
} from '../../../lang/java/syntax.js';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import { plausibility, type CandidateEdit, type Injector, type Plausibility } from './types.js';

/** Statements and expressions whose `condition` decides which code runs. */
const GUARDS = [
  'if_statement',
  'while_statement',
  'do_statement',
  'for_statement',
  'ternary_expression',
] as const;
const GUARD_LABELS: Record<string, string> = {
  if_statement: 'if',
  while_statement: 'while',
  do_statement: 'do-while',
  for_statement: 'for',
  ternary_expression: '?:',
};
/** Nodes that make code below them conditional, for ranking guards by nesting. */
const NESTING = [
  ...GUARDS,
  'enhanced_for_statement',
  'switch_block_statement_group',
  'switch_rule',
  'catch_clause',
  'lambda_expression',
];
const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);
const NEGATED: Record<string, string> = {
  '==': '!=',
  '!=': '==',
  '<': '>=',
  '>=': '<',
  '>': '<=',
  '<=': '>',
};
const MIRRORED: Record<string, string> = {
  '==': '==',
  '!=': '!=',
  '<': '>',
  '>': '<',
  '<=': '>=',
  '>=': '<=',
};
/** The rewrites: each boundary moves by one, each equality test turns into its opposite. */
const FLIPPED: Record<string, string> = {
  '<': '<=',
  '<=': '<',
  '>': '>=',
  '>=': '>',
  '==': '!=',
  '!=': '==',
};
/** Flipping a logging guard changes nothing a test observes. */
const LOGGING_GUARD =
  /\bis(Trace|Debug|Info|Warn|Warning|Error|Fine|Finer|Finest)Enabled\b|\bisLoggable\b/;
/** Tokens of an expression that changes state (`++p`, `x = y`, `n += 2`), joined by spaces. */
const SIDE_EFFECT = /\+\+|--| [-+*/%&|^]?= | <<= | >>>?= /;
/** Guards kept per method: the likeliest to be noticed first. */
const MAX_SITES = 8;

function operatorOf(node: Node): string {
  return field(node, 'operator')?.type ?? '';
}

function isConnective(node: Node): boolean {
  return node.type === 'binary_expression' && ['&&', '||'].includes(operatorOf(node));
}

function isComparison(node: Node): boolean {
  return node.type === 'binary_expression' && COMPARISONS.has(operatorOf(node));
}

function isNegation(node: Node): boolean {
  return node.type === 'unary_expression' && operatorOf(node) === '!';
}

function isBooleanLiteral(node: Node): boolean {
  return node.type === 'true' || node.type === 'false';
}

function text(node: Node): string {
  return tokens(node).join(' ');
}

/** Guards of a method whose conditions are not part of another guard's condition. */
function guardConditions(member: Node): { guard: Node; condition: Node }[] {
  const found = ownDescendants(member, GUARDS).flatMap((guard) => {
    const condition = field(guard, 'condition');
    return condition ? [{ guard, condition }] : [];
  });
  return found.filter(
    ({ condition }) =>
      !found.some((other) => other.condition !== condition && within(condition, other.condition)),
  );
}

/**
 * The predicates of a condition: the nodes at boolean positions (the condition itself, operands
 * of `&&`, `||` and `!`, through parentheses). Arguments of calls are not predicates of the guard.
 */
function predicates(condition: Node): Node[] {
  const found: Node[] = [];
  const visit = (node: Node) => {
    const bare = unparenthesized(node);
    found.push(bare);
    if (isConnective(bare)) {
      for (const side of [field(bare, 'left'), field(bare, 'right')]) if (side) visit(side);
    } else if (isNegation(bare)) {
      const operand = field(bare, 'operand');
      if (operand) visit(operand);
    }
  };
  visit(condition);
  return found;
}

interface Flip {
  /** Lower: likelier to change what a test sees. */
  rank: number;
  plausibility: Plausibility;
  node: Node;
  edit: { start: number; end: number; text: string };
}

/** One-token rewrite of a node's operator. */
function operatorEdit(node: Node, replacement: string): Flip['edit'] {
  const operator = field(node, 'operator')!;
  return { start: operator.startIndex, end: operator.endIndex, text: replacement };
}

/** Whether `&&` ↔ `||` on this node keeps the tree's grouping (otherwise it would regroup). */
function regroupsSafely(node: Node, replacement: string): boolean {
  if (replacement === '||') {
    const parent = node.parent;
    return !(parent && isConnective(parent) && operatorOf(parent) === '&&');
  }
  return ![field(node, 'left'), field(node, 'right')].some(
    (side) => side !== null && isConnective(side) && operatorOf(side) === '||',
  );
}

/** Whether a condition bounds an index by a length or size: `i < a.length`, `i < list.size()`. */
function boundsByLength(node: Node): boolean {
  return /(\.length|\.size\(\)|\.length\(\))$/.test(
    text(field(node, 'right') ?? node).replace(/ /g, ''),
  );
}

/**
 * The rewrites of one guard's condition, each with a rank (lower: likelier to change what a test
 * sees). A predicate that is the whole condition inverts the guard on every input; a boundary
 * moves only where the two sides are equal, except in loops bounded by a length, where it runs
 * one step past the end.
 */
function flips(guard: Node, condition: Node, source: string): Flip[] {
  const root = unparenthesized(condition);
  const loop = guard.type !== 'if_statement' && guard.type !== 'ternary_expression';
  const out: Flip[] = [];
  const texts = predicates(condition).map(text);
  // Toggling one of two equal predicates would test a predicate and its negation: a constant.
  const repeated = (node: Node) =>
    !SIDE_EFFECT.test(text(node)) && texts.filter((t) => t === text(node)).length > 1;
  for (const node of predicates(condition)) {
    const whole = node.equals(root);
    // An inverted loop condition tends to skip the loop or never leave it (a timeout, no verdict).
    const inversionRank = loop ? 2 : whole ? 0 : 1;
    if (isConnective(node)) {
      const replacement = operatorOf(node) === '&&' ? '||' : '&&';
      if (regroupsSafely(node, replacement))
        out.push({
          rank: 2,
          plausibility: plausibility(2, `${operatorOf(node)} written for ${replacement}`),
          node,
          edit: operatorEdit(node, replacement),
        });
    } else if (isComparison(node)) {
      if (repeated(node)) continue;
      const left = field(node, 'left');
      const right = field(node, 'right');
      if (!left || !right || text(unparenthesized(left)) === text(unparenthesized(right))) continue;
      const operator = operatorOf(node);
      const equality = operator === '==' || operator === '!=';
      const rank = equality ? inversionRank : loop && boundsByLength(node) ? 1 : 3;
      out.push({
        rank,
        plausibility: equality
          ? plausibility(loop ? 2 : 1, 'the branches swapped by a flipped equality test')
          : isRealBound(right)
            ? plausibility(0, `off by one on the bound ${oneLine(right.text, 40)}`)
            : plausibility(1, 'a boundary moved by one'),
        node,
        edit: operatorEdit(node, FLIPPED[operator]!),
      });
    } else if (isNegation(node)) {
      if (repeated(node)) continue;
      const operand = field(node, 'operand')!;
      const inner = unparenthesized(operand);
      // `if (!(a && b))` becomes `if (a && b)`, not `if ((a && b))`.
      const bareText =
        whole && guard.type !== 'for_statement' && guard.type !== 'ternary_expression'
          ? source.slice(inner.startIndex, inner.endIndex)
          : source.slice(operand.startIndex, operand.endIndex);
      out.push({
        rank: inversionRank,
        plausibility: plausibility(loop ? 2 : 1, 'a negation forgotten: the branches swapped'),
        node,
        edit: { start: node.startIndex, end: node.endIndex, text: bareText },
      });
    } else if (!isBooleanLiteral(node) && !(node.parent && isNegation(node.parent))) {
      if (repeated(node)) continue;
      const simple = [
        'identifier',
        'field_access',
        'method_invocation',
        'array_access',
        'parenthesized_expression',
      ].includes(node.type);
      const original = source.slice(node.startIndex, node.endIndex);
      out.push({
        rank: inversionRank,
        plausibility: plausibility(loop ? 2 : 1, 'a negation added: the branches swapped'),
        node,
        edit: {
          start: node.startIndex,
          end: node.endIndex,
          text: simple ? `!${original}` : `!(${original})`,
        },
      });
    }
  }
  return out;
}

/**
 * A bound a maintainer can be off by one against: a length or size, or a name that reads as a
 * limit (`max`, `limit`, `end`, `count`...), rather than a literal or an arbitrary value.
 */
function isRealBound(node: Node): boolean {
  const written = text(unparenthesized(node)).replace(/ /g, '');
  return (
    /(\.length|\.size\(\)|\.length\(\))([-+]1)?$/.test(written) ||
    /(max|min|limit|len|length|size|count|end|bound|capacity)\w*([-+]1)?$/i.test(written)
  );
}

function nestingDepth(node: Node, member: Node): number {
  let depth = 0;
  for (let current = node.parent; current && !current.equals(member); current = current.parent) {
    if (NESTING.includes(current.type)) depth++;
  }
  return depth;
}

function oneLine(value: string, limit = 120): string {
  const flat = value.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

function sites(method: Node, source: string): CandidateEdit[] {
  if (!field(method, 'body')) return [];
  const ranked: (CandidateEdit & { rank: number; depth: number; start: number })[] = [];
  for (const { guard, condition } of guardConditions(method)) {
    if (LOGGING_GUARD.test(condition.text)) continue;
    const depth = nestingDepth(guard, method);
    for (const flip of flips(guard, condition, source)) {
      const before = source.slice(condition.startIndex, condition.endIndex);
      const after =
        source.slice(condition.startIndex, flip.edit.start) +
        flip.edit.text +
        source.slice(flip.edit.end, condition.endIndex);
      const label = GUARD_LABELS[guard.type]!;
      ranked.push({
        description: `${label} ${oneLine(before)} → ${label} ${oneLine(after)}`,
        edits: [flip.edit],
        plausibility: flip.plausibility,
        rank: flip.rank,
        depth,
        start: flip.edit.start,
      });
    }
  }
  ranked.sort(
    (a, b) =>
      a.plausibility.rank - b.plausibility.rank ||
      a.rank - b.rank ||
      a.depth - b.depth ||
      a.start - b.start,
  );
  return ranked
    .slice(0, MAX_SITES)
    .map(({ description, edits, plausibility }) => ({ description, edits, plausibility }));
}

// ---------------------------------------------------------------------------------------------
// The check: conditions as boolean formulas over the same atoms.

type Formula =
  | { kind: 'and' | 'or'; parts: Formula[] }
  | { kind: 'not'; operand: Formula }
  | { kind: 'compare'; operator: string; left: string; right: string }
  | { kind: 'atom'; text: string };

function formula(node: Node): Formula {
  const bare = unparenthesized(node);
  if (isConnective(bare)) {
    return {
      kind: operatorOf(bare) === '&&' ? 'and' : 'or',
      parts: [formula(field(bare, 'left')!), formula(field(bare, 'right')!)],
    };
  }
  if (isNegation(bare)) return { kind: 'not', operand: formula(field(bare, 'operand')!) };
  if (isComparison(bare)) {
    return {
      kind: 'compare',
      operator: operatorOf(bare),
      left: text(unparenthesized(field(bare, 'left')!)),
      right: text(unparenthesized(field(bare, 'right')!)),
    };
  }
  return { kind: 'atom', text: text(bare) };
}

/**
 * A canonical text of a formula: negations pushed down to atoms (De Morgan, `!(a < b)` as
 * `a >= b`), chains flattened, comparisons written with their operands in a fixed order. Two
 * conditions with the same canonical text decide alike. Operand order of `&&`/`||` is kept
 * unless `unordered`: it decides which side guards the other.
 */
function canonical(f: Formula, negate = false, unordered = false): string {
  switch (f.kind) {
    case 'not':
      return canonical(f.operand, !negate, unordered);
    case 'and':
    case 'or': {
      const kind = (f.kind === 'and') !== negate ? 'and' : 'or';
      const parts = chainParts(f, negate, kind).map((part) =>
        canonical(part.f, part.negate, unordered),
      );
      if (unordered) parts.sort();
      return `${kind}(${parts.join(' ; ')})`;
    }
    case 'compare': {
      const operator = negate ? NEGATED[f.operator]! : f.operator;
      return f.left <= f.right
        ? `[${f.left}] ${operator} [${f.right}]`
        : `[${f.right}] ${MIRRORED[operator]!} [${f.left}]`;
    }
    case 'atom':
      return negate ? `!{${f.text}}` : `{${f.text}}`;
  }
}

/** The operands of a chain of one connective (after negations are pushed down), flattened. */
function chainParts(
  f: Formula & { kind: 'and' | 'or' },
  negate: boolean,
  kind: 'and' | 'or',
): { f: Formula; negate: boolean }[] {
  return f.parts.flatMap((part) => {
    let inner = part;
    let negated = negate;
    while (inner.kind === 'not') {
      inner = inner.operand;
      negated = !negated;
    }
    if (inner.kind === 'and' || inner.kind === 'or') {
      const effective = (inner.kind === 'and') !== negated ? 'and' : 'or';
      if (effective === kind) return chainParts(inner, negated, kind);
    }
    return [{ f: inner, negate: negated }];
  });
}

/** What a formula tests, negations and operators aside: `a < b` and `b >= a` test the same. */
function atoms(f: Formula): string[] {
  switch (f.kind) {
    case 'not':
      return atoms(f.operand);
    case 'and':
    case 'or':
      return f.parts.flatMap(atoms);
    case 'compare':
      return [`compare ${[f.left, f.right].sort().join(' | ')}`];
    case 'atom':
      return [`atom ${f.text}`];
  }
}

function isNullCheck(atom: string): boolean {
  return /^compare (null \| |.* \| null$)/.test(atom);
}

/** Why a formula is constant, or null: literal true/false, `x == x`, `a && !a`. */
function constantReason(f: Formula, before: Formula): string | null {
  const literals = (g: Formula) => atoms(g).filter((a) => a === 'atom true' || a === 'atom false');
  if (literals(f).length > literals(before).length) return 'uses a literal true or false';
  const selfCompared = (g: Formula) =>
    atoms(g).filter((a) => {
      const [left, right] = a.replace(/^compare /, '').split(' | ');
      return a.startsWith('compare ') && left === right;
    });
  if (selfCompared(f).length > selfCompared(before).length)
    return 'compares an expression with itself';
  const complementary = (g: Formula): boolean => {
    if (g.kind === 'not') return complementary(g.operand);
    if (g.kind !== 'and' && g.kind !== 'or') return false;
    // `b[++p] == 'l' && b[++p] != 'l'` reads two different values: not constant.
    const parts = chainParts(g, false, g.kind).filter(
      (part) => !SIDE_EFFECT.test(canonical(part.f)),
    );
    const texts = parts.map((part) => canonical(part.f, part.negate));
    const negated = parts.map((part) => canonical(part.f, !part.negate));
    return texts.some((t) => negated.includes(t)) || parts.some((part) => complementary(part.f));
  };
  if (complementary(f) && !complementary(before)) return 'tests a predicate and its negation';
  return null;
}

function multisetMinus(from: string[], take: string[]): string[] | null {
  const rest = [...from];
  for (const item of take) {
    const index = rest.indexOf(item);
    if (index < 0) return null;
    rest.splice(index, 1);
  }
  return rest;
}

/** A changed guard condition: an inversion or weakening of the old one, or why it is not. */
type ConditionVerdict = { kind: 'Inverted' } | { kind: 'NotInverted'; reason: string };

/** Whether one condition is an inversion or weakening of the other. */
function judgeCondition(before: Node, after: Node): ConditionVerdict {
  const old = formula(before);
  const now = formula(after);
  if (canonical(old) === canonical(now))
    return { kind: 'NotInverted', reason: 'the guard is rewritten into an equivalent condition' };
  // Reordered operands decide alike except for what the first one guards (a null dereference).
  if (canonical(old, false, true) === canonical(now, false, true))
    return { kind: 'NotInverted', reason: 'the change only reorders the operands of && or ||' };
  const constant = constantReason(now, old);
  if (constant) return { kind: 'NotInverted', reason: `the new guard is constant: it ${constant}` };
  const dropped = multisetMinus(atoms(old), atoms(now));
  if (!dropped)
    return {
      kind: 'NotInverted',
      reason:
        'the new guard tests an expression the old one did not: a different predicate, not an inverted one',
    };
  if (atoms(now).length === 0)
    return { kind: 'NotInverted', reason: 'the guard no longer tests anything' };
  if (dropped.some(isNullCheck))
    return {
      kind: 'NotInverted',
      reason: 'the change drops a null check from the guard (a null dereference, not an inversion)',
    };
  return { kind: 'Inverted' };
}

/** The member's tokens with every guard condition replaced by one placeholder. */
function skeleton(member: Node, conditions: Node[]): string[] {
  const out: string[] = [];
  let next = 0;
  for (const leaf of tokenLeaves(member)) {
    while (next < conditions.length && conditions[next]!.endIndex <= leaf.startIndex) next++;
    const condition = conditions[next];
    if (condition && within(leaf, condition)) {
      if (out[out.length - 1] !== `⟨condition ${next}⟩`) out.push(`⟨condition ${next}⟩`);
    } else {
      out.push(leaf.text);
    }
  }
  return out;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

function judgeMember({ key, before, after }: InPlaceChange): StructuralCheck {
  const old = guardConditions(before);
  const now = guardConditions(after);
  const oldConditions = old.map((g) => g.condition).sort((a, b) => a.startIndex - b.startIndex);
  const newConditions = now.map((g) => g.condition).sort((a, b) => a.startIndex - b.startIndex);
  if (
    oldConditions.length !== newConditions.length ||
    !sameList(skeleton(before, oldConditions), skeleton(after, newConditions))
  ) {
    return {
      kind: 'Mismatch',
      reason: `${key} changes more than guard conditions (statements, bodies or other expressions)`,
    };
  }
  const changed: string[] = [];
  for (let i = 0; i < oldConditions.length; i++) {
    const a = oldConditions[i]!;
    const b = newConditions[i]!;
    if (text(a) === text(b)) continue;
    const verdict = judgeCondition(a, b);
    if (verdict.kind === 'NotInverted')
      return { kind: 'Mismatch', reason: `${key}: ${verdict.reason} (${oneLine(b.text)})` };
    const label = GUARD_LABELS[ancestor(a, GUARDS)?.type ?? ''] ?? 'guard';
    const shown = (node: Node) => oneLine(unparenthesized(node).text, 80);
    changed.push(`${label} ${shown(a)} → ${label} ${shown(b)}`);
  }
  if (changed.length === 0)
    return { kind: 'Mismatch', reason: `${key}: no guard condition changed` };
  return { kind: 'Matches', evidence: `${key} inverts a guard: ${changed.join('; ')}` };
}

export const guardInversionInjector: Injector = {
  kind: 'injector',
  typeId: 'logic_predicate_inversion_in_guard',
  sites,
  check: (before, after) =>
    firstMatch(
      changedInPlace(before, after),
      judgeMember,
      'no changed method alters the condition of an if, loop or ?: guard',
    ),
};

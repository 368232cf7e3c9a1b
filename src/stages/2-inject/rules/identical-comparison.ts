import type { Node } from 'web-tree-sitter';
import { changedMembers, firstMatch } from '../../../lang/java/changed-members.js';
import {
  declaredTypes,
  descendants,
  field,
  kids,
  sameTokens,
  tokens,
  unparenthesized,
} from '../../../lang/java/syntax.js';
import { plausibility, type CandidateEdit, type Injector, type Plausibility } from './types.js';

const COMPARISON_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=']);
/** Calls comparing a receiver with an argument, or two arguments with each other. */
const RECEIVER_COMPARISONS = new Set(['equals', 'equalsIgnoreCase', 'compareTo', 'contentEquals']);
const TWO_ARGUMENT_COMPARISONS = new Set(['equals', 'compare', 'deepEquals']);

/** The two operands a comparison node compares, or null if it is not a comparison. */
function comparedOperands(node: Node): [Node, Node] | null {
  if (node.type === 'binary_expression') {
    const operator = field(node, 'operator')?.type ?? '';
    const left = field(node, 'left');
    const right = field(node, 'right');
    return COMPARISON_OPERATORS.has(operator) && left && right ? [left, right] : null;
  }
  if (node.type === 'method_invocation') {
    const name = field(node, 'name')?.text ?? '';
    const receiver = field(node, 'object');
    const args = kids(field(node, 'arguments') ?? node).filter(
      (k) => k.type !== 'line_comment' && k.type !== 'block_comment',
    );
    if (receiver && args.length === 1 && RECEIVER_COMPARISONS.has(name))
      return [receiver, args[0]!];
    // Objects.equals(a, b), Arrays.equals(a, b), comparator.compare(a, b), Double.compare(a, b)
    if (args.length === 2 && TWO_ARGUMENT_COMPARISONS.has(name)) return [args[0]!, args[1]!];
  }
  return null;
}

function isLiteral(node: Node): boolean {
  const bare = unparenthesized(node);
  return bare.type.endsWith('_literal') || bare.type === 'true' || bare.type === 'false';
}

/** `EOF`, `Mode.NONE`: a constant, which compared with itself can make javac see dead code. */
function isConstant(node: Node): boolean {
  const name = node.type === 'field_access' ? field(node, 'field') : node;
  return name?.type === 'identifier' && /^[A-Z][A-Z0-9_]*$/.test(name.text);
}

function joined(node: Node | null): string {
  return node ? tokens(node).join(' ') : '';
}

/** The receiver of a field access or call (`other` in `other.x`), null for `x` or `this.x`. */
function qualifier(node: Node): Node | null {
  const object =
    node.type === 'field_access' || node.type === 'method_invocation'
      ? field(node, 'object')
      : null;
  return object && object.type !== 'this' ? object : null;
}

/** What follows the receiver: the field name, or the call's name and arguments. */
function selector(node: Node): string | null {
  if (node.type === 'identifier') return node.text;
  if (node.type === 'field_access') return field(node, 'field')?.text ?? null;
  if (node.type === 'method_invocation')
    return `${field(node, 'name')?.text ?? ''} ${joined(field(node, 'arguments'))}`;
  return null;
}

/** Token lists of one length that differ in exactly one token. */
function differInOneToken(a: string[], b: string[]): boolean {
  return a.length === b.length && a.filter((token, i) => token !== b[i]).length === 1;
}

/**
 * Whether writing `kept` where `replaced` stood reads as a copy-paste slip between similar
 * operands, and how plausible: the wrong qualifier (`other.x` → `x`, `a.length` → `b.length`)
 * or one getter for its sibling (`getMin()` → `getMax()`). Anything else (`i < n` → `i < i`,
 * `node == head` → `node == node`) is no slip a reviewer would believe.
 */
export function operandSlip(kept: Node, replaced: Node): Plausibility | null {
  if (isLiteral(kept) || isLiteral(replaced) || isConstant(kept)) return null;
  const keptSelector = selector(kept);
  if (keptSelector === null || keptSelector !== selector(replaced)) {
    return siblingGetters(kept, replaced)
      ? plausibility(1, 'a sibling getter copied over the other')
      : null;
  }
  const [ownKept, ownReplaced] = [qualifier(kept), qualifier(replaced)];
  if (ownKept === null && ownReplaced !== null)
    return plausibility(0, `the qualifier ${ownReplaced.text}. forgotten`);
  if (ownKept !== null && ownReplaced === null)
    return plausibility(1, `the qualifier ${ownKept.text}. copied onto the other side`);
  if (ownKept && ownReplaced && differInOneToken(tokens(ownKept), tokens(ownReplaced)))
    return plausibility(0, `${ownReplaced.text} and ${ownKept.text} mixed up`);
  return null;
}

/** `getMin()` and `getMax()` on one receiver: accessors a maintainer types one for the other. */
function siblingGetters(a: Node, b: Node): boolean {
  if (a.type !== 'method_invocation' || b.type !== 'method_invocation') return false;
  const names = [field(a, 'name')?.text ?? '', field(b, 'name')?.text ?? ''];
  return (
    names.every((name) => /^(get|is|has)[A-Z]/.test(name)) &&
    names[0] !== names[1] &&
    joined(field(a, 'object')) === joined(field(b, 'object')) &&
    joined(field(a, 'arguments')) === '( )' &&
    joined(field(b, 'arguments')) === '( )'
  );
}

/** What a comparison compares with: its operator, or the comparing call's name. */
function comparator(node: Node): string {
  return node.type === 'binary_expression'
    ? (field(node, 'operator')?.type ?? '')
    : (field(node, 'name')?.text ?? '');
}

/** Comparisons of an expression with itself; the NaN idiom `x != x` is not one (CodeQL agrees). */
function selfComparisons(root: Node): Node[] {
  return descendants(root, ['binary_expression', 'method_invocation']).filter((node) => {
    const operands = comparedOperands(node);
    return (
      operands !== null && sameTokens(unparenthesized(operands[0]), unparenthesized(operands[1]))
    );
  });
}

/**
 * Replaces one operand of a comparison with the other where that is a slip between similar
 * operands (see `operandSlip`); comparisons against literals, null or constants are left alone.
 */
function sites(method: Node): CandidateEdit[] {
  const body = field(method, 'body');
  if (!body) return [];
  const candidates: CandidateEdit[] = [];
  const types = declaredTypes(method);
  // `d != d` is how Java code asks whether a double is NaN: not the slip this type is about.
  const floating = (node: Node) =>
    node.type === 'identifier' && /^(float|double|Float|Double)$/.test(types.get(node.text) ?? '');
  for (const node of descendants(body, ['binary_expression', 'method_invocation'])) {
    const operands = comparedOperands(node);
    if (!operands) continue;
    const [left, right] = operands.map(unparenthesized) as [Node, Node];
    if (sameTokens(left, right)) continue;
    for (const [kept, replaced] of [
      [left, right],
      [right, left],
    ] as const) {
      if (floating(kept)) continue;
      const slip = operandSlip(kept, replaced);
      if (!slip) continue;
      candidates.push({
        description: `${node.text.replace(/\s+/g, ' ')}: ${replaced.text} → ${kept.text}`,
        edits: [{ start: replaced.startIndex, end: replaced.endIndex, text: kept.text }],
        plausibility: slip,
      });
    }
  }
  return candidates;
}

/**
 * Whether a self-comparison the change added was a comparison of similar operands before: some
 * comparison of `before` by the same operator had the repeated operand on one side and a
 * similar one (`operandSlip`) on the other.
 */
function slipOrigin(added: Node, before: Node): boolean {
  const repeated = joined(unparenthesized(comparedOperands(added)![0]));
  return descendants(before, ['binary_expression', 'method_invocation']).some((node) => {
    const operands = comparedOperands(node);
    if (!operands || comparator(node) !== comparator(added)) return false;
    const [left, right] = operands.map(unparenthesized) as [Node, Node];
    return (
      (joined(left) === repeated && operandSlip(left, right) !== null) ||
      (joined(right) === repeated && operandSlip(right, left) !== null)
    );
  });
}

export const identicalComparisonInjector: Injector = {
  kind: 'injector',
  typeId: 'api_identical_value_comparison',
  sites: (method) => sites(method),
  check: (before, after) =>
    firstMatch(
      changedMembers(before, after),
      (change) => {
        if (!change.before || !change.after) return undefined;
        const old = selfComparisons(change.before).map((node) => tokens(node).join(' '));
        const added = selfComparisons(change.after).filter(
          (node) => !old.includes(tokens(node).join(' ')),
        );
        if (added.length === 0) return undefined;
        const slip = added.find((node) => slipOrigin(node, change.before!));
        if (!slip) {
          return {
            kind: 'Mismatch',
            reason: `${change.key} compares a value with itself (${added[0]!.text}), but not by a slip between similar operands such as other.x → x`,
          };
        }
        return {
          kind: 'Matches',
          evidence: `${change.key} compares a value with itself: ${slip.text}`,
        };
      },
      'no changed method gains a comparison of an expression with itself',
    ),
};

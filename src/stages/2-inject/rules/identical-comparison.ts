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
import type { CandidateEdit, Injector } from './types.js';

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
 * Replaces one operand of a comparison with the other. Comparisons against literals or null are
 * left alone: `x == x` from `x == null` would read as a slip nobody makes.
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
    if (isLiteral(left) || isLiteral(right) || sameTokens(left, right)) continue;
    // The wrong-qualifier slip: keep the side that reads like the subject, copy it over the other.
    for (const [kept, replaced] of [
      [left, right],
      [right, left],
    ] as const) {
      if (floating(kept)) continue;
      candidates.push({
        description: `${node.text.replace(/\s+/g, ' ')}: ${replaced.text} → ${kept.text}`,
        edits: [{ start: replaced.startIndex, end: replaced.endIndex, text: kept.text }],
      });
    }
  }
  return candidates;
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
        return {
          kind: 'Matches',
          evidence: `${change.key} compares a value with itself: ${added[0]!.text}`,
        };
      },
      'no changed method gains a comparison of an expression with itself',
    ),
};

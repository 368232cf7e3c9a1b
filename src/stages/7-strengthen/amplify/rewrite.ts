import type { Node } from 'web-tree-sitter';
import { field } from '../../../lang/java/syntax.js';

/*
 * Rewriting a tree's text node by node: a rewrite may replace a node, remove it, or leave it to
 * its children, and a replacement may itself be built from rewritten children. Unlike a list of
 * edits, nested rewrites cannot overlap.
 */

/** A node to delete; a statement alone on its line takes the line with it. */
const REMOVED = Symbol('removed');

export type Replacement = string | typeof REMOVED | undefined;

export type Rewrite = (node: Node) => Replacement;

/** The text of `node` rewritten (a removed node gives no text). */
export function rewritten(source: string, node: Node, rewrite: Rewrite): string {
  const own = rewrite(node);
  if (own === REMOVED) return '';
  return own ?? rewrittenChildren(source, node, rewrite);
}

/** The text of `node` from `start` to `end` (whole children only), its children rewritten. */
export function rewrittenChildren(
  source: string,
  node: Node,
  rewrite: Rewrite,
  start = node.startIndex,
  end = node.endIndex,
): string {
  let out = '';
  let at = start;
  for (const child of node.children) {
    if (!child || child.startIndex < start || child.endIndex > end) continue;
    const gap = source.slice(at, child.startIndex);
    const replacement = rewrite(child);
    at = child.endIndex;
    if (replacement !== REMOVED) {
      out += gap + (replacement ?? rewrittenChildren(source, child, rewrite));
      continue;
    }
    const restOfLine = /^[ \t]*\r?\n/.exec(source.slice(at, end));
    const startsLine = /(^|\n)[ \t]*$/.test(source.slice(0, child.startIndex));
    if (startsLine && restOfLine) {
      out += gap.replace(/[ \t]*$/, '');
      at += restOfLine[0].length;
    } else {
      out += gap;
    }
  }
  return out + source.slice(at, end);
}

/** Whether a node is the body of a lambda (`x -> body`). */
export function isLambdaBody(node: Node): boolean {
  const parent = node.parent;
  return parent?.type === 'lambda_expression' && field(parent, 'body')?.equals(node) === true;
}

/** Whether a statement stands in a list of statements, where it can be removed or added to. */
export function inStatementList(statement: Node): boolean {
  const parent = statement.parent?.type;
  return parent === 'block' || parent === 'switch_block_statement_group';
}

/** A statement removed: taken out of a list, or left empty where one statement must stand. */
export function removedStatement(statement: Node): Replacement {
  return inStatementList(statement) ? REMOVED : '{}';
}

/** Lines indented by one more unit (blank lines left blank). */
export function indented(text: string, unit: string): string {
  return text
    .split('\n')
    .map((line) => (line.trim() === '' ? line : unit + line))
    .join('\n');
}

/** Lines indented by one unit less, where they are indented by it. */
export function dedented(text: string, unit: string): string {
  return text
    .split('\n')
    .map((line) => (line.startsWith(unit) ? line.slice(unit.length) : line))
    .join('\n');
}

/** The indentation of the line holding `index`. */
export function lineIndentation(source: string, index: number): string {
  const lineStart = source.lastIndexOf('\n', index - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart))![0];
}

/** Expressions that can stand as statements. */
const STATEMENT_EXPRESSIONS = new Set([
  'method_invocation',
  'object_creation_expression',
  'assignment_expression',
  'update_expression',
]);

export function isStatementExpression(node: Node): boolean {
  return STATEMENT_EXPRESSIONS.has(node.type);
}

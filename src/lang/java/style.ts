import type { Node } from 'web-tree-sitter';
import { descendants, field, indentationOf, modifierWords } from './syntax.js';

/** How a file is written, so added code looks like the rest of it. */
export interface FileStyle {
  /** One level of indentation: a tab, or some spaces. */
  indentUnit: string;
  lineBreak: '\n' | '\r\n';
  /** Whether the file's method parameters are mostly declared `final`. */
  finalParameters: boolean;
}

/** The most common step between a method's indentation and its body's first statement. */
function indentUnitOf(source: string, root: Node): string {
  const steps = new Map<string, number>();
  for (const method of descendants(root, ['method_declaration', 'constructor_declaration'])) {
    const body = field(method, 'body');
    const first = body?.namedChildren.find((child) => child && !child.type.endsWith('comment'));
    if (!first) continue;
    const outer = indentationOf(source, method);
    const inner = indentationOf(source, first);
    if (inner.length > outer.length && inner.startsWith(outer)) {
      const step = inner.slice(outer.length);
      steps.set(step, (steps.get(step) ?? 0) + 1);
    }
  }
  let best = '    ';
  let count = 0;
  for (const [step, seen] of steps) {
    if (seen > count) [best, count] = [step, seen];
  }
  return best;
}

export function fileStyle(source: string, root: Node): FileStyle {
  const crlf = (source.match(/\r\n/g) ?? []).length;
  const lf = (source.match(/\n/g) ?? []).length;
  const parameters = descendants(root, 'formal_parameter');
  const final = parameters.filter((parameter) => modifierWords(parameter).includes('final'));
  return {
    indentUnit: indentUnitOf(source, root),
    lineBreak: crlf * 2 > lf ? '\r\n' : '\n',
    finalParameters: parameters.length > 0 && final.length * 2 > parameters.length,
  };
}

/** Lines re-indented from `from` to `to`: each line's leading `from` becomes `to`. */
export function reindent(lines: readonly string[], from: string, to: string): string[] {
  return lines.map((line) => {
    if (line.trim() === '') return '';
    return line.startsWith(from) ? to + line.slice(from.length) : to + line.trimStart();
  });
}

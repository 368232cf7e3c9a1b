/**
 * Classic one-line mutation operators (PIT's defaults and a few more), each applied to the first
 * match on a line, and the mutants they make of a Java source file. They work on text, not on a
 * syntax tree: lines that are wholly comments are left alone, but a string literal or a trailing
 * comment on a line of code is mutated like code. Benchmark samples are drawn from exactly these
 * mutants, so a change here changes the samples.
 */

export interface LineOperator {
  name: string;
  /** The line with the operator applied to its first match; undefined where it does not apply. */
  apply(line: string): string | undefined;
}

/**
 * Replaces the operator token `pairs` maps in the first match of `pattern`, whose three groups
 * are the text before the token, the token and the text after it.
 */
function swap(
  pattern: RegExp,
  pairs: Record<string, string>,
): (line: string) => string | undefined {
  return (line) => {
    const match = pattern.exec(line);
    if (!match) return undefined;
    const replacement = pairs[match[2]!];
    if (replacement === undefined) return undefined;
    return (
      line.slice(0, match.index) +
      match[1] +
      replacement +
      match[3] +
      line.slice(match.index + match[0].length)
    );
  };
}

/**
 * Replaces the first match of `pattern` by what `rewrite` makes of it (undefined: the operator
 * does not apply), through `String.replace` on the matched text.
 */
function rewriteFirst(
  pattern: RegExp,
  rewrite: (match: RegExpExecArray) => string | undefined,
): (line: string) => string | undefined {
  return (line) => {
    const match = pattern.exec(line);
    if (!match) return undefined;
    const replacement = rewrite(match);
    return replacement === undefined ? undefined : line.replace(match[0], replacement);
  };
}

/** The operators, in the order they are tried on each line. */
export const LINE_OPERATORS = [
  {
    name: 'conditional-boundary',
    apply: swap(/(\s)(<=|>=|<|>)(\s)/, { '<': '<=', '<=': '<', '>': '>=', '>=': '>' }),
  },
  { name: 'negate-equality', apply: swap(/(\s)(==|!=)(\s)/, { '==': '!=', '!=': '==' }) },
  { name: 'swap-connective', apply: swap(/(\s)(&&|\|\|)(\s)/, { '&&': '||', '||': '&&' }) },
  { name: 'math', apply: swap(/(\s)([+\-*])(\s)/, { '+': '-', '-': '+', '*': '/' }) },
  {
    name: 'increment',
    apply: (line) => (/\w\+\+|\+\+\w/.test(line) ? line.replace('++', '--') : undefined),
  },
  {
    name: 'flip-boolean-return',
    apply: rewriteFirst(
      /\breturn (true|false);/,
      (match) => `return ${match[1] === 'true' ? 'false' : 'true'};`,
    ),
  },
  {
    name: 'null-return',
    apply: rewriteFirst(/\breturn ([^;]+);/, (match) =>
      match[1] !== 'null' ? 'return null;' : undefined,
    ),
  },
  {
    name: 'negate-condition',
    apply: rewriteFirst(/\bif \((.+)\) \{\s*$/, (match) => `if (!(${match[1]})) {`),
  },
] as const satisfies readonly LineOperator[];

export type LineOperatorName = (typeof LINE_OPERATORS)[number]['name'];

/** One operator applied to one line of a file. */
export interface LineMutant {
  /** 1-based. */
  line: number;
  operator: LineOperatorName;
  original: string;
  mutated: string;
}

/**
 * Lines that hold code inside a method body of a top-level class, by indentation (eight columns
 * or more, a tab counting four), and are not comments, annotations, imports or package lines.
 */
function isBodyLine(line: string): boolean {
  const trimmed = line.trim();
  if (trimmed === '' || /^(\/\/|\/\*|\*|@|import |package )/.test(trimmed)) return false;
  const indent = /^(\s*)/.exec(line)![1]!.replace(/\t/g, '    ').length;
  return indent >= 8;
}

/**
 * Every mutant of a source file: each body line with each operator that changes it, in line and
 * then operator order. Lines are split on `\n` only, so a `\r` stays part of its line.
 */
export function lineMutants(source: string): LineMutant[] {
  return source.split('\n').flatMap((original, index) =>
    isBodyLine(original)
      ? LINE_OPERATORS.flatMap((operator) => {
          const mutated = operator.apply(original);
          return mutated === undefined || mutated === original
            ? []
            : [{ line: index + 1, operator: operator.name, original, mutated }];
        })
      : [],
  );
}

/** The source file with the mutant's line replaced. */
export function applyLineMutant(
  source: string,
  mutant: Pick<LineMutant, 'line' | 'mutated'>,
): string {
  const lines = source.split('\n');
  lines[mutant.line - 1] = mutant.mutated;
  return lines.join('\n');
}

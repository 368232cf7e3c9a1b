import type { Node } from 'web-tree-sitter';
import { seededRandom, shuffled } from '../../../core/random.js';
import { fileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  classMembers,
  descendants,
  field,
  hasSyntaxError,
  indentationOf,
  modifierWords,
  kids,
  nameOf,
  statementLineRange,
  within,
  withJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import { oracleAt, oracleContext, oracleOf, type OracleContext } from './oracles.js';
import { inStatementList } from './rewrite.js';
import { frameworkOf, isPlainTest, primaryClass, type TestFramework } from './test-class.js';

/*
 * Input amplification (DSpot): a test method's variants, each with one change to what the test
 * feeds the code (a literal, or a call made twice or not at all). The variants run on the gold
 * version later; what the code then does becomes their assertions. Variants that do not compile
 * are filtered by the harness, so no types are needed here.
 */

export interface TextRange {
  start: number;
  end: number;
}

export interface TestMethod {
  name: string;
  /** The method's declaration, annotations included. */
  range: TextRange;
  /** Its body, braces included. */
  bodyRange: TextRange;
}

export type TestClassScan =
  | { kind: 'TestClass'; className: string; framework: TestFramework; methods: TestMethod[] }
  | { kind: 'NotATestClass'; reason: string };

/** The plain test methods of a test class (JUnit 4/5 `@Test`, JUnit 3 `public void test*()`). */
export function testMethods(classSource: string): TestClassScan {
  return withJavaTree(classSource, (root) => {
    if (hasSyntaxError(root)) return { kind: 'NotATestClass', reason: 'does not parse' };
    const testClass = primaryClass(root);
    if (!testClass) return { kind: 'NotATestClass', reason: 'declares no class' };
    if (modifierWords(testClass).includes('abstract')) {
      return { kind: 'NotATestClass', reason: 'abstract: its tests run in its subclasses' };
    }
    const framework = frameworkOf(root, testClass);
    if (!framework) return { kind: 'NotATestClass', reason: 'no JUnit 3, 4 or 5 test found' };
    const methods = classMembers(testClass)
      .filter((member) => isPlainTest(member, framework))
      .map((member) => {
        const body = field(member, 'body')!;
        return {
          name: nameOf(member),
          range: { start: member.startIndex, end: member.endIndex },
          bodyRange: { start: body.startIndex, end: body.endIndex },
        };
      });
    return { kind: 'TestClass', className: nameOf(testClass), framework, methods };
  });
}

export type InputOperator =
  | 'integer-plus-one'
  | 'integer-minus-one'
  | 'integer-zero'
  | 'integer-max'
  | 'integer-min'
  | 'string-empty'
  | 'string-without-last-char'
  | 'string-doubled'
  | 'string-null'
  /** A variable passed to a call, passed as null instead (one declared primitive is left alone). */
  | 'argument-null'
  | 'call-duplicated'
  | 'call-removed'
  /** One more call, to a method of the slice (calls.ts). */
  | 'call-added'
  /** The test as it is: its observations become stricter checks than it had. */
  | 'as-is';

export interface InputVariant {
  /** Unique within the method: the operator and where in the body it applied. */
  id: string;
  /** The test method the variant comes from. */
  method: string;
  operator: InputOperator;
  /** What changed, for people: `"abc" → "" (line 12)`. */
  detail: string;
  /** The whole new method body, braces included. */
  body: string;
}

interface Candidate {
  operator: InputOperator;
  edit: TextEdit;
  /** The node the change applies to: orders candidates and names them. */
  site: Node;
  detail: string;
}

/** Parts of the body only an oracle looks at: what it compares against, its message. */
function uncheckedRegions(body: Node, context: OracleContext): (node: Node) => boolean {
  const regions: { oracle: Node; kept: Node | undefined }[] = [];
  const sites = [
    ...descendants(body, 'expression_statement'),
    ...descendants(body, 'lambda_expression').flatMap((lambda) => field(lambda, 'body') ?? []),
  ];
  for (const site of sites) {
    const oracle = oracleAt(site, context);
    if (!oracle) continue;
    const kept =
      oracle.kind === 'Observe'
        ? oracle.observed
        : oracle.kind === 'RunBody'
          ? oracle.body
          : undefined;
    regions.push({ oracle: site, kept });
  }
  return (node) =>
    regions.some(({ oracle, kept }) => within(node, oracle) && !(kept && within(node, kept)));
}

/** A literal's argument position in a call (`f(3)`, `new T(-3)`), the sign included. */
function callArgument(literal: Node): Node | undefined {
  const argument =
    literal.parent?.type === 'unary_expression' && literal.parent.child(0)?.type === '-'
      ? literal.parent
      : literal;
  const call = argument.parent?.parent?.type;
  return argument.parent?.type === 'argument_list' &&
    (call === 'method_invocation' || call === 'object_creation_expression')
    ? argument
    : undefined;
}

const INTEGER_LITERALS = [
  'decimal_integer_literal',
  'hex_integer_literal',
  'octal_integer_literal',
  'binary_integer_literal',
];

function integerValue(digits: string): bigint {
  const plain = digits.replace(/_/g, '');
  return /^0\d/.test(plain) ? BigInt(`0o${plain.slice(1)}`) : BigInt(plain);
}

function lineOf(node: Node): number {
  return node.startPosition.row + 1;
}

function integerCandidates(source: string, literal: Node): Candidate[] {
  const suffix = /[lL]$/.exec(literal.text)?.[0] ?? '';
  const value = integerValue(literal.text.slice(0, literal.text.length - suffix.length));
  const negated =
    literal.parent?.type === 'unary_expression' && literal.parent.child(0)?.type === '-';
  // The largest literal javac takes here: one more under a minus (`-2147483648`).
  const limit = (suffix ? 2n ** 63n : 2n ** 31n) - (negated ? 0n : 1n);
  const before = source[literal.startIndex - 1];
  const written = (n: bigint) => {
    const text = `${n}${suffix}`;
    // `x - -1`, not `x--1`, which reads as a decrement.
    return n < 0n && (before === '-' || before === '+') ? `(${text})` : text;
  };
  const replaced = (operator: InputOperator, node: Node, text: string): Candidate => ({
    operator,
    edit: { start: node.startIndex, end: node.endIndex, text },
    site: literal,
    detail: `${node.text} → ${text} (line ${lineOf(node)})`,
  });
  // `x + 1` made 0 reads `x`, as a maintainer would write it, not `x + 0`.
  const sum = literal.parent;
  const dropped =
    sum?.type === 'binary_expression' &&
    /^[-+]$/.test(field(sum, 'operator')?.text ?? '') &&
    field(sum, 'right')?.equals(literal) === true &&
    descendants(field(sum, 'left')!, 'string_literal').length === 0
      ? sum
      : undefined;
  const withValue = (operator: InputOperator, n: bigint): Candidate =>
    n === 0n && dropped
      ? replaced(operator, dropped, field(dropped, 'left')!.text)
      : replaced(operator, literal, n === 0n ? `0${suffix}` : written(n));
  const candidates: Candidate[] = [];
  if (value + 1n <= limit) candidates.push(withValue('integer-plus-one', value + 1n));
  candidates.push(withValue('integer-minus-one', value - 1n));
  if (value !== 0n) candidates.push(withValue('integer-zero', 0n));
  const argument = callArgument(literal);
  if (argument) {
    const type = suffix ? 'Long' : 'Integer';
    candidates.push(replaced('integer-max', argument, `${type}.MAX_VALUE`));
    candidates.push(replaced('integer-min', argument, `${type}.MIN_VALUE`));
  }
  return candidates;
}

/** A string literal's characters as written, an escape sequence counting as one. */
function writtenCharacters(content: string): string[] {
  return (
    content.match(/\\u+[0-9a-fA-F]{4}|\\[0-7]{1,3}|\\.|[\uD800-\uDBFF][\uDC00-\uDFFF]|[^]/g) ?? []
  );
}

function stringCandidates(literal: Node): Candidate[] {
  const content = literal.text.slice(1, -1);
  const replaced = (operator: InputOperator, node: Node, text: string): Candidate => ({
    operator,
    edit: { start: node.startIndex, end: node.endIndex, text },
    site: literal,
    detail: `${node.text} → ${text} (line ${lineOf(node)})`,
  });
  const candidates: Candidate[] = [];
  if (content !== '') {
    candidates.push(replaced('string-empty', literal, '""'));
    const characters = writtenCharacters(content);
    candidates.push(
      replaced('string-without-last-char', literal, `"${characters.slice(0, -1).join('')}"`),
    );
    candidates.push(replaced('string-doubled', literal, `"${content}${content}"`));
  }
  const argument = callArgument(literal);
  if (argument) candidates.push(replaced('string-null', argument, 'null'));
  return candidates;
}

const PRIMITIVES = new Set(['int', 'long', 'short', 'byte', 'char', 'boolean', 'double', 'float']);

/** The names the body declares with a primitive type: null cannot stand for them. */
function primitiveLocals(body: Node): Set<string> {
  return new Set(
    descendants(body, 'local_variable_declaration')
      .filter((declaration) => PRIMITIVES.has(field(declaration, 'type')?.text ?? ''))
      .flatMap((declaration) =>
        kids(declaration)
          .filter((kid) => kid.type === 'variable_declarator')
          .map(nameOf),
      ),
  );
}

/** A variable passed to a call, passed as null: the input a missing null check fails on. */
function nullArgumentCandidates(identifier: Node, primitive: ReadonlySet<string>): Candidate[] {
  const argument = primitive.has(identifier.text) ? undefined : callArgument(identifier);
  return argument
    ? [
        {
          operator: 'argument-null',
          edit: { start: argument.startIndex, end: argument.endIndex, text: 'null' },
          site: identifier,
          detail: `${identifier.text} → null (line ${lineOf(identifier)})`,
        },
      ]
    : [];
}

function callCandidates(
  source: string,
  statement: Node,
  calls: readonly Node[],
  lineBreak: string,
): Candidate[] {
  const candidates: Candidate[] = [
    {
      operator: 'call-duplicated',
      edit: {
        start: statement.endIndex,
        end: statement.endIndex,
        text: `${lineBreak}${indentationOf(source, statement)}${statement.text}`,
      },
      site: statement,
      detail: `${statement.text} duplicated (line ${lineOf(statement)})`,
    },
  ];
  // The test must still call something: a body of assertions alone tests nothing new.
  if (calls.some((call) => !within(call, statement))) {
    candidates.push({
      operator: 'call-removed',
      edit: { ...statementLineRange(source, statement), text: '' },
      site: statement,
      detail: `${statement.text} removed (line ${lineOf(statement)})`,
    });
  }
  return candidates;
}

/**
 * At most `max` variants of a test method, drawn by `seed` from every single change the
 * operators can make, each different from the original and from the others; the same seed
 * draws the same variants.
 */
export function inputVariants(
  classSource: string,
  method: TestMethod,
  options: { seed: number; max: number },
): InputVariant[] {
  return withJavaTree(classSource, (root) => {
    const testClass = primaryClass(root);
    const framework = testClass && frameworkOf(root, testClass);
    const declaration = testClass
      ? classMembers(testClass).find(
          (member) => member.startIndex === method.range.start && nameOf(member) === method.name,
        )
      : undefined;
    const body = declaration && field(declaration, 'body');
    if (!testClass || !framework || !body) {
      throw new Error(`${method.name} is not a test method of this class`);
    }
    const context = oracleContext(root, testClass, framework);
    const { lineBreak } = fileStyle(classSource, root);
    const unchecked = uncheckedRegions(body, context);
    const changeable = (node: Node) =>
      !unchecked(node) && !ancestor(node, ['annotation', 'dimensions_expr']);
    const calls = descendants(body, 'method_invocation').filter(
      (call) => !unchecked(call) && !oracleOf(call, context),
    );
    const candidates: Candidate[] = [
      ...descendants(body, INTEGER_LITERALS)
        .filter(changeable)
        .flatMap((literal) => integerCandidates(classSource, literal)),
      ...descendants(body, 'string_literal')
        .filter((literal) => changeable(literal) && !literal.text.startsWith('"""'))
        .flatMap(stringCandidates),
      ...descendants(body, 'identifier')
        .filter(
          (identifier) => changeable(identifier) && !oracleOf(identifier.parent!.parent!, context),
        )
        .flatMap((identifier) => nullArgumentCandidates(identifier, primitiveLocals(body))),
      ...descendants(body, 'expression_statement')
        .filter(
          (statement) =>
            statement.namedChild(0)?.type === 'method_invocation' &&
            inStatementList(statement) &&
            !oracleAt(statement, context),
        )
        .flatMap((statement) => callCandidates(classSource, statement, calls, lineBreak)),
    ].sort((a, b) => a.site.startIndex - b.site.startIndex);

    const original = body.text;
    const bodies = new Map<string, Candidate>();
    for (const candidate of candidates) {
      const { start, end, text } = candidate.edit;
      const changed =
        original.slice(0, start - body.startIndex) + text + original.slice(end - body.startIndex);
      if (changed !== original && !bodies.has(changed)) bodies.set(changed, candidate);
    }
    const distinct = [...bodies.entries()];
    const drawn = new Set(shuffled(distinct, seededRandom(options.seed)).slice(0, options.max));
    return distinct
      .filter((entry) => drawn.has(entry))
      .map(([changed, candidate]) => ({
        id: `${candidate.operator}@${candidate.site.startIndex - body.startIndex}`,
        method: method.name,
        operator: candidate.operator,
        detail: candidate.detail,
        body: changed,
      }));
  });
}

/** A test method unchanged, as a variant: probed, every value it computes may become a check. */
export function asIsVariant(classSource: string, method: TestMethod): InputVariant {
  return {
    id: 'as-is@0',
    method: method.name,
    operator: 'as-is',
    detail: 'the test as it is, with a check on each value it computes',
    body: classSource.slice(method.bodyRange.start, method.bodyRange.end),
  };
}

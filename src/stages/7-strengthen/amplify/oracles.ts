import type { Node } from 'web-tree-sitter';
import { classMembers, field, kids } from '../../../lang/java/syntax.js';
import { importedNames, type TestFramework } from './test-class.js';

/*
 * The oracles of a test body: assertion calls (JUnit 3/4/5, Hamcrest, AssertJ-style chains) and
 * JUnit 4's ExpectedException expectations. Amplification takes them out and keeps what they
 * looked at, the "actual" value, to observe it instead.
 */

export interface OracleContext {
  framework: TestFramework;
  staticImports: readonly string[];
  /** Fields of type ExpectedException: calls on them say what the test expects to be thrown. */
  expectationFields: ReadonlySet<string>;
}

export function oracleContext(
  root: Node,
  testClass: Node,
  framework: TestFramework,
): OracleContext {
  const expectationFields = new Set<string>();
  for (const member of classMembers(testClass)) {
    if (member.type !== 'field_declaration') continue;
    if (!/(^|\.)ExpectedException$/.test(field(member, 'type')?.text ?? '')) continue;
    for (const declarator of kids(member).filter((k) => k.type === 'variable_declarator')) {
      expectationFields.add(field(declarator, 'name')?.text ?? '');
    }
  }
  return {
    framework,
    staticImports: importedNames(root)
      .filter((entry) => entry.isStatic)
      .map((entry) => entry.name),
    expectationFields,
  };
}

export type Oracle =
  /** An assertion on a value: the value is kept and observed. */
  | { kind: 'Observe'; observed: Node }
  /** An assertion that code throws (or not): the code runs as a plain statement. */
  | { kind: 'RunBody'; body: Node }
  /** Nothing observable is left once the check goes (fail, unknown assertions, expectations). */
  | { kind: 'Drop' };

/** Classes whose static methods are assertions. */
const ASSERTION_HOLDERS = /^([\w.]*\.)?(Assert|Assertions|TestCase|MatcherAssert)$|^(this|super)$/;

function isAssertionName(name: string): boolean {
  return /^assert[A-Z]/.test(name) || name === 'fail';
}

function isStaticAssertion(call: Node): boolean {
  const object = field(call, 'object');
  return (
    isAssertionName(field(call, 'name')?.text ?? '') &&
    (!object || ASSERTION_HOLDERS.test(object.text))
  );
}

function argumentsOf(call: Node): Node[] {
  const list = field(call, 'arguments');
  return list
    ? kids(list).filter((k) => k.type !== 'line_comment' && k.type !== 'block_comment')
    : [];
}

/**
 * Whether the assertion takes its message last (JUnit 5's Assertions) rather than first (JUnit 3
 * and 4): from the class it is called on, else from the static import that brings it in.
 */
function messageLast(call: Node, name: string, context: OracleContext): boolean {
  const object = field(call, 'object')?.text;
  if (object) return /(^|\.)Assertions$/.test(object);
  const owner =
    context.staticImports.find((entry) => entry.endsWith(`.${name}`)) ??
    context.staticImports.find((entry) => /\.(Assert|Assertions|TestCase)\.\*$/.test(entry));
  if (owner?.startsWith('org.junit.jupiter.')) return true;
  if (owner?.startsWith('org.junit.Assert.') || owner?.startsWith('junit.framework.')) return false;
  return context.framework === 'junit5';
}

/** A message argument: text, as JUnit 3/4 put first (`assertEquals("size", 2, n)`). */
function looksLikeMessage(node: Node): boolean {
  return (
    node.type === 'string_literal' || /^".*"\s*\+|\+\s*".*"$|^String\.format\(/s.test(node.text)
  );
}

/** A floating-point tolerance, as JUnit 3/4 put last (`assertEquals(1.5, x, 0.001)`). */
function looksLikeDelta(node: Node): boolean {
  const text = node.text.replace(/^-\s*/, '');
  return (
    /^[\d.]+([eE][-+]?\d+)?[dDfF]?$/.test(text) ||
    /^[A-Z][A-Z0-9_]*$/.test(text) ||
    /delta|epsilon|tolerance/i.test(text)
  );
}

const EQUALITY = new Set([
  'assertEquals',
  'assertNotEquals',
  'assertSame',
  'assertNotSame',
  'assertArrayEquals',
  'assertIterableEquals',
  'assertLinesMatch',
]);
const ON_ONE_VALUE = new Set(['assertTrue', 'assertFalse', 'assertNull', 'assertNotNull']);

/** The argument an assertion checks, its "actual" value. */
function checkedArgument(call: Node, name: string, context: OracleContext): Node | undefined {
  const args = argumentsOf(call);
  if (name === 'assertThat') return args.length === 3 ? args[1] : args[0];
  const last = messageLast(call, name, context);
  if (ON_ONE_VALUE.has(name)) return last ? args[0] : args[args.length - 1];
  if (!EQUALITY.has(name) || args.length < 2) return undefined;
  if (last || args.length === 2) return args[1];
  if (args.length === 4) return args[2];
  return looksLikeMessage(args[0]!) || !looksLikeDelta(args[2]!) ? args[2] : args[1];
}

/** The code an assertion on throwing runs: the lambda's body. */
function executableBody(argument: Node | undefined): Oracle {
  return argument?.type === 'lambda_expression'
    ? { kind: 'RunBody', body: field(argument, 'body')! }
    : { kind: 'Drop' };
}

/** The call a chain of calls starts from: `assertThat(x)` in `assertThat(x).isEqualTo(y)`. */
function chainStart(call: Node): Node {
  let current = call;
  for (let object = field(current, 'object'); object?.type === 'method_invocation';) {
    current = object;
    object = field(current, 'object');
  }
  return current;
}

/** What a call is as an oracle, if it is one. */
export function oracleOf(call: Node, context: OracleContext): Oracle | undefined {
  if (call.type !== 'method_invocation') return undefined;
  const object = field(call, 'object')?.text.replace(/^this\./, '');
  if (object && context.expectationFields.has(object)) return { kind: 'Drop' };
  const start = chainStart(call);
  if (!isStaticAssertion(start)) return undefined;
  const name = field(start, 'name')!.text;
  const args = argumentsOf(start);
  if (name === 'assertThrows') return executableBody(args[1]);
  if (name === 'assertDoesNotThrow' || name === 'assertThatThrownBy' || name === 'assertThatCode') {
    return executableBody(args[0]);
  }
  const observed =
    start.equals(call) || name === 'assertThat' ? checkedArgument(start, name, context) : undefined;
  // A lambda or method reference is no value to record (JUnit 5's assertTrue(BooleanSupplier)).
  return observed && observed.type !== 'lambda_expression' && observed.type !== 'method_reference'
    ? { kind: 'Observe', observed }
    : { kind: 'Drop' };
}

/** The oracle a statement or a lambda's body is, if it is one: the call it consists of. */
export function oracleAt(node: Node, context: OracleContext): Oracle | undefined {
  const call = node.type === 'expression_statement' ? node.namedChild(0) : node;
  return call ? oracleOf(call, context) : undefined;
}

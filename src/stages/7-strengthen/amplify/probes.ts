import path from 'node:path';
import type { Node } from 'web-tree-sitter';
import { packageRoot } from '../../../core/package-root.js';
import { fileStyle, type FileStyle } from '../../../lang/java/style.js';
import {
  applyEdits,
  classMembers,
  descendants,
  field,
  indentationOf,
  kids,
  nameOf,
  statementsOf,
  withJavaTree,
} from '../../../lang/java/syntax.js';
import { oracleAt, oracleContext, type OracleContext } from './oracles.js';
import {
  indented,
  inStatementList,
  isLambdaBody,
  isStatementExpression,
  lineIndentation,
  removedStatement,
  rewritten,
  rewrittenChildren,
  type Rewrite,
} from './rewrite.js';
import {
  classRenaming,
  frameworkOf,
  isPlainTest,
  membersRemoval,
  membersAppended,
  primaryClass,
  renamedHeader,
  runsOriginalTests,
} from './test-class.js';
import type { InputVariant } from './variants.js';

/*
 * The probe class: every variant as a test whose oracles became observations. Run on the gold
 * version, it records what the code did at each place the original test looked (the "actual" of
 * each assertion, each local the test computed) and which exception, if any, left the body.
 * jvm/probe/witnessgym/probe/Observe.java writes the records.
 */

export const OBSERVE_CLASS = 'witnessgym.probe.Observe';

/** The source root of Observe.java, to compile beside a probe class. */
export function observeSourceRoot(): string {
  return path.join(packageRoot(), 'jvm', 'probe');
}

/** Initializers whose value the test wrote down, or that cannot be null: nothing to learn. */
const FIXED_VALUES = new Set([
  'decimal_integer_literal',
  'hex_integer_literal',
  'octal_integer_literal',
  'binary_integer_literal',
  'decimal_floating_point_literal',
  'hex_floating_point_literal',
  'character_literal',
  'string_literal',
  'true',
  'false',
  'null_literal',
  'class_literal',
  'object_creation_expression',
  'array_creation_expression',
  'array_initializer',
  'lambda_expression',
  'method_reference',
  'this',
]);

function isFixedValue(value: Node): boolean {
  const operand = value.type === 'unary_expression' ? field(value, 'operand') : value;
  return operand !== null && FIXED_VALUES.has(operand.type);
}

/** A variant's body with its oracles turned into observations, keyed `<probe>:<n>`. */
function observingBody(body: string, probe: string, context: OracleContext, style: FileStyle) {
  const source = `class Probe {\nvoid probe() ${body}\n}`;
  return withJavaTree(source, (root) => {
    const block = field(descendants(root, 'method_declaration')[0]!, 'body')!;
    // A local an assertion looks at is observed there; once after its declaration is enough.
    const assertedNames = new Set(
      [...descendants(block, 'expression_statement'), ...descendants(block, 'lambda_expression')]
        .map((node) =>
          oracleAt(node.type === 'lambda_expression' ? field(node, 'body')! : node, context),
        )
        .flatMap((oracle) =>
          oracle?.kind === 'Observe' && oracle.observed.type === 'identifier'
            ? [oracle.observed.text]
            : [],
        ),
    );
    let sites = 0;
    const observation = (expression: string) =>
      `${OBSERVE_CLASS}.value("${probe}:${++sites}", ${expression})`;
    const text = (node: Node) => rewritten(source, node, rewrite);
    /** An executable's body as code of its own: a block, or a statement (a lambda's body). */
    const ranBody = (executable: Node, asStatement: boolean) => {
      if (executable.type === 'block') return text(executable);
      const code = isStatementExpression(executable)
        ? text(executable)
        : observation(text(executable));
      return asStatement ? `${code};` : code;
    };
    const rewrite: Rewrite = (node) => {
      if (node.type === 'expression_statement' || isLambdaBody(node)) {
        const oracle = oracleAt(node, context);
        const asStatement = node.type === 'expression_statement';
        switch (oracle?.kind) {
          case undefined:
            return undefined;
          case 'Observe': {
            const observed = observation(text(oracle.observed));
            return asStatement ? `${observed};` : observed;
          }
          case 'RunBody':
            return ranBody(oracle.body, asStatement);
          case 'Drop':
            return asStatement ? removedStatement(node) : '{}';
        }
      }
      if (node.type === 'catch_clause') {
        // What a catch took: a wrong patch may throw a subclass the catch takes as well, say an
        // ArrayIndexOutOfBoundsException where gold throws the IndexOutOfBoundsException expected.
        const parameter = kids(node).find((kid) => kid.type === 'catch_formal_parameter');
        const caught = parameter && field(parameter, 'name')?.text;
        const catchBody = field(node, 'body');
        if (!caught || !catchBody) return undefined;
        const head = source.slice(node.startIndex, catchBody.startIndex + 1);
        const indent = lineIndentation(source, node.startIndex) + style.indentUnit;
        const observed = `${style.lineBreak}${indent}${observation(`${caught}.getClass().getName()`)};`;
        const rest = rewrittenChildren(
          source,
          catchBody,
          rewrite,
          catchBody.startIndex + 1,
          catchBody.endIndex,
        );
        // An empty catch (`{}`) gets its closing brace a line of its own.
        const closing = rest.startsWith('}')
          ? `${style.lineBreak}${lineIndentation(source, node.startIndex)}`
          : '';
        return head + observed + closing + rest;
      }
      if (node.type === 'local_variable_declaration' && inStatementList(node)) {
        const observed = kids(node).filter((declarator) => {
          const value = declarator.type === 'variable_declarator' && field(declarator, 'value');
          return value && !isFixedValue(value) && !assertedNames.has(nameOf(declarator));
        });
        if (observed.length === 0) return undefined;
        const indent = lineIndentation(source, node.startIndex);
        return (
          rewrittenChildren(source, node, rewrite) +
          observed
            .map((declarator) => `${style.lineBreak}${indent}${observation(nameOf(declarator))};`)
            .join('')
        );
      }
      return undefined;
    };
    return rewrittenChildren(source, block, rewrite, block.startIndex + 1, block.endIndex - 1);
  });
}

/**
 * A probe method: the variant's observing body inside a try that records what escapes it, and
 * hands the code coverage of the method's run to the harness when it ends.
 */
function probeMethod(
  header: string,
  inner: string,
  probe: string,
  indent: string,
  style: FileStyle,
): string {
  const { indentUnit: unit, lineBreak: lb } = style;
  let content = inner.trimEnd();
  // A statement on the brace's line moves to a line of its own.
  content = /^[ \t]*\r?\n/.test(content)
    ? content.replace(/^[ \t]*\r?\n/, '')
    : `${indent}${unit}${content.trimStart()}`;
  const lines = content.trim() === '' ? '' : `${indented(content, unit)}${lb}`;
  return (
    `${indent}${header}{${lb}` +
    `${indent}${unit}try {${lb}` +
    lines +
    `${indent}${unit}} catch (Throwable thrown) {${lb}` +
    `${indent}${unit}${unit}${OBSERVE_CLASS}.thrown("${probe}", thrown);${lb}` +
    `${indent}${unit}} finally {${lb}` +
    `${indent}${unit}${unit}${OBSERVE_CLASS}.covered("${probe}");${lb}` +
    `${indent}${unit}}${lb}` +
    `${indent}}`
  );
}

const TYPE_DECLARATIONS = [
  'class_declaration',
  'interface_declaration',
  'enum_declaration',
  'record_declaration',
  'annotation_type_declaration',
];

/**
 * The probe method of each variant, in order: `<test>_<n>`, numbered per test, skipping the
 * names the class already has. The final class keeps these names, so a method is traced back to
 * its variant by position.
 */
function probeNames(memberNames: readonly string[], variants: readonly InputVariant[]): string[] {
  const taken = new Set(memberNames);
  const counts = new Map<string, number>();
  return variants.map((variant) => {
    let count = counts.get(variant.method) ?? 0;
    let probe: string;
    do probe = `${variant.method}_${++count}`;
    while (taken.has(probe));
    counts.set(variant.method, count);
    taken.add(probe);
    return probe;
  });
}

/**
 * The probe class of some variants of a test class: the original's package, imports, fields,
 * set-up, helpers and nested classes, its tests replaced by one probe method per variant (named
 * `<test>_<n>`), under `className`. Observations name `witnessgym.probe.Observe` in full, so the
 * imports stay the original's.
 */
export function probeClass(
  classSource: string,
  variants: readonly InputVariant[],
  options: { className: string },
): string {
  const assembled = withJavaTree(classSource, (root) => {
    const testClass = primaryClass(root);
    const framework = testClass && frameworkOf(root, testClass);
    if (!testClass || !framework) throw new Error('not a JUnit test class');
    const context = oracleContext(root, testClass, framework);
    const style = fileStyle(classSource, root);
    const members = classMembers(testClass);
    const names = probeNames(members.map(nameOf), variants);
    const probes = variants.map((variant, index) => {
      const test = members.find(
        (member) => nameOf(member) === variant.method && isPlainTest(member, framework),
      );
      if (!test) throw new Error(`${variant.method} is not a test method of this class`);
      const probe = names[index]!;
      const indent = indentationOf(classSource, test);
      const inner = observingBody(variant.body, probe, context, style);
      return probeMethod(renamedHeader(classSource, test, probe), inner, probe, indent, style);
    });
    return applyEdits(classSource, [
      // Other top-level types stay in the original's file: a second copy would clash with it.
      ...membersRemoval(
        classSource,
        kids(root).filter(
          (node) => TYPE_DECLARATIONS.includes(node.type) && !node.equals(testClass),
        ),
      ),
      ...membersRemoval(
        classSource,
        members.filter((member) => runsOriginalTests(member, framework)),
      ),
      membersAppended(classSource, testClass, probes, style.lineBreak),
    ]);
  });
  return withJavaTree(assembled, (root) =>
    applyEdits(assembled, classRenaming(primaryClass(root)!, options.className)),
  );
}

/** The key and observed expression of an observation, `Observe.value("<key>", expression)`. */
export function observationAt(call: Node): { key: string; expression: Node } | undefined {
  if (call.type !== 'method_invocation' || field(call, 'name')?.text !== 'value') return undefined;
  if (field(call, 'object')?.text !== OBSERVE_CLASS) return undefined;
  const [key, expression] = kids(field(call, 'arguments')!);
  return key && expression ? { key: key.text.slice(1, -1), expression } : undefined;
}

/** The try statement wrapping a probe method's body, if the method is a probe. */
export function probeWrapper(method: Node): Node | undefined {
  const body = field(method, 'body');
  const statements = body ? statementsOf(body) : [];
  const wrapper = statements.length === 1 ? statements[0]! : undefined;
  if (wrapper?.type !== 'try_statement') return undefined;
  const recorded = descendants(wrapper, 'method_invocation').some(
    (call) =>
      field(call, 'object')?.text === OBSERVE_CLASS && field(call, 'name')?.text === 'thrown',
  );
  return recorded ? wrapper : undefined;
}

import type { Node } from 'web-tree-sitter';
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
  within,
  withJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import type { MethodOutcome, ObservedValue, StableObservations } from './observations.js';
import { observationAt, probeClass, probeWrapper } from './probes.js';
import {
  dedented,
  isLambdaBody,
  isStatementExpression,
  removedStatement,
  rewritten,
  rewrittenChildren,
  type Rewrite,
} from './rewrite.js';
import {
  frameworkOf,
  importedNames,
  isPlainTest,
  membersRemoval,
  primaryClass,
  type TestFramework,
} from './test-class.js';
import { testMethods, type InputVariant } from './variants.js';

/*
 * The amplified class: the probe class with each observation turned into an assertion on what
 * every run saw there, or taken out where no assertion can hold. The exception a variant threw
 * on gold becomes its oracle by type alone. Nothing of the probe survives: the class names no
 * witnessgym code and runs on the project's own classpath.
 */

/** The class whose static assertions a framework's tests call. */
const ASSERTION_CLASS: Record<TestFramework, string> = {
  junit3: 'junit.framework.Assert',
  junit4: 'org.junit.Assert',
  junit5: 'org.junit.jupiter.api.Assertions',
};

/**
 * How the class names assertion methods: bare, inherited (JUnit 3) or statically imported, the
 * imports the original lacks added; in full where a method of the class or another static import
 * of that name would hide the assertion or make the call ambiguous.
 */
function assertionNaming(root: Node, testClass: Node, framework: TestFramework) {
  const holder = ASSERTION_CLASS[framework];
  const declared = new Set(classMembers(testClass).map(nameOf));
  const staticImports = importedNames(root)
    .filter((entry) => entry.isStatic)
    .map((entry) => entry.name);
  const imported = new Set<string>();
  const named = (name: string): string => {
    if (declared.has(name)) return `${holder}.${name}`;
    if (framework === 'junit3') return name;
    if (staticImports.includes(`${holder}.${name}`) || staticImports.includes(`${holder}.*`)) {
      return name;
    }
    if (staticImports.some((entry) => entry.endsWith(`.${name}`))) return `${holder}.${name}`;
    imported.add(name);
    return name;
  };
  /** The static imports the names given so far need, after the file's last import. */
  const importsEdit = (lineBreak: string): TextEdit[] => {
    if (imported.size === 0) return [];
    const lines = [...imported].sort().map((name) => `import static ${holder}.${name};`);
    // Beside the other static imports, else after the imports, else after the package.
    const declarations = kids(root);
    const anchor =
      declarations
        .filter(
          (node) => node.type === 'import_declaration' && /^import\s+static\b/.test(node.text),
        )
        .at(-1) ??
      declarations.filter((node) => node.type === 'import_declaration').at(-1) ??
      declarations.find((node) => node.type === 'package_declaration');
    if (!anchor)
      return [{ start: 0, end: 0, text: `${lines.join(lineBreak)}${lineBreak}${lineBreak}` }];
    const gap = anchor.type === 'package_declaration' ? lineBreak : '';
    return [
      {
        start: anchor.endIndex,
        end: anchor.endIndex,
        text: gap + lines.map((line) => `${lineBreak}${line}`).join(''),
      },
    ];
  };
  return { named, importsEdit };
}

/**
 * A Java literal's characters: printable ASCII as is, the rest escaped; never as `\u` below 0x80,
 * which javac reads before the literal (`\u000a` would end the line).
 */
function escaped(text: string, quote: string): string {
  const named: Record<string, string> = {
    '\\': '\\\\',
    '\n': '\\n',
    '\r': '\\r',
    '\t': '\\t',
    '\b': '\\b',
    '\f': '\\f',
    [quote]: `\\${quote}`,
  };
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const char = text[i]!;
    const code = text.charCodeAt(i);
    if (named[char]) out += named[char];
    else if (code < 0x20 || code === 0x7f) out += `\\${code.toString(8).padStart(3, '0')}`;
    else if (code > 0x7f) out += `\\u${code.toString(16).padStart(4, '0')}`;
    else out += char;
  }
  return out;
}

export function javaString(text: string): string {
  return `"${escaped(text, '"')}"`;
}

export function javaChar(text: string): string {
  return `'${escaped(text, "'")}'`;
}

type LiteralValue = Exclude<ObservedValue, { kind: 'null' } | { kind: 'other' }>;

/** The literal of a primitive value, typed as it was (`5L`, `(byte) 5`, `1.5f`). */
function primitiveLiteral(value: LiteralValue): string {
  const boxed = value.className.replace(/^java\.lang\./, '');
  switch (value.kind) {
    case 'char':
      return javaChar(value.text);
    case 'integral':
      if (boxed === 'Long') return `${value.text}L`;
      if (boxed === 'Byte' || boxed === 'Short') return `(${boxed.toLowerCase()}) ${value.text}`;
      return value.text;
    case 'floating': {
      const type = boxed === 'Float' ? 'Float' : 'Double';
      if (value.text === 'NaN') return `${type}.NaN`;
      if (value.text === 'Infinity') return `${type}.POSITIVE_INFINITY`;
      if (value.text === '-Infinity') return `${type}.NEGATIVE_INFINITY`;
      return type === 'Float' ? `${value.text}f` : value.text;
    }
    default:
      return value.text;
  }
}

/**
 * The assertion that `expression` gives `value`. A primitive is compared as one; a boxed value
 * (or one typed Object, Number…) as its box, `assertEquals(Integer.valueOf(5), x)`: JUnit 3 and
 * 4 find `assertEquals(5, boxed)` ambiguous, and assertTrue takes no Object.
 */
function assertionOf(value: ObservedValue, expression: string, named: (name: string) => string) {
  switch (value.kind) {
    case 'null':
      return `${named('assertNull')}(${expression})`;
    case 'other':
      return `${named('assertNotNull')}(${expression})`;
    case 'string':
      return `${named('assertEquals')}(${javaString(value.text)}, ${expression})`;
    case 'enum':
      return `${named('assertEquals')}(${value.text}, ${expression})`;
  }
  if (!value.primitive) {
    const box = value.className.replace(/^java\.lang\./, '');
    const expected =
      value.kind === 'boolean'
        ? `Boolean.${value.text.toUpperCase()}`
        : `${box}.valueOf(${primitiveLiteral(value)})`;
    return `${named('assertEquals')}(${expected}, ${expression})`;
  }
  if (value.kind === 'boolean') {
    return `${named(value.text === 'true' ? 'assertTrue' : 'assertFalse')}(${expression})`;
  }
  if (value.kind === 'floating') {
    // NaN equals nothing, itself included; any other double compares exactly.
    if (value.text === 'NaN') {
      const box = value.className === 'java.lang.Float' ? 'Float' : 'Double';
      return `${named('assertTrue')}(${box}.isNaN(${expression}))`;
    }
    return `${named('assertEquals')}(${primitiveLiteral(value)}, ${expression}, 0.0)`;
  }
  return `${named('assertEquals')}(${primitiveLiteral(value)}, ${expression})`;
}

/** Failures of the test itself (an assertion in a helper, an assumption), not of the code. */
const TEST_FAILURE = new RegExp(
  [
    /^java\.lang\.(AssertionError|Error|Throwable)$/,
    /^(junit|org\.junit|org\.opentest4j|org\.hamcrest|org\.assertj)\./,
    /(AssertionError|AssertionFailedError|ComparisonFailure)$/,
  ]
    .map((pattern) => pattern.source)
    .join('|'),
);

/** The name a catch clause can give an exception class, if catching it by name means anything. */
function catchableName(exception: string): string | undefined {
  // fail() throws an AssertionError, which a catch of its supertypes would swallow.
  if (TEST_FAILURE.test(exception)) return undefined;
  // Anonymous and local classes have no name to catch them by.
  if (/\$\d/.test(exception)) return undefined;
  const name = exception.replace(/\$/g, '.');
  return /^java\.lang\.\w+$/.test(name) ? name.slice('java.lang.'.length) : name;
}

/**
 * A catch's observed class (probes.ts observes `e.getClass().getName()`) checked as a maintainer
 * would: `assertEquals(IndexOutOfBoundsException.class, e.getClass())`.
 */
function caughtClassAssertion(
  value: ObservedValue,
  observed: Node,
  named: (name: string) => string,
): string | undefined {
  const caught = /^(\w+)\.getClass\(\)\.getName\(\)$/.exec(observed.text)?.[1];
  const name = caught && value.kind === 'string' ? catchableName(value.text) : undefined;
  return name && `${named('assertEquals')}(${name}.class, ${caught}.getClass())`;
}

/**
 * The type a catch takes, when `statement` is the observation probes.ts puts first in it (of the
 * class the catch took).
 */
function uncaughtOnGold(statement: Node, observed: Node): string | undefined {
  const clause = statement.parent?.parent;
  if (statement.type !== 'expression_statement' || clause?.type !== 'catch_clause')
    return undefined;
  const parameter = kids(clause).find((kid) => kid.type === 'catch_formal_parameter');
  const caught = parameter && field(parameter, 'name')?.text;
  const type = parameter && kids(parameter).find((kid) => kid.type === 'catch_type');
  return caught && type && observed.text === `${caught}.getClass().getName()`
    ? type.text
    : undefined;
}

/** Expressions that can neither throw nor change anything: a name, a literal, `this`. */
function isInert(node: Node): boolean {
  return /^(identifier|this|.*_literal|true|false)$/.test(node.type);
}

/** Expressions whose evaluation changes nothing, though it may throw. */
function isEffectFree(node: Node): boolean {
  return (
    descendants(node, [
      'method_invocation',
      'object_creation_expression',
      'assignment_expression',
      'update_expression',
    ]).length === 0
  );
}

/** The statement of the probe's body that threw: the last one spanning the recorded line. */
function throwingStatement(statements: readonly Node[], line: number): Node | undefined {
  return statements
    .filter(
      (statement) => statement.startPosition.row < line && statement.endPosition.row >= line - 1,
    )
    .at(-1);
}

/**
 * The final form of one probe method, or undefined when it cannot be kept: its outcome varied
 * between runs, it threw what cannot be caught by name, or an observation's expression must still
 * run (it changed state the later assertions saw) but cannot stand as a statement.
 */
function finalMethod(
  source: string,
  method: Node,
  wrapper: Node,
  observations: StableObservations,
  named: (name: string) => string,
  style: FileStyle,
): string | undefined {
  const outcome: MethodOutcome | undefined = observations.outcomes.get(nameOf(method));
  if (outcome?.kind === 'Varied') return undefined;
  const block = field(wrapper, 'body')!;
  const expected = outcome && catchableName(outcome.exception);
  const throwing =
    outcome?.line === undefined ? undefined : throwingStatement(statementsOf(block), outcome.line);
  if (outcome && (!expected || !throwing)) return undefined;

  let unkeepable = false;
  // Catch bodies now failing: their comments ("// Expected") would contradict the fail().
  const failingCatches = new Set<number>();
  const rewrite: Rewrite = (node) => {
    if (/^(line|block)_comment$/.test(node.type)) {
      return node.parent && failingCatches.has(node.parent.id) ? removedStatement(node) : undefined;
    }
    if (node.type !== 'expression_statement' && !isLambdaBody(node)) return undefined;
    const call = node.type === 'expression_statement' ? node.namedChild(0) : node;
    const site = call ? observationAt(call) : undefined;
    if (!site) return undefined;
    const asStatement = node.type === 'expression_statement';
    const expression = rewritten(source, site.expression, rewrite);
    const seen = observations.sites.get(site.key);
    if (seen?.kind === 'Stable' && seen.values.length === 1) {
      const assertion =
        caughtClassAssertion(seen.values[0]!, site.expression, named) ??
        assertionOf(seen.values[0]!, expression, named);
      return asStatement ? `${assertion};` : assertion;
    }
    // A catch gold never entered: entering it is the difference, as the original's fail() meant.
    const unexpected = seen ? undefined : uncaughtOnGold(node, site.expression);
    if (unexpected) {
      failingCatches.add(node.parent!.id);
      return `${named('fail')}(${javaString(`unexpected ${unexpected}`)});`;
    }
    // No assertion here. Taking the expression out is safe where it never ran, or where running
    // it could change nothing (nor throw, in the statement that threw); else it stays as code.
    const inThrowing = throwing !== undefined && within(node, throwing);
    const removable = inThrowing
      ? isInert(site.expression)
      : !seen || isEffectFree(site.expression);
    if (removable) return asStatement ? removedStatement(node) : '{}';
    if (isStatementExpression(site.expression)) return asStatement ? `${expression};` : expression;
    unkeepable = true;
    return undefined;
  };

  const { indentUnit: unit, lineBreak: lb } = style;
  const indent = indentationOf(source, method);
  const header = source.slice(method.startIndex, field(method, 'body')!.startIndex);
  let body: string;
  if (outcome && expected && throwing) {
    const kept = rewrittenChildren(source, block, rewrite, block.startIndex + 1, throwing.endIndex);
    body =
      `{${lb}${indent}${unit}try {${kept}${lb}` +
      `${indent}${unit}${unit}${named('fail')}(${javaString(`expected ${expected}`)});${lb}` +
      `${indent}${unit}} catch (${expected} expected) {${lb}` +
      `${indent}${unit}${unit}// The exception's type is the oracle, never its message.${lb}` +
      `${indent}${unit}}${lb}${indent}}`;
  } else {
    const inner = rewrittenChildren(
      source,
      block,
      rewrite,
      block.startIndex + 1,
      block.endIndex - 1,
    );
    body = `{${dedented(inner, unit)}}`;
  }
  return unkeepable ? undefined : `${header}${body}`;
}

/**
 * The amplified class of some variants of a test class, under `className`: the probe class of
 * the variants with every observation an assertion at the oracle level the stable observations
 * allow (equality on primitives, boxes, strings and enums; null or not; the exception's type), or
 * removed. A method that cannot be kept is left out.
 */
export function finalClass(
  classSource: string,
  variants: readonly InputVariant[],
  observations: StableObservations,
  options: { className: string; framework: TestFramework },
): string {
  const probe = probeClass(classSource, variants, { className: options.className });
  return withJavaTree(probe, (root) => {
    const testClass = primaryClass(root)!;
    const { named, importsEdit } = assertionNaming(root, testClass, options.framework);
    const style = fileStyle(probe, root);
    const dropped: Node[] = [];
    const edits: TextEdit[] = [];
    for (const member of classMembers(testClass)) {
      const wrapper = member.type === 'method_declaration' ? probeWrapper(member) : undefined;
      if (!wrapper) continue;
      const method = finalMethod(probe, member, wrapper, observations, named, style);
      if (method === undefined) dropped.push(member);
      else edits.push({ start: member.startIndex, end: member.endIndex, text: method });
    }
    return applyEdits(probe, [
      ...importsEdit(style.lineBreak),
      ...edits,
      ...membersRemoval(probe, dropped),
    ]);
  });
}

/** The test methods of a class, by name. */
export function methodsOf(classSource: string): string[] {
  const scan = testMethods(classSource);
  return scan.kind === 'TestClass' ? scan.methods.map((method) => method.name) : [];
}

/** The class with only the named test methods left (its other members all kept). */
export function keepOnly(classSource: string, methodNames: readonly string[]): string {
  const kept = new Set(methodNames);
  return withJavaTree(classSource, (root) => {
    const testClass = primaryClass(root);
    const framework = testClass && frameworkOf(root, testClass);
    if (!testClass || !framework) return classSource;
    return applyEdits(
      classSource,
      membersRemoval(
        classSource,
        classMembers(testClass).filter(
          (member) => isPlainTest(member, framework) && !kept.has(nameOf(member)),
        ),
      ),
    );
  });
}

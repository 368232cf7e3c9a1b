import type { Node } from 'web-tree-sitter';
import {
  analyseExtraction,
  enclosingMember,
  type StatementRun,
} from '../../../lang/java/extraction.js';
import { helperNames } from '../../../lang/java/naming.js';
import { fileStyle, reindent, type FileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  declaringClass,
  descendants,
  field,
  indentationOf,
  kids,
  modifierWords,
  nameOf,
  withJavaTree,
  within,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, lineAt, takenNames } from './added-members.js';
import { lineStart, methodOf, resultType, thrownBy, typeOf } from './extract-method.js';
import { runsAround } from './helper-call.js';
import {
  freeTypeName,
  modelTypeOf,
  nestedClassShape,
  nestedClassText,
  typeNameOf,
  variableNames,
  type BundleField,
} from './nested-class.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Parameter Bundling: the values the code around the bug works on travel in one private
 * parameter object. Either the bug's private method takes the object instead of its separate
 * parameters (its calls in the file build it), or the statements around the bug move into a
 * private helper that does. The helper unpacks the fields into locals of the same names first,
 * so the bug's own lines stay as they were. Field types come from javac.
 */

/** Bundles of fewer values are no bundles; of more, no longer "related" values. */
const MIN_VALUES = 2;
const MAX_VALUES = 4;
const HELPER_RUNS_PER_SITE = 2;

/** Pairs of names that say what their values are together. */
const PAIRS: readonly { names: [string, string]; classes: string[] }[] = [
  ...[
    ['start', 'end'],
    ['begin', 'end'],
    ['from', 'to'],
    ['low', 'high'],
    ['lo', 'hi'],
    ['min', 'max'],
    ['first', 'last'],
    ['startIndex', 'endIndex'],
    ['beginIndex', 'endIndex'],
    ['fromIndex', 'toIndex'],
  ].map((names) => ({ names: names as [string, string], classes: ['Range', 'Bounds'] })),
  ...[
    ['offset', 'length'],
    ['off', 'len'],
    ['offset', 'len'],
    ['pos', 'len'],
    ['start', 'length'],
    ['index', 'length'],
    ['position', 'length'],
  ].map((names) => ({ names: names as [string, string], classes: ['Slice', 'Span'] })),
  { names: ['x', 'y'], classes: ['Point'] },
  { names: ['width', 'height'], classes: ['Size'] },
  { names: ['key', 'value'], classes: ['Entry'] },
  { names: ['row', 'column'], classes: ['Position'] },
  { names: ['line', 'column'], classes: ['Position'] },
];

/** `printWithQuotes` → PrintWithQuotesRequest; a `do` adds nothing to a name (doEncode). */
function requestName(method: string): string {
  return typeNameOf([method.replace(/^do(?=[A-Z])/, ''), 'request']);
}

/** Class names for a bundle of `fields`, from what its values are, then the `fallback`. */
export function bundleClassNames(fields: readonly BundleField[], fallback: string): string[] {
  const names = fields.map((f) => f.name);
  const proposals: string[] = [];
  for (const pair of PAIRS) {
    if (!pair.names.every((name) => names.includes(name))) continue;
    const others = fields.filter((f) => !pair.names.includes(f.name));
    // A range over a buffer or text is a slice of it.
    const overData =
      others.length === 1 && /(\[\]|^(String|CharSequence|StringBuilder))$/.test(others[0]!.type);
    if (others.length === 0 || overData) {
      proposals.push(...(overData ? ['Slice', ...pair.classes] : pair.classes));
    }
  }
  return [...new Set([...proposals, fallback])];
}

function bundleOf(
  root: Node,
  model: SourceModel,
  member: Node,
  fields: BundleField[],
  fallback: string,
  used: ReadonlySet<string>,
) {
  const shape = nestedClassShape(model, member, fields);
  if (shape.kind === 'Refused') return undefined;
  // A static method cannot create an inner class's instance.
  if (!shape.isStatic && modifierWords(member).includes('static')) return undefined;
  const className = freeTypeName(root, model, bundleClassNames(fields, fallback));
  if (!className) return undefined;
  // The object's name must not shadow a field or local the code reads.
  const variable = variableNames(className).find((name) => !used.has(name));
  if (!variable) return undefined;
  return { shape, className, variable, type: `${className}${shape.typeArguments}` };
}

/** `final int start = range.start;` for each field: the code keeps reading its own names. */
function unpacked(
  fields: readonly BundleField[],
  variable: string,
  indent: string,
  final: (name: string) => boolean,
): string[] {
  return fields.map(
    (f) => `${indent}${final(f.name) ? 'final ' : ''}${f.type} ${f.name} = ${variable}.${f.name};`,
  );
}

/** javac's view of a call: the method it resolves to. */
function resolvedCall(model: SourceModel, call: Node) {
  return model.expressions.find(
    (entry) =>
      entry.node === 'method_invocation' &&
      entry.start === call.startIndex &&
      entry.end === call.endIndex &&
      entry.calls !== undefined,
  )?.calls;
}

/** The bug's private method takes a parameter object instead of its separate parameters. */
function bundledSignature(
  root: Node,
  source: string,
  focus: TransformSite['focus'],
  model: SourceModel,
  style: FileStyle,
): TransformCandidate | undefined {
  const focusNode = root.descendantForIndex(focus.start, Math.max(focus.start, focus.end - 1));
  const member = focusNode ? enclosingMember(focusNode) : null;
  if (member?.type !== 'method_declaration') return undefined;
  const words = modifierWords(member);
  const body = field(member, 'body');
  // Only a private method's calls are all in this file; a bug in the header stays untouched.
  if (!words.includes('private') || !body || focus.start < body.startIndex) return undefined;
  const parameterList = field(member, 'parameters');
  const parameters = kids(parameterList ?? member).filter((p) => !p.type.endsWith('comment'));
  if (parameters.length < MIN_VALUES || parameters.length > MAX_VALUES) return undefined;
  // Varargs would need their array built; an annotation may not apply to a local.
  if (
    parameters.some(
      (p) => p.type !== 'formal_parameter' || modifierWords(p).some((word) => word.startsWith('@')),
    )
  ) {
    return undefined;
  }
  const method = methodOf(model, member);
  const owner = declaringClass(member);
  const ownerType = owner ? modelTypeOf(model, owner) : undefined;
  if (!method || !owner || !ownerType) return undefined;
  const fields: BundleField[] = [];
  for (const parameter of parameters) {
    const type = method.parameters.find((p) => p.name === nameOf(parameter))?.type;
    if (!type) return undefined;
    fields.push({ name: nameOf(parameter), type });
  }
  const name = nameOf(member);
  // Overloads are told apart by arity: this one must be the only one of its arity, and none
  // may take one argument (the bundled calls' arity) or varargs.
  const overloads = descendants(owner, 'method_declaration').filter(
    (m) => nameOf(m) === name && declaringClass(m)?.equals(owner) === true && !m.equals(member),
  );
  const parametersOf = (m: Node) =>
    kids(field(m, 'parameters') ?? m).filter((p) => p.type.endsWith('parameter'));
  if (
    overloads.some((m) => {
      const others = parametersOf(m);
      return (
        others.length === parameters.length ||
        others.length === 1 ||
        others.some((p) => p.type === 'spread_parameter')
      );
    })
  ) {
    return undefined;
  }
  if (descendants(root, 'method_reference').some((r) => r.lastNamedChild?.text === name)) {
    return undefined;
  }
  const arity = (call: Node) =>
    kids(field(call, 'arguments') ?? call).filter((k) => !k.type.endsWith('comment')).length;
  const calls = descendants(root, 'method_invocation').filter((call) => {
    if (field(call, 'name')?.text !== name || arity(call) !== parameters.length) return false;
    const callee = resolvedCall(model, call);
    return callee?.inThisFile === true && callee.declaringType === ownerType.qualifiedName;
  });
  // A call inside another's arguments would take two overlapping edits.
  const nested = (call: Node) => calls.some((other) => !other.equals(call) && within(call, other));
  if (calls.length === 0 || calls.some(nested)) return undefined;
  const used = new Set(descendants(body, 'identifier').map((id) => id.text));
  const bundle = bundleOf(root, model, member, fields, requestName(name), used);
  if (!bundle) return undefined;

  const memberIndent = indentationOf(source, member);
  const bodyIndent = memberIndent + style.indentUnit;
  const declaredFinal = new Set(
    parameters.filter((p) => modifierWords(p).includes('final')).map(nameOf),
  );
  const unpack = unpacked(fields, bundle.variable, bodyIndent, (n) => declaredFinal.has(n));
  const final = style.finalParameters ? 'final ' : '';
  const creation = `new ${bundle.className}${bundle.shape.typeArguments ? '<>' : ''}`;
  const nestedClass = nestedClassText({
    name: bundle.className,
    fields,
    shape: bundle.shape,
    withConstructor: true,
    indent: memberIndent,
    style,
  });
  return {
    description: `${name}: parameters (${fields.map((f) => f.name).join(', ')}) bundled into private ${bundle.className}, built at its ${calls.length} call(s)`,
    edits: [
      ...calls.map((call) => {
        const args = field(call, 'arguments')!;
        return {
          start: args.startIndex,
          end: args.endIndex,
          text: `(${creation}${args.text})`,
        };
      }),
      {
        start: parameterList!.startIndex,
        end: parameterList!.endIndex,
        text: `(${final}${bundle.type} ${bundle.variable})`,
      },
      {
        start: body.startIndex + 1,
        end: body.startIndex + 1,
        text: `${style.lineBreak}${unpack.join(style.lineBreak)}`,
      },
      insertedAfter(member, nestedClass, style),
    ],
    added: [bundle.className],
  };
}

/** The statements around the bug move into a helper that takes their inputs as one object. */
function bundledHelper(
  root: Node,
  source: string,
  run: StatementRun,
  model: SourceModel,
  style: FileStyle,
  taken: Set<string>,
): TransformCandidate | undefined {
  const { member, statements } = run;
  const owner = ancestor(member, [
    'class_body',
    'enum_body',
    'interface_body',
    'enum_body_declarations',
  ]);
  if (!owner || owner.type === 'interface_body') return undefined;
  const extraction = analyseExtraction(run);
  if (extraction.kind === 'Refused') return undefined;
  const { inputs, result } = extraction;
  if (inputs.length < MIN_VALUES || inputs.length > MAX_VALUES) return undefined;
  const fields: BundleField[] = [];
  for (const input of inputs) {
    const type = typeOf(model, member, input);
    if (type === null) return undefined;
    fields.push({ name: input.name, type });
  }
  const returnType = resultType(model, member, result);
  if (returnType === undefined) return undefined;
  const [name] = helperNames(
    statements,
    {
      member: member.type === 'constructor_declaration' ? 'init' : nameOf(member),
      ...(result.kind === 'local' ? { result: result.declaration.name } : {}),
    },
    taken,
  );
  if (!name) return undefined;
  const used = new Set([
    ...statements.flatMap((s) => descendants(s, 'identifier').map((id) => id.text)),
    ...inputs.map((input) => input.name),
  ]);
  const bundle = bundleOf(root, model, member, fields, requestName(name), used);
  if (!bundle) return undefined;
  const thrown = thrownBy(root, model, run);
  if (thrown === null) return undefined;

  const first = statements[0]!;
  const last = statements[statements.length - 1]!;
  const from = lineStart(source, first.startIndex);
  const lineEnd = source.indexOf('\n', last.endIndex);
  const trailing = source.slice(last.endIndex, lineEnd === -1 ? source.length : lineEnd);
  // Statements that share a line with other code are not moved: the line would be torn.
  if (source.slice(from, first.startIndex).trim() !== '' || !/^\s*(\/\/.*)?$/.test(trailing)) {
    return undefined;
  }
  const memberIndent = indentationOf(source, member);
  const bodyIndent = memberIndent + style.indentUnit;
  const moved = reindent(
    source.slice(from, last.endIndex).split(/\r?\n/),
    indentationOf(source, first),
    bodyIndent,
  );
  const lines = [
    ...unpacked(fields, bundle.variable, bodyIndent, () => style.finalParameters),
    ...moved,
  ];
  if (result.kind === 'local') lines.push(`${bodyIndent}return ${result.declaration.name};`);
  const typeParameters = field(member, 'type_parameters')?.text;
  const signature = [
    'private',
    ...(modifierWords(member).includes('static') ? ['static'] : []),
    ...(typeParameters ? [typeParameters] : []),
    returnType,
    `${name}(${style.finalParameters ? 'final ' : ''}${bundle.type} ${bundle.variable})${thrown.length > 0 ? ` throws ${thrown.join(', ')}` : ''} {`,
  ].join(' ');
  const helper = [`${memberIndent}${signature}`, ...lines, `${memberIndent}}`].join(
    style.lineBreak,
  );
  const nested = nestedClassText({
    name: bundle.className,
    fields,
    shape: bundle.shape,
    withConstructor: true,
    indent: memberIndent,
    style,
  });

  const creation = `new ${bundle.className}${bundle.shape.typeArguments ? '<>' : ''}(${inputs.map((input) => input.name).join(', ')})`;
  const call = `${name}(${creation})`;
  let callStatement = `${call};`;
  if (result.kind === 'tail' && returnType !== 'void') callStatement = `return ${call};`;
  if (result.kind === 'local') {
    const declaration = result.statement;
    const modifiers = kids(declaration).find((k) => k.type === 'modifiers')?.text;
    const declaredType = field(declaration, 'type')?.text ?? returnType;
    callStatement = `${modifiers ? `${modifiers} ` : ''}${declaredType} ${result.declaration.name} = ${call};`;
  }
  return {
    description: `${nameOf(member)}: lines ${lineAt(source, first.startIndex)}–${lineAt(source, last.endIndex)} moved into private ${name}(${bundle.className})`,
    edits: [
      { start: from, end: last.endIndex, text: `${indentationOf(source, first)}${callStatement}` },
      insertedAfter(member, `${helper}${style.lineBreak}${style.lineBreak}${nested}`, style),
    ],
    added: [name, bundle.className],
  };
}

export const parameterBundling: TransformOperator = {
  kind: 'transform',
  id: 't_parameter_bundle_v1',
  candidates: (site) =>
    withJavaTree(site.source, (root) => {
      const style = fileStyle(site.source, root);
      const taken = takenNames(root, site.model);
      const inPlace = bundledSignature(root, site.source, site.focus, site.model, style);
      const helpers = runsAround(root, site.focus)
        .flatMap((run) => bundledHelper(root, site.source, run, site.model, style, taken) ?? [])
        .slice(0, HELPER_RUNS_PER_SITE);
      return [...(inPlace ? [inPlace] : []), ...helpers];
    }),
};

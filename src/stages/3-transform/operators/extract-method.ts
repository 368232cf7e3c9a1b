import type { Node } from 'web-tree-sitter';
import {
  analyseExtraction,
  blockStatements,
  enclosingMember,
  type ExtractionResult,
  type StatementRun,
} from '../../../lang/java/extraction.js';
import type { LocalDeclaration } from '../../../lang/java/scopes.js';
import { fileStyle, reindent, type FileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  declaringClass,
  descendants,
  field,
  indentationOf,
  kids,
  METHOD_TYPES,
  modifierWords,
  nameOf,
  type TextEdit,
  withJavaTree,
  within,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, takenNames } from './added-members.js';
import type { TransformSite } from './types.js';

/*
 * Extract Method, as the operators that move statements into private helpers share it: whether a
 * run of statements can move, the helper's parameter, result and exception types (from javac),
 * the helper's text in the file's style, and the statement that calls it.
 */

/** The file a run is extracted from. */
export interface ExtractionContext {
  root: Node;
  source: string;
  model: SourceModel;
  style: FileStyle;
}

/**
 * Runs `body` on the site's file as Extract Method sees it, with the names already taken in it
 * (a helper's name must be new to the class).
 */
export function withExtractionContext<T>(
  site: TransformSite,
  body: (context: ExtractionContext, taken: Set<string>) => T,
): T {
  return withJavaTree(site.source, (root) =>
    body(
      { root, source: site.source, model: site.model, style: fileStyle(site.source, root) },
      takenNames(root, site.model),
    ),
  );
}

/** A run that can move into a helper, with the helper's types; its name is chosen after. */
export interface ExtractionPlan {
  run: StatementRun;
  inputs: LocalDeclaration[];
  result: ExtractionResult;
  /** `type name` of each parameter, `final` if the file's parameters are. */
  parameters: string[];
  returnType: string;
  thrown: string[];
  /** The member's name, `init` for a constructor. */
  memberName: string;
}

/** A run moved into a helper: the helper's text and the statement that takes the run's place. */
export interface ExtractedMethod {
  name: string;
  /** The whole helper, indented as a member beside the run's member. */
  text: string;
  /** The statement that replaces the run, without its indentation. */
  call: string;
  /** The range the call replaces: from the start of the run's first line to its end. */
  start: number;
  end: number;
}

function isStatementOfBlock(node: Node): boolean {
  return node.parent?.type === 'block' && !node.type.endsWith('comment');
}

/**
 * The statements holding the focus in each block around it, the innermost block first, up to
 * the member's body. A lambda's statements return from the lambda: the walk stops there.
 */
export function focusRuns(root: Node, focus: { start: number; end: number }): StatementRun[] {
  const runs: StatementRun[] = [];
  for (
    let node: Node | null = root.descendantForIndex(
      focus.start,
      Math.max(focus.start, focus.end - 1),
    );
    node;
    node = node.parent
  ) {
    // A bug over several statements of a block: the innermost node is the block itself.
    const block = isStatementOfBlock(node) ? node.parent! : node.type === 'block' ? node : null;
    if (!block) continue;
    const member = enclosingMember(block);
    if (
      !member ||
      ancestor(block, ['lambda_expression', ...METHOD_TYPES])?.type === 'lambda_expression'
    ) {
      break;
    }
    // Every statement of the block the focus overlaps (a bug may span two).
    const statements = blockStatements(block).filter(
      (statement) => statement.endIndex > focus.start && statement.startIndex < focus.end,
    );
    const run = statements.length > 0 || block.equals(node) ? statements : [node];
    if (run.length === 0) continue;
    if (
      !runs.some(
        (known) => known.statements[0]!.equals(run[0]!) && known.statements.length === run.length,
      )
    ) {
      runs.push({ member, block, statements: run });
    }
    if (field(member, 'body')?.equals(block)) break;
  }
  return runs;
}

/**
 * For a bug in a method's header (a misnamed equals, say), the statements of its body: the
 * computation the header names. Undefined when the focus is not in a header.
 */
export function headerBugBody(
  root: Node,
  focus: { start: number; end: number },
): StatementRun | undefined {
  const member = enclosingMember(root.descendantForIndex(focus.start) ?? root);
  const body = member ? field(member, 'body') : null;
  if (!member || body?.type !== 'block' || focus.start >= body.startIndex) return undefined;
  const statements = blockStatements(body);
  return statements.length > 0 ? { member, block: body, statements } : undefined;
}

/** The one method of the file named `name`, if it is private and called once, and that call. */
function privateCalledOnce(root: Node, name: string): { method: Node; call: Node } | undefined {
  // An overload would make the call ambiguous to a reader of the syntax alone.
  const methods = descendants(root, 'method_declaration').filter((m) => nameOf(m) === name);
  const calls = descendants(root, 'method_invocation').filter(
    (call) => nameOf(call) === name && [undefined, 'this'].includes(field(call, 'object')?.type),
  );
  const [method] = methods;
  const [call] = calls;
  if (methods.length !== 1 || calls.length !== 1 || !method || !call) return undefined;
  if (!modifierWords(method).includes('private') || within(call, method)) return undefined;
  return { method, call };
}

/**
 * Where else to split when the method holding the focus has nothing left to split, because an
 * earlier step moved its code into a helper: around the one call of a private method holding
 * the bug (the bug stays on the path, a frame further down), or, for a bug in the header of a
 * method that only delegates to such a helper, in the helper's body.
 */
export function delegatedFoci(
  root: Node,
  focus: { start: number; end: number },
): { start: number; end: number }[] {
  const member = enclosingMember(root.descendantForIndex(focus.start) ?? root);
  if (member?.type !== 'method_declaration') return [];
  const foci: { start: number; end: number }[] = [];
  const caller = privateCalledOnce(root, nameOf(member));
  if (caller) foci.push({ start: caller.call.startIndex, end: caller.call.endIndex });
  const body = field(member, 'body');
  const [only, ...more] = body ? blockStatements(body) : [];
  if (body && only && more.length === 0 && focus.start < body.startIndex) {
    const delegate = descendants(only, 'method_invocation')
      .map((call) => privateCalledOnce(root, nameOf(call)))
      .find((found) => found && within(found.call, only));
    const name = delegate && field(delegate.method, 'name');
    if (name) foci.push({ start: name.startIndex, end: name.endIndex });
  }
  return foci;
}

/** javac's entry for a member: the innermost method around its name (anonymous classes nest). */
export function methodOf(model: SourceModel, member: Node) {
  const name = field(member, 'name');
  if (!name) return undefined;
  return model.methods
    .filter((method) => method.start <= name.startIndex && name.endIndex <= method.end)
    .sort((a, b) => b.start - a.start)[0];
}

/** Whether a try statement inside the run catches `type` around `node`. */
function caughtWithin(node: Node, type: string, run: StatementRun): boolean {
  for (let current = node.parent; current; current = current.parent) {
    if (
      !run.statements.some(
        (statement) =>
          statement.startIndex <= current!.startIndex && current!.endIndex <= statement.endIndex,
      )
    ) {
      return false;
    }
    if (current.type !== 'try_statement' && current.type !== 'try_with_resources_statement')
      continue;
    const body = field(current, 'body');
    // A try-with-resources' catch clauses cover its resources' initialisers too.
    const from = field(current, 'resources') ?? body;
    if (!body || !from || node.startIndex < from.startIndex || node.endIndex > body.endIndex)
      continue;
    const caught = descendants(current, 'catch_type').flatMap((types) =>
      kids(types).map((k) => k.text),
    );
    if (caught.some((name) => name === type || name === 'Exception' || name === 'Throwable'))
      return true;
  }
  return false;
}

/**
 * The checked exceptions the run can throw, as javac sees its calls and throw statements, less
 * those it catches itself: what the helper must declare, and no more. Null if one has no spelling.
 */
export function thrownBy(root: Node, model: SourceModel, run: StatementRun): string[] | null {
  const first = run.statements[0]!;
  const last = run.statements[run.statements.length - 1]!;
  const inRun = (entry: { start: number; end: number }) =>
    entry.start >= first.startIndex && entry.end <= last.endIndex;
  const thrown: string[] = [];
  const raised = [
    ...model.expressions
      .filter(inRun)
      .flatMap((entry) => (entry.checkedThrows ?? []).map((type) => ({ entry, type }))),
    ...model.throwStatements
      .filter((entry) => inRun(entry) && entry.checked)
      .map((entry) => ({ entry, type: entry.type })),
  ];
  for (const { entry, type } of raised) {
    if (type === null) return null;
    const node = root.descendantForIndex(entry.start, Math.max(entry.start, entry.end - 1));
    if ((node && caughtWithin(node, type, run)) || thrown.includes(type)) continue;
    thrown.push(type);
  }
  return thrown;
}

/** The compiler's type for a local or parameter, or null if it cannot be spelled. */
export function typeOf(
  model: SourceModel,
  member: Node,
  declaration: LocalDeclaration,
): string | null {
  if (declaration.kind === 'parameter') {
    return (
      methodOf(model, member)?.parameters.find((p) => p.name === declaration.name)?.type ?? null
    );
  }
  const holder = declaration.node.parent ?? declaration.node;
  const local = model.locals.find(
    (entry) =>
      entry.name === declaration.name &&
      entry.start >= holder.startIndex &&
      entry.start <= declaration.node.endIndex,
  );
  return local?.type ?? null;
}

export function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

/** Whether each statement of the run can be cut out by whole lines (none shares a line). */
function ownsItsLines(source: string, run: StatementRun): boolean {
  const first = run.statements[0]!;
  const last = run.statements[run.statements.length - 1]!;
  return (
    source.slice(lineStart(source, first.startIndex), first.startIndex).trim() === '' &&
    /^\s*(\/\/.*)?$/.test(lineTail(source, last.endIndex))
  );
}

/** The rest of the line from `index`, without its line break. */
function lineTail(source: string, index: number): string {
  const lineEnd = source.indexOf('\n', index);
  return source.slice(index, lineEnd === -1 ? source.length : lineEnd).replace(/\r$/, '');
}

/** Whether the run only hands back a value (`return total;`): a helper would do nothing. */
function onlyReturnsALocal(run: StatementRun): boolean {
  const [statement, ...rest] = run.statements;
  const value = statement?.type === 'return_statement' ? kids(statement)[0] : undefined;
  return rest.length === 0 && value?.type === 'identifier';
}

/** A literal, `true`, `false` or `null`. */
const constant = (node: Node) => /literal$|^(true|false|null)$/.test(node.type);

/**
 * Whether the run only declares constants or objects made of constants (`final int prime = 31;`,
 * `new StringBuilder("    ")`, `new int[1]`): nothing a helper would compute.
 */
export function declaresOnlyConstants(run: StatementRun): boolean {
  return run.statements.every(
    (statement) =>
      statement.type === 'local_variable_declaration' &&
      kids(statement)
        .filter((k) => k.type === 'variable_declarator')
        .every((declarator) => {
          const value = field(declarator, 'value');
          if (!value || constant(value)) return true;
          if (value.type === 'array_creation_expression') {
            // `new int[1]`, `new char[] { 'a' }`: sized or filled by literals.
            return descendants(value, ['dimensions_expr', 'array_initializer']).every((part) =>
              kids(part).every(constant),
            );
          }
          const args =
            value.type === 'object_creation_expression' ? field(value, 'arguments') : null;
          return (
            args !== null &&
            kids(args).every(constant) &&
            !kids(value).some((k) => k.type === 'class_body')
          );
        }),
  );
}

/** A value at hand: a constant, a local, `this`, a field of one, an array of them. */
function atHand(node: Node): boolean {
  return (
    constant(node) ||
    node.type === 'identifier' ||
    node.type === 'this' ||
    (node.type === 'field_access' && atHand(field(node, 'object')!)) ||
    (node.type === 'array_initializer' && kids(node).every(atHand))
  );
}

/** Whether `node` is one call of values at hand; `ownOnly`: of a method of this object. */
export function callOfValuesAtHand(node: Node | null | undefined, ownOnly: boolean): boolean {
  const args = node?.type === 'method_invocation' ? field(node, 'arguments') : null;
  const receiver = node ? field(node, 'object') : null;
  return (
    args !== null &&
    kids(args).every(atHand) &&
    (!ownOnly || receiver === null || receiver.type === 'this')
  );
}

/**
 * Whether a run is too little to be a step of the computation: constants only, or one statement
 * that only renames a value (`final Range other = (Range) obj;`, `final int len = slice.len;`,
 * `final int[] offset = { slice.offset };`), makes one call of values at hand
 * (`Objects.requireNonNull(array, "array");`), or hands them to a method of the class
 * (`final Object object = readObject(request);`, `return countOffset(offset, len, buf);`, a
 * helper an earlier step made). A maintainer's helper does some work.
 */
export function isNoStep(run: StatementRun): boolean {
  if (declaresOnlyConstants(run)) return true;
  if (run.statements.length !== 1) return false;
  const [statement] = run.statements as [Node];
  if (statement.type === 'expression_statement') {
    return callOfValuesAtHand(kids(statement)[0], false);
  }
  // `return countOffset(offset, len, buf);`: a method of the class, handed what is at hand.
  if (statement.type === 'return_statement') return callOfValuesAtHand(kids(statement)[0], true);
  if (statement.type !== 'local_variable_declaration') return false;
  const declarators = kids(statement).filter((k) => k.type === 'variable_declarator');
  const value = declarators.length === 1 ? field(declarators[0]!, 'value') : null;
  if (!value) return false;
  const renamed = value.type === 'cast_expression' ? field(value, 'value') : value;
  return renamed !== null && (atHand(renamed) || callOfValuesAtHand(renamed, true));
}

/**
 * What a helper holding a run returns, as javac spells it: its method's return type when the run
 * ends the method (a constructor's returns nothing), the type of the local it hands back, or
 * void; undefined when that type has no spelling.
 */
export function resultType(
  model: SourceModel,
  member: Node,
  result: ExtractionResult,
): string | undefined {
  if (result.kind === 'tail') {
    if (member.type === 'constructor_declaration') return 'void';
    return methodOf(model, member)?.returnType ?? undefined;
  }
  if (result.kind === 'local') return typeOf(model, member, result.declaration) ?? undefined;
  return 'void';
}

/** Whether the run can move into a private helper, and with which types; undefined if not. */
/** Names of parameters that come as a pair: `o1`/`o2`, `left`/`right`. */
const PAIRED_NAMES = [
  ['a', 'b'],
  ['x', 'y'],
  ['left', 'right'],
  ['lhs', 'rhs'],
  ['first', 'second'],
];

function arePaired(one: string, other: string): boolean {
  const numbered = /^(.*?)(\d+)$/;
  const [, stem1, n1] = numbered.exec(one) ?? [];
  const [, stem2, n2] = numbered.exec(other) ?? [];
  if (stem1 !== undefined && stem1 === stem2 && n1 !== n2) return true;
  return PAIRED_NAMES.some(([a, b]) => (one === a && other === b) || (one === b && other === a));
}

/**
 * Whether the helper would take one of a pair of the member's parameters of one type and not the
 * other: `compare(o1, o2)` moving `o1.x < o1.x` into a helper of `o1` alone shows, in its
 * signature, that `o2` was meant to be read.
 */
export function splitsAPair(member: Node, inputs: readonly LocalDeclaration[]): boolean {
  const formal = kids(field(member, 'parameters') ?? member).filter(
    (parameter) => parameter.type === 'formal_parameter',
  );
  const typeOfParameter = (name: string) =>
    formal.find((parameter) => nameOf(parameter) === name)?.childForFieldName('type')?.text;
  const taken = new Set(inputs.map((input) => input.name));
  return inputs.some((input) => {
    if (input.kind !== 'parameter') return false;
    const type = typeOfParameter(input.name);
    return formal.some((other) => {
      const name = nameOf(other);
      return (
        !taken.has(name) &&
        arePaired(input.name, name) &&
        type !== undefined &&
        other.childForFieldName('type')?.text === type
      );
    });
  });
}

export function planExtraction(
  context: ExtractionContext,
  run: StatementRun,
): ExtractionPlan | undefined {
  const { model, style } = context;
  const { member } = run;
  const owner = ancestor(member, [
    'class_body',
    'enum_body',
    'interface_body',
    'enum_body_declarations',
  ]);
  // Private interface methods need Java 9; the corpus includes Java 8 projects.
  if (!owner || owner.type === 'interface_body') return undefined;
  if (!ownsItsLines(context.source, run) || onlyReturnsALocal(run)) return undefined;
  const extraction = analyseExtraction(run);
  if (extraction.kind === 'Refused') return undefined;
  if (splitsAPair(member, extraction.inputs)) return undefined;
  const parameters: string[] = [];
  for (const input of extraction.inputs) {
    const type = typeOf(model, member, input);
    if (type === null) return undefined;
    parameters.push(`${style.finalParameters ? 'final ' : ''}${type} ${input.name}`);
  }
  const { result } = extraction;
  const returnType = resultType(model, member, result);
  if (returnType === undefined) return undefined;
  const thrown = thrownBy(context.root, model, run);
  if (thrown === null) return undefined;
  return {
    run,
    inputs: extraction.inputs,
    result,
    parameters,
    returnType,
    thrown,
    memberName: member.type === 'constructor_declaration' ? 'init' : nameOf(member),
  };
}

/**
 * The initializer of the run's result when its declaration is the run's last statement and
 * declares only it: the helper can return it as it is. An array initializer (`{1, 2}`) needs
 * its declaration's type, so it stays a local.
 */
function returnedDirectly(
  result: Extract<ExtractionResult, { kind: 'local' }>,
  last: Node,
): Node | undefined {
  if (!result.statement.equals(last)) return undefined;
  const value = field(result.declaration.node, 'value');
  if (!value || value.type === 'array_initializer') return undefined;
  return value;
}

/** Where a helper's text comes from besides its run. */
export interface ExtractionOptions {
  /** A line start before the run: the comments above the run move along with it. */
  movedFrom?: number;
  /** The bug's range: its lines move as they are, never rewritten. */
  focus: { start: number; end: number };
}

/** The member's type parameters node when `text` names one of them. */
function usedTypeParameters(member: Node, text: string): Node | undefined {
  const parameters = field(member, 'type_parameters');
  if (!parameters) return undefined;
  const names = typeParameterNames(parameters);
  return names.some((name) => name && new RegExp(`\\b${name}\\b`).test(text))
    ? parameters
    : undefined;
}

function typeParameterNames(parameters: Node): (string | undefined)[] {
  return kids(parameters)
    .filter((k) => k.type === 'type_parameter')
    .map((k) => kids(k).find((c) => c.type === 'type_identifier' || c.type === 'identifier')?.text);
}

/**
 * `this.<T>` or `Owner.<T>` before a call of a helper copying the member's bounded type
 * parameters: javac cannot infer `<T extends Enum<T>>` from a caller's own `T`.
 */
function typeWitness(member: Node, parameters: Node): string | undefined {
  if (!/\bextends\b/.test(parameters.text)) return undefined;
  const names = typeParameterNames(parameters);
  const owner = declaringClass(member);
  if (names.some((name) => !name) || !owner) return undefined;
  const receiver = modifierWords(member).includes('static') ? nameOf(owner) : 'this';
  return `${receiver}.<${names.join(', ')}>`;
}

/** The helper named `name` holding the plan's run, and the statement that calls it. */
export function writeExtraction(
  context: ExtractionContext,
  plan: ExtractionPlan,
  name: string,
  { movedFrom, focus }: ExtractionOptions,
): ExtractedMethod {
  const { source, style } = context;
  const { member, statements } = plan.run;
  const words = modifierWords(member);
  // The member's unchecked casts that move need its @SuppressWarnings; nothing else does.
  const casts = statements.some(
    (statement) => descendants(statement, 'cast_expression').length > 0,
  );
  const annotations = casts
    ? kids(kids(member).find((k) => k.type === 'modifiers') ?? member)
        .filter((k) => k.type === 'annotation' && /^@SuppressWarnings\b/.test(k.text))
        .map((k) => k.text)
    : [];
  const memberIndent = indentationOf(source, member);
  const bodyIndent = memberIndent + style.indentUnit;
  const first = statements[0]!;
  const last = statements[statements.length - 1]!;
  const start = lineStart(source, first.startIndex);
  const { result, returnType, thrown } = plan;
  const returned =
    result.kind === 'local' && (last.endIndex <= focus.start || last.startIndex >= focus.end)
      ? returnedDirectly(result, last)
      : undefined;
  const from = movedFrom ?? start;
  // A comment closing the last statement's line (`}//for`) moves with it.
  const tail = lineTail(source, last.endIndex);
  const end = last.endIndex + (tail.trim() === '' ? 0 : tail.length);
  // `T x = init; return x;` reads as `return init;` when the declaration comes last.
  const moved = returned
    ? `${source.slice(from, last.startIndex)}return ${source.slice(returned.startIndex, end)}`
    : source.slice(from, end);
  const lines = reindent(moved.split(/\r?\n/), indentationOf(source, first), bodyIndent);
  while (lines[0] === '') lines.shift();
  if (!returned && result.kind === 'local')
    lines.push(`${bodyIndent}return ${result.declaration.name};`);
  const header = `${name}(${plan.parameters.join(', ')})${thrown.length > 0 ? ` throws ${thrown.join(', ')}` : ''} {`;
  // The member's type parameters, when the helper's signature or body names one of them.
  const generic = usedTypeParameters(member, [returnType, header, ...lines].join('\n'));
  const signature = [
    'private',
    ...(words.includes('static') ? ['static'] : []),
    ...(generic ? [generic.text] : []),
    returnType,
    header,
  ].join(' ');
  const text = [
    ...annotations.map((annotation) => `${memberIndent}${annotation}`),
    `${memberIndent}${signature}`,
    ...lines,
    `${memberIndent}}`,
  ].join(style.lineBreak);

  const invocation = `${generic ? (typeWitness(member, generic) ?? '') : ''}${name}(${plan.inputs.map((input) => input.name).join(', ')})`;
  let call = `${invocation};`;
  if (result.kind === 'tail' && returnType !== 'void') call = `return ${invocation};`;
  if (result.kind === 'local') {
    const declaration = result.statement;
    const modifiers = kids(declaration).find((k) => k.type === 'modifiers')?.text;
    const declaredType = field(declaration, 'type')?.text ?? returnType;
    call = `${modifiers ? `${modifiers} ` : ''}${declaredType} ${result.declaration.name} = ${invocation};`;
  }
  return { name, text, call, start: movedFrom ?? start, end };
}

/** The start of the line after the one `index` is on: where a run that follows moves from. */
export function nextLineStart(source: string, index: number): number {
  const lineEnd = source.indexOf('\n', index);
  return lineEnd === -1 ? source.length : lineEnd + 1;
}

/**
 * The edits that turn consecutive runs of one member, already extracted in order, into calls of
 * their helpers, one a line where the runs were, and add the helpers after the member.
 */
export function callsInPlace(
  context: ExtractionContext,
  member: Node,
  helpers: readonly ExtractedMethod[],
  indent: string,
): TextEdit[] {
  const { style } = context;
  const first = helpers[0]!;
  const last = helpers[helpers.length - 1]!;
  return [
    {
      start: first.start,
      end: last.end,
      text: helpers.map((helper) => `${indent}${helper.call}`).join(style.lineBreak),
    },
    insertedAfter(
      member,
      helpers.map((helper) => helper.text).join(style.lineBreak + style.lineBreak),
      style,
    ),
  ];
}

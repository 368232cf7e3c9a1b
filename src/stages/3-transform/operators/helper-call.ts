import type { Node } from 'web-tree-sitter';
import {
  analyseExtraction,
  blockStatements,
  enclosingMember,
  type StatementRun,
} from '../../../lang/java/extraction.js';
import { helperNames } from '../../../lang/java/naming.js';
import type { LocalDeclaration } from '../../../lang/java/scopes.js';
import { fileStyle, reindent, type FileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  descendants,
  field,
  indentationOf,
  kids,
  METHOD_TYPES,
  modifierWords,
  nameOf,
  withJavaTree,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, lineAt, takenNames } from './added-members.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Helper Call Insertion: the statements around the bug move into a private helper next to their
 * method, named after what they do, and the method calls it. The call chain from the witness to
 * the bug gains a frame; nothing else changes. Parameter and result types come from javac.
 */

/** How many movable runs, from the innermost statement outwards, are offered per site. */
const RUNS_PER_SITE = 3;

function isStatementOfBlock(node: Node): boolean {
  return node.parent?.type === 'block' && !node.type.endsWith('comment');
}

/** Runs of statements holding the focus: the innermost first, then each enclosing statement. */
function runsAround(root: Node, focus: TransformSite['focus']): StatementRun[] {
  let node: Node | null = root.descendantForIndex(
    focus.start,
    Math.max(focus.start, focus.end - 1),
  );
  const runs: StatementRun[] = [];
  for (; node; node = node.parent) {
    if (!isStatementOfBlock(node)) continue;
    const block = node.parent!;
    const member = enclosingMember(block);
    // A lambda's statements return from the lambda: they stay where they are.
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
    const run = statements.length > 0 ? statements : [node];
    if (
      !runs.some(
        (known) => known.statements[0]!.equals(run[0]!) && known.statements.length === run.length,
      )
    ) {
      runs.push({ member, block, statements: run });
    }
    if (field(member, 'body')?.equals(block)) {
      // With the rest of the body too: a loop that returns early moves with the fallback after it.
      const siblings = blockStatements(block);
      const from = siblings.findIndex((statement) => statement.equals(run[0]!));
      const tail = siblings.slice(from);
      if (tail.length > run.length) {
        runs.push({ member, block, statements: tail });
      }
      break;
    }
  }
  if (runs.length > 0) return runs;
  // A bug in a method's header (a misnamed equals, say): the helper takes the whole body.
  const member = enclosingMember(root.descendantForIndex(focus.start) ?? root);
  const body = member ? field(member, 'body') : null;
  if (!member || body?.type !== 'block' || focus.start >= body.startIndex) return [];
  const statements = blockStatements(body);
  return statements.length > 0 ? [{ member, block: body, statements }] : [];
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
    if (!body || node.startIndex < body.startIndex || node.endIndex > body.endIndex) continue;
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

function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

function helperFor(
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
  // Private interface methods need Java 9; the corpus includes Java 8 projects.
  if (!owner || owner.type === 'interface_body') return undefined;
  const extraction = analyseExtraction(run);
  if (extraction.kind === 'Refused') return undefined;
  const parameters: string[] = [];
  for (const input of extraction.inputs) {
    const type = typeOf(model, member, input);
    if (type === null) return undefined;
    parameters.push(`${style.finalParameters ? 'final ' : ''}${type} ${input.name}`);
  }
  const constructor = member.type === 'constructor_declaration';
  const { result } = extraction;
  let returnType = 'void';
  if (result.kind === 'tail' && !constructor) {
    const declared = methodOf(model, member)?.returnType;
    if (!declared) return undefined;
    returnType = declared;
  } else if (result.kind === 'local') {
    const type = typeOf(model, member, result.declaration);
    if (type === null) return undefined;
    returnType = type;
  }
  const [name] = helperNames(
    statements,
    {
      member: constructor ? 'init' : nameOf(member),
      ...(result.kind === 'local' ? { result: result.declaration.name } : {}),
      tail: result.kind === 'tail',
    },
    taken,
  );
  if (!name) return undefined;

  const words = modifierWords(member);
  const annotations = kids(kids(member).find((k) => k.type === 'modifiers') ?? member)
    .filter((k) => k.type === 'annotation' && /^@SuppressWarnings\b/.test(k.text))
    .map((k) => k.text);
  const typeParameters = field(member, 'type_parameters')?.text;
  const thrown = thrownBy(root, model, run);
  if (thrown === null) return undefined;
  const memberIndent = indentationOf(source, member);
  const bodyIndent = memberIndent + style.indentUnit;
  const first = statements[0]!;
  const last = statements[statements.length - 1]!;
  const from = lineStart(source, first.startIndex);
  const lineEnd = source.indexOf('\n', last.endIndex);
  const trailing = source.slice(last.endIndex, lineEnd === -1 ? source.length : lineEnd);
  // Statements that share a line with other code are not moved: the line would be torn.
  if (source.slice(from, first.startIndex).trim() !== '' || !/^\s*(\/\/.*)?$/.test(trailing)) {
    return undefined;
  }
  const moved = source.slice(from, last.endIndex).split(/\r?\n/);
  const lines = reindent(moved, indentationOf(source, first), bodyIndent);
  if (result.kind === 'local') lines.push(`${bodyIndent}return ${result.declaration.name};`);
  const signature = [
    ...annotations,
    'private',
    ...(words.includes('static') ? ['static'] : []),
    ...(typeParameters ? [typeParameters] : []),
    returnType,
    `${name}(${parameters.join(', ')})${thrown.length > 0 ? ` throws ${thrown.join(', ')}` : ''} {`,
  ].join(' ');
  const helper = [`${memberIndent}${signature}`, ...lines, `${memberIndent}}`].join(
    style.lineBreak,
  );

  const call = `${name}(${extraction.inputs.map((input) => input.name).join(', ')})`;
  let callStatement = `${call};`;
  if (result.kind === 'tail' && returnType !== 'void') callStatement = `return ${call};`;
  if (result.kind === 'local') {
    const declaration = result.statement;
    const modifiers = kids(declaration).find((k) => k.type === 'modifiers')?.text;
    const declaredType = field(declaration, 'type')?.text ?? returnType;
    callStatement = `${modifiers ? `${modifiers} ` : ''}${declaredType} ${result.declaration.name} = ${call};`;
  }
  const firstLine = lineAt(source, first.startIndex);
  const lastLine = lineAt(source, last.endIndex);
  return {
    description: `${nameOf(member)}: lines ${firstLine}–${lastLine} moved into private ${name}(…)`,
    edits: [
      { start: from, end: last.endIndex, text: `${indentationOf(source, first)}${callStatement}` },
      insertedAfter(member, helper, style),
    ],
    added: [name],
  };
}

export const helperCallInsertion: TransformOperator = {
  kind: 'transform',
  id: 't_call_stack_deepen_v1',
  candidates: (site) =>
    withJavaTree(site.source, (root) => {
      const style = fileStyle(site.source, root);
      const taken = takenNames(root, site.model);
      return runsAround(root, site.focus)
        .flatMap((run) => helperFor(root, site.source, run, site.model, style, taken) ?? [])
        .slice(0, RUNS_PER_SITE);
    }),
};

import type { Node } from 'web-tree-sitter';
import { enclosingMember } from '../../../lang/java/extraction.js';
import { capitalized } from '../../../lang/java/naming.js';
import {
  localDeclarations,
  resolveLocal,
  valueNames,
  type LocalDeclaration,
} from '../../../lang/java/scopes.js';
import { fileStyle, type FileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  applyEdits,
  descendants,
  field,
  indentationOf,
  kids,
  METHOD_TYPES,
  modifierWords,
  nameOf,
  statementLineRange,
  within,
  withJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, lineAt } from './added-members.js';
import { typeOf } from './extract-method.js';
import {
  freeTypeName,
  nestedClassShape,
  nestedClassText,
  variableNames,
  type BundleField,
} from './nested-class.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Local State Bundling: two or three related locals of the bug's method become fields of a small
 * private context object; the method reads and writes them through it (`tally.count++`). The
 * context is made in the innermost block holding all their declarations, so each run of that
 * block (each loop iteration) gets a fresh one, as the locals were fresh. First the
 * locals around the bug that its own lines do not name, then those its lines do (their lines are
 * rewritten, and the stage follows them by offset: see anchorAfter in focus.ts).
 */

const MIN_LOCALS = 2;
const BLOCKS = ['block', 'constructor_body'];
const MAX_LOCALS = 3;

/** A local that can become a field, with its uses and how close it is to the bug. */
interface Movable {
  declaration: LocalDeclaration;
  /** Its `local_variable_declaration`, or a parameter's `formal_parameter`. */
  statement: Node;
  parameter: boolean;
  type: string;
  uses: Node[];
  /** 0: named on the bug's lines; k: in the k-th statement around them; else the body. */
  distance: number;
  /** Lines between the bug and the nearest use. */
  gap: number;
  /** Whether a lambda reads it: then it must stay in the block the context is made in. */
  inLambda: boolean;
  /** The statements (or conditions) naming it: locals named together are related. */
  units: Set<string>;
}

/** The smallest statement or condition around a use. */
const UNITS = [
  'expression_statement',
  'local_variable_declaration',
  'return_statement',
  'throw_statement',
  'parenthesized_expression',
  'for_statement',
  'enhanced_for_statement',
];

/** Whether a field of `type` starts at `value` anyway: then dropping it keeps the value. */
export function isDefaultValue(value: string, type: string): boolean {
  if (type === 'boolean') return value === 'false';
  if (/^(byte|short|char|int|long|float|double)$/.test(type)) {
    return /^0(\.0)?[lLfFdD]?$/.test(value);
  }
  return value === 'null';
}

/**
 * Java's constant variables (a final primitive or String set from a constant expression) may be
 * case labels and are folded: left alone. Without a call, creation or array read in its value, a
 * local counts as one.
 */
function mayBeConstant(statement: Node, value: Node | null, type: string): boolean {
  return (
    modifierWords(statement).includes('final') &&
    /^(boolean|byte|short|char|int|long|float|double|String)$/.test(type) &&
    value !== null &&
    descendants(value, [
      'method_invocation',
      'object_creation_expression',
      'array_access',
      'array_creation_expression',
    ]).length === 0
  );
}

function movableLocals(
  member: Node,
  body: Node,
  model: SourceModel,
  focus: TransformSite['focus'],
  around: readonly Node[],
  source: string,
): Movable[] {
  const declarations = localDeclarations(member);
  const uses = new Map<LocalDeclaration, Node[]>();
  const captured = new Set<LocalDeclaration>();
  for (const name of valueNames(body)) {
    const declaration = resolveLocal(name, declarations);
    if (!declaration) continue;
    uses.set(declaration, [...(uses.get(declaration) ?? []), name]);
    // In an anonymous or local class, a field of that class could take the context's name.
    const owner = ancestor(name, ['class_body', 'method_declaration', 'constructor_declaration']);
    if (!owner?.equals(member)) captured.add(declaration);
  }
  const focusLine = lineAt(source, focus.start);
  const movable: Movable[] = [];
  for (const declaration of declarations) {
    const parameter = declaration.kind === 'parameter';
    const statement = parameter ? declaration.node : declaration.node.parent;
    if (!statement || captured.has(declaration)) continue;
    // A parameter is copied into the context where the context is made.
    const eligible = parameter
      ? statement.type === 'formal_parameter' &&
        !modifierWords(statement).some((word) => word.startsWith('@'))
      : declaration.kind === 'local' &&
        declaration.node.type === 'variable_declarator' &&
        statement.type === 'local_variable_declaration' &&
        BLOCKS.includes(statement.parent?.type ?? '') &&
        ancestor(statement, [
          'lambda_expression',
          'class_body',
          'method_declaration',
          'constructor_declaration',
        ])?.equals(member) === true &&
        kids(statement).filter((k) => k.type === 'variable_declarator').length === 1 &&
        !modifierWords(statement).some((word) => word.startsWith('@')) &&
        field(declaration.node, 'value')?.type !== 'array_initializer';
    if (!eligible) continue;
    const type = typeOf(model, member, declaration);
    if (type === null) continue;
    if (!parameter && mayBeConstant(statement, field(declaration.node, 'value'), type)) continue;
    const named = uses.get(declaration) ?? [];
    // `try (reader)` takes a variable, not a field.
    if (named.length === 0 || named.some((use) => use.parent?.type === 'resource')) continue;
    const touches = (node: Node) => named.some((use) => within(use, node));
    const onBug = named.some((use) => use.startIndex < focus.end && use.endIndex > focus.start);
    const index = around.findIndex(touches);
    movable.push({
      declaration,
      statement,
      parameter,
      type,
      uses: named,
      distance: onBug ? 0 : index >= 0 ? index + 1 : around.length + 1,
      gap: Math.min(...named.map((use) => Math.abs(lineAt(source, use.startIndex) - focusLine))),
      units: new Set(
        named.map((use) => {
          const unit = ancestor(use, UNITS) ?? use;
          return `${unit.startIndex}:${unit.type}`;
        }),
      ),
      inLambda: named.some(
        (use) =>
          ancestor(use, ['lambda_expression', ...METHOD_TYPES])?.type === 'lambda_expression',
      ),
    });
  }
  return movable;
}

/** The statements holding the focus, innermost first, up to (not including) the body. */
function statementsAround(root: Node, focus: TransformSite['focus'], body: Node): Node[] {
  const around: Node[] = [];
  for (
    let node: Node | null = root.descendantForIndex(
      focus.start,
      Math.max(focus.start, focus.end - 1),
    );
    node && !node.equals(body);
    node = node.parent
  ) {
    if (BLOCKS.includes(node.parent?.type ?? '') && !node.type.endsWith('comment'))
      around.push(node);
  }
  return around;
}

/** Names for the context of `locals` in `member`, most telling first. */
export function contextClassNames(locals: readonly string[], member: string): string[] {
  const proposals: string[] = [];
  if (locals.some((name) => /^(count|total|sum)$/.test(name))) proposals.push('Tally');
  if (locals.some((name) => /^(pos|position|index|offset|cursor)$/.test(name))) {
    proposals.push('Cursor');
  }
  // `setHeader` works on a header: its state is the header's; a `do` adds nothing (doEncode).
  const subject = member.replace(/^(set|get|do)(?=[A-Z])/, '');
  proposals.push(`${capitalized(subject)}State`, `${capitalized(subject)}Context`);
  return proposals;
}

function bundled(
  root: Node,
  source: string,
  member: Node,
  chosen: readonly Movable[],
  model: SourceModel,
  style: FileStyle,
  focus: TransformSite['focus'],
): TransformCandidate | undefined {
  // Fields in the order the locals were declared.
  const ordered = [...chosen].sort((a, b) => a.statement.startIndex - b.statement.startIndex);
  const fields: BundleField[] = ordered.map((local) => ({
    name: local.declaration.name,
    type: local.type,
  }));
  const shape = nestedClassShape(model, member, fields);
  if (shape.kind === 'Refused') return undefined;
  if (!shape.isStatic && modifierWords(member).includes('static')) return undefined;
  const memberName = member.type === 'constructor_declaration' ? 'init' : nameOf(member);
  const className = freeTypeName(
    root,
    model,
    contextClassNames(
      fields.map((f) => f.name),
      memberName,
    ),
  );
  if (!className) return undefined;
  const used = new Set(descendants(member, 'identifier').map((id) => id.text));
  const variable = variableNames(className).find((name) => !used.has(name));
  if (!variable) return undefined;

  // The context is made in the innermost block holding every local, before the statement that
  // holds the first: a local of a nested block (a loop's, say) is assigned at its declaration
  // on each pass, as before, so sharing one field across passes changes nothing.
  // Parameters are copied in at the top of the body, after a this(…) or super(…) call.
  const body = field(member, 'body')!;
  let home: Node | null = ordered[0]!.parameter ? body : ordered[0]!.statement.parent;
  while (
    home &&
    !(BLOCKS.includes(home.type) && chosen.every((l) => l.parameter || within(l.statement, home!)))
  ) {
    home = home.parent;
  }
  if (!home) return undefined;
  const first = ordered[0]!.parameter
    ? kids(body).find(
        (k) => !k.type.endsWith('comment') && k.type !== 'explicit_constructor_invocation',
      )
    : kids(home).find((k) => within(ordered[0]!.statement, k));
  if (!first) return undefined;
  const direct = (local: Movable) =>
    local.parameter || local.statement.parent?.equals(home!) === true;
  // What a lambda reads must not change under it on the next pass of a nested block.
  if (chosen.some((local) => local.inLambda && !direct(local))) return undefined;
  const firstLine = source.lastIndexOf('\n', first.startIndex - 1) + 1;
  if (source.slice(firstLine, first.startIndex).trim() !== '') return undefined;
  const uses: TextEdit[] = chosen.flatMap((local) =>
    local.uses.map((use) => ({
      start: use.startIndex,
      end: use.endIndex,
      text: `${variable}.${local.declaration.name}`,
    })),
  );
  const inside = (node: Node) => (edit: TextEdit) =>
    edit.start >= node.startIndex && edit.end <= node.endIndex;
  const edits: TextEdit[] = uses.filter(
    (edit) => !chosen.some((local) => inside(local.statement)(edit)),
  );
  const copies: string[] = [];
  for (const local of ordered) {
    if (local.parameter) {
      copies.push(`${variable}.${local.declaration.name} = ${local.declaration.name};`);
      continue;
    }
    const value = field(local.declaration.node, 'value');
    const onBug = local.statement.startIndex < focus.end && local.statement.endIndex > focus.start;
    if (!onBug && direct(local) && (!value || isDefaultValue(value.text, local.type))) {
      // A fresh context's field starts at its default: the declaration has nothing left to say.
      edits.push({ ...statementLineRange(source, local.statement), text: '' });
      continue;
    }
    // No value: a nested block's local is assigned before it is read (Java's definite
    // assignment), so its declaration goes; one on the bug's lines keeps its place.
    if (!value) {
      if (onBug) return undefined;
      edits.push({ ...statementLineRange(source, local.statement), text: '' });
      continue;
    }
    const initial = applyEdits(
      value.text,
      uses.filter(inside(value)).map((edit) => ({
        ...edit,
        start: edit.start - value.startIndex,
        end: edit.end - value.startIndex,
      })),
    );
    edits.push({
      start: local.statement.startIndex,
      end: local.statement.endIndex,
      text: `${variable}.${local.declaration.name} = ${initial};`,
    });
  }
  const indent = indentationOf(source, first);
  const typeArguments = shape.typeArguments;
  const final = style.finalParameters ? 'final ' : '';
  const creation = `${final}${className}${typeArguments} ${variable} = new ${className}${typeArguments ? '<>' : ''}();`;
  // At the end of the line before the first local, so the edit never meets the bug's lines.
  let breakAt = source.lastIndexOf('\n', first.startIndex - 1);
  if (source[breakAt - 1] === '\r') breakAt--;
  edits.push({
    start: breakAt,
    end: breakAt,
    text: [creation, ...copies].map((line) => `${style.lineBreak}${indent}${line}`).join(''),
  });
  const nested = nestedClassText({
    name: className,
    fields,
    shape,
    withConstructor: false,
    indent: indentationOf(source, member),
    style,
  });
  edits.push(insertedAfter(member, nested, style));
  return {
    description: `${nameOf(member)}: ${ordered.some((l) => l.parameter) ? 'values' : 'locals'} ${fields.map((f) => f.name).join(', ')} moved into a private ${className}`,
    edits,
    added: [className],
  };
}

/**
 * Groups of 2–3 locals, nearest the bug first: those off the bug's lines but in a statement
 * around them, then with the locals its lines name, then the method's others.
 */
function groupsOf(movable: readonly Movable[], around: number): Movable[][] {
  const closest = (a: Movable, b: Movable) => a.distance - b.distance || a.gap - b.gap;
  const together = (a: Movable, group: readonly Movable[]) =>
    group.reduce((sum, b) => sum + [...a.units].filter((unit) => b.units.has(unit)).length, 0);
  // From the nearest local, those named with it most, then the nearest (two of one name, in
  // sibling blocks, cannot be two fields of one name).
  const grown = (pool: readonly Movable[]): Movable[] => {
    const sorted = [...pool].sort(closest);
    const group = sorted.slice(0, 1);
    while (group.length < MAX_LOCALS) {
      const next = sorted
        .filter(
          (l) =>
            !group.includes(l) && !group.some((g) => g.declaration.name === l.declaration.name),
        )
        .map((local) => ({ local, shared: together(local, group) }))
        .sort((a, b) => b.shared - a.shared || closest(a.local, b.local))[0];
      if (!next) break;
      group.push(next.local);
    }
    return group;
  };
  const off = grown(movable.filter((local) => local.distance > 0));
  const on = grown(movable);
  const groups: Movable[][] = [];
  const near = off.length >= MIN_LOCALS && off[0]!.distance <= around;
  if (near) groups.push(off);
  if (on.length >= MIN_LOCALS && on[0]!.distance === 0) groups.push(on);
  if (!near && off.length >= MIN_LOCALS) groups.push(off);
  return groups;
}

export const localStateBundling: TransformOperator = {
  kind: 'transform',
  id: 't_local_state_bundle_v1',
  candidates: (site) =>
    withJavaTree(site.source, (root) => {
      const focusNode = root.descendantForIndex(
        site.focus.start,
        Math.max(site.focus.start, site.focus.end - 1),
      );
      const member = focusNode ? enclosingMember(focusNode) : null;
      const body = member ? field(member, 'body') : null;
      if (!member || !body || (body.type !== 'block' && body.type !== 'constructor_body'))
        return [];
      const style = fileStyle(site.source, root);
      const around = statementsAround(root, site.focus, body);
      const movable = movableLocals(member, body, site.model, site.focus, around, site.source);
      // Locals first; a method with too few (a helper an earlier step made) brings its
      // parameters in.
      const locals = groupsOf(
        movable.filter((local) => !local.parameter),
        around.length,
      );
      const groups = locals.length > 0 ? locals : groupsOf(movable, around.length);
      const candidates: TransformCandidate[] = [];
      for (const group of groups) {
        const candidate = bundled(root, site.source, member, group, site.model, style, site.focus);
        if (candidate) candidates.push(candidate);
      }
      return candidates;
    }),
};

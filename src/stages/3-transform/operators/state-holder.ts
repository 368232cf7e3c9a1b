import type { Node } from 'web-tree-sitter';
import {
  analyseExtraction,
  blockStatements,
  enclosingMember,
} from '../../../lang/java/extraction.js';
import { camelName, capitalized } from '../../../lang/java/naming.js';
import { reindent, type FileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  classMembers,
  declaringClass,
  descendants,
  field,
  indentationOf,
  kids,
  modifierWords,
  nameOf,
  ownDescendants,
  within,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, lineAt, takenNames } from './added-members.js';
import { isNoStep, thrownBy, typeOf } from './extract-method.js';
import {
  arrayComponentAllowed,
  byClosenessToFocus,
  candidatesInFocusMember,
  stableValues,
  type StableValue,
} from './stable-values.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Intermediate State Passing: a value computed before the bug (in its method, or in a caller
 * that passes it to the bug's method) is no longer computed where it is read: a private method
 * computes it and hands it back, and the code after reads it as before. A state object the method
 * made empty and then filled field by field (`state.out = out;`) is built whole by the private
 * method, which returns it: the state crosses the call, and the code after reads its fields. The
 * value is written once (stable-values.ts). No one-element array carries it: a holder array
 * filled by a void method is a shape no maintainer writes when the method can return the value.
 */

const VALUES_PER_SITE = 3;

/** `31`, `-1`, `"x"`, `true`, `null`: a value written out, not computed. */
function isLiteral(node: Node): boolean {
  if (node.type.endsWith('_literal') || node.type === 'true' || node.type === 'false') return true;
  const operands = kids(node);
  return node.type === 'unary_expression' && operands.length === 1 && isLiteral(operands[0]!);
}

/** Names for the method that makes the value, from the value's name and how it is made. */
function producerNames(
  value: string,
  verb: 'compute' | 'build',
  taken: ReadonlySet<string>,
): string[] {
  return [
    camelName([verb, capitalized(value)]),
    camelName([verb === 'compute' ? 'resolve' : 'prepare', capitalized(value)]),
  ].filter((name) => !taken.has(name));
}

/** `new T()`: an object made empty, whose state the statements after it write. */
function isEmptyAllocation(node: Node): boolean {
  return (
    node.type === 'object_creation_expression' &&
    kids(field(node, 'arguments') ?? node).length === 0 &&
    !kids(node).some((k) => k.type === 'class_body')
  );
}

/**
 * The statements right after `statement` that set fields of the object it declares
 * (`state.out = out;`), with values that do not read the object: they build it, so they move
 * with it into the method that fills the holder.
 */
function fieldWritesAfter(statement: Node, name: string): Node[] {
  const siblings = blockStatements(statement.parent!);
  const writes: Node[] = [];
  for (const next of siblings.slice(siblings.findIndex((k) => k.equals(statement)) + 1)) {
    const assignment = next.type === 'expression_statement' ? kids(next)[0] : undefined;
    const left = assignment?.type === 'assignment_expression' ? field(assignment, 'left') : null;
    const right = assignment ? field(assignment, 'right') : null;
    if (
      !left ||
      !right ||
      assignment!.childForFieldName('operator')?.type !== '=' ||
      left.type !== 'field_access' ||
      field(left, 'object')?.text !== name ||
      descendants(right, 'identifier').some((id) => id.text === name)
    ) {
      break;
    }
    writes.push(next);
  }
  return writes;
}

function holderFor(
  root: Node,
  source: string,
  member: Node,
  value: StableValue,
  model: SourceModel,
  style: FileStyle,
  taken: Set<string>,
): TransformCandidate | undefined {
  const { statement, value: initial } = value.local!;
  // A literal is not computed: a method returning `31` would read as no maintainer's.
  if (isLiteral(initial)) return undefined;
  const owner = ancestor(member, ['class_body', 'enum_body', 'interface_body']);
  // Private interface methods need Java 9; the corpus includes Java 8 projects.
  if (!owner || owner.type === 'interface_body') return undefined;
  const name = value.declaration.name;
  // An object made empty is not computed until its fields are set: the method builds it whole.
  const built = isEmptyAllocation(initial);
  const writes = built ? fieldWritesAfter(statement, name) : [];
  if (built && writes.length === 0) return undefined;
  const moved = [statement, ...writes];
  const last = moved.at(-1)!;
  const run = { member, block: statement.parent!, statements: moved };
  // A value that only renames another or hands values at hand to one call is not computed here.
  if (!built && isNoStep(run)) return undefined;
  const extraction = analyseExtraction(run);
  if (extraction.kind === 'Refused' || extraction.result.kind !== 'local') return undefined;
  const parameters: string[] = [];
  for (const input of extraction.inputs) {
    const type = typeOf(model, member, input);
    if (type === null) return undefined;
    parameters.push(`${style.finalParameters ? 'final ' : ''}${type} ${input.name}`);
  }
  const thrown = thrownBy(root, model, run);
  if (thrown === null) return undefined;
  const [method] = producerNames(name, built ? 'build' : 'compute', taken);
  if (!method) return undefined;

  const indent = indentationOf(source, statement);
  const lineStart = source.lastIndexOf('\n', statement.startIndex - 1) + 1;
  const lineEnd = source.indexOf('\n', last.endIndex);
  const trailing = source.slice(last.endIndex, lineEnd === -1 ? source.length : lineEnd);
  // A declaration that shares its line with other code is not rewritten: the line would be torn.
  if (source.slice(lineStart, statement.startIndex).trim() !== '' || trailing.trim() !== '') {
    return undefined;
  }
  const modifiers = kids(statement).find((k) => k.type === 'modifiers')?.text;
  const declaredType = field(statement, 'type')?.text ?? value.type;
  const memberIndent = indentationOf(source, member);
  const bodyIndent = memberIndent + style.indentUnit;
  // The method's body: the object's own statements and its return, or the value's expression.
  const body = built
    ? reindent(
        `${source.slice(statement.startIndex, last.endIndex)}\n${indent}return ${name};`.split(
          /\r?\n/,
        ),
        indent,
        bodyIndent,
      )
    : (() => {
        const [firstLine, ...moreLines] = `return ${initial.text};`.split(/\r?\n/);
        return [`${bodyIndent}${firstLine}`, ...reindent(moreLines, indent, bodyIndent)];
      })();
  const typeParameters = field(member, 'type_parameters')?.text;
  const signature = [
    'private',
    ...(modifierWords(member).includes('static') ? ['static'] : []),
    ...(typeParameters ? [typeParameters] : []),
    value.type,
    `${method}(${parameters.join(', ')})${thrown.length > 0 ? ` throws ${thrown.join(', ')}` : ''} {`,
  ].join(' ');
  const helper = [`${memberIndent}${signature}`, ...body, `${memberIndent}}`].join(style.lineBreak);
  const call = `${method}(${extraction.inputs.map((input) => input.name).join(', ')})`;
  return {
    description: `${nameOf(member)}: '${name}' (line ${lineAt(source, statement.startIndex)}) is ${built ? 'built' : 'computed'} by private ${method}(…) and passed back`,
    edits: [
      {
        start: statement.startIndex,
        end: last.endIndex,
        text: `${modifiers ? `${modifiers} ` : ''}${declaredType} ${name} = ${call};`,
      },
      insertedAfter(member, helper, style),
    ],
    added: [method],
  };
}

/** The calls of `member` from other methods of its class, on this object, each with its caller. */
function callersOf(member: Node): { caller: Node; call: Node }[] {
  const owner = declaringClass(member);
  if (!owner) return [];
  const name = nameOf(member);
  return descendants(owner, 'method_invocation').flatMap((call) => {
    const receiver = field(call, 'object');
    const caller = enclosingMember(call);
    if (field(call, 'name')?.text !== name || (receiver && receiver.type !== 'this')) return [];
    if (!caller || caller.equals(member) || !declaringClass(caller)?.equals(owner)) return [];
    return [{ caller, call }];
  });
}

/** The methods of `member`'s class it calls on this object (matched by name and arity). */
function calleesOf(member: Node): Node[] {
  const owner = declaringClass(member);
  if (!owner) return [];
  const methods = classMembers(owner).filter((m) => m.type === 'method_declaration');
  const arity = (node: Node | null) =>
    node ? kids(node).filter((k) => !k.type.endsWith('comment')).length : 0;
  const callees: Node[] = [];
  for (const call of ownDescendants(member, 'method_invocation')) {
    const receiver = field(call, 'object');
    if (receiver && receiver.type !== 'this') continue;
    const matching = methods.filter(
      (method) =>
        nameOf(method) === field(call, 'name')?.text &&
        arity(field(method, 'parameters')) === arity(field(call, 'arguments')),
    );
    const callee = matching.length === 1 ? matching[0]! : undefined;
    if (callee && !callee.equals(member) && !callees.some((known) => known.equals(callee))) {
      callees.push(callee);
    }
  }
  return callees;
}

export const intermediateStatePassing: TransformOperator = {
  kind: 'transform',
  id: 't_intermediate_state_holder_v1',
  candidates: (site: TransformSite) =>
    candidatesInFocusMember(site, ({ root, member, style }) => {
      const taken = takenNames(root, site.model);
      // Values computed before the bug (the bug's own line stays as it is); a bug in the
      // method's header (a misspelt override) comes before all of them.
      const body = field(member, 'body');
      const inHeader = body !== null && site.focus.start < body.startIndex;
      const values = stableValues(member, site.model).filter(
        (value) =>
          value.local !== undefined &&
          (value.local.statement.endIndex <= site.focus.start ||
            (inHeader && value.local.statement.startIndex >= site.focus.end)) &&
          arrayComponentAllowed(value.type, site.model),
      );
      // Then the values the bug's callers in the class compute and pass it: the value flows
      // into the bug across the call (after Helper Call Insertion, the bug's helper has few).
      const fromCallers = callersOf(member).flatMap(({ caller, call }) =>
        stableValues(caller, site.model)
          .filter(
            (value) =>
              value.local !== undefined &&
              value.local.statement.endIndex <= call.startIndex &&
              value.reads.some((read) => within(read, call)) &&
              arrayComponentAllowed(value.type, site.model),
          )
          .map((value) => ({ caller, value })),
      );
      // A bug in the header is on the path of all the method runs: the values of the methods
      // of the class its body calls too (a body moved into a helper, say).
      const fromCallees = inHeader
        ? calleesOf(member).flatMap((callee) =>
            stableValues(callee, site.model)
              .filter((value) => value.local && arrayComponentAllowed(value.type, site.model))
              .map((value) => ({ caller: callee, value })),
          )
        : [];
      const candidates: TransformCandidate[] = [];
      for (const { caller, value } of [
        ...byClosenessToFocus(values, site.focus).map((value) => ({ caller: member, value })),
        ...fromCallers,
        ...fromCallees,
      ]) {
        if (candidates.length >= VALUES_PER_SITE) break;
        const candidate = holderFor(root, site.source, caller, value, site.model, style, taken);
        if (candidate) candidates.push(candidate);
      }
      return candidates;
    }),
};

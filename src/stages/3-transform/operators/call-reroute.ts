import type { Node } from 'web-tree-sitter';
import { enclosingMember } from '../../../lang/java/extraction.js';
import { forwardingNames } from '../../../lang/java/naming.js';
import { fileStyle, type FileStyle } from '../../../lang/java/style.js';
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
  withJavaTree,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, lineAt, takenNames } from './added-members.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Call-Site Rerouting: one direct call on the way to the bug goes through a private method that
 * forwards to the same callee, so the bug is reached through one more dispatch. First the calls
 * to the bug's own method from elsewhere in its class, then the calls the buggy code makes. Which
 * method a call resolves to comes from javac, so overloads are never confused.
 */

const CALL_SITES_PER_SITE = 4;

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

/** Whether a call is `foo(…)` or `this.foo(…)`: one the class can reroute through itself. */
function isOwnCall(call: Node): boolean {
  const receiver = field(call, 'object');
  if (field(call, 'type_arguments')) return false;
  return receiver === null || receiver.type === 'this';
}

function adapterFor(
  source: string,
  call: Node,
  model: SourceModel,
  style: FileStyle,
  taken: Set<string>,
): TransformCandidate | undefined {
  const caller = enclosingMember(call);
  const resolved = resolvedCall(model, call);
  if (!caller || !resolved?.inThisFile || !isOwnCall(call)) return undefined;
  const owner = declaringClass(caller);
  if (!owner || owner.type === 'interface_declaration') return undefined;
  const arity = kids(field(call, 'arguments') ?? call).filter(
    (k) => !k.type.endsWith('comment'),
  ).length;
  // The callee among the class's own methods: javac named it; the arity picks the overload.
  const callees = descendants(owner, 'method_declaration').filter(
    (method) =>
      declaringClass(method)?.equals(owner) === true &&
      nameOf(method) === resolved.name &&
      kids(field(method, 'parameters') ?? method).filter((p) => p.type.endsWith('parameter'))
        .length === arity,
  );
  const callee = callees.length === 1 ? callees[0]! : undefined;
  if (!callee || modifierWords(callee).includes('abstract')) return undefined;
  const words = modifierWords(callee);
  const isStatic = words.includes('static') || modifierWords(caller).includes('static');
  const parameters = kids(field(callee, 'parameters') ?? callee).filter((p) =>
    p.type.endsWith('parameter'),
  );
  const names = parameters.map((parameter) =>
    parameter.type === 'spread_parameter'
      ? nameOf(kids(parameter).find((k) => k.type === 'variable_declarator') ?? parameter)
      : nameOf(parameter),
  );
  const [name] = forwardingNames(
    nameOf(callee),
    {
      arguments: kids(field(call, 'arguments') ?? call)
        .filter((k) => k.type === 'identifier')
        .map((k) => k.text),
      parameters: names,
      caller: nameOf(caller),
    },
    taken,
  );
  if (!name) return undefined;
  const returnType = `${field(callee, 'type')?.text ?? 'void'}${field(callee, 'dimensions')?.text ?? ''}`;
  const typeParameters = field(callee, 'type_parameters')?.text;
  const throwsClause = kids(callee).find((k) => k.type === 'throws')?.text;
  const indent = indentationOf(source, caller);
  const forward = `${nameOf(callee)}(${names.join(', ')});`;
  const signature = [
    'private',
    ...(isStatic ? ['static'] : []),
    ...(typeParameters ? [typeParameters] : []),
    returnType,
    `${name}(${parameters.map((p) => p.text).join(', ')})${throwsClause ? ` ${throwsClause}` : ''} {`,
  ].join(' ');
  const adapter = [
    `${indent}${signature}`,
    `${indent}${style.indentUnit}${returnType === 'void' ? forward : `return ${forward}`}`,
    `${indent}}`,
  ].join(style.lineBreak);
  const callName = field(call, 'name')!;
  const line = lineAt(source, call.startIndex);
  return {
    description: `${nameOf(caller)}: the call to ${nameOf(callee)} on line ${line} goes through private ${name}(…)`,
    edits: [
      { start: callName.startIndex, end: callName.endIndex, text: name },
      insertedAfter(caller, adapter, style),
    ],
    added: [name],
  };
}

export const callSiteRerouting: TransformOperator = {
  kind: 'transform',
  id: 't_private_adapter_layer_v1',
  candidates: (site: TransformSite) =>
    withJavaTree(site.source, (root) => {
      const style = fileStyle(site.source, root);
      const taken = takenNames(root, site.model);
      const focusNode = root.descendantForIndex(
        site.focus.start,
        Math.max(site.focus.start, site.focus.end - 1),
      );
      const member = focusNode ? enclosingMember(focusNode) : null;
      if (!member) return [];
      const memberName = nameOf(member);
      const calls = descendants(root, 'method_invocation');
      const owner = declaringClass(member);
      // Calls of the bug's method from the rest of its class, then the calls the buggy code makes.
      const toMember = calls.filter(
        (call) =>
          field(call, 'name')?.text === memberName &&
          !ancestor(call, [...METHOD_TYPES])?.equals(member) &&
          owner !== null &&
          ancestor(call, ['class_declaration', 'enum_declaration'])?.equals(owner) === true,
      );
      const inFocus = calls.filter(
        (call) => call.startIndex >= site.focus.start && call.endIndex <= site.focus.end,
      );
      // Then the other calls the bug's method makes (its bug may be in its header).
      const inMember = calls.filter(
        (call) =>
          ancestor(call, [...METHOD_TYPES])?.equals(member) === true && !inFocus.includes(call),
      );
      // A call of a method the project wrote goes before one of a helper an earlier step added.
      const added = new Set(site.added ?? []);
      const ordered = [...toMember, ...inFocus, ...inMember].sort(
        (a, b) =>
          Number(added.has(field(a, 'name')?.text ?? '')) -
          Number(added.has(field(b, 'name')?.text ?? '')),
      );
      const candidates: TransformCandidate[] = [];
      for (const call of ordered) {
        if (candidates.length >= CALL_SITES_PER_SITE) break;
        const candidate = adapterFor(site.source, call, site.model, style, taken);
        if (candidate) candidates.push(candidate);
      }
      return candidates;
    }),
};

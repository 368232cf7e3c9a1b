import type { Node } from 'web-tree-sitter';
import { blockStatements, enclosingMember } from '../../../lang/java/extraction.js';
import { adapterNames } from '../../../lang/java/naming.js';
import {
  localDeclarations,
  resolveLocal,
  valueNames,
  type LocalDeclaration,
} from '../../../lang/java/scopes.js';
import { fileStyle, type FileStyle } from '../../../lang/java/style.js';
import {
  ancestor,
  declaringClass,
  descendants,
  field,
  fieldNames,
  indentationOf,
  kids,
  METHOD_TYPES,
  modifierWords,
  nameOf,
  withJavaTree,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { insertedAfter, lineAt, takenNames } from './added-members.js';
import { typeOf } from './extract-method.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Call-Site Rerouting: one direct call on the way to the bug goes through a private adapter that
 * computes the call's arguments from the caller's values and calls the same callee, so the bug is
 * reached through one more dispatch. First the calls to the bug's own method from elsewhere in its
 * class, then the calls the buggy code makes, then the calls further up the class's own call chain
 * to the bug. An adapter must adapt: it computes an argument (`text.trim()`) or reads a field of
 * the class itself (`readPending()` for `read(pending, 0, pendingLength)`); a call whose arguments
 * are all the caller's plain locals would give a method that only calls another with its own
 * parameters, which no maintainer writes, so such a call is no site. Which method a call resolves to, and every type,
 * comes from javac, so overloads are never confused.
 */

const CALL_SITES_PER_SITE = 4;

/** How many callers up the class's own call chain to the bug a rerouted call may be in. */
const CHAIN_LEVELS = 3;

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

/** A method by name and arity, as a call of it is: `read/3`. */
function signatureKey(method: Node): string {
  const parameters = kids(field(method, 'parameters') ?? method).filter((p) =>
    p.type.endsWith('parameter'),
  );
  return `${nameOf(method)}/${parameters.length}`;
}

function callKey(call: Node): string {
  const args = kids(field(call, 'arguments') ?? call).filter((k) => !k.type.endsWith('comment'));
  return `${field(call, 'name')?.text ?? ''}/${args.length}`;
}

/** A value as it is (`line`, `this.limit`, `3`): nothing an adapter would compute. */
function isPlain(node: Node): boolean {
  if (/literal$|^(true|false|null|this|identifier)$/.test(node.type)) return true;
  const object = field(node, 'object');
  return node.type === 'field_access' && object !== null && isPlain(object);
}

/**
 * The field an argument reads as it is (`buffer`, `this.buffer`), one of the class's own
 * instance or static fields: an adapter reads it itself instead of being handed it, as a
 * convenience method of the class does (`read(buf)` → `read(buf, 0, buf.length)`).
 */
function fieldRead(arg: Node, caller: Node, fields: ReadonlySet<string>): string | undefined {
  const name =
    arg.type === 'identifier'
      ? arg
      : arg.type === 'field_access' && field(arg, 'object')?.type === 'this'
        ? field(arg, 'field')
        : null;
  if (!name || !fields.has(name.text)) return undefined;
  if (arg.type === 'identifier' && resolveLocal(arg, localDeclarations(caller))) return undefined;
  return name.text;
}

/** What may not move out of a call's argument list: writes, and code with its own scope. */
const UNMOVABLE = [
  'assignment_expression',
  'update_expression',
  'lambda_expression',
  'method_reference',
  'class_body',
  'switch_expression',
  'super',
];

/**
 * The locals and parameters the arguments read, in order, each once: the adapter's parameters.
 * Undefined when one is a lambda's parameter, whose type javac does not list.
 */
function argumentInputs(caller: Node, args: readonly Node[]): LocalDeclaration[] | undefined {
  const declarations = localDeclarations(caller);
  const inputs: LocalDeclaration[] = [];
  for (const name of args.flatMap((arg) => valueNames(arg))) {
    const declaration = resolveLocal(name, declarations);
    if (!declaration || inputs.some((known) => known.node.equals(declaration.node))) continue;
    if (declaration.kind === 'lambda-parameter') return undefined;
    inputs.push(declaration);
  }
  return inputs;
}

/** The checked exceptions the calls within `node` declare; null if one has no spelling. */
function thrownWithin(model: SourceModel, node: Node): string[] | null {
  const thrown: string[] = [];
  for (const entry of model.expressions) {
    if (entry.start < node.startIndex || entry.end > node.endIndex) continue;
    for (const type of entry.checkedThrows ?? []) {
      if (type === null) return null;
      if (!thrown.includes(type)) thrown.push(type);
    }
  }
  return thrown;
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
  // Before `this(…)` or `super(…)` has run, no method of the object may be called.
  if (ancestor(call, 'explicit_constructor_invocation')) return undefined;
  // A call that is its caller's whole body would leave the caller only calling the adapter.
  const statements = blockStatements(field(caller, 'body') ?? caller);
  const [only] = statements;
  const whole = only ? kids(only).find((k) => !k.type.endsWith('comment')) : undefined;
  if (statements.length === 1 && whole?.equals(call)) return undefined;
  const owner = declaringClass(caller);
  if (!owner || owner.type === 'interface_declaration') return undefined;
  const args = kids(field(call, 'arguments') ?? call).filter((k) => !k.type.endsWith('comment'));
  const fieldsRead = args.flatMap((arg) => fieldRead(arg, caller, fieldNames(owner)) ?? []);
  const computes = !args.every(isPlain);
  // The adapter computes at least one argument or reads a field itself, and can take every
  // argument out of the call.
  if (fieldsRead.length === 0 && !computes) return undefined;
  if (args.some((arg) => arg.text.includes('\n'))) return undefined;
  if (args.some((arg) => descendants(arg, UNMOVABLE).length > 0 || UNMOVABLE.includes(arg.type)))
    return undefined;
  // The callee among the class's own methods: the declaration javac resolved the call to.
  const callee = descendants(owner, 'method_declaration').find(
    (method) =>
      declaringClass(method)?.equals(owner) === true &&
      nameOf(method) === resolved.name &&
      method.startIndex === resolved.declaredAt,
  );
  if (!callee || modifierWords(callee).includes('abstract')) return undefined;
  const inputs = argumentInputs(caller, args);
  if (!inputs) return undefined;
  const parameters: string[] = [];
  for (const input of inputs) {
    const type = typeOf(model, caller, input);
    // A type variable of the caller's would need the caller's type parameters too.
    if (type === null || field(caller, 'type_parameters')) return undefined;
    parameters.push(`${style.finalParameters ? 'final ' : ''}${type} ${input.name}`);
  }
  const returnType = model.expressions.find(
    (entry) =>
      entry.node === 'method_invocation' &&
      entry.start === call.startIndex &&
      entry.end === call.endIndex,
  )?.type;
  // What the callee declares and what the arguments' own calls do: javac lists both per call.
  const thrown = thrownWithin(model, call);
  if (!returnType || thrown === null) return undefined;
  // An adapter that only reads fields is named for them, its parameters passing through as
  // given; a constant (`MAX_BUFFER_SIZE`) names nothing, so fixing one is no adapter.
  const [name] = adapterNames(
    nameOf(callee),
    computes ? inputs.map((input) => input.name) : [],
    taken,
    fieldsRead,
  );
  if (!name) return undefined;
  const indent = indentationOf(source, caller);
  const forward = `${nameOf(callee)}(${args.map((arg) => arg.text).join(', ')});`;
  const signature = [
    'private',
    ...(modifierWords(caller).includes('static') ? ['static'] : []),
    returnType,
    `${name}(${parameters.join(', ')})${thrown.length > 0 ? ` throws ${thrown.join(', ')}` : ''} {`,
  ].join(' ');
  const adapter = [
    `${indent}${signature}`,
    `${indent}${style.indentUnit}${returnType === 'void' ? forward : `return ${forward}`}`,
    `${indent}}`,
  ].join(style.lineBreak);
  const callName = field(call, 'name')!;
  const line = lineAt(source, call.startIndex);
  return {
    description: `${nameOf(caller)}: the call to ${nameOf(callee)} on line ${line} goes through private ${name}(…), which ${!computes ? `reads ${fieldsRead.join(', ')} itself` : 'computes its arguments'}`,
    edits: [
      {
        start: callName.startIndex,
        end: call.endIndex,
        text: `${name}(${inputs.map((input) => input.name).join(', ')})`,
      },
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
      // Then the calls further up the class's own call chain to the bug: of a method that calls
      // the bug's method, of one that calls that one, and so on.
      const upstream: Node[] = [];
      const reached = new Set([signatureKey(member)]);
      let callers = toMember;
      for (let level = 0; level < CHAIN_LEVELS && callers.length > 0; level++) {
        const keys = new Set(
          callers
            .map((call) => ancestor(call, [...METHOD_TYPES]))
            .filter((method): method is Node => method?.type === 'method_declaration')
            .map(signatureKey)
            .filter((key) => !reached.has(key)),
        );
        for (const key of keys) reached.add(key);
        callers = calls.filter(
          (call) =>
            keys.has(callKey(call)) &&
            isOwnCall(call) &&
            owner !== null &&
            ancestor(call, ['class_declaration', 'enum_declaration'])?.equals(owner) === true,
        );
        upstream.push(...callers);
      }
      // A call of a method the project wrote goes before one of a helper an earlier step added.
      const added = new Set(site.added ?? []);
      const ordered = [...toMember, ...inFocus, ...inMember, ...upstream].sort(
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

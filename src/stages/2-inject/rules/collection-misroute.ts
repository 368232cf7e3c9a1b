import type { Node } from 'web-tree-sitter';
import {
  changedInPlace,
  firstMatch,
  type InPlaceChange,
} from '../../../lang/java/changed-members.js';
import {
  ancestor,
  declaredTypes,
  descendants,
  field,
  kids,
  ownDescendants,
  sameTokens,
  simpleTypeName,
  tokenLeaves,
  tokens,
  unparenthesized,
  within,
} from '../../../lang/java/syntax.js';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import type { CandidateEdit, Injector } from './types.js';

const LOOPS = ['for_statement', 'enhanced_for_statement', 'while_statement', 'do_statement'];
const LIST_TYPES = new Set(['List', 'ArrayList', 'LinkedList', 'Vector', 'CopyOnWriteArrayList']);
const BUILDER_TYPES = new Set(['StringBuilder', 'StringBuffer']);
/** Calls on a list that leave its size alone, so an index computed from the size stays legal. */
const SIZE_KEEPING_CALLS = new Set([
  'get',
  'set',
  'size',
  'isEmpty',
  'contains',
  'indexOf',
  'lastIndexOf',
]);
/** Calls that store an element at a position or key (the position may be implicit: the end). */
const WRITE_CALLS = new Set([
  'add',
  'addFirst',
  'addLast',
  'offer',
  'offerFirst',
  'offerLast',
  'push',
  'set',
  'put',
  'insert',
  'append',
  'setCharAt',
]);
/** Sites kept per method: a loop that appends in many branches would otherwise fill the list. */
const MAX_SITES = 4;
/** Writes at the end, and the calls that write the same element at the front instead. */
const APPENDS = new Set(['add', 'addLast', 'offer', 'offerLast']);
const PREPENDS = new Set(['addFirst', 'offerFirst', 'push']);
/** Writes whose first argument is the position or key and whose last is the value. */
const POSITIONED = new Set(['add', 'set', 'put', 'insert', 'setCharAt']);

function isComment(node: Node): boolean {
  return node.type === 'line_comment' || node.type === 'block_comment';
}

function argumentsOf(call: Node): Node[] {
  const list = field(call, 'arguments');
  return list ? kids(list).filter((k) => !isComment(k)) : [];
}

/** `xs` for `xs` and `this.xs`: a collection the method names directly. */
function variableName(node: Node | null): string | null {
  if (!node) return null;
  const bare = unparenthesized(node);
  if (bare.type === 'identifier') return bare.text;
  if (bare.type === 'field_access' && field(bare, 'object')?.type === 'this')
    return field(bare, 'field')?.text ?? null;
  return null;
}

/** The closest loop whose body holds the node (a loop's header is not its body). */
function enclosingLoopBody(node: Node, member: Node): Node | null {
  for (
    let loop = ancestor(node, LOOPS);
    loop && within(loop, member);
    loop = ancestor(loop, LOOPS)
  ) {
    const body = field(loop, 'body');
    if (body && within(node, body)) return loop;
  }
  return null;
}

/** Whether a node writes the variable (assignment to it, `++`/`--` of it). */
function writes(scope: Node, name: string): boolean {
  const targets = [
    ...descendants(scope, 'assignment_expression').map((a) => field(a, 'left')),
    ...descendants(scope, 'update_expression').map((u) => kids(u)[0] ?? null),
  ];
  return targets.some((target) => variableName(target) === name);
}

/**
 * The bound of a counting loop `for (int i = 0; i < B; i++)` over `index`, as written (`a.length`
 * or `n` from `int i = 0, n = a.length`), with the bound's own text (`a.length`), or null when the
 * loop is of another shape or changes `i` in its body.
 */
function countingBound(loop: Node, index: string): { written: string; value: string } | null {
  if (loop.type !== 'for_statement') return null;
  const init = field(loop, 'init');
  const condition = field(loop, 'condition');
  const updates = loop.childrenForFieldName('update');
  const body = field(loop, 'body');
  if (!init || !condition || updates.length !== 1 || !body) return null;
  const starts: Map<string, Node> = new Map();
  if (init.type === 'local_variable_declaration') {
    for (const declarator of kids(init).filter((k) => k.type === 'variable_declarator')) {
      const value = field(declarator, 'value');
      if (value) starts.set(field(declarator, 'name')?.text ?? '', value);
    }
  } else if (init.type === 'assignment_expression' && field(init, 'operator')?.type === '=') {
    const value = field(init, 'right');
    if (value) starts.set(variableName(field(init, 'left')) ?? '', value);
  }
  if (starts.get(index)?.text !== '0') return null;
  const update = updates[0]!;
  const stepsByOne =
    (update.type === 'update_expression' &&
      update.text.replace(/\s/g, '').replace(index, '') === '++' &&
      variableName(kids(update)[0] ?? null) === index) ||
    (update.type === 'assignment_expression' &&
      field(update, 'operator')?.type === '+=' &&
      variableName(field(update, 'left')) === index &&
      field(update, 'right')?.text === '1');
  if (!stepsByOne) return null;
  const bare = unparenthesized(condition);
  if (
    bare.type !== 'binary_expression' ||
    field(bare, 'operator')?.type !== '<' ||
    variableName(field(bare, 'left')) !== index
  )
    return null;
  const right = unparenthesized(field(bare, 'right')!);
  if (writes(body, index)) return null;
  const boundName = variableName(right);
  if (boundName !== null && starts.has(boundName)) {
    if (writes(body, boundName)) return null;
    return { written: right.text, value: starts.get(boundName)!.text };
  }
  return { written: right.text, value: right.text };
}

function lengthOf(value: string): string {
  return value.replace(/\s+/g, '');
}

/** The loop around `node` that counts `index` from 0 up to below `expected` (e.g. `a.length`). */
function countingLoopOver(
  node: Node,
  member: Node,
  index: string,
  collection: Node,
  measure: string,
): { written: string; loop: Node } | null {
  const name = collection.text.replace(/\s+/g, '').replace(/^this\./, '');
  const expected = [`${name}${measure}`, `this.${name}${measure}`];
  for (let loop = enclosingLoopBody(node, member); loop; loop = enclosingLoopBody(loop, member)) {
    const bound = countingBound(loop, index);
    if (bound)
      return expected.includes(lengthOf(bound.value)) ? { written: bound.written, loop } : null;
  }
  return null;
}

interface Site extends CandidateEdit {
  /** Collections before strings: a reordered list or array is the type's core case. */
  order: number;
}

function listSites(
  call: Node,
  member: Node,
  types: Map<string, string>,
  source: string,
): Site | null {
  const name = field(call, 'name')?.text ?? '';
  const receiver = field(call, 'object');
  const variable = variableName(receiver);
  const declared = variable === null ? undefined : types.get(variable);
  const args = argumentsOf(call);
  const open = field(call, 'arguments')?.child(0);
  if (!receiver || variable === null || declared === undefined || !open) return null;
  const type = simpleTypeName(declared);
  const loop = enclosingLoopBody(call, member);
  if (!loop) return null;
  const shown = source.slice(call.startIndex, call.endIndex).replace(/\s+/g, ' ');
  if (LIST_TYPES.has(type) && name === 'add' && args.length === 1) {
    // `add(int, E)` returns void: only a call whose result is unused can take the index.
    if (call.parent?.type !== 'expression_statement') return null;
    // Adding to the list being iterated fails either way.
    if (loop.type === 'enhanced_for_statement' && variableName(field(loop, 'value')) === variable)
      return null;
    return {
      order: 0,
      description: `${shown} → ${variable}.add(0, ${args[0]!.text}) in a loop`,
      edits: [{ start: open.endIndex, end: open.endIndex, text: '0, ' }],
    };
  }
  if (LIST_TYPES.has(type) && name === 'set' && args.length === 2) {
    const index = variableName(args[0]!);
    if (index === null) return null;
    const bound = countingLoopOver(call, member, index, receiver, '.size()');
    if (!bound) return null;
    // The size must not change in the loop, or the mirrored index could leave the list.
    const calls = descendants(field(bound.loop, 'body')!, 'method_invocation').filter(
      (other) => variableName(field(other, 'object')) === variable,
    );
    if (calls.some((other) => !SIZE_KEEPING_CALLS.has(field(other, 'name')?.text ?? '')))
      return null;
    const replacement = `${bound.written} - 1 - ${index}`;
    return {
      order: 0,
      description: `${shown} → ${variable}.set(${replacement}, …) in a loop`,
      edits: [{ start: args[0]!.startIndex, end: args[0]!.endIndex, text: replacement }],
    };
  }
  if (BUILDER_TYPES.has(type) && name === 'append' && args.length > 0) {
    if (call.parent?.type !== 'expression_statement') return null;
    const method = field(call, 'name')!;
    return {
      order: 1,
      description: `${shown} → ${variable}.insert(0, …) in a loop`,
      edits: [
        { start: method.startIndex, end: method.endIndex, text: 'insert' },
        { start: open.endIndex, end: open.endIndex, text: '0, ' },
      ],
    };
  }
  return null;
}

function arraySite(assignment: Node, member: Node): Site | null {
  if (field(assignment, 'operator')?.type !== '=') return null;
  const left = field(assignment, 'left');
  if (left?.type !== 'array_access') return null;
  const array = field(left, 'array');
  const indexNode = field(left, 'index');
  const arrayName = variableName(array);
  const index = variableName(indexNode);
  if (!array || !indexNode || arrayName === null || index === null) return null;
  const bound = countingLoopOver(assignment, member, index, array, '.length');
  if (!bound || writes(field(bound.loop, 'body')!, arrayName)) return null;
  const replacement = `${bound.written} - 1 - ${index}`;
  return {
    order: 0,
    description: `${left.text} = … → ${array.text}[${replacement}] = … in a loop`,
    edits: [{ start: indexNode.startIndex, end: indexNode.endIndex, text: replacement }],
  };
}

function sites(method: Node, source: string): CandidateEdit[] {
  if (!field(method, 'body')) return [];
  const types = declaredTypes(method);
  const found: Site[] = [];
  for (const node of ownDescendants(method, ['method_invocation', 'assignment_expression'])) {
    const site =
      node.type === 'method_invocation'
        ? listSites(node, method, types, source)
        : arraySite(node, method);
    if (site) found.push(site);
  }
  return found
    .sort((a, b) => a.order - b.order)
    .slice(0, MAX_SITES)
    .map(({ description, edits }) => ({ description, edits }));
}

// ---------------------------------------------------------------------------------------------
// The check: one write in a loop goes to another position or key, with the same value.

function isWrite(node: Node): boolean {
  if (node.type === 'assignment_expression') return field(node, 'left')?.type === 'array_access';
  return node.type === 'method_invocation' && WRITE_CALLS.has(field(node, 'name')?.text ?? '');
}

function sameOptional(a: Node | null, b: Node | null): boolean {
  return a === null || b === null ? a === b : sameTokens(a, b);
}

/** How the write moved, if `after` stores the same value as `before` somewhere else. */
function misroute(before: Node, after: Node): string | null {
  if (before.type !== after.type) return null;
  if (before.type === 'assignment_expression') {
    const [l1, l2] = [field(before, 'left')!, field(after, 'left')!];
    const sameValue =
      field(before, 'operator')?.type === field(after, 'operator')?.type &&
      sameOptional(field(before, 'right'), field(after, 'right')) &&
      sameOptional(field(l1, 'array'), field(l2, 'array'));
    return sameValue && !sameOptional(field(l1, 'index'), field(l2, 'index'))
      ? `the array index changes from [${field(l1, 'index')?.text}] to [${field(l2, 'index')?.text}]`
      : null;
  }
  if (!sameOptional(field(before, 'object'), field(after, 'object'))) return null;
  const [n1, n2] = [field(before, 'name')?.text ?? '', field(after, 'name')?.text ?? ''];
  const [a1, a2] = [argumentsOf(before), argumentsOf(after)];
  const same = (xs: Node[], ys: Node[]) =>
    xs.length === ys.length && xs.every((x, i) => sameTokens(x, ys[i]!));
  if (n1 === n2 && POSITIONED.has(n1) && a1.length === 2 && a2.length === 2) {
    return same(a1.slice(1), a2.slice(1)) && !sameTokens(a1[0]!, a2[0]!)
      ? `${n1}() writes the same value at ${a2[0]!.text} instead of ${a1[0]!.text}`
      : null;
  }
  const gainsPosition =
    (APPENDS.has(n1) && n2 === 'add' && a1.length === 1) || (n1 === 'append' && n2 === 'insert');
  if (gainsPosition && a2.length === a1.length + 1 && same(a1, a2.slice(1)))
    return `${n1}(…) at the end becomes ${n2}(${a2[0]!.text}, …)`;
  if (APPENDS.has(n1) && PREPENDS.has(n2) && same(a1, a2))
    return `${n1}(…) at the end becomes ${n2}(…) at the front`;
  return null;
}

function leafRange(leaves: Node[], node: Node): [number, number] {
  const first = leaves.findIndex((leaf) => leaf.startIndex >= node.startIndex);
  return [first, first + tokens(node).length];
}

function judgeMember({ key, before, after }: InPlaceChange): StructuralCheck {
  const oldLeaves = tokenLeaves(before);
  const newLeaves = tokenLeaves(after);
  const old = oldLeaves.map((leaf) => leaf.text);
  const now = newLeaves.map((leaf) => leaf.text);
  let prefix = 0;
  while (prefix < old.length && prefix < now.length && old[prefix] === now[prefix]) prefix++;
  let suffix = 0;
  while (
    suffix < Math.min(old.length, now.length) - prefix &&
    old[old.length - 1 - suffix] === now[now.length - 1 - suffix]
  )
    suffix++;
  const shift = now.length - old.length;
  const oldWrites = ownDescendants(before, ['assignment_expression', 'method_invocation']).filter(
    isWrite,
  );
  let reason = `${key} changes more than where one write in a loop stores its value`;
  // Writes around the changed tokens, innermost first.
  const covering = ownDescendants(after, ['assignment_expression', 'method_invocation'])
    .filter(isWrite)
    .map((node) => ({ node, range: leafRange(newLeaves, node) }))
    .filter(({ range }) => range[0] <= prefix && range[1] >= now.length - suffix)
    .sort((a, b) => a.range[1] - a.range[0] - (b.range[1] - b.range[0]));
  for (const { node, range } of covering) {
    const counterpart = oldWrites.find((candidate) => {
      const [start, end] = leafRange(oldLeaves, candidate);
      return start === range[0] && end === range[1] - shift;
    });
    if (!counterpart) continue;
    const how = misroute(counterpart, node);
    if (!how) {
      reason = `${key}: ${counterpart.text.replace(/\s+/g, ' ')} changes its value or target, not only its position`;
      continue;
    }
    if (!enclosingLoopBody(counterpart, before) || !enclosingLoopBody(node, after)) {
      reason = `${key}: the changed write is not inside a loop`;
      continue;
    }
    return { kind: 'Matches', evidence: `${key} misroutes a write in a loop: ${how}` };
  }
  return { kind: 'Mismatch', reason };
}

export const collectionMisrouteInjector: Injector = {
  kind: 'injector',
  typeId: 'logic_deep_branch_collection_misroute',
  sites,
  check: (before, after) =>
    firstMatch(
      changedInPlace(before, after),
      judgeMember,
      'no changed method moves a write in a loop to another index or key',
    ),
};

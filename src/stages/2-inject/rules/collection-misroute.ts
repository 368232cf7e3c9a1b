import type { Node } from 'web-tree-sitter';
import {
  changedInPlace,
  firstMatch,
  type InPlaceChange,
} from '../../../lang/java/changed-members.js';
import {
  ancestor,
  classMembers,
  declaringClass,
  descendants,
  field,
  kids,
  modifierWords,
  nameOf,
  ownDescendants,
  sameTokens,
  simpleTypeName,
  tokenLeaves,
  tokens,
  unparenthesized,
  within,
  LOOP_TYPES,
} from '../../../lang/java/syntax.js';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import { plausibility, type CandidateEdit, type Injector, type Plausibility } from './types.js';

const LIST_TYPES = new Set(['List', 'ArrayList', 'LinkedList', 'Vector', 'CopyOnWriteArrayList']);
const BUILDER_TYPES = new Set(['StringBuilder', 'StringBuffer']);
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
    let loop = ancestor(node, LOOP_TYPES);
    loop && within(loop, member);
    loop = ancestor(loop, LOOP_TYPES)
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
 * A counting loop `for (int i = s; i < B; i++)` over `index` that leaves `i` alone in its body:
 * its start `s`, and the `c` of a bound written `X.length - c` or `X.size() - c` (else 0) with
 * that `X`.
 */
function countingLoop(
  loop: Node,
  index: string,
): { start: number; slack: number; boundOf: string | null } | null {
  if (loop.type !== 'for_statement') return null;
  const init = field(loop, 'init');
  const condition = field(loop, 'condition');
  const updates = loop.childrenForFieldName('update');
  const body = field(loop, 'body');
  if (!init || !condition || updates.length !== 1 || !body) return null;
  let start: Node | null = null;
  if (init.type === 'local_variable_declaration') {
    for (const declarator of kids(init).filter((k) => k.type === 'variable_declarator'))
      if (field(declarator, 'name')?.text === index) start = field(declarator, 'value');
  } else if (init.type === 'assignment_expression' && field(init, 'operator')?.type === '=') {
    if (variableName(field(init, 'left')) === index) start = field(init, 'right');
  }
  if (start?.type !== 'decimal_integer_literal') return null;
  const update = updates[0]!;
  const stepsByOne =
    (update.type === 'update_expression' &&
      update.text.replace(/\s/g, '').replace(index, '') === '++' &&
      variableName(kids(update)[0] ?? null) === index) ||
    (update.type === 'assignment_expression' &&
      field(update, 'operator')?.type === '+=' &&
      variableName(field(update, 'left')) === index &&
      field(update, 'right')?.text === '1');
  const bare = unparenthesized(condition);
  if (
    !stepsByOne ||
    writes(body, index) ||
    bare.type !== 'binary_expression' ||
    field(bare, 'operator')?.type !== '<' ||
    variableName(field(bare, 'left')) !== index
  )
    return null;
  const bound = /^(.+?)(\.length|\.size\(\))-([1-9][0-9]*)$/.exec(
    field(bare, 'right')!.text.replace(/\s+/g, ''),
  );
  return {
    start: Number(start.text),
    slack: bound ? Number(bound[3]) : 0,
    boundOf: bound ? bound[1]!.replace(/^this\./, '') : null,
  };
}

const COLLECTION_TYPES = new Set([
  ...LIST_TYPES,
  ...BUILDER_TYPES,
  'Collection',
  'Set',
  'HashSet',
  'LinkedHashSet',
  'TreeSet',
  'SortedSet',
  'Map',
  'HashMap',
  'LinkedHashMap',
  'TreeMap',
  'SortedMap',
  'Queue',
  'Deque',
  'ArrayDeque',
  'Stack',
]);
/** Siblings offered per write: the nearest in the source. */
const MAX_SIBLINGS = 2;

function sameType(a: string, b: string): boolean {
  return a.replace(/\s+/g, '') === b.replace(/\s+/g, '');
}

/**
 * The variables `at` can name, with their declared types: the class's fields (static ones only
 * in a static method), the member's parameters, the locals declared before `at` in a block
 * around it and the variables of enhanced fors around it; a later kind shadows an earlier one.
 */
function visibleVariables(at: Node, member: Node): Map<string, string> {
  const visible = new Map<string, string>();
  const isStatic = (node: Node) => modifierWords(node).includes('static');
  const owner = declaringClass(member);
  const declare = (declaration: Node) => {
    const type = field(declaration, 'type');
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator'))
      if (type && !field(declarator, 'dimensions')) visible.set(nameOf(declarator), type.text);
  };
  for (const declaration of owner ? classMembers(owner) : []) {
    if (declaration.type !== 'field_declaration') continue;
    if (isStatic(member) && !isStatic(declaration)) continue;
    // A static final collection is a shared constant (often an empty one): no loop fills it.
    const words = modifierWords(declaration);
    if (words.includes('static') && words.includes('final')) continue;
    declare(declaration);
  }
  for (const parameter of descendants(field(member, 'parameters') ?? member, 'formal_parameter')) {
    const type = field(parameter, 'type');
    if (type && !field(parameter, 'dimensions')) visible.set(nameOf(parameter), type.text);
  }
  for (const local of descendants(member, 'local_variable_declaration')) {
    if (local.endIndex <= at.startIndex && local.parent && within(at, local.parent)) declare(local);
  }
  for (const loop of descendants(member, 'enhanced_for_statement')) {
    const type = field(loop, 'type');
    const body = field(loop, 'body');
    if (type && body && within(at, body)) visible.set(nameOf(loop), type.text);
  }
  return visible;
}

/** Other variables of exactly `type` that `at` can name, nearest declared first. */
function siblingsOf(name: string, type: string, at: Node, member: Node): string[] {
  return [...visibleVariables(at, member)]
    .filter(([other, declared]) => other !== name && sameType(declared, type))
    .map(([other]) => other)
    .filter((other) => !/^[A-Z][A-Z0-9_]*$/.test(other))
    .reverse()
    .slice(0, MAX_SIBLINGS);
}

/** `E + 1` (or `1 + E`) as `E`: an index whose offset can be forgotten and still be legal. */
function withoutOffset(index: Node): Node | null {
  const bare = unparenthesized(index);
  if (bare.type !== 'binary_expression' || field(bare, 'operator')?.type !== '+') return null;
  const [left, right] = [field(bare, 'left'), field(bare, 'right')];
  if (!left || !right) return null;
  const positive = (node: Node) => node.type === 'decimal_integer_literal' && node.text !== '0';
  if (positive(right)) return left;
  if (positive(left)) return right;
  return null;
}

/**
 * The index of a write moved by one where that stays legal: `E + 1` loses its `+ 1` (whatever
 * made `E + 1` a legal index makes `E` one), and the index of a counting loop moves down when
 * the loop starts above 0 or up when it stops short of the collection's end.
 */
function neighbouringIndex(
  index: Node,
  collection: string,
  at: Node,
  member: Node,
): { text: string; plausibility: Plausibility } | null {
  const dropped = withoutOffset(index);
  if (dropped) {
    const offset = unparenthesized(index).text.replace(dropped.text, '').replace(/\s+/g, ' ');
    return {
      text: dropped.text,
      plausibility: plausibility(0, `the offset${offset} on the index forgotten`),
    };
  }
  const name = variableName(index);
  if (name === null) return null;
  for (let loop = enclosingLoopBody(at, member); loop; loop = enclosingLoopBody(loop, member)) {
    const counting = countingLoop(loop, name);
    if (!counting) continue;
    if (counting.start >= 1)
      return {
        text: `${name} - 1`,
        plausibility: plausibility(0, `off by one: the loop counts ${name} from ${counting.start}`),
      };
    if (counting.slack >= 1 && counting.boundOf === collection)
      return {
        text: `${name} + 1`,
        plausibility: plausibility(
          0,
          `off by one: the loop stops ${counting.slack} short of the end`,
        ),
      };
    return null;
  }
  return null;
}

function shown(node: Node, source: string): string {
  return source.slice(node.startIndex, node.endIndex).replace(/\s+/g, ' ');
}

/** Writes by a call in a loop: to a sibling collection, a sibling key, or a neighbouring index. */
function callSites(call: Node, member: Node, source: string): CandidateEdit[] {
  const name = field(call, 'name')?.text ?? '';
  const receiver = field(call, 'object');
  const variable = variableName(receiver);
  const args = argumentsOf(call);
  const loop = enclosingLoopBody(call, member);
  if (!WRITE_CALLS.has(name) || !receiver || variable === null || !loop || args.length === 0)
    return [];
  const visible = visibleVariables(call, member);
  const declared = visible.get(variable);
  if (declared === undefined || !COLLECTION_TYPES.has(simpleTypeName(declared))) return [];
  // Writing to the collection being iterated fails whatever the rewrite.
  const iterated =
    loop.type === 'enhanced_for_statement' ? variableName(field(loop, 'value')) : null;
  const text = shown(call, source);
  const sites: CandidateEdit[] = siblingsOf(variable, declared, call, member)
    .filter((sibling) => sibling !== iterated)
    .map((sibling) => ({
      description: `${text} → ${sibling}.${name}(…) in a loop`,
      edits: [{ start: receiver.startIndex, end: receiver.endIndex, text: sibling }],
      plausibility: plausibility(1, `${sibling} and ${variable} are collections of one type`),
    }));
  const type = simpleTypeName(declared);
  const first = args[0]!;
  if (name === 'put' && args.length === 2) {
    const key = variableName(first);
    const keyType = key === null ? undefined : visible.get(key);
    if (key !== null && keyType !== undefined)
      for (const sibling of siblingsOf(key, keyType, call, member))
        sites.push({
          description: `${text} → ${variable}.put(${sibling}, …) in a loop`,
          edits: [{ start: first.startIndex, end: first.endIndex, text: sibling }],
          plausibility: plausibility(1, `${sibling} and ${key} are keys of one type`),
        });
  }
  if (LIST_TYPES.has(type) && (name === 'set' || name === 'add') && args.length === 2) {
    // `add(int, E)` moves later elements, so only the offset (never the loop bound) may go.
    const moved =
      name === 'add'
        ? withoutOffset(first) && neighbouringIndex(first, variable, call, member)
        : neighbouringIndex(first, variable, call, member);
    if (moved)
      sites.push({
        description: `${text} → ${variable}.${name}(${moved.text}, …) in a loop`,
        edits: [{ start: first.startIndex, end: first.endIndex, text: moved.text }],
        plausibility: moved.plausibility,
      });
  }
  return sites;
}

/** `a[E + 1] = v` → `a[E] = v`, `a[i] = v` → `a[i - 1] = v` in a loop from 1, and the like. */
function arraySite(assignment: Node, member: Node, source: string): CandidateEdit | null {
  if (field(assignment, 'operator')?.type !== '=') return null;
  const left = field(assignment, 'left');
  if (left?.type !== 'array_access' || !enclosingLoopBody(assignment, member)) return null;
  const array = variableName(field(left, 'array'));
  const index = field(left, 'index');
  if (array === null || !index) return null;
  const moved = neighbouringIndex(index, array, assignment, member);
  if (!moved) return null;
  return {
    description: `${shown(left, source)} = … → ${array}[${moved.text}] = … in a loop`,
    edits: [{ start: index.startIndex, end: index.endIndex, text: moved.text }],
    plausibility: moved.plausibility,
  };
}

function sites(method: Node, source: string): CandidateEdit[] {
  if (!field(method, 'body')) return [];
  const found: CandidateEdit[] = [];
  for (const node of ownDescendants(method, ['method_invocation', 'assignment_expression'])) {
    if (node.type === 'method_invocation') found.push(...callSites(node, method, source));
    else {
      const site = arraySite(node, method, source);
      if (site) found.push(site);
    }
  }
  return found
    .map((site, order) => ({ site, order }))
    .sort((a, b) => a.site.plausibility.rank - b.site.plausibility.rank || a.order - b.order)
    .slice(0, MAX_SITES)
    .map(({ site }) => site);
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

type Routing =
  | { kind: 'Misrouted'; how: string }
  /** Moved, but in a way no maintainer writes by mistake. */
  | { kind: 'Artificial'; why: string }
  | { kind: 'Other' };

/** `a.length - 1 - i`, `n - 1 - i`: an index mirrored end for end. */
function isMirrored(index: Node): boolean {
  return /- 1 - [\w.]+$/.test(tokens(index).join(' '));
}

function isZero(node: Node | undefined): boolean {
  return !!node && unparenthesized(node).text === '0';
}

/**
 * How the write moved, if `after` stores the same value as `before` somewhere else: another
 * index or key, or another collection of the same type (`types`: what the write can name).
 */
function misroute(before: Node, after: Node, types: Map<string, string>): Routing {
  if (before.type !== after.type) return { kind: 'Other' };
  if (before.type === 'assignment_expression') {
    const [l1, l2] = [field(before, 'left')!, field(after, 'left')!];
    const sameValue =
      field(before, 'operator')?.type === field(after, 'operator')?.type &&
      sameOptional(field(before, 'right'), field(after, 'right')) &&
      sameOptional(field(l1, 'array'), field(l2, 'array'));
    const [i1, i2] = [field(l1, 'index'), field(l2, 'index')];
    if (!sameValue || sameOptional(i1, i2)) return { kind: 'Other' };
    if (i2 && isMirrored(i2))
      return { kind: 'Artificial', why: `the index is mirrored (${i2.text})` };
    return {
      kind: 'Misrouted',
      how: `the array index changes from [${i1?.text}] to [${i2?.text}]`,
    };
  }
  const [n1, n2] = [field(before, 'name')?.text ?? '', field(after, 'name')?.text ?? ''];
  const [a1, a2] = [argumentsOf(before), argumentsOf(after)];
  const same = (xs: Node[], ys: Node[]) =>
    xs.length === ys.length && xs.every((x, i) => sameTokens(x, ys[i]!));
  const [o1, o2] = [field(before, 'object'), field(after, 'object')];
  if (!sameOptional(o1, o2)) {
    const [r1, r2] = [variableName(o1), variableName(o2)];
    const [t1, t2] = [
      r1 === null ? undefined : types.get(r1),
      r2 === null ? undefined : types.get(r2),
    ];
    return n1 === n2 && same(a1, a2) && t1 !== undefined && t2 !== undefined && sameType(t1, t2)
      ? { kind: 'Misrouted', how: `${n1}(…) writes to ${r2}, a ${t2} like ${r1}` }
      : { kind: 'Other' };
  }
  if (n1 === n2 && POSITIONED.has(n1) && a1.length === 2 && a2.length === 2) {
    if (!same(a1.slice(1), a2.slice(1)) || sameTokens(a1[0]!, a2[0]!)) return { kind: 'Other' };
    if (isMirrored(a2[0]!) || (n1 !== 'put' && isZero(a2[0])))
      return { kind: 'Artificial', why: `${n1}() moves its value to ${a2[0]!.text}` };
    return {
      kind: 'Misrouted',
      how: `${n1}() writes the same value at ${a2[0]!.text} instead of ${a1[0]!.text}`,
    };
  }
  const gainsPosition =
    (APPENDS.has(n1) && n2 === 'add' && a1.length === 1) || (n1 === 'append' && n2 === 'insert');
  if (gainsPosition && a2.length === a1.length + 1 && same(a1, a2.slice(1))) {
    return isZero(a2[0])
      ? { kind: 'Artificial', why: `${n1}(…) at the end becomes ${n2}(0, …) at the front` }
      : { kind: 'Misrouted', how: `${n1}(…) at the end becomes ${n2}(${a2[0]!.text}, …)` };
  }
  if (APPENDS.has(n1) && PREPENDS.has(n2) && same(a1, a2))
    return { kind: 'Artificial', why: `${n1}(…) at the end becomes ${n2}(…) at the front` };
  return { kind: 'Other' };
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
    const routing = misroute(counterpart, node, visibleVariables(counterpart, before));
    if (routing.kind === 'Other') {
      reason = `${key}: ${counterpart.text.replace(/\s+/g, ' ')} changes its value or target, not only its position`;
      continue;
    }
    if (routing.kind === 'Artificial') {
      reason = `${key}: ${routing.why}, which reads as no maintainer's slip`;
      continue;
    }
    if (!enclosingLoopBody(counterpart, before) || !enclosingLoopBody(node, after)) {
      reason = `${key}: the changed write is not inside a loop`;
      continue;
    }
    return { kind: 'Matches', evidence: `${key} misroutes a write in a loop: ${routing.how}` };
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

import type { Node } from 'web-tree-sitter';
import { changedMembers, firstMatch } from '../../../lang/java/changed-members.js';
import {
  declaredTypes,
  descendants,
  erasedType,
  field,
  kids,
  nameOf,
  simpleTypeName,
  tokens,
  unparenthesized,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import {
  accessKey,
  argumentsOf,
  droppedNullGuard,
  isCollectionElement,
  type NullCheck,
} from '../../../lang/java/nullness.js';
import { describeDroppedGuard, guardRemovalSites, isComparable } from './null-guard-removed.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

/** Maps that hold null values (the concurrent ones and Hashtable reject them on the spot). */
const NULL_VALUE_MAPS = new Set([
  'Map',
  'HashMap',
  'LinkedHashMap',
  'TreeMap',
  'WeakHashMap',
  'IdentityHashMap',
  'SortedMap',
  'NavigableMap',
  'EnumMap',
  'AbstractMap',
]);

const PRIMITIVES = new Set(['int', 'long', 'short', 'byte', 'char', 'boolean', 'float', 'double']);
/** Declared types that read as a container of elements or an entry of one (`Map.Entry`). */
const CONTAINER_TYPE =
  /List|Map|Set|Collection|Queue|Deque|Stack|Vector|Cache|Table|Bag|Buffer|Entry/;

/**
 * Calls storing a value in a container, by argument count: which argument is the stored value.
 * `set` with one argument (AtomicReference, ThreadLocal) and `replace` with three are left out.
 */
const ELEMENT_WRITES: Record<string, Record<number, number>> = {
  put: { 2: 1 },
  putIfAbsent: { 2: 1 },
  replace: { 2: 1 },
  set: { 2: 1 },
  add: { 1: 0, 2: 1 },
  addElement: { 1: 0 },
  insertElementAt: { 2: 0 },
  setElementAt: { 2: 0 },
  offer: { 1: 0 },
  push: { 1: 0 },
  addFirst: { 1: 0 },
  addLast: { 1: 0 },
  offerFirst: { 1: 0 },
  offerLast: { 1: 0 },
  setValue: { 1: 0 },
};

function isNullLiteral(node: Node | undefined): boolean {
  return !!node && unparenthesized(node).type === 'null_literal';
}

function oneLine(text: string, limit = 70): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** The declared type (as written) of a call's receiver, when it is a simple name or `this.x`. */
function receiverType(call: Node, types: Map<string, string>): string | undefined {
  const key = accessKey(field(call, 'object'));
  return key && !key.includes('[') ? types.get(key) : undefined;
}

/** Statements of the form `null` being stored into a container element, as token strings. */
function nullElementWrites(member: Node): string[] {
  const types = declaredTypes(member);
  const writes: string[] = [];
  for (const call of descendants(member, 'method_invocation')) {
    const name = field(call, 'name')?.text ?? '';
    const args = argumentsOf(call);
    const valueIndex = ELEMENT_WRITES[name]?.[args.length];
    if (valueIndex === undefined || !isNullLiteral(args[valueIndex])) continue;
    const object = field(call, 'object');
    const type = receiverType(call, types);
    if (type !== undefined && !CONTAINER_TYPE.test(type)) continue;
    // An unqualified `set(i, null)` or `setValue(null)` is the class's own setter.
    if (!object && ['set', 'setValue', 'replace'].includes(name)) continue;
    writes.push(tokens(call).join(' '));
  }
  for (const assignment of descendants(member, 'assignment_expression')) {
    const left = field(assignment, 'left');
    const right = field(assignment, 'right');
    if (left?.type === 'array_access' && right && isNullLiteral(right))
      writes.push(tokens(assignment).join(' '));
  }
  return writes;
}

/** `remove` and `clear` calls, by receiver, as token strings. */
function removals(member: Node): string[] {
  return descendants(member, 'method_invocation')
    .filter((call) => ['remove', 'clear'].includes(field(call, 'name')?.text ?? ''))
    .map(
      (call) => `${tokens(field(call, 'object') ?? call).join(' ')}.${field(call, 'name')!.text}`,
    );
}

/** Whether `after` has fewer removals than `before` (one became a null write, say). */
function losesRemoval(before: Node, after: Node): boolean {
  return withoutAll(removals(before), removals(after)).length > 0;
}

function withoutAll(items: string[], removed: string[]): string[] {
  const left = [...removed];
  return items.filter((item) => {
    const at = left.indexOf(item);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

/** The element type of an array type as written (`Object[]` → `Object`), or null. */
function arrayElementType(typeText: string | undefined): string | null {
  const erased = typeText ? erasedType(typeText) : '';
  return erased.endsWith('[]') ? erased.slice(0, -2) : null;
}

/**
 * Compaction of an array of references, `System.arraycopy(a, i + 1, a, i, n);` → `a[i] = null;`:
 * the slot is cleared instead of closed up.
 */
function arrayCompactions(method: Node, types: Map<string, string>): CandidateEdit[] {
  const candidates: CandidateEdit[] = [];
  for (const statement of descendants(method, 'expression_statement')) {
    const call = kids(statement)[0];
    if (call?.type !== 'method_invocation' || field(call, 'name')?.text !== 'arraycopy') continue;
    if (field(call, 'object')?.text !== 'System') continue;
    const args = argumentsOf(call);
    if (args.length !== 5) continue;
    const [source, sourcePos, target, targetPos] = args as [Node, Node, Node, Node];
    const key = accessKey(source);
    const element = arrayElementType(key ? types.get(key) : undefined);
    if (!key || accessKey(target) !== key || !element || PRIMITIVES.has(element)) continue;
    const shifted = unparenthesized(sourcePos);
    const right = field(shifted, 'right');
    const left = field(shifted, 'left');
    if (shifted.type !== 'binary_expression' || field(shifted, 'operator')?.type !== '+') continue;
    if (!left || right?.text !== '1' || tokens(left).join(' ') !== tokens(targetPos).join(' '))
      continue;
    const text = `${target.text}[${targetPos.text}] = null;`;
    candidates.push({
      description: `${oneLine(statement.text)} → ${text}`,
      edits: [{ start: statement.startIndex, end: statement.endIndex, text }],
      plausibility: plausibility(2, 'a removal that clears the slot instead of closing the gap'),
    });
  }
  return candidates;
}

/**
 * A cache filled lazily with a placeholder: `cache.put(k, compute(k));` → `cache.put(k, null);`
 * for a map field that the same method also looks up.
 */
function cachePlaceholders(method: Node, body: Node, types: Map<string, string>): CandidateEdit[] {
  const owner = fieldOwner(method);
  const candidates: CandidateEdit[] = [];
  for (const statement of descendants(body, 'expression_statement')) {
    const call = kids(statement)[0];
    const name = call?.type === 'method_invocation' ? field(call, 'name') : null;
    const args = call ? argumentsOf(call) : [];
    if (!call || !name || name.text !== 'put' || args.length !== 2 || isNullLiteral(args[1]))
      continue;
    const key = accessKey(field(call, 'object'));
    const type = key ? types.get(key) : undefined;
    if (!key || !owner.has(key) || !type || !NULL_VALUE_MAPS.has(simpleTypeName(type))) continue;
    const looksUp = descendants(body, 'method_invocation').some(
      (other) =>
        ['get', 'containsKey'].includes(field(other, 'name')?.text ?? '') &&
        accessKey(field(other, 'object')) === key,
    );
    if (!looksUp) continue;
    const value = args[1]!;
    candidates.push({
      description: `${oneLine(call.text)}: ${oneLine(value.text, 40)} → null`,
      edits: [{ start: value.startIndex, end: value.endIndex, text: 'null' }],
      plausibility: plausibility(2, 'a cache entry reserved before its value is computed'),
    });
  }
  return candidates;
}

/** Names of the fields declared by the class that declares `method` and are not shadowed in it. */
function fieldOwner(method: Node): Set<string> {
  const locals = new Set(
    descendants(method, ['variable_declarator', 'formal_parameter']).map((d) => nameOf(d)),
  );
  const body = method.parent;
  const names = new Set<string>();
  for (const declaration of body ? kids(body) : []) {
    if (declaration.type !== 'field_declaration') continue;
    for (const d of kids(declaration).filter((k) => k.type === 'variable_declarator'))
      if (!locals.has(nameOf(d))) names.add(nameOf(d));
  }
  return names;
}

function collectionElement(check: NullCheck, member: Node): boolean {
  return isCollectionElement(check.key, check.node, member);
}

function sites(method: Node, source: string): CandidateEdit[] {
  const body = field(method, 'body');
  if (!body || !isComparable(method)) return [];
  const types = declaredTypes(method);
  // Removals turned into null writes (`map.remove(k)` → `map.put(k, null)`, `list.clear()` →
  // `Collections.fill(list, null)`) read as nobody's slip, so none is offered.
  const candidates = [
    ...arrayCompactions(body, types),
    ...cachePlaceholders(method, body, types),
    ...guardRemovalSites(method, source, collectionElement),
  ];
  const start = (c: CandidateEdit) => Math.min(...c.edits.map((e: TextEdit) => e.start));
  return candidates.sort((a, b) => start(a) - start(b));
}

export const collectionElementNullInjector: Injector = {
  kind: 'injector',
  typeId: 'npe_collection_element_lazily_nullified',
  sites,
  check: (before, after) =>
    firstMatch(
      changedMembers(before, after),
      (change) => {
        if (!change.after) return undefined;
        const old = change.before ? nullElementWrites(change.before) : [];
        const added = withoutAll(nullElementWrites(change.after), old);
        if (added.length > 0 && change.before && losesRemoval(change.before, change.after)) {
          return {
            kind: 'Mismatch',
            reason: `${change.key} turns a removal into a null write (${oneLine(added[0]!)}), which reads as nobody's slip`,
          };
        }
        if (added.length > 0) {
          return {
            kind: 'Matches',
            evidence: `${change.key} leaves null in a collection element: ${oneLine(added[0]!)}`,
          };
        }
        if (!change.before) return undefined;
        const dropped = droppedNullGuard(change.before, change.after, collectionElement);
        if (!dropped) return undefined;
        return { kind: 'Matches', evidence: describeDroppedGuard(change.key, dropped) };
      },
      'no changed method stores null into a collection element or drops the null check of an element it reads',
    ),
};

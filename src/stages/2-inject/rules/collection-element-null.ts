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
  describeDroppedGuard,
  droppedNullGuard,
  guardRemovalSites,
  isComparable,
  isCollectionElement,
  type NullCheck,
} from './null-guard-removed.js';
import type { CandidateEdit, Injector } from './types.js';

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
const LISTS = new Set([
  'List',
  'ArrayList',
  'LinkedList',
  'Vector',
  'Stack',
  'AbstractList',
  'CopyOnWriteArrayList',
]);
const PRIMITIVES = new Set(['int', 'long', 'short', 'byte', 'char', 'boolean', 'float', 'double']);
const INT_TYPES = new Set(['int', 'short', 'byte']);
const BOXES: Record<string, string> = { int: 'Integer', long: 'Long', char: 'Character' };
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
  fill: { 2: 1 },
  setValue: { 1: 0 },
};

function isNullLiteral(node: Node | undefined): boolean {
  return !!node && unparenthesized(node).type === 'null_literal';
}

function oneLine(text: string, limit = 70): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return flat.length > limit ? `${flat.slice(0, limit - 1)}…` : flat;
}

/** Top-level type arguments as written: `Map<String, List<X>>` → ["String", "List<X>"]. */
function typeArguments(typeText: string): string[] {
  const open = typeText.indexOf('<');
  if (open < 0) return [];
  const args: string[] = [];
  let depth = 0;
  let current = '';
  for (const char of typeText.slice(open + 1)) {
    if (char === '<') depth++;
    if (char === '>' && depth-- === 0) break;
    if (char === ',' && depth === 0) {
      args.push(current.trim());
      current = '';
    } else current += char;
  }
  args.push(current.trim());
  return args;
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
    if (name === 'fill') {
      if (object?.text !== 'Arrays' && object?.text !== 'Collections') continue;
    } else {
      const type = receiverType(call, types);
      if (type !== undefined && !CONTAINER_TYPE.test(type)) continue;
      // An unqualified `set(i, null)` or `setValue(null)` is the class's own setter.
      if (!object && ['set', 'setValue', 'replace'].includes(name)) continue;
    }
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

function withoutAll(items: string[], removed: string[]): string[] {
  const left = [...removed];
  return items.filter((item) => {
    const at = left.indexOf(item);
    if (at < 0) return true;
    left.splice(at, 1);
    return false;
  });
}

/** An expression that is clearly an `int` (so `list.remove(i)` removes by index). */
function isIntExpression(node: Node, types: Map<string, string>): boolean {
  const e = unparenthesized(node);
  switch (e.type) {
    case 'decimal_integer_literal':
      return true;
    case 'identifier':
    case 'field_access': {
      const key = accessKey(e);
      return !!key && INT_TYPES.has(erasedType(types.get(key) ?? ''));
    }
    case 'update_expression':
    case 'unary_expression': {
      const operand = kids(e)[0];
      return !!operand && isIntExpression(operand, types);
    }
    case 'binary_expression': {
      const left = field(e, 'left');
      const right = field(e, 'right');
      const operator = field(e, 'operator')?.type ?? '';
      return (
        ['+', '-', '*', '/', '%'].includes(operator) &&
        !!left &&
        !!right &&
        isIntExpression(left, types) &&
        isIntExpression(right, types)
      );
    }
    case 'method_invocation':
      return ['size', 'indexOf', 'lastIndexOf', 'length'].includes(field(e, 'name')?.text ?? '');
    default:
      return false;
  }
}

/** Whether `put(argument, ...)` compiles for a map whose key type is `keyType` (undefined: raw). */
function fitsKey(argument: Node, keyType: string | undefined, types: Map<string, string>): boolean {
  if (keyType === undefined) return true;
  if (keyType.startsWith('?')) return false;
  const wanted = simpleTypeName(keyType);
  if (wanted === 'Object') return true;
  const bare = unparenthesized(argument);
  if (bare.type === 'string_literal') return wanted === 'String';
  const key = accessKey(bare);
  const declared = key && !key.includes('[') ? types.get(key) : undefined;
  if (declared === undefined) return false;
  const have = simpleTypeName(declared);
  return have === wanted || BOXES[have] === wanted;
}

/**
 * `map.remove(k)` → `map.put(k, null)` and `list.remove(i)` → `list.set(i, null)`: the entry or
 * slot stays, holding null. `replacement` names the method for a call `remove(arg)` on a receiver
 * of `type` that it accepts, or is undefined for calls it leaves alone.
 */
function removalsNulled(
  method: Node,
  types: Map<string, string>,
  replacement: (type: string, arg: Node) => 'put' | 'set' | undefined,
): CandidateEdit[] {
  const candidates: CandidateEdit[] = [];
  for (const call of descendants(method, 'method_invocation')) {
    const name = field(call, 'name');
    const args = argumentsOf(call);
    const list = field(call, 'arguments');
    if (name?.text !== 'remove' || args.length !== 1 || !list) continue;
    const type = receiverType(call, types);
    const by = type ? replacement(type, args[0]!) : undefined;
    if (!by) continue;
    const text = `${by}(${args[0]!.text}, null)`;
    candidates.push({
      description: `${oneLine(call.text)} → ${field(call, 'object')!.text}.${text}`,
      edits: [{ start: name.startIndex, end: list.endIndex, text }],
    });
  }
  return candidates;
}

/** Map removals whose key fits the map's key type. */
function mapRemovals(method: Node, types: Map<string, string>): CandidateEdit[] {
  return removalsNulled(method, types, (type, key) =>
    NULL_VALUE_MAPS.has(simpleTypeName(type)) && fitsKey(key, typeArguments(type)[0], types)
      ? 'put'
      : undefined,
  );
}

/** List removals by index (not by element). */
function listRemovals(method: Node, types: Map<string, string>): CandidateEdit[] {
  return removalsNulled(method, types, (type, index) =>
    LISTS.has(simpleTypeName(type)) && isIntExpression(index, types) ? 'set' : undefined,
  );
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
    });
  }
  return candidates;
}

/** The `program` node a member belongs to. */
function fileOf(node: Node): Node {
  let current = node;
  while (current.parent) current = current.parent;
  return current;
}

/** An edit importing java.util.Collections in order among the imports, none if it is visible. */
function collectionsImport(method: Node, source: string): TextEdit[] | null {
  const declarations = descendants(fileOf(method), 'import_declaration');
  const imports = declarations.map((i) => tokens(i).join(' '));
  const wanted = 'import java . util . Collections ;';
  if (imports.some((i) => i === wanted || i === 'import java . util . * ;')) return [];
  if (imports.some((i) => i.endsWith('. Collections ;'))) return null;
  const last = declarations.at(-1);
  if (!last) return null;
  const eol = source.includes('\r\n') ? '\r\n' : '\n';
  const next = declarations.find(
    (d, i) => imports[i]!.startsWith('import java .') && imports[i]! > wanted,
  );
  return next
    ? [
        {
          start: next.startIndex,
          end: next.startIndex,
          text: `import java.util.Collections;${eol}`,
        },
      ]
    : [{ start: last.endIndex, end: last.endIndex, text: `${eol}import java.util.Collections;` }];
}

/**
 * Resetting a list by nulling its elements instead of emptying it: `list.clear();` →
 * `Collections.fill(list, null);` — the size stays, and whatever is added next lands after nulls.
 */
function listClears(
  method: Node,
  body: Node,
  source: string,
  types: Map<string, string>,
): CandidateEdit[] {
  const candidates: CandidateEdit[] = [];
  for (const statement of descendants(body, 'expression_statement')) {
    const call = kids(statement)[0];
    if (call?.type !== 'method_invocation' || field(call, 'name')?.text !== 'clear') continue;
    const type = receiverType(call, types);
    if (!type || !LISTS.has(simpleTypeName(type)) || argumentsOf(call).length > 0) continue;
    const imports = collectionsImport(method, source);
    if (!imports) continue;
    const text = `Collections.fill(${field(call, 'object')!.text}, null);`;
    candidates.push({
      description: `${oneLine(statement.text)} → ${text}`,
      edits: [{ start: statement.startIndex, end: statement.endIndex, text }, ...imports],
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
  const candidates = [
    ...mapRemovals(body, types),
    ...listRemovals(body, types),
    ...arrayCompactions(body, types),
    ...listClears(method, body, source, types),
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

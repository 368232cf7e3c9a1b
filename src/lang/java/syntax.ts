import { createRequire } from 'node:module';
import { Edit, Language, Parser, type Node, type Point, type Tree } from 'web-tree-sitter';

/**
 * Java syntax through tree-sitter. Offsets are UTF-16 string indices, like JavaScript strings, so
 * `source.slice(node.startIndex, node.endIndex)` is the node's text. Trees hold WebAssembly memory:
 * use `withJavaTree`, which frees them.
 */

let parser: Parser | undefined;

/** Loads the grammar once per process; every other function here needs it loaded. */
export async function loadJavaGrammar(): Promise<void> {
  if (parser) return;
  await Parser.init();
  const require = createRequire(import.meta.url);
  const language = await Language.load(require.resolve('tree-sitter-java/tree-sitter-java.wasm'));
  const created = new Parser();
  created.setLanguage(language);
  parser = created;
}

function javaParser(): Parser {
  if (!parser) throw new Error('loadJavaGrammar() must be awaited before parsing Java');
  return parser;
}

/** Parses `source`, hands the tree to `use`, and frees it afterwards. */
export function withJavaTree<T>(source: string, use: (root: Node, tree: Tree) => T): T {
  const tree = javaParser().parse(source);
  if (!tree) throw new Error('tree-sitter returned no tree');
  try {
    return use(tree.rootNode, tree);
  } finally {
    tree.delete();
  }
}

/**
 * Parses `source` with `edits` applied, reusing `tree` (the tree of `source`) so only the edited
 * region is parsed again: checking many rewrites of one large file costs a fraction of a full
 * parse each. `tree` itself is left as it was.
 */
export function withEditedJavaTree<T>(
  tree: Tree,
  source: string,
  edits: readonly TextEdit[],
  use: (root: Node) => T,
): T {
  const edited = tree.copy();
  let text = source;
  try {
    // From the last edit back, so each edit's offsets still hold in the text so far.
    for (const edit of [...edits].sort((a, b) => b.start - a.start)) {
      const startPosition = pointAt(text, edit.start);
      const oldEndPosition = pointAt(text, edit.end);
      text = text.slice(0, edit.start) + edit.text + text.slice(edit.end);
      const newEndIndex = edit.start + edit.text.length;
      edited.edit(
        new Edit({
          startIndex: edit.start,
          oldEndIndex: edit.end,
          newEndIndex,
          startPosition,
          oldEndPosition,
          newEndPosition: pointAt(text, newEndIndex),
        }),
      );
    }
    const reparsed = javaParser().parse(text, edited);
    if (!reparsed) throw new Error('tree-sitter returned no tree');
    try {
      return use(reparsed.rootNode);
    } finally {
      reparsed.delete();
    }
  } finally {
    edited.delete();
  }
}

/** Row and column (UTF-16 units, as the tree reports them) of an offset. */
function pointAt(text: string, index: number): Point {
  let row = 0;
  let lineStart = 0;
  for (let at = text.indexOf('\n'); at !== -1 && at < index; at = text.indexOf('\n', at + 1)) {
    row++;
    lineStart = at + 1;
  }
  return { row, column: index - lineStart };
}

/** Parses two versions of a file together (for comparisons), freeing both trees afterwards. */
export function withJavaTrees<T>(before: string, after: string, use: (a: Node, b: Node) => T): T {
  return withJavaTree(before, (a) => withJavaTree(after, (b) => use(a, b)));
}

export function hasSyntaxError(root: Node): boolean {
  return root.hasError;
}

export const METHOD_TYPES = ['method_declaration', 'constructor_declaration'] as const;
export const CLASS_TYPES = [
  'class_declaration',
  'enum_declaration',
  'record_declaration',
  'interface_declaration',
] as const;

/** Direct named children of a node, without nulls. */
export function kids(node: Node): Node[] {
  return node.namedChildren.filter((child): child is Node => child !== null);
}

export function field(node: Node, name: string): Node | null {
  return node.childForFieldName(name);
}

/** All descendants of the given types (the node itself included), in source order. */
export function descendants(node: Node, types: string | readonly string[]): Node[] {
  const wanted = new Set(typeof types === 'string' ? [types] : types);
  const found: Node[] = [];
  const visit = (current: Node) => {
    if (wanted.has(current.type)) found.push(current);
    for (const child of current.children) if (child) visit(child);
  };
  visit(node);
  return found;
}

/** The closest ancestor of one of the given types. */
export function ancestor(node: Node, types: string | readonly string[]): Node | null {
  const wanted = new Set(typeof types === 'string' ? [types] : types);
  for (let current = node.parent; current; current = current.parent) {
    if (wanted.has(current.type)) return current;
  }
  return null;
}

/** Whether `inner` lies within `outer` (or is it). */
export function within(inner: Node, outer: Node): boolean {
  return inner.startIndex >= outer.startIndex && inner.endIndex <= outer.endIndex;
}

export function isComment(node: Node): boolean {
  return node.type === 'line_comment' || node.type === 'block_comment';
}

/** Whether two nodes are the same node of one tree (either may be missing). */
export function sameNode(a: Node | null | undefined, b: Node | null | undefined): boolean {
  return !!a && !!b && a.id === b.id;
}

/** The operator token of a binary, unary or assignment expression. */
export function operatorOf(node: Node): string {
  return field(node, 'operator')?.type ?? '';
}

/** Statements of a block (or the statement itself), comments left out. */
export function statementsOf(node: Node): Node[] {
  return node.type === 'block' ? kids(node).filter((k) => !isComment(k)) : [node];
}

/**
 * The node's tokens without comments or whitespace: two versions that differ only in layout or
 * comments give the same list.
 */
export function tokens(node: Node): string[] {
  const out: string[] = [];
  const visit = (current: Node) => {
    if (isComment(current)) return;
    if (current.childCount === 0) {
      out.push(current.text);
      return;
    }
    for (const child of current.children) if (child) visit(child);
  };
  visit(node);
  return out;
}

export function sameTokens(a: Node, b: Node): boolean {
  const left = tokens(a);
  const right = tokens(b);
  return left.length === right.length && left.every((token, i) => token === right[i]);
}

/** Source text with generics removed, e.g. `Map<String, List<X>>` → `Map`. */
export function erasedType(typeText: string): string {
  let depth = 0;
  let out = '';
  for (const char of typeText) {
    if (char === '<') depth++;
    else if (char === '>') depth--;
    else if (depth === 0 && !/\s/.test(char)) out += char;
  }
  return out.replace(/^final/, '').replace(/\.\.\.$/, '[]');
}

/** Parameter types of a method or constructor as written, generics erased, e.g. ["String", "int[]"]. */
export function parameterTypeNames(method: Node): string[] {
  const parameters = field(method, 'parameters');
  if (!parameters) return [];
  return kids(parameters)
    .filter((p) => p.type === 'formal_parameter' || p.type === 'spread_parameter')
    .map((p) => {
      if (p.type === 'spread_parameter') {
        const type = kids(p).find(
          (k) => k.type !== 'modifiers' && k.type !== 'variable_declarator',
        );
        return `${erasedType(type?.text ?? '?')}[]`;
      }
      const type = field(p, 'type');
      const dims = field(p, 'dimensions')?.text ?? '';
      return erasedType((type?.text ?? '?') + dims);
    });
}

/** The simple type name without a package, e.g. `java.util.Map` → `Map`. */
export function simpleTypeName(typeText: string): string {
  const erased = erasedType(typeText);
  return erased.slice(erased.lastIndexOf('.') + 1);
}

/** The package a compilation unit declares, '' for the default package. */
export function packageOf(root: Node): string {
  const declaration = root.namedChildren.find((child) => child?.type === 'package_declaration');
  if (!declaration) return '';
  const name = declaration.namedChildren.find(
    (child) => child?.type === 'scoped_identifier' || child?.type === 'identifier',
  );
  return name?.text ?? '';
}

export function nameOf(node: Node): string {
  return field(node, 'name')?.text ?? '';
}

/** 1-based line of the node's name (where a declaration's name stands). */
export function declarationLine(node: Node): number {
  return (field(node, 'name') ?? node).startPosition.row + 1;
}

/** Dotted names of the classes enclosing a member, outermost first, e.g. `Outer.Inner`. */
export function enclosingClassPath(node: Node): string {
  const names: string[] = [];
  for (let current = node.parent; current; current = current.parent) {
    if ((CLASS_TYPES as readonly string[]).includes(current.type)) names.unshift(nameOf(current));
  }
  return names.join('.');
}

/**
 * A method's identity within a file: enclosing classes, name and erased parameter types, e.g.
 * `JSONParser.parse(String)`. Stable across edits to the method's body.
 */
export function memberKey(method: Node): string {
  return `${enclosingClassPath(method)}.${nameOf(method)}(${parameterTypeNames(method)
    .map(simpleTypeName)
    .join(',')})`;
}

export function modifierWords(node: Node): string[] {
  const modifiers = kids(node).find((k) => k.type === 'modifiers');
  if (!modifiers) return [];
  return modifiers.children
    .filter((k): k is Node => k !== null && !isComment(k))
    .map((k) => k.text.replace(/\(.*$/s, ''));
}

const membersOfTree = new WeakMap<Tree, Map<string, Node>>();

/** Methods and constructors of a file (or of a subtree), each with its key. */
export function members(root: Node): Map<string, Node> {
  // Rules ask once per method for the members of its whole file: computed once per tree.
  const whole = root.type === 'program' ? membersOfTree.get(root.tree) : undefined;
  if (whole) return whole;
  const byKey = new Map<string, Node>();
  for (const method of descendants(root, METHOD_TYPES)) {
    // Overloads whose types erase alike, and methods of anonymous classes, share a key: later
    // ones get their ordinal, which pairs them across two versions of a file by position.
    const base = memberKey(method);
    let key = base;
    for (let ordinal = 2; byKey.has(key); ordinal++) key = `${base}#${ordinal}`;
    byKey.set(key, method);
  }
  if (root.type === 'program') membersOfTree.set(root.tree, byKey);
  return byKey;
}

/** The class, enum or record that directly declares a member. */
export function declaringClass(member: Node): Node | null {
  const body = member.parent;
  const owner = body?.parent ?? null;
  return owner && (CLASS_TYPES as readonly string[]).includes(owner.type) ? owner : null;
}

/** The body nodes of a class: its declarations (methods, fields, nested classes). */
export function classMembers(classNode: Node): Node[] {
  const body = field(classNode, 'body');
  if (!body) return [];
  const direct = kids(body);
  // Enum bodies hold their methods in an enum_body_declarations child.
  return direct.flatMap((child) =>
    child.type === 'enum_body_declarations' ? kids(child) : [child],
  );
}

/** Names of the fields a class declares. */
export function fieldNames(classNode: Node): Set<string> {
  const names = new Set<string>();
  for (const member of classMembers(classNode)) {
    if (member.type !== 'field_declaration') continue;
    for (const declarator of kids(member).filter((k) => k.type === 'variable_declarator')) {
      names.add(nameOf(declarator));
    }
  }
  if (classNode.type === 'record_declaration') {
    const parameters = field(classNode, 'parameters');
    for (const parameter of parameters ? kids(parameters) : []) names.add(nameOf(parameter));
  }
  return names;
}

/** Declared types of the names visible in a method: its class's fields, its parameters and locals. */
export function declaredTypes(method: Node): Map<string, string> {
  const types = new Map<string, string>();
  const owner = declaringClass(method);
  const record = (declaration: Node) => {
    const type = field(declaration, 'type');
    if (!type) return;
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator')) {
      types.set(nameOf(declarator), type.text);
    }
  };
  for (const member of owner ? classMembers(owner) : []) {
    if (member.type === 'field_declaration') record(member);
  }
  for (const parameter of descendants(method, ['formal_parameter'])) {
    const type = field(parameter, 'type');
    if (type)
      types.set(nameOf(parameter), type.text + (field(parameter, 'dimensions')?.text ?? ''));
  }
  for (const local of descendants(method, 'local_variable_declaration')) record(local);
  for (const loop of descendants(method, 'enhanced_for_statement')) {
    const type = field(loop, 'type');
    if (type) types.set(nameOf(loop), type.text);
  }
  return types;
}

/**
 * A member's signature as tokens: modifiers (annotations left out: they do not change what
 * callers see), type parameters, return type, name, parameters and throws clause.
 */
export function signatureText(member: Node): string {
  const parts: string[] = [];
  for (const child of member.children) {
    if (!child || isComment(child)) continue;
    if (child.type === 'block' || child.type === 'constructor_body') continue;
    if (child.type === 'modifiers') {
      parts.push(...modifierWords(member).filter((word) => !word.startsWith('@')));
    } else {
      parts.push(...tokens(child));
    }
  }
  return parts.join(' ');
}

/** Whether a member is visible outside its package's implementation: public or protected. */
export function isApiVisible(member: Node): boolean {
  const words = modifierWords(member);
  if (words.includes('public') || words.includes('protected')) return true;
  // Interface members are public unless private.
  const owner = declaringClass(member);
  return owner?.type === 'interface_declaration' && !words.includes('private');
}

/** The node types of Java's loops. */
export const LOOP_TYPES: readonly string[] = [
  'for_statement',
  'enhanced_for_statement',
  'while_statement',
  'do_statement',
];

export function isLoop(node: Node): boolean {
  return LOOP_TYPES.includes(node.type);
}

/** Strips redundant parentheses. */
export function unparenthesized(node: Node): Node {
  let current = node;
  while (current.type === 'parenthesized_expression' && current.namedChildCount === 1) {
    current = current.namedChild(0)!;
  }
  return current;
}

export interface TextEdit {
  /** UTF-16 offsets into the file's source. */
  start: number;
  end: number;
  text: string;
}

/** Applies non-overlapping edits to a source text. */
export function applyEdits(source: string, edits: readonly TextEdit[]): string {
  const sorted = [...edits].sort((a, b) => b.start - a.start);
  let out = source;
  let limit = Infinity;
  for (const edit of sorted) {
    if (edit.end > limit) throw new Error('overlapping edits');
    out = out.slice(0, edit.start) + edit.text + out.slice(edit.end);
    limit = edit.start;
  }
  return out;
}

/** The whole line(s) a statement occupies, with its indentation and line break, for deletion. */
export function statementLineRange(source: string, node: Node): { start: number; end: number } {
  let start = node.startIndex;
  while (start > 0 && (source[start - 1] === ' ' || source[start - 1] === '\t')) start--;
  let end = node.endIndex;
  while (end < source.length && (source[end] === ' ' || source[end] === '\t')) end++;
  const ownsLine = (start === 0 || source[start - 1] === '\n') && source[end] === '\n';
  return ownsLine ? { start, end: end + 1 } : { start: node.startIndex, end: node.endIndex };
}

/** Indentation of the line a node starts on. */
export function indentationOf(source: string, node: Node): string {
  const lineStart = source.lastIndexOf('\n', node.startIndex - 1) + 1;
  return /^[ \t]*/.exec(source.slice(lineStart))![0];
}

/** The leaves `tokens` lists, as nodes: their positions locate a sub-node's tokens in the list. */
export function tokenLeaves(node: Node): Node[] {
  const out: Node[] = [];
  const visit = (current: Node) => {
    if (isComment(current)) return;
    if (current.childCount === 0) {
      out.push(current);
      return;
    }
    for (const child of current.children) if (child) visit(child);
  };
  visit(node);
  return out;
}

/**
 * The nodes of a method or constructor that belong to it, not to a class declared inside it
 * (anonymous or local classes have members of their own); lambda bodies belong to it.
 */
export function ownDescendants(member: Node, types: string | readonly string[]): Node[] {
  const owners = [...METHOD_TYPES, 'class_body', 'enum_body', 'interface_body'];
  return descendants(member, types).filter(
    (node) => node.equals(member) || ancestor(node, owners)?.equals(member) === true,
  );
}

/**
 * Methods and constructors of two versions of a file paired by position, anonymous and local
 * classes' members included, or null when the versions do not declare the same members in the
 * same order. Unlike `members`, this keeps apart overloads whose parameter types erase to the
 * same key and same-named methods of different anonymous classes.
 */
export function membersInOrder(before: Node, after: Node): [Node, Node][] | null {
  const old = descendants(before, METHOD_TYPES);
  const now = descendants(after, METHOD_TYPES);
  if (old.length !== now.length) return null;
  const pairs = old.map((member, i): [Node, Node] => [member, now[i]!]);
  return pairs.every(([a, b]) => memberKey(a) === memberKey(b)) ? pairs : null;
}

/** Names of the methods whose declarations span one of `lines` (1-based) of a source. */
export function methodsAtLines(source: string, lines: readonly number[]): string[] {
  return withJavaTree(source, (root) =>
    descendants(root, 'method_declaration')
      .filter((method) =>
        lines.some(
          (line) => line >= method.startPosition.row + 1 && line <= method.endPosition.row + 1,
        ),
      )
      .map(nameOf),
  );
}

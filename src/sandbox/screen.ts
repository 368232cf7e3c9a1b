import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import type { Node } from 'web-tree-sitter';
import { ancestor, descendants, field, kids, withJavaTree } from '../lang/java/syntax.js';

/*
 * A static screen of an agent's submitted test sources: calls through which a test's outcome
 * could depend on something other than the production code's behaviour (project files, class
 * bytes, the process and its environment, other processes, the network, the JVM's internals, a
 * stack trace it wrote itself, the production classes' shape). The sandbox is the guarantee;
 * this screen names the line that tried. It reads the syntax tree, so comments and the text of
 * strings never count, and it follows a name only to the initialisers of that name in the same
 * file: a path or key built at run time from anything else goes unseen.
 */

export type ScreenFindingKind =
  | 'reads project files'
  | 'reads class bytes'
  | 'reads process or environment'
  | 'starts processes'
  | 'opens sockets'
  | 'uses instrumentation'
  | 'forges stack traces'
  | 'inspects class structure'
  | 'exits the JVM';

export interface ScreenFinding {
  file: string;
  /** 1-based. */
  line: number;
  kind: ScreenFindingKind;
  /** The source line, trimmed. */
  code: string;
}

export interface ScreenedProject {
  /**
   * Fully qualified names of the production classes (top-level ones suffice: a nested class
   * counts through its outer class). Package names would not do: tests share their packages.
   * Without the list, every class neither from the JDK nor declared in the submission counts.
   */
  productionClasses?: readonly string[];
}

export interface SubmittedTest {
  file: string;
  content: string;
}

/** Screens each submitted test source; findings in file order, then line order. */
export function screenSubmission(
  tests: readonly SubmittedTest[],
  project: ScreenedProject,
): ScreenFinding[] {
  // Without a list of production classes, the submission's own classes are what is not.
  const submittedClasses = new Set(
    tests.flatMap((test) =>
      withJavaTree(test.content, (root) =>
        descendants(root, CLASS_DECLARATIONS).flatMap((node) => field(node, 'name')?.text ?? []),
      ),
    ),
  );
  const production = new Set(project.productionClasses ?? []);
  const classifier: Classifier = {
    isProduction: (fqn, simple) =>
      project.productionClasses
        ? isProductionName(fqn, production)
        : !submittedClasses.has(simple) && !isJdkName(fqn),
  };
  return tests.flatMap((test) =>
    withJavaTree(test.content, (root) => screenFile(test, root, classifier)),
  );
}

/** The fully qualified names of the classes whose sources lie under `sourcesDir`. */
export async function productionClassNames(sourcesDir: string): Promise<string[]> {
  const entries = await readdir(sourcesDir, { withFileTypes: true, recursive: true });
  return entries
    .filter((entry) => entry.isFile() && entry.name.endsWith('.java'))
    .map((entry) =>
      path
        .relative(sourcesDir, path.join(entry.parentPath, entry.name))
        .replace(/\.java$/, '')
        .split(path.sep)
        .join('.'),
    );
}

/**
 * What the screen finds in a project's own test class, submitted on its own as the witness agent
 * submits it: a witness the evaluation would refuse cannot stand for a test an agent may write.
 */
export async function screenTestClass(
  testSourcesDir: string,
  testClass: string,
  project: ScreenedProject,
): Promise<ScreenFinding[]> {
  const file = `${testClass.split('$')[0]!.replaceAll('.', '/')}.java`;
  const content = await readFile(path.join(testSourcesDir, file), 'utf8');
  return screenSubmission([{ file, content }], project);
}

const CLASS_DECLARATIONS = [
  'class_declaration',
  'interface_declaration',
  'enum_declaration',
  'record_declaration',
  'annotation_type_declaration',
];

interface Classifier {
  /** Whether a class, by its resolved name and its simple name, is production code. */
  isProduction(fqn: string, simple: string): boolean;
}

function isProductionName(fqn: string, production: ReadonlySet<string>): boolean {
  // `a.B.Inner` is production when `a.B` is.
  const segments = fqn.split('.');
  for (let end = segments.length; end > 0; end--) {
    if (production.has(segments.slice(0, end).join('.'))) return true;
  }
  return false;
}

function isJdkName(fqn: string): boolean {
  return /^(java|javax|jdk|sun|com\.sun)\./.test(fqn);
}

/** java.lang's classes a test might name without an import. */
const JAVA_LANG = new Set([
  'Boolean',
  'Byte',
  'Character',
  'Class',
  'ClassLoader',
  'Double',
  'Enum',
  'Exception',
  'Float',
  'Integer',
  'Long',
  'Math',
  'Number',
  'Object',
  'Process',
  'ProcessBuilder',
  'ProcessHandle',
  'Record',
  'Runtime',
  'RuntimeException',
  'Short',
  'StackTraceElement',
  'String',
  'StringBuilder',
  'System',
  'Thread',
  'Throwable',
  'Void',
]);

/** Classes whose every mention is a finding, by fully qualified name. */
const WATCHED_CLASSES = new Map<string, ScreenFindingKind>([
  ['java.lang.ProcessBuilder', 'starts processes'],
  ['java.lang.ProcessHandle', 'reads process or environment'],
  ['java.lang.management.ManagementFactory', 'reads process or environment'],
  ['java.lang.management.RuntimeMXBean', 'reads process or environment'],
]);

/*
 * Sockets count when one is made bound or connected, or a connection opened: a socket type
 * named in a cast or made unconnected (`closeQuietly(new ServerSocket())`) reaches nothing.
 */
const SOCKET_CLASSES = new Set(['Socket', 'ServerSocket', 'DatagramSocket', 'MulticastSocket']);
const CHANNEL_CLASSES = new Set([
  'SocketChannel',
  'ServerSocketChannel',
  'DatagramChannel',
  'AsynchronousSocketChannel',
  'AsynchronousServerSocketChannel',
]);

/** Packages no test has a reason to touch: agents, class rewriting and the JDK's internals. */
const INSTRUMENTATION_PACKAGES = [
  'java.lang.instrument',
  'com.sun.tools.attach',
  'sun.misc',
  'sun.reflect',
  'jdk.internal',
];

function inInstrumentationPackage(qualified: string): boolean {
  return INSTRUMENTATION_PACKAGES.some(
    (prefix) => qualified === prefix || qualified.startsWith(`${prefix}.`),
  );
}

/** Properties that locate the class path, the build, the launch command or the working tree. */
const LOCATING_PROPERTIES = new Set([
  'java.class.path',
  'sun.java.command',
  'user.dir',
  'java.home',
  'jdk.module.path',
  'jdk.module.upgrade.path',
  'sun.boot.class.path',
  'java.library.path',
  'basedir',
  'surefire.test.class.path',
  'surefire.real.class.path',
]);

/** Methods whose arguments name a file: the path a test reads starts at one of these. */
const FILE_CONSTRUCTORS = new Set([
  'File',
  'FileInputStream',
  'FileOutputStream',
  'FileReader',
  'FileWriter',
  'RandomAccessFile',
  'PrintStream',
  'PrintWriter',
  'JarFile',
  'ZipFile',
  'URL',
  'URI',
]);
const FILE_CLASSES = new Set(['Files', 'Paths', 'Path', 'FileSystems', 'URI']);
const PATH_METHODS = new Set(['resolve', 'resolveSibling', 'getPath']);
const PATH_BUILDERS = new Set([
  ...PATH_METHODS,
  'get',
  'of',
  'toPath',
  'toFile',
  'toURI',
  'toURL',
  'toAbsolutePath',
  'getAbsoluteFile',
  'getAbsolutePath',
  'getCanonicalFile',
  'getCanonicalPath',
  'normalize',
  'toRealPath',
]);

const RESOURCE_METHODS = new Set([
  'getResource',
  'getResourceAsStream',
  'getResources',
  'getSystemResource',
  'getSystemResourceAsStream',
  'getSystemResources',
]);
const CLASS_NAME_METHODS = new Set(['getName', 'getSimpleName', 'getCanonicalName', 'getTypeName']);
const CLASS_LOCATING_METHODS = new Set(['defineClass', 'getProtectionDomain', 'getCodeSource']);

/*
 * Listings that see private members. A bug keeps the production classes' public and protected
 * signatures (the injector's signature check) but may add private helpers and fields, so only the private
 * shape can tell the trees apart; listing public members or constructors, as utility-class and
 * API-contract tests do, cannot.
 */
const MEMBER_LISTINGS = new Set(['getDeclaredMethods', 'getDeclaredFields', 'getDeclaredClasses']);

/** Calls that look a key up, on any receiver: `System.getProperties().get("java.class.path")`. */
const KEY_LOOKUPS = new Set([
  'getProperty',
  'get',
  'getOrDefault',
  'getInteger',
  'getLong',
  'getBoolean',
]);

/** Words of an environment variable's name that mark it as a secret or a location. */
const REVEALING_ENVIRONMENT_WORDS = new Set([
  'API',
  'AUTH',
  'CLASSPATH',
  'CREDENTIALS',
  'DIR',
  'HOME',
  'JAVA',
  'KEY',
  'M2',
  'MAVEN',
  'OLDPWD',
  'PASSWORD',
  'PWD',
  'SECRET',
  'TOKEN',
]);

interface FileContext {
  root: Node;
  classifier: Classifier;
  packageName: string;
  /** Simple name → fully qualified name, from single-type imports. */
  imports: Map<string, string>;
  /** Packages imported whole. */
  wildcardImports: string[];
  /** Member name → its class, from single static imports. */
  staticImports: Map<string, string>;
  /** Classes whose static members are imported whole. */
  staticWildcards: string[];
  /** Every declared or assigned value of a name in the file, scopes ignored. */
  values: Map<string, Node[]>;
  /** Every declared type of a name in the file, scopes ignored. */
  types: Map<string, string[]>;
  declaredClasses: Set<string>;
}

function screenFile(test: SubmittedTest, root: Node, classifier: Classifier): ScreenFinding[] {
  const context = fileContext(root, classifier);
  const lines = test.content.split('\n');
  const found = new Map<string, ScreenFinding>();
  const report = (node: Node, kind: ScreenFindingKind) => {
    const line = node.startPosition.row + 1;
    const key = `${line}\u0000${kind}`;
    if (!found.has(key)) {
      found.set(key, { file: test.file, line, kind, code: (lines[line - 1] ?? '').trim() });
    }
  };
  for (const node of descendants(root, 'import_declaration')) {
    const name = kids(node).find((k) => k.type === 'scoped_identifier' || k.type === 'identifier');
    if (name && inInstrumentationPackage(name.text)) report(node, 'uses instrumentation');
  }
  for (const node of descendants(root, ['identifier', 'type_identifier'])) {
    const kind = watchedReference(node, context);
    if (kind) report(node, kind);
  }
  for (const node of descendants(root, ['scoped_identifier', 'scoped_type_identifier'])) {
    if (ancestor(node, 'import_declaration')) continue;
    if (node.parent?.type === node.type) continue;
    if (inInstrumentationPackage(compact(node.text))) report(node, 'uses instrumentation');
  }
  for (const node of descendants(root, 'field_access')) {
    if (node.parent?.type === 'field_access') continue;
    if (inInstrumentationPackage(compact(node.text))) report(node, 'uses instrumentation');
  }
  for (const node of descendants(root, 'object_creation_expression')) {
    const kind = creationFinding(node, context);
    if (kind) report(node, kind);
  }
  for (const node of descendants(root, 'method_invocation')) {
    const kind = invocationFinding(node, context);
    // A chained call's line is its method name's, not the chain's first line.
    if (kind) report(field(node, 'name') ?? node, kind);
  }
  return [...found.values()].sort((a, b) => a.line - b.line);
}

function isComment(node: Node): boolean {
  return node.type === 'line_comment' || node.type === 'block_comment';
}

function compact(text: string): string {
  return text.replace(/\s+/g, '');
}

function fileContext(root: Node, classifier: Classifier): FileContext {
  const imports = new Map<string, string>();
  const wildcardImports: string[] = [];
  const staticImports = new Map<string, string>();
  const staticWildcards: string[] = [];
  for (const node of descendants(root, 'import_declaration')) {
    const isStatic = node.children.some((child) => child?.type === 'static');
    const wildcard = kids(node).some((k) => k.type === 'asterisk');
    const name = compact(
      kids(node).find((k) => k.type === 'scoped_identifier' || k.type === 'identifier')?.text ?? '',
    );
    const lastDot = name.lastIndexOf('.');
    if (isStatic && wildcard) staticWildcards.push(name);
    else if (isStatic) staticImports.set(name.slice(lastDot + 1), name.slice(0, lastDot));
    else if (wildcard) wildcardImports.push(name);
    else imports.set(name.slice(lastDot + 1), name);
  }
  const packageNode = descendants(root, 'package_declaration')[0];
  const packageName = compact(
    (packageNode && kids(packageNode).find((k) => k.type !== 'annotation'))?.text ?? '',
  );
  const values = new Map<string, Node[]>();
  const types = new Map<string, string[]>();
  const addValue = (name: string | undefined, value: Node | null) => {
    if (name && value) values.set(name, [...(values.get(name) ?? []), value]);
  };
  const addType = (name: string | undefined, type: Node | null) => {
    if (name && type) types.set(name, [...(types.get(name) ?? []), compact(type.text)]);
  };
  for (const declarator of descendants(root, 'variable_declarator')) {
    addValue(field(declarator, 'name')?.text, field(declarator, 'value'));
    addType(field(declarator, 'name')?.text, field(declarator.parent!, 'type'));
  }
  for (const parameter of descendants(root, ['formal_parameter', 'catch_formal_parameter'])) {
    addType(field(parameter, 'name')?.text, field(parameter, 'type'));
  }
  for (const loop of descendants(root, 'enhanced_for_statement')) {
    addValue(field(loop, 'name')?.text, field(loop, 'value'));
    addType(field(loop, 'name')?.text, field(loop, 'type'));
  }
  for (const assignment of descendants(root, 'assignment_expression')) {
    const left = field(assignment, 'left');
    if (left?.type === 'identifier') addValue(left.text, field(assignment, 'right'));
  }
  const declaredClasses = new Set(
    descendants(root, CLASS_DECLARATIONS).flatMap((node) => field(node, 'name')?.text ?? []),
  );
  return {
    root,
    classifier,
    packageName,
    imports,
    wildcardImports,
    staticImports,
    staticWildcards,
    values,
    types,
    declaredClasses,
  };
}

/**
 * The fully qualified name a type name stands for in this file, or undefined when the file
 * declares it or nothing says where it comes from.
 */
function resolveType(name: string, context: FileContext): string | undefined {
  const text = compact(name).replace(/<.*$/, '');
  const [first, ...rest] = text.split('.');
  if (!first) return undefined;
  const suffix = rest.length > 0 ? `.${rest.join('.')}` : '';
  if (/^[a-z]/.test(first) && rest.length > 0) return text;
  if (context.declaredClasses.has(first)) return undefined;
  const imported = context.imports.get(first);
  if (imported) return imported + suffix;
  for (const pkg of context.wildcardImports) {
    if (WATCHED_CLASSES.has(`${pkg}.${first}`)) return `${pkg}.${first}${suffix}`;
  }
  if (JAVA_LANG.has(first)) return `java.lang.${first}${suffix}`;
  return undefined;
}

/** Candidates for a class named without an import: its own package, then each wildcard. */
function typeCandidates(name: string, context: FileContext): string[] {
  const text = compact(name).replace(/<.*$/, '');
  const resolved = resolveType(text, context);
  if (resolved) return [resolved];
  const first = text.split('.')[0] ?? '';
  if (context.declaredClasses.has(first)) return [];
  const packages = [context.packageName, ...context.wildcardImports].filter(Boolean);
  return packages.map((pkg) => `${pkg}.${text}`);
}

function isType(name: string, fqn: string, context: FileContext): boolean {
  return resolveType(name, context) === fqn;
}

/** The kind a mention of a watched class stands for, if this identifier is one. */
function watchedReference(node: Node, context: FileContext): ScreenFindingKind | undefined {
  const parent = node.parent;
  if (!parent || ancestor(node, 'import_declaration')) return undefined;
  const qualifying = ['scoped_type_identifier', 'scoped_identifier', 'field_access'].includes(
    parent.type,
  );
  // A declaration's own name, or a method's: not a mention of a class.
  if (!qualifying && field(parent, 'name')?.equals(node)) return undefined;
  // The last part of `java.net.Socket` is read with its qualifier; a first part on its own.
  const qualified = qualifying && parent.lastNamedChild?.equals(node) ? parent.text : node.text;
  const fqn = resolveType(qualified, context);
  return fqn === undefined ? undefined : WATCHED_CLASSES.get(fqn);
}

function creationFinding(node: Node, context: FileContext): ScreenFindingKind | undefined {
  const type = compact(field(node, 'type')?.text ?? '').replace(/<.*$/, '');
  const simple = type.slice(type.lastIndexOf('.') + 1);
  const args = field(node, 'arguments');
  const argCount = args ? kids(args).length : 0;
  if (FILE_CONSTRUCTORS.has(simple) && args && namesProjectFile(pathTexts(args, context))) {
    return 'reads project files';
  }
  if (SOCKET_CLASSES.has(simple) && argCount > 0) return 'opens sockets';
  if (isType(type, 'java.lang.StackTraceElement', context)) return 'forges stack traces';
  return undefined;
}

function invocationFinding(node: Node, context: FileContext): ScreenFindingKind | undefined {
  const name = field(node, 'name')?.text ?? '';
  const object = field(node, 'object');
  const args = field(node, 'arguments');
  const firstArg = args ? kids(args)[0] : undefined;
  const objectText = compact(object?.text ?? '');
  const owner = object ? objectText : context.staticImports.get(name);
  const ownerIs = (fqn: string) =>
    owner !== undefined ? isType(owner, fqn, context) : context.staticWildcards.includes(fqn);
  const ownerSimple = objectText.slice(objectText.lastIndexOf('.') + 1);

  if (name === 'setStackTrace') return 'forges stack traces';
  if (name === 'exit' && (ownerIs('java.lang.System') || isRuntime(object, context))) {
    return 'exits the JVM';
  }
  if (name === 'halt' && isRuntime(object, context)) return 'exits the JVM';
  if (name === 'exec' && isRuntime(object, context)) return 'starts processes';
  if (name === 'getAllStackTraces' && ownerIs('java.lang.Thread')) {
    return 'reads process or environment';
  }
  if (name === 'getenv' && ownerIs('java.lang.System')) {
    if (!firstArg || revealsEnvironment(firstArg, context)) return 'reads process or environment';
  }
  if (KEY_LOOKUPS.has(name) && firstArg) {
    // A key spelled at run time could be any key: only System's own lookup is held to that.
    const dynamicAllowed = !(name === 'getProperty' && ownerIs('java.lang.System'));
    if (readsLocatingProperty(firstArg, context, dynamicAllowed)) {
      return 'reads process or environment';
    }
  }
  if (CLASS_LOCATING_METHODS.has(name)) return 'reads class bytes';
  if (RESOURCE_METHODS.has(name) && firstArg && namesClassBytes(firstArg, context)) {
    return 'reads class bytes';
  }
  if (isPathCall(name, object, context) && namesProjectFile(pathTexts(node, context))) {
    return 'reads project files';
  }
  if (name === 'openConnection' && object && !isFileUrl(object, context)) {
    return 'opens sockets';
  }
  if (name === 'openStream' && object && spellsUrl(object, context, NETWORK_URL)) {
    return 'opens sockets';
  }
  if ((name === 'connect' || name === 'bind') && object && isSocket(object, context)) {
    return 'opens sockets';
  }
  if (name === 'open' && CHANNEL_CLASSES.has(ownerSimple)) return 'opens sockets';
  if ((name === 'newHttpClient' || name === 'newBuilder') && ownerSimple === 'HttpClient') {
    return 'opens sockets';
  }
  if (name === 'privateLookupIn' && (!firstArg || !isOwnClass(firstArg, context))) {
    return 'uses instrumentation';
  }
  if (MEMBER_LISTINGS.has(name) && object && listsProductionMembers(node, object, context)) {
    return 'inspects class structure';
  }
  return undefined;
}

const NETWORK_URL = /^(?!(jar:)?file:)[a-z][a-z0-9+.-]*:/i;

function isPathCall(name: string, object: Node | null, context: FileContext): boolean {
  return PATH_METHODS.has(name) || (object !== null && isFileClass(object, context));
}

function isRuntime(object: Node | null, context: FileContext): boolean {
  if (!object) return false;
  if (object.type === 'method_invocation' && field(object, 'name')?.text === 'getRuntime') {
    const owner = field(object, 'object');
    return owner !== null && isType(owner.text, 'java.lang.Runtime', context);
  }
  if (object.type === 'identifier') {
    return (context.types.get(object.text) ?? []).some((type) =>
      isType(type, 'java.lang.Runtime', context),
    );
  }
  return false;
}

function isSocket(object: Node, context: FileContext): boolean {
  const simple = (type: string) => type.replace(/<.*$/, '').slice(type.lastIndexOf('.') + 1);
  if (object.type !== 'identifier') return false;
  return (context.types.get(object.text) ?? []).some(
    (type) => SOCKET_CLASSES.has(simple(type)) || CHANNEL_CLASSES.has(simple(type)),
  );
}

/** Whether a property key, as far as the file spells it, is a locating one. */
function readsLocatingProperty(key: Node, context: FileContext, dynamicAllowed: boolean): boolean {
  const spelled = literalAlternatives(key, context);
  if (spelled === undefined) return !dynamicAllowed;
  return spelled.some((text) => LOCATING_PROPERTIES.has(text));
}

/** Whether an environment variable's name is spelled at run time or names a secret or place. */
function revealsEnvironment(key: Node, context: FileContext): boolean {
  const spelled = literalAlternatives(key, context);
  if (spelled === undefined) return true;
  return spelled.some((text) =>
    text
      .toUpperCase()
      .split(/[^A-Z0-9]+/)
      .some((word) => REVEALING_ENVIRONMENT_WORDS.has(word)),
  );
}

const MAX_ALTERNATIVES = 256;

/**
 * The strings an expression can take, as far as literals, concatenation and the file's
 * initialisers of the names it uses spell them; undefined when anything else contributes.
 */
function literalAlternatives(
  node: Node,
  context: FileContext,
  seen: ReadonlySet<string> = new Set(),
): string[] | undefined {
  switch (node.type) {
    case 'string_literal':
      return [stringValue(node)];
    case 'parenthesized_expression':
      return kids(node)[0] ? literalAlternatives(kids(node)[0]!, context, seen) : undefined;
    case 'binary_expression': {
      if (field(node, 'operator')?.text !== '+') return undefined;
      const left = literalAlternatives(field(node, 'left')!, context, seen);
      const right = literalAlternatives(field(node, 'right')!, context, seen);
      if (!left || !right || left.length * right.length > MAX_ALTERNATIVES) return undefined;
      return left.flatMap((a) => right.map((b) => a + b));
    }
    case 'identifier': {
      if (seen.has(node.text)) return undefined;
      const values = context.values.get(node.text);
      if (!values) return undefined;
      const inner = new Set([...seen, node.text]);
      const all: string[] = [];
      for (const value of values) {
        const spelled = literalAlternatives(value, context, inner);
        if (!spelled) return undefined;
        all.push(...spelled);
      }
      return all;
    }
    case 'array_creation_expression':
    case 'array_initializer': {
      const initializer =
        node.type === 'array_initializer'
          ? node
          : kids(node).find((k) => k.type === 'array_initializer');
      if (!initializer) return undefined;
      const all: string[] = [];
      for (const element of kids(initializer).filter((kid) => !isComment(kid))) {
        const spelled = literalAlternatives(element, context, seen);
        if (!spelled) return undefined;
        all.push(...spelled);
      }
      return all;
    }
    default:
      return undefined;
  }
}

function stringValue(literal: Node): string {
  return kids(literal)
    .map((part) => (part.type === 'escape_sequence' ? unescaped(part.text) : part.text))
    .join('');
}

function unescaped(escape: string): string {
  const unicode = /^\\u+([0-9a-fA-F]{4})$/.exec(escape);
  if (unicode) return String.fromCharCode(parseInt(unicode[1]!, 16));
  const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', b: '\b', f: '\f', s: ' ' };
  const char = escape.slice(1);
  return simple[char] ?? char;
}

/** Stands for a part of a path computed at run time. */
const GAP = '\u0000';

/**
 * The paths an expression spells, each argument a segment, as far as the file shows: `new
 * File("src", "main")` spells `src/main`; a part computed at run time is a GAP. A name made by
 * another file call (`new File(dir, "x")`) is a GAP too: that call is screened where it stands.
 */
function pathTexts(
  node: Node,
  context: FileContext,
  seen: ReadonlySet<string> = new Set(),
): string[] {
  const spelled = literalAlternatives(node, context, seen);
  if (spelled) return spelled;
  switch (node.type) {
    case 'argument_list':
      return joined(
        kids(node).map((arg) => pathTexts(arg, context, seen)),
        '/',
      );
    case 'binary_expression':
      return field(node, 'operator')?.text === '+'
        ? joined(
            [field(node, 'left')!, field(node, 'right')!].map((part) =>
              pathTexts(part, context, seen),
            ),
            '',
          )
        : [GAP];
    case 'parenthesized_expression':
      return kids(node)[0] ? pathTexts(kids(node)[0]!, context, seen) : [GAP];
    case 'ternary_expression': {
      const branches = [field(node, 'consequence'), field(node, 'alternative')];
      return branches.flatMap((branch) => (branch ? pathTexts(branch, context, seen) : [GAP]));
    }
    case 'identifier': {
      const values = context.values.get(node.text);
      if (seen.has(node.text) || !values) return [GAP];
      const inner = new Set([...seen, node.text]);
      return capped(
        values.flatMap((value) =>
          madeByFileCall(value) ? [GAP] : pathTexts(value, context, inner),
        ),
      );
    }
    case 'method_invocation': {
      // Only calls that build, convert or open a path carry its parts; any other is a gap.
      const object = field(node, 'object');
      const opensPath = object !== null && isFileClass(object, context);
      if (!PATH_BUILDERS.has(field(node, 'name')?.text ?? '') && !opensPath) return [GAP];
      const args = field(node, 'arguments');
      const parts = [];
      if (object && !isClassName(object, context)) parts.push(pathTexts(object, context, seen));
      if (args && kids(args).length > 0) parts.push(pathTexts(args, context, seen));
      return joined(parts, '/');
    }
    default:
      return [GAP];
  }
}

function madeByFileCall(value: Node): boolean {
  if (value.type === 'object_creation_expression') {
    const type = compact(field(value, 'type')?.text ?? '');
    return FILE_CONSTRUCTORS.has(type.slice(type.lastIndexOf('.') + 1));
  }
  return value.type === 'method_invocation';
}

/** Whether an expression is one of the JDK's file classes (`Files`, `FileSystems.getDefault()`). */
function isFileClass(node: Node, context: FileContext): boolean {
  if (isDefaultFileSystem(node)) return true;
  const text = compact(node.text);
  return isClassName(node, context) && FILE_CLASSES.has(text.slice(text.lastIndexOf('.') + 1));
}

function isDefaultFileSystem(node: Node): boolean {
  const owner = field(node, 'object');
  return (
    node.type === 'method_invocation' &&
    field(node, 'name')?.text === 'getDefault' &&
    owner !== null &&
    compact(owner.text).endsWith('FileSystems')
  );
}

/** Whether an expression names a class (`Paths`, `java.nio.file.Paths`), not a value. */
function isClassName(node: Node, context: FileContext): boolean {
  if (isDefaultFileSystem(node)) return true;
  if (node.type !== 'identifier' && node.type !== 'field_access') return false;
  const last = compact(node.text).split('.').pop() ?? '';
  return /^[A-Z]/.test(last) && !context.values.has(last);
}

/** Every combination of one alternative per part, joined by `separator`. */
function joined(parts: readonly string[][], separator: string): string[] {
  return parts
    .reduce<string[]>(
      (prefixes, alternatives) =>
        capped(prefixes.flatMap((prefix) => alternatives.map((a) => prefix + separator + a))),
      [''],
    )
    .map((text) => text.slice(separator.length));
}

function capped(alternatives: string[]): string[] {
  return alternatives.slice(0, MAX_ALTERNATIVES);
}

/** Maven's outputs under target/ that hold the project's classes or reports of their runs. */
const BUILD_OUTPUTS =
  /^target(\/(classes|test-classes|generated-sources|generated-test-sources|maven-status|surefire-reports|jacoco[^/]*|[^/]*\.jar)(\/|$)|\/?$)/;

/**
 * Whether a spelled path names production sources, class files, build output, the build file,
 * the process table or a way up out of the working tree. Only paths that start from a literal
 * count, i.e. from the working directory (the project) or the root: a path under a directory
 * computed at run time (a temporary directory, a resource's location) is the test's own.
 */
function namesProjectFile(spelled: readonly string[]): boolean {
  return spelled.some((raw) => {
    const path = raw.replace(/\\/g, '/').replace(/^(jar:)?file:(\/\/)?/, '');
    if (path.startsWith(GAP)) return false;
    const relative = path.replace(/^(\.\/)+/, '');
    if (/(^|\/)\.\.(\/|$)/.test(relative)) return true;
    if (/(^|\/)src\/main(\/|$)/.test(relative)) return true;
    if (BUILD_OUTPUTS.test(relative) || /^pom\.xml$/.test(relative)) return true;
    if (/^\/proc(\/|$)/.test(relative)) return true;
    // A bare `Foo.java` names nothing in the working tree; an absolute one may be the project.
    return relative.startsWith('/') && /\.(java|class)$/.test(relative);
  });
}

/** Whether a resource name is a project class file, is built from a class's name, or is a root. */
function namesClassBytes(name: Node, context: FileContext): boolean {
  const spelled = pathTexts(name, context).map((text) => text.replace(/^\//, ''));
  const jdkClass = (text: string) => /^(java|javax|jdk|sun)\//.test(text);
  if (spelled.some((text) => /\.class$/.test(text) && !jdkClass(text))) return true;
  if (spelled.some((text) => /(^|\/)\.\.(\/|$)/.test(text) || text === '' || text === '.')) {
    return true;
  }
  const fromClassName = descendants(name, 'method_invocation').some((call) =>
    CLASS_NAME_METHODS.has(field(call, 'name')?.text ?? ''),
  );
  // `getSimpleName() + ".txt"` names a test resource; without another extension it names a class.
  return fromClassName && !spelled.some((text) => /\.[A-Za-z0-9]+$/.test(text));
}

/** Whether a URL is spelled `file:` or made from a file (`file.toURI().toURL()`). */
function isFileUrl(url: Node, context: FileContext): boolean {
  if (url.type === 'method_invocation' && field(url, 'name')?.text === 'toURL') {
    const from = field(url, 'object');
    const fromName = from?.type === 'method_invocation' ? field(from, 'name')?.text : undefined;
    if (fromName === 'toURI' || fromName === 'toUri') return true;
  }
  return spellsUrl(url, context, /^(jar:)?file:/i);
}

/** Whether a URL, as far as the file spells it (through the names it is kept under), matches. */
function spellsUrl(
  url: Node,
  context: FileContext,
  pattern: RegExp,
  seen: ReadonlySet<string> = new Set(),
): boolean {
  if (url.type === 'object_creation_expression') {
    const args = field(url, 'arguments');
    return args !== null && pathTexts(args, context).some((text) => pattern.test(text));
  }
  if (url.type === 'identifier' && !seen.has(url.text)) {
    const inner = new Set([...seen, url.text]);
    return (context.values.get(url.text) ?? []).some((value) =>
      spellsUrl(value, context, pattern, inner),
    );
  }
  return pathTexts(url, context).some((text) => pattern.test(text));
}

/** Whether a class argument names a class that is not the JDK's. */
function isOwnClass(target: Node, context: FileContext): boolean {
  if (target.type !== 'class_literal') return false;
  const resolved = resolveType(kids(target)[0]?.text ?? '', context);
  // A name nothing imports is the file's own or its package's (a JDK class from a wildcard
  // import goes unseen).
  return resolved === undefined || !isJdkName(resolved);
}

/**
 * Whether a member listing reads production classes' shape. Listing a class's members to call
 * them or read their values (`invoke`, `newInstance`, `field.get`) is a test of behaviour and is
 * left alone; naming one member (`getDeclaredMethod("name")`) is never a listing.
 */
function listsProductionMembers(call: Node, object: Node, context: FileContext): boolean {
  const owner = ancestor(call, ['method_declaration', 'constructor_declaration']) ?? context.root;
  const usesListed = descendants(owner, 'method_invocation').some((other) =>
    usesMember(other, context),
  );
  if (usesListed) return false;
  return classesOf(object, context, new Set()).some(
    (target) => target.kind === 'unknown' || (target.kind === 'named' && target.production),
  );
}

/** A call that runs a method or constructor, or reads or writes a field's value. */
function usesMember(call: Node, context: FileContext): boolean {
  const name = field(call, 'name')?.text ?? '';
  if (name === 'invoke' || name === 'newInstance') return true;
  const object = field(call, 'object');
  const onField =
    object?.type === 'identifier' &&
    (context.types.get(object.text) ?? []).some((type) => /(^|\.)Field$/.test(type));
  return onField && /^(get|set)(Boolean|Byte|Char|Short|Int|Long|Float|Double)?$/.test(name);
}

type ClassTarget = { kind: 'named'; production: boolean } | { kind: 'unknown' } | { kind: 'own' };

/** Which classes a `Class` expression can stand for, as far as the file shows. */
function classesOf(node: Node, context: FileContext, seen: Set<string>): ClassTarget[] {
  if (node.type === 'class_literal') {
    const type = compact(kids(node)[0]?.text ?? '');
    return [named(type, context)];
  }
  if (node.type === 'method_invocation') {
    const name = field(node, 'name')?.text;
    const object = field(node, 'object');
    if (name === 'getClass') {
      return !object || object.type === 'this' ? [{ kind: 'own' }] : [{ kind: 'unknown' }];
    }
    if (name === 'forName') {
      const arg = kids(field(node, 'arguments')!)[0];
      const spelled = arg && literalAlternatives(arg, context);
      if (!spelled) return [{ kind: 'unknown' }];
      return spelled.map((fqn) => ({
        kind: 'named',
        production: context.classifier.isProduction(fqn, fqn.slice(fqn.lastIndexOf('.') + 1)),
      }));
    }
    if (name === 'getSuperclass' && object) return classesOf(object, context, seen);
    return [{ kind: 'unknown' }];
  }
  if (node.type === 'identifier' && !seen.has(node.text)) {
    const values = context.values.get(node.text);
    if (!values) return [{ kind: 'unknown' }];
    seen.add(node.text);
    return values.flatMap((value) => classesOf(value, context, seen));
  }
  if (node.type === 'parenthesized_expression' || node.type === 'cast_expression') {
    const inner = node.type === 'cast_expression' ? field(node, 'value') : kids(node)[0];
    return inner ? classesOf(inner, context, seen) : [{ kind: 'unknown' }];
  }
  return [{ kind: 'unknown' }];
}

function named(type: string, context: FileContext): ClassTarget {
  const simple = type.split('.')[0] ?? type;
  if (context.declaredClasses.has(simple)) return { kind: 'own' };
  const candidates = typeCandidates(type, context);
  return {
    kind: 'named',
    production: candidates.some((fqn) =>
      context.classifier.isProduction(fqn, fqn.slice(fqn.lastIndexOf('.') + 1)),
    ),
  };
}

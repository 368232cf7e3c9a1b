import type { Node } from 'web-tree-sitter';
import { valueNames } from './scopes.js';
import {
  ancestor,
  descendants,
  field,
  isLoop,
  kids,
  LOOP_TYPES,
  nameOf,
  simpleTypeName,
} from './syntax.js';

/*
 * Names for code a rewrite adds, read off the code it wraps: what it checks, finds, collects,
 * counts or computes, and the value it is about. A maintainer extracting `if (index < 0) throw …`
 * calls the helper `checkIndex`, not `helper1`.
 */

const JAVA_KEYWORDS = new Set(
  'abstract assert boolean break byte case catch char class const continue default do double else enum extends final finally float for goto if implements import instanceof int interface long native new package private protected public return short static strictfp super switch synchronized this throw throws transient try void volatile while var record yield true false null'.split(
    ' ',
  ),
);

export function capitalized(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}

/** A lowerCamel name from words, e.g. ["check", "index"] → checkIndex. */
export function camelName(words: readonly string[]): string {
  // A constant's name is words too: BITS → bits, MAX_SIZE → max, size.
  const [head = '', ...rest] = words
    .filter(Boolean)
    .flatMap((word) =>
      /^[A-Z][A-Z0-9_]+$/.test(word) ? word.toLowerCase().split('_').filter(Boolean) : [word],
    );
  return head.charAt(0).toLowerCase() + head.slice(1) + rest.map(capitalized).join('');
}

/** Abbreviations that name nothing a method name could say (`obj`, `str`). */
const VAGUE_NAMES = new Set([
  'obj',
  'str',
  'val',
  'tmp',
  'arg',
  'args',
  'buf',
  'idx',
  'ret',
  'res',
  'len',
  'length',
  'size',
]);

/** Names of three letters that are words, not abbreviations (`ipl`, `sep`, `cnt` are not). */
const SHORT_WORDS = new Set([
  'key',
  'map',
  'row',
  'end',
  'sum',
  'max',
  'min',
  'out',
  'url',
  'uri',
  'tag',
  'set',
  'bit',
  'day',
  'pos',
  'off',
  'top',
  'dir',
]);

/** Whether a value's name can stand in a method name. */
function telling(name: string): boolean {
  return (
    (name.length > 3 || SHORT_WORDS.has(name)) &&
    !VAGUE_NAMES.has(name) &&
    !/^[A-Z0-9_]+$/.test(name)
  );
}

/** The words of a camelCase name: parseHeaderLine → [parse, Header, Line]. */
export function nameWords(name: string): string[] {
  return name.split(/(?<=[a-z0-9])(?=[A-Z])/).filter(Boolean);
}

/** The values a statement is about, most first: the names in its condition or subject. */
function subjectsOf(statement: Node): string[] {
  const subject =
    field(statement, 'condition') ??
    field(statement, 'value') ??
    (statement.type === 'local_variable_declaration'
      ? kids(statement).find((k) => k.type === 'variable_declarator')
      : null) ??
    statement;
  const names = valueNames(subject).map((name) => name.text);
  const fields = descendants(subject, 'field_access').map((access) => field(access, 'field')?.text);
  // Not a constant or a class (`System` in `System.arraycopy(…)`).
  const candidates = [...names, ...fields].filter(
    (name): name is string => !!name && telling(name) && !/^[A-Z]/.test(name),
  );
  return [...new Set(candidates)];
}

/**
 * Whether a loop among the statements is left early, by a return or a break of its own: a
 * search. A return after the loop gives what the loop built; a switch's break leaves the switch.
 */
function leavesLoopEarly(statements: readonly Node[]): boolean {
  return statements.some((statement) =>
    descendants(statement, ['return_statement', 'break_statement']).some((exit) => {
      const within = ancestor(
        exit,
        exit.type === 'break_statement' ? [...LOOP_TYPES, 'switch_block'] : LOOP_TYPES,
      );
      return (
        within !== null &&
        LOOP_TYPES.includes(within.type) &&
        within.startIndex >= statement.startIndex &&
        within.endIndex <= statement.endIndex
      );
    }),
  );
}

/** The verb of statements that compute a value: a loop finds, counts or collects it. */
function resultVerb(statements: readonly Node[]): string {
  if (!statements.some(isLoop)) return 'compute';
  const verb = verbOf(statements);
  return ['find', 'count', 'collect'].includes(verb) ? verb : 'compute';
}

/** How many of the statements, from the first, are checks that throw (`if (x < 0) throw …`). */
function leadingChecks(statements: readonly Node[]): number {
  const throws = (statement: Node) =>
    statement.type === 'if_statement' &&
    descendants(field(statement, 'consequence') ?? statement, 'throw_statement').length > 0;
  const work = statements.findIndex((statement) => !throws(statement));
  return work < 0 ? statements.length : work;
}

/** Verbs of calls that only ask (`get`, `isEmpty`, `length`): they say nothing of the work. */
const ASKING_VERBS = new Set([
  'get',
  'is',
  'has',
  'to',
  'equals',
  'size',
  'length',
  'insert',
  'char',
  'index',
  'value',
]);

/** Whether `node` lies in the condition of an if or a loop: a test, not the work. */
function inCondition(node: Node): boolean {
  for (let at: Node | null = node; at?.parent; at = at.parent) {
    if (field(at.parent, 'condition')?.equals(at)) return true;
  }
  return false;
}

/** The verb of a call's name: `printWithQuotes` → print; `arraycopy` is a copy. */
function verbOfCall(call: Node): string | undefined {
  return /^[a-z]+/
    .exec(field(call, 'name')?.text ?? '')?.[0]
    ?.replace(/^arraycopy$/, 'copy')
    .replace(/^substring$/, 'slice');
}

/**
 * The call whose verb says what the statements do: the first that does more than ask, those in
 * the bodies before those in the conditions (`if (isQuoted()) { printQuoted(…); }` prints).
 */
function workingCall(statements: readonly Node[]): { verb: string; call: Node } | undefined {
  const calls = statements.flatMap((s) => descendants(s, 'method_invocation'));
  for (const call of [
    ...calls.filter((c) => !inCondition(c)),
    ...calls.filter((c) => inCondition(c)),
  ]) {
    const verb = verbOfCall(call);
    if (verb && !ASKING_VERBS.has(verb)) return { verb, call };
  }
  return undefined;
}

/** The names the statements assign, in order: fields and locals. */
function assignedNames(statements: readonly Node[]): string[] {
  return statements
    .flatMap((s) => descendants(s, 'assignment_expression'))
    .flatMap((assignment) => updatedName(assignment) ?? []);
}

/**
 * A verb read off the statements, or `apply` when they only check or apply generally, which
 * names nothing (a `handleStrict` or an `applyLen` says nothing a reader can check).
 */
function verbOf(statements: readonly Node[]): string {
  const [first] = statements;
  if (!first) return 'apply';
  // Checks before the work: the helper is named for the work.
  const checks = leadingChecks(statements);
  if (checks === statements.length) return 'check';
  if (checks > 0) return verbOf(statements.slice(checks));
  const all = (types: string | string[]) => statements.flatMap((s) => descendants(s, types));
  const verb = workingCall(statements)?.verb;
  const counts = [...all('update_expression'), ...all('assignment_expression')].some(isCount);
  if (statements.some(isLoop)) {
    if (leavesLoopEarly(statements)) return 'find';
    const calls = all('method_invocation').map((call) => field(call, 'name')?.text ?? '');
    if (calls.some((name) => /^(add|put|offer|push)/.test(name))) return 'collect';
    if (counts) return 'count';
    return verb ?? 'scan';
  }
  if (verb) return verb;
  // Without a call: what is counted, else the state the statements update.
  if (counts && countedThings(statements).length > 0) return 'count';
  if (assignedNames(statements).some(telling)) return 'update';
  return 'apply';
}

/** The name an update or compound assignment writes (`lineNumber`, `this.lineNumber`). */
function updatedName(node: Node): string | undefined {
  const target = node.type === 'update_expression' ? kids(node)[0] : field(node, 'left');
  if (target?.type === 'field_access') return field(target, 'field')?.text;
  return target?.type === 'identifier' ? target.text : undefined;
}

/**
 * Whether an update counts: a loop's own `i++` counts nothing, in its header or, for a cursor
 * its condition reads (`while (pos < end) { … pos++; }`), in its body; another increment or
 * `+=` does.
 */
function isCount(node: Node): boolean {
  if (
    node.type !== 'update_expression' &&
    !['+=', '-='].includes(node.childForFieldName('operator')?.type ?? '')
  ) {
    return false;
  }
  if (node.parent && isLoop(node.parent) && !field(node.parent, 'body')?.equals(node)) return false;
  const name = updatedName(node);
  for (let loop = ancestor(node, LOOP_TYPES); loop; loop = ancestor(loop, LOOP_TYPES)) {
    const condition = field(loop, 'condition');
    if (condition && valueNames(condition).some((read) => read.text === name)) return false;
  }
  return true;
}

/** Names that say a value counts without saying what: `count`, `total`, `n`. */
const BARE_COUNTS = /^(count|counter|total|num|number|n|sum|cnt)$/i;

/**
 * What the statements count, from the values they increment: `lineNumber++` counts lines,
 * `blanks++` blanks; a bare `count++` says nothing.
 */
function countedThings(statements: readonly Node[]): string[] {
  const targets = statements
    .flatMap((s) => descendants(s, ['update_expression', 'assignment_expression']))
    .filter(isCount)
    .map(updatedName);
  return targets.flatMap((name) => {
    if (!name || BARE_COUNTS.test(name)) return [];
    const thing = name.replace(/(Count|Counter|Number|Num|Total)$/, '');
    return [thing === name ? name : `${thing}s`];
  });
}

/**
 * What a loop goes over: a for-each's collection, the arrays or strings a counting loop indexes
 * with its own variable (`buf[i]`, `text.charAt(i)`) or bounds by (`i < values.length`), a
 * while loop's condition; never a bound such as `offset` in `i < offset + len`.
 */
function loopSubjects(loop: Node): string[] {
  if (loop.type !== 'for_statement') return subjectsOf(loop);
  const counters = new Set(
    descendants(field(loop, 'init') ?? loop, 'variable_declarator').map((d) => nameOf(d)),
  );
  const usesCounter = (node: Node | null) =>
    !!node && valueNames(node).some((name) => counters.has(name.text));
  const nameOfValue = (node: Node | null) =>
    node?.type === 'identifier' ? node.text : node ? field(node, 'field')?.text : undefined;
  const indexed = descendants(loop, 'array_access')
    .filter((access) => usesCounter(field(access, 'index')))
    .map((access) => nameOfValue(field(access, 'array')));
  const read = descendants(loop, 'method_invocation')
    .filter(
      (call) =>
        /^(charAt|codePointAt|get)$/.test(nameOf(call)) && usesCounter(field(call, 'arguments')),
    )
    .map((call) => nameOfValue(field(call, 'object')));
  const condition = field(loop, 'condition');
  const bounded = condition
    ? [
        ...descendants(condition, 'field_access')
          .filter((access) => field(access, 'field')?.text === 'length')
          .map((access) => nameOfValue(field(access, 'object'))),
        ...descendants(condition, 'method_invocation')
          .filter((call) => /^(size|length)$/.test(nameOf(call)))
          .map((call) => nameOfValue(field(call, 'object'))),
      ]
    : [];
  return [...new Set([...indexed, ...read, ...bounded])].filter(
    (name): name is string => !!name && telling(name) && !/^[A-Z]/.test(name),
  );
}

/**
 * Names for a helper holding `statements`, most natural first, none of them `taken` and none
 * `member`, the method they come from. `result` is the local the helper returns, if any. Every
 * name is read off the statements (what they do, the values they assign, count or go over),
 * never off the method they leave: a helper is no `countOffsetForRead`.
 */
export function helperNames(
  statements: readonly Node[],
  options: { member: string; result?: string },
  taken: ReadonlySet<string>,
): string[] {
  const result = options.result && telling(options.result) ? options.result : undefined;
  const work = statements[leadingChecks(statements)] ?? statements[0];
  const verb = options.result ? resultVerb(statements) : verbOf(statements);
  // No verb read off the statements (`applyHeaderMap` for `return map.size() == n;`): a name
  // that says nothing of what they do is no name.
  if (verb === 'apply') return [];
  const counted = verb === 'count' ? countedThings(statements) : [];
  const updated = verb === 'update' ? assignedNames(statements).filter(telling) : [];
  // What the working call is given is what the statements work on (`printQuoted(reader, out)`
  // prints the reader), before the names a condition tests.
  const worked = workingCall(statements.slice(leadingChecks(statements)));
  const given =
    worked?.verb === verb ? subjectsOf(field(worked.call, 'arguments') ?? worked.call) : [];
  const subjects = result
    ? [result]
    : work && isLoop(work)
      ? [...counted, ...given, ...loopSubjects(work)]
      : work
        ? verb === 'update'
          ? updated
          : [...counted, ...given, ...subjectsOf(work)]
        : [];
  const proposals = [...new Set(subjects)].slice(0, 3).map((subject) => camelName([verb, subject]));
  return usable(proposals, taken).filter((name) => name !== options.member);
}

/** The proposals that are new, well-formed method names, in order, without repeats. */
function usable(proposals: readonly (string | undefined)[], taken: ReadonlySet<string>): string[] {
  const seen = new Set<string>();
  return proposals.filter((name): name is string => {
    if (!name || seen.has(name) || taken.has(name) || JAVA_KEYWORDS.has(name)) return false;
    seen.add(name);
    return /^[a-z][A-Za-z0-9]*$/.test(name);
  });
}

/**
 * Names for a private method that calls `callee` with arguments it computes from `inputs`, its
 * own parameters, and the `fields` it reads itself: the callee's name with what it is given
 * (`parse(line.trim())` → `parseLine`, an index or an output by its role: `getStringAt`,
 * `writeArrayTo`), or else with the field it reads (`read(buffer)` → `readBuffer`). A name that
 * says nothing of what the method is given is no name: none from the method the call is in.
 */
export function adapterNames(
  callee: string,
  inputs: readonly string[],
  taken: ReadonlySet<string>,
  fields: readonly string[] = [],
): string[] {
  const fresh = (noun: string) =>
    telling(noun) && !callee.toLowerCase().endsWith(noun.toLowerCase());
  return usable(
    [
      ...inputs
        .filter(fresh)
        .map((noun) => camelName([callee, prepositionFor(noun) ?? capitalized(noun)])),
      ...fields.filter(fresh).map((noun) => camelName([callee, capitalized(noun)])),
    ],
    taken,
  );
}

/**
 * How a forwarding name says an argument's role rather than its name: at an index, to an output,
 * from an input (`getStringAt(index)`, `writeArrayTo(out)`, not `getStringIndex`).
 */
function prepositionFor(noun: string): string | undefined {
  if (/^(index|pos|position|offset)$|(Index|Pos|Position|Offset)$/.test(noun)) return 'At';
  if (/^(out|output|writer|sink|target|destination)$|(Out|Output|Writer|Sink)$/.test(noun))
    return 'To';
  if (/^(input|reader|source)$|(Input|Reader|Source)$/.test(noun)) return 'From';
  return undefined;
}

/** A word for a value: its local's name, or its type's when the name is a letter or two. */
function valueWord(name: string, type: string): string {
  if (name.length > 2) return name;
  // `char[]` → `chars`, `List<String>` → `List`.
  return simpleTypeName(type).replace(/\[\]/g, 's');
}

/**
 * Names for a helper that reads or computes the value of local `result` (of type `type`) for the
 * code after it, e.g. `readHeader`, `parseCount`, `findMatch`, most natural first.
 */
export function extractorNames(
  statements: readonly Node[],
  result: { name: string; type: string },
  taken: ReadonlySet<string>,
): string[] {
  const calls = statements
    .flatMap((s) => descendants(s, 'method_invocation'))
    .map((call) => field(call, 'name')?.text ?? '');
  const reads =
    calls.some((name) => /^(get|read|next|peek|current)/.test(name)) ||
    statements.some((s) => descendants(s, ['field_access', 'array_access']).length > 0);
  const loops = statements.some(isLoop);
  const searches = leavesLoopEarly(statements);
  const fills =
    calls.some((name) => /^(add|put|append|offer|push)/.test(name)) ||
    statements.some((s) =>
      descendants(s, 'assignment_expression').some(
        (a) => field(a, 'left')?.type === 'array_access',
      ),
    );
  let verb = 'compute';
  if (calls.some((name) => name.startsWith('parse'))) verb = 'parse';
  else if (loops && searches) verb = 'find';
  else if (loops && fills) verb = 'collect';
  else if (reads) verb = 'read';
  const subject = valueWord(result.name, result.type);
  return usable([camelName([verb, subject]), camelName(['compute', subject])], taken);
}

/**
 * The first of `names` a maintainer would write for a helper of `member`: not `xInternal`, not
 * `doX`, no word twice in a row (`setSetHeader`), not the member's name twice
 * (`setHeaderForSetHeader`).
 */
export function plainName(names: readonly string[], member: string): string | undefined {
  const lower = member.toLowerCase();
  return names.find((name) => {
    if (/Internal$/.test(name) || /^do[A-Z]/.test(name)) return false;
    const words = name.split(/(?=[A-Z])/).map((word) => word.toLowerCase());
    if (words.some((word, i) => i > 0 && word === words[i - 1])) return false;
    const at = name.toLowerCase().indexOf(lower);
    return at < 0 || name.toLowerCase().indexOf(lower, at + 1) < 0;
  });
}

/**
 * Names for a helper that applies `value` (computed by the code before it) in `statements`:
 * what they do to it (`hashResult`, `checkHeader`), then what they are about.
 */
export function applierNames(
  statements: readonly Node[],
  value: { name: string; type: string },
  member: string,
  taken: ReadonlySet<string>,
): string[] {
  const word = valueWord(value.name, value.type);
  const verb = verbOf(statements);
  return usable(
    [
      ...(verb === 'apply' ? [] : [camelName([verb, word])]),
      ...helperNames(statements, { member }, taken),
    ],
    taken,
  );
}

import type { Node } from 'web-tree-sitter';
import { valueNames } from './scopes.js';
import { descendants, field, isLoop, kids, simpleTypeName } from './syntax.js';

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
  const [head = '', ...rest] = words.filter(Boolean);
  return head.charAt(0).toLowerCase() + head.slice(1) + rest.map(capitalized).join('');
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
  const candidates = [...names, ...fields].filter(
    // Not a constant or a class (`System` in `System.arraycopy(…)`).
    (name): name is string => !!name && name.length > 1 && !/^[A-Z]/.test(name),
  );
  return [...new Set(candidates)];
}

function verbOf(statements: readonly Node[]): string {
  const [first] = statements;
  if (!first) return 'apply';
  const all = (types: string | string[]) => statements.flatMap((s) => descendants(s, types));
  const calls = all('method_invocation').map((call) => field(call, 'name')?.text ?? '');
  if (
    first.type === 'if_statement' &&
    descendants(field(first, 'consequence') ?? first, 'throw_statement').length > 0
  ) {
    return 'check';
  }
  if (statements.some(isLoop)) {
    if (all('return_statement').length > 0 || all('break_statement').length > 0) return 'find';
    if (calls.some((name) => /^(add|put|append|offer|push)/.test(name))) return 'collect';
    if (
      all('update_expression').length > 0 ||
      all('assignment_expression').some((a) => /[+-]=/.test(a.text))
    )
      return 'count';
    return 'scan';
  }
  const firstCall = calls.find((name) => /^[a-z]+[A-Z]?/.test(name));
  // `arraycopy` is one word of the JDK's for a copy.
  const verb = firstCall
    ? /^[a-z]+/.exec(firstCall)?.[0]?.replace(/^arraycopy$/, 'copy')
    : undefined;
  if (verb && !['get', 'is', 'has', 'to', 'equals', 'size', 'length'].includes(verb)) return verb;
  return first.type === 'if_statement' ? 'handle' : 'apply';
}

/**
 * Names for a helper holding `statements`, most natural first, none of them `taken`. `result`
 * is the local the helper returns, if any; `member` the name of the method they come from.
 */
export function helperNames(
  statements: readonly Node[],
  options: { member: string; result?: string; tail: boolean },
  taken: ReadonlySet<string>,
): string[] {
  const subjects = options.result
    ? [options.result]
    : statements[0]
      ? subjectsOf(statements[0])
      : [];
  const [subject] = subjects;
  const verb = options.result ? (statements.some(isLoop) ? 'find' : 'compute') : verbOf(statements);
  const wholeBody =
    options.tail && statements[0]?.parent?.parent?.type.endsWith('_declaration') === true;
  const proposals = [
    // The whole body of a method moved out: the helper does what the method does.
    wholeBody ? camelName(['do', options.member]) : undefined,
    subject ? camelName([verb, subject]) : undefined,
    subject ? camelName([verb, subject, 'for', options.member]) : undefined,
    // When those are taken: what else the statements are about.
    ...subjects.slice(1, 3).map((other) => camelName([verb, other])),
    options.tail ? camelName(['do', options.member]) : undefined,
    camelName([verb, options.member]),
    camelName([options.member, 'internal']),
  ];
  return usable(proposals, taken);
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
  member: string,
  taken: ReadonlySet<string>,
): string[] {
  const calls = statements
    .flatMap((s) => descendants(s, 'method_invocation'))
    .map((call) => field(call, 'name')?.text ?? '');
  const reads =
    calls.some((name) => /^(get|read|next|peek|current)/.test(name)) ||
    statements.some((s) => descendants(s, ['field_access', 'array_access']).length > 0);
  const loops = statements.some(isLoop);
  const searches = statements.some(
    (s) => descendants(s, ['return_statement', 'break_statement']).length > 0,
  );
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
  return usable(
    [
      camelName([verb, subject]),
      camelName([verb, subject, 'for', member]),
      camelName(['compute', subject]),
    ],
    taken,
  );
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
  return usable(
    [
      camelName([verbOf(statements), word]),
      ...helperNames(statements, { member, tail: false }, taken),
      camelName(['apply', word]),
    ],
    taken,
  );
}

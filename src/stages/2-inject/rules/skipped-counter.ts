import type { Node } from 'web-tree-sitter';
import {
  changedInPlace,
  firstMatch,
  type InPlaceChange,
} from '../../../lang/java/changed-members.js';
import {
  ancestor,
  classMembers,
  declaredTypes,
  declaringClass,
  descendants,
  field,
  fieldNames,
  isLoop,
  kids,
  ownDescendants,
  sameTokens,
  simpleTypeName,
  statementLineRange,
  tokenLeaves,
  tokens,
  unparenthesized,
  within,
  LOOP_TYPES,
} from '../../../lang/java/syntax.js';
import type { StructuralCheck } from '../../../lang/java/changed-members.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

const NUMERIC = /^(int|long|short|byte|float|double|Integer|Long|Short|Byte|Float|Double)$/;
const ATOMIC = /^(AtomicInteger|AtomicLong|LongAdder|DoubleAdder)$/;
const ATOMIC_UPDATES = new Set([
  'incrementAndGet',
  'getAndIncrement',
  'decrementAndGet',
  'getAndDecrement',
  'addAndGet',
  'getAndAdd',
  'increment',
  'decrement',
  'add',
]);
/** Calls whose arguments are positions: a variable passed to them is a cursor, not a count. */
const INDEXING_CALLS = new Set([
  'charAt',
  'codePointAt',
  'codePointBefore',
  'get',
  'set',
  'remove',
  'substring',
  'subSequence',
  'insert',
  'delete',
  'deleteCharAt',
  'setCharAt',
  'indexOf',
  'lastIndexOf',
  'startsWith',
  'regionMatches',
  'arraycopy',
  'copyOfRange',
]);
/** A local counter or total starts at zero. */
const ZERO = /^(0+[lLdDfF]?|0*\.0+[dDfF]?)$/;
/** Names of read/write positions (`_inputPtr`, `offset`, `_outputTail`): moving them is not counting. */
const CURSOR_NAME = /(ptr|pos|position|offset|cursor|index|idx|tail|head|start|begin|end|limit)$/i;
/** Names of nesting levels (`depth`, `level`, `nesting`): they go back down, they count nothing. */
const LEVEL_NAME = /(depth|level|nesting|indent)$/i;
/** Statements that only leave a branch: with nothing else there, no item is processed. */
const LEAVING = new Set(['break_statement', 'continue_statement', ';']);

/** A statement that updates a counter or total, and the counter's name. */
interface CounterUpdate {
  statement: Node;
  name: string;
  /** Written `this.n`: certainly a field. */
  viaThis: boolean;
  /** Whether it counts up (`++`, `+=`) rather than down. */
  up: boolean;
}

function isComment(node: Node): boolean {
  return node.type === 'line_comment' || node.type === 'block_comment';
}

/** `n` for `n` and `this.n`; other targets (`a.n`, `a[i]`) are not counters of this method. */
function counterName(target: Node | null): string | null {
  if (!target) return null;
  if (target.type === 'identifier') return target.text;
  if (target.type === 'field_access' && field(target, 'object')?.type === 'this')
    return field(target, 'field')?.text ?? null;
  return null;
}

function update(statement: Node, name: string, expression: Node, up: boolean): CounterUpdate {
  return { statement, name, viaThis: /^(\+\+|--)?\s*this\s*\./.test(expression.text), up };
}

/**
 * Whether a statement adds to or subtracts from a numeric variable: `n++`, `--n`, `total += x`,
 * `total -= x`, `n = n + 1`, `count.incrementAndGet()`. `+=` needs a declared numeric type
 * (on a String it appends); `++` only rules out `char`.
 */
function counterUpdate(statement: Node, types: Map<string, string>): CounterUpdate | null {
  if (statement.type !== 'expression_statement') return null;
  const expression = kids(statement).find((k) => !isComment(k));
  if (!expression) return null;
  const typeOf = (name: string) => {
    const declared = types.get(name);
    return declared === undefined ? undefined : simpleTypeName(declared);
  };
  if (expression.type === 'update_expression') {
    const name = counterName(kids(expression).find((k) => !isComment(k)) ?? null);
    const type = name === null ? undefined : typeOf(name);
    return name !== null && (type === undefined || NUMERIC.test(type))
      ? update(statement, name, expression, !expression.text.includes('--'))
      : null;
  }
  if (expression.type === 'assignment_expression') {
    const left = field(expression, 'left');
    const name = counterName(left);
    const type = name === null ? undefined : typeOf(name);
    if (name === null || type === undefined || !NUMERIC.test(type)) return null;
    const operator = field(expression, 'operator')?.type ?? '';
    if (operator === '+=' || operator === '-=')
      return update(statement, name, expression, operator === '+=');
    const right = unparenthesized(field(expression, 'right') ?? expression);
    if (operator !== '=' || right.type !== 'binary_expression') return null;
    const arithmetic = field(right, 'operator')?.type ?? '';
    const first = field(right, 'left');
    const second = field(right, 'right');
    const same = (node: Node | null) => node !== null && sameTokens(unparenthesized(node), left!);
    if (
      (arithmetic === '+' && (same(first) || same(second))) ||
      (arithmetic === '-' && same(first))
    )
      return update(statement, name, expression, arithmetic === '+');
    return null;
  }
  if (expression.type === 'method_invocation') {
    const name = counterName(field(expression, 'object'));
    const type = name === null ? undefined : typeOf(name);
    const method = field(expression, 'name')?.text ?? '';
    return name !== null && type !== undefined && ATOMIC.test(type) && ATOMIC_UPDATES.has(method)
      ? update(statement, name, expression, !/[dD]ecrement/.test(method))
      : null;
  }
  return null;
}

/**
 * The branch or loop body a statement stands in directly, with the statements there, or null
 * when it stands elsewhere (the method's own block, a try block, a bare block).
 */
function branchOf(statement: Node): { label: string; statements: Node[] } | null {
  const parent = statement.parent;
  if (!parent) return null;
  const statements = (container: Node) =>
    kids(container).filter((k) => !isComment(k) && k.type !== 'switch_label');
  if (parent.type === 'switch_block_statement_group')
    return { label: 'a switch case', statements: statements(parent) };
  if (parent.type !== 'block') return null;
  const owner = parent.parent;
  if (!owner) return null;
  if (owner.type === 'if_statement') {
    const alternative = field(owner, 'alternative');
    const label = alternative?.equals(parent) ? 'an else branch' : 'an if branch';
    return { label, statements: statements(parent) };
  }
  if (isLoop(owner)) return { label: 'a loop body', statements: statements(parent) };
  if (owner.type === 'switch_rule' || owner.type === 'switch_block_statement_group')
    return { label: 'a switch case', statements: statements(parent) };
  return null;
}

function mentions(node: Node, name: string): boolean {
  return descendants(node, 'identifier').some((id) => id.text === name);
}

/** The loop header (init, condition, update, iterated value) of a loop. */
function loopHeader(loop: Node): Node[] {
  const names =
    loop.type === 'for_statement'
      ? ['init', 'condition', 'update']
      : loop.type === 'enhanced_for_statement'
        ? ['value']
        : ['condition'];
  return names.flatMap((name) => loop.childrenForFieldName(name)).filter((n): n is Node => !!n);
}

/** Whether a variable serves as a position in `scope`: an array index or a position argument. */
function usedAsIndex(scope: Node, name: string): boolean {
  const indexes = descendants(scope, 'array_access').flatMap((access) => {
    const index = field(access, 'index');
    return index ? [index] : [];
  });
  const positions = descendants(scope, 'method_invocation')
    .filter((call) => INDEXING_CALLS.has(field(call, 'name')?.text ?? ''))
    .flatMap((call) => {
      const args = field(call, 'arguments');
      return args ? [args] : [];
    });
  return [...indexes, ...positions].some((node) => mentions(node, name));
}

/**
 * Where a counter lives: a local of the method that starts at zero, or a field of the declaring
 * class; anything else (a parameter, a local holding a running value) is not counting.
 */
function counterHome(member: Node, update: CounterUpdate): 'local' | 'field' | string {
  const declarations = update.viaThis
    ? []
    : descendants(member, [
        'formal_parameter',
        'spread_parameter',
        'variable_declarator',
        'catch_formal_parameter',
        'enhanced_for_statement',
        'resource',
      ]).filter((declaration) => field(declaration, 'name')?.text === update.name);
  if (declarations.length > 0) {
    const declarator = declarations.find((d) => d.type === 'variable_declarator');
    if (!declarator) return `${update.name} is a parameter: a value passed in, not a count`;
    const zeroed = [
      field(declarator, 'value'),
      ...descendants(member, 'assignment_expression')
        .filter((a) => field(a, 'operator')?.type === '=' && field(a, 'left')?.text === update.name)
        .map((a) => field(a, 'right')),
    ].some((value) => value !== null && ZERO.test(value.text));
    return zeroed
      ? 'local'
      : `${update.name} never starts at zero: it holds a running value, not a count or total`;
  }
  const owner = declaringClass(member);
  return owner && fieldNames(owner).has(update.name)
    ? 'field'
    : `${update.name} is declared outside this class`;
}

/** Nodes whose `condition` decides control flow: a value read only there steers, not reports. */
const CONDITIONAL = new Set([
  'if_statement',
  'while_statement',
  'do_statement',
  'for_statement',
  'ternary_expression',
  'switch_expression',
  'switch_statement',
]);

/**
 * Whether a read of a variable uses it as a result: returned, passed on, stored or summed into
 * another value, rather than tested in a condition or used as a position.
 */
function isResultUse(read: Node): boolean {
  for (let child = read, parent = read.parent; parent; child = parent, parent = parent.parent) {
    if (CONDITIONAL.has(parent.type)) {
      const condition = field(parent, 'condition') ?? field(parent, 'value');
      return !(condition && within(child, condition));
    }
    if (parent.type === 'array_access' && field(parent, 'index')?.equals(child)) return false;
    if (
      parent.type === 'argument_list' &&
      INDEXING_CALLS.has(field(parent.parent ?? parent, 'name')?.text ?? '')
    )
      return false;
    if (
      [
        'return_statement',
        'argument_list',
        'variable_declarator',
        'assignment_expression',
        'yield_statement',
        'throw_statement',
      ].includes(parent.type)
    )
      return true;
    if (parent.type.endsWith('_statement') || parent.type === 'block') return false;
  }
  return false;
}

/** Reads of `name` in `scope` outside its own updates, declarations and plain assignments. */
function readsOf(scope: Node, name: string, types: Map<string, string>): Node[] {
  const updates = ownDescendants(scope, 'expression_statement').filter(
    (statement) => counterUpdate(statement, types)?.name === name,
  );
  return descendants(scope, 'identifier').filter((id) => {
    if (id.text !== name) return false;
    if (updates.some((statement) => within(id, statement))) return false;
    const parent = id.parent;
    if (parent?.type === 'variable_declarator' && field(parent, 'name')?.equals(id)) return false;
    if (
      parent?.type === 'assignment_expression' &&
      field(parent, 'operator')?.type === '=' &&
      field(parent, 'left')?.equals(id)
    )
      return false;
    return true;
  });
}

/**
 * Whether the counter is read as a result once `update` is gone: returned, passed on or summed
 * into something, in the method or, for a field, in another member of the class (a getter, a
 * report). A value only tested in conditions or used as a position steers, it does not count.
 */
function stillRead(member: Node, update: CounterUpdate, types: Map<string, string>): boolean {
  if (readsOf(member, update.name, types).some(isResultUse)) return true;
  const owner = declaringClass(member);
  if (!owner || counterHome(member, update) !== 'field') return false;
  return classMembers(owner).some(
    (other) =>
      !other.equals(member) &&
      other.type !== 'field_declaration' &&
      readsOf(other, update.name, declaredTypes(other)).some(isResultUse),
  );
}

/** Whether the variable is counted down as well as up in `scope`: a level, like a depth. */
function goesBothWays(scope: Node, name: string): boolean {
  const directions = new Set(
    ownDescendants(scope, 'expression_statement').flatMap((statement) => {
      const found = counterUpdate(statement, declaredTypes(statement));
      return found?.name === name ? [found.up] : [];
    }),
  );
  return directions.size === 2;
}

/** Why deleting this update would not be a skipped count, or null if it would be one. */
function ineligibility(
  member: Node,
  update: CounterUpdate,
  types: Map<string, string>,
): string | null {
  if (!branchOf(update.statement))
    return 'the update is not directly inside an if/else branch, switch case or loop body';
  for (
    let loop = ancestor(update.statement, LOOP_TYPES);
    loop && within(loop, member);
    loop = ancestor(loop, LOOP_TYPES)
  ) {
    if (loopHeader(loop).some((part) => mentions(part, update.name)))
      return `${update.name} controls an enclosing loop`;
  }
  if (CURSOR_NAME.test(update.name)) return `${update.name} is named as a position, not as a count`;
  if (LEVEL_NAME.test(update.name)) return `${update.name} is named as a level, not as a count`;
  if (!update.up) return `${update.name} counts down: it tracks a level, not an aggregate`;
  const home = counterHome(member, update);
  if (home !== 'local' && home !== 'field') return home;
  if (goesBothWays(home === 'field' ? (declaringClass(member) ?? member) : member, update.name))
    return `${update.name} goes up and down: it tracks a level, not an aggregate`;
  // A field used as an index anywhere in its class is a cursor into a buffer.
  const scope = home === 'field' ? (declaringClass(member) ?? member) : member;
  if (usedAsIndex(scope, update.name))
    return `${update.name} is used as an index or position, not as a count`;
  if (!stillRead(member, update, types))
    return `${update.name} is not used anywhere else as a result (returned, passed on or summed), so no count is lost`;
  return null;
}

/** The text to delete for a statement: its whole line, or the statement and its spacing. */
function deletionRange(source: string, statement: Node): { start: number; end: number } {
  const range = statementLineRange(source, statement);
  if (range.start !== statement.startIndex) return range;
  let { start, end } = range;
  while (end < source.length && (source[end] === ' ' || source[end] === '\t')) end++;
  if (source[end] === '\n' || source[end] === '\r') {
    end = statement.endIndex;
    while (start > 0 && (source[start - 1] === ' ' || source[start - 1] === '\t')) start--;
  }
  return { start, end };
}

function sites(method: Node, source: string): CandidateEdit[] {
  if (!field(method, 'body')) return [];
  const types = declaredTypes(method);
  const candidates: CandidateEdit[] = [];
  for (const statement of ownDescendants(method, 'expression_statement')) {
    const update = counterUpdate(statement, types);
    if (!update || ineligibility(method, update, types) !== null) continue;
    const branch = branchOf(statement)!;
    // The branch still does its work: something besides this update and a break.
    const processing = branch.statements.filter(
      (other) => !other.equals(statement) && !LEAVING.has(other.type),
    );
    if (processing.length === 0) continue;
    const line = statement.startPosition.row + 1;
    const onBranch = branch.label !== 'a loop body';
    candidates.push({
      description: `delete \`${statement.text}\` (line ${line}) from ${branch.label}`,
      edits: [{ ...deletionRange(source, statement), text: '' }],
      plausibility: onBranch
        ? plausibility(0, `${update.name} not updated on one branch that does the work`)
        : plausibility(1, `${update.name} not updated for any item of the loop`),
    });
  }
  return candidates;
}

function sameList(a: string[], b: string[]): boolean {
  return a.length === b.length && a.every((item, i) => item === b[i]);
}

/** Whether `after` is `before` with one counter update deleted from a branch that goes on. */
function judgeMember({ key, before, after }: InPlaceChange): StructuralCheck {
  const types = declaredTypes(before);
  const leaves = tokenLeaves(before);
  const texts = leaves.map((leaf) => leaf.text);
  const target = tokens(after);
  let reason = `${key} changes more than deleting one counter update`;
  for (const statement of ownDescendants(before, 'expression_statement')) {
    const first = leaves.findIndex((leaf) => leaf.startIndex >= statement.startIndex);
    const count = tokens(statement).length;
    if (first < 0 || texts.length - count !== target.length) continue;
    if (!sameList([...texts.slice(0, first), ...texts.slice(first + count)], target)) continue;
    const update = counterUpdate(statement, types);
    if (!update) {
      reason = `${key} deletes \`${statement.text}\`, which updates no numeric counter or total`;
      continue;
    }
    const why = ineligibility(before, update, types);
    if (why) {
      reason = `${key} deletes \`${statement.text}\`, but ${why}`;
      continue;
    }
    const branch = branchOf(statement)!;
    if (branch.statements.length < 2) {
      reason = `${key} deletes \`${statement.text}\`, leaving ${branch.label} empty`;
      continue;
    }
    return {
      kind: 'Matches',
      evidence: `${key} skips \`${statement.text}\` in ${branch.label} that still runs; ${update.name} is still used`,
    };
  }
  return { kind: 'Mismatch', reason };
}

export const skippedCounterInjector: Injector = {
  kind: 'injector',
  typeId: 'logic_aggregation_counter_skipped_on_branch',
  sites,
  check: (before, after) =>
    firstMatch(
      changedInPlace(before, after),
      judgeMember,
      'no changed method deletes a counter or total update',
    ),
};

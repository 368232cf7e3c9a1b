import type { Node } from 'web-tree-sitter';
import { camelName, capitalized } from '../../../lang/java/naming.js';
import { valueNames } from '../../../lang/java/scopes.js';
import {
  classMembers,
  declaringClass,
  descendants,
  field,
  indentationOf,
  kids,
  modifierWords,
  nameOf,
  ownDescendants,
  unparenthesized,
} from '../../../lang/java/syntax.js';
import { lineAt } from './added-members.js';
import {
  byClosenessToFocus,
  finalFieldSources,
  finalLocals,
  candidatesInFocusMember,
  freeLocalName,
  fromStableValue,
  stableValues,
  typeAt,
  type Source,
} from './stable-values.js';
import type { TransformCandidate, TransformOperator, TransformSite } from './types.js';

/*
 * Cached Value Access: a value derived from another (`name.length()`, `values.length`, a getter
 * of a final field) is computed once into a local before its first use, and every later read in
 * that block reads the cache. Safe because the cache cannot go stale and cannot run earlier than the code did:
 * - the source is written once (a local or parameter, see stable-values.ts, or a final field)
 *   and the derivation is pure over an immutable value (a String's accessors, an array's
 *   length), so every read would have seen the same value;
 * - the cache is filled right before the statement of the first use, and only where that use is
 *   the first thing the statement evaluates (after reads of variables and literals), so it throws
 *   (a null source) exactly where the code did and nothing runs in between;
 * - it is a local of the call: it lives no longer than the computation that fills it.
 */

const CACHES_PER_SITE = 3;

/** String methods without arguments that are pure: the same String gives the same result. */
const PURE_STRING_METHODS: Record<string, (source: string) => string> = {
  length: (source) => camelName([source, 'length']),
  isEmpty: (source) => camelName([source, 'empty']),
  trim: (source) => camelName(['trimmed', capitalized(source)]),
  toLowerCase: (source) => camelName(['lower', capitalized(source)]),
  toUpperCase: (source) => camelName(['upper', capitalized(source)]),
};

/** One read of a derived value: the expression and the cache's name. */
interface Derivation {
  expression: Node;
  /** The cache's name, from the source's name and what is derived. */
  name: string;
  /** Same key, same value. */
  key: string;
}

/** The derived value read at `read` (a read of a stable source), if it is one that can be cached. */
function derivationAt(read: Node, value: Source): Derivation | undefined {
  const parent = read.parent;
  if (!parent) return undefined;
  const source = value.name;
  if (
    value.type.endsWith('[]') &&
    parent.type === 'field_access' &&
    field(parent, 'object')?.equals(read) === true &&
    field(parent, 'field')?.text === 'length'
  ) {
    return { expression: parent, name: camelName([source, 'length']), key: `${source}.length` };
  }
  const method = field(parent, 'name')?.text ?? '';
  const naming = PURE_STRING_METHODS[method];
  if (
    (value.type === 'String' || value.type === 'java.lang.String') &&
    naming &&
    parent.type === 'method_invocation' &&
    field(parent, 'object')?.equals(read) === true &&
    !field(parent, 'type_arguments') &&
    kids(field(parent, 'arguments') ?? parent).length === 0
  ) {
    return { expression: parent, name: naming(source), key: `${source}.${method}()` };
  }
  return undefined;
}

/** Arithmetic that cannot throw or have an effect on ints and longs (no division, no remainder). */
const INERT_ARITHMETIC = new Set(['+', '-', '*', '<<', '>>', '>>>', '&', '|', '^']);

const OFFSET_WORD =
  /(Offset|Start|Pos|Position|From|Begin)$|^(offset|start|pos|position|from|begin)$/;
const LENGTH_WORD = /(Len|Length|Count|Size)$|^(len|length|count|size)$/;

/**
 * A loop bound's name, as a maintainer hoisting it would write it: `dataOffset + dataLen` is
 * `dataEnd`, `offset + length` is `end`, `values.length - 1` is `lastIndex`; none for any other
 * arithmetic, which has no natural name.
 */
function boundName(bound: Node): string | undefined {
  const operator = bound.childForFieldName('operator')?.type;
  const left = unparenthesized(field(bound, 'left')!);
  const right = unparenthesized(field(bound, 'right')!);
  const word = (node: Node) =>
    node.type === 'identifier'
      ? node.text
      : node.type === 'field_access' && field(node, 'object')?.type === 'this'
        ? (field(node, 'field')?.text ?? '')
        : node.type === 'field_access' && field(node, 'field')?.text === 'length'
          ? 'length'
          : '';
  if (operator === '+') {
    const [offset, length] = OFFSET_WORD.test(word(left)) ? [left, right] : [right, left];
    if (!OFFSET_WORD.test(word(offset)) || !LENGTH_WORD.test(word(length))) return undefined;
    const stem = word(offset).replace(OFFSET_WORD, '');
    return camelName([stem, stem ? 'End' : 'end']);
  }
  if (operator === '-' && right.type === 'decimal_integer_literal' && right.text === '1') {
    return LENGTH_WORD.test(word(left)) ? 'lastIndex' : undefined;
  }
  return undefined;
}

/**
 * Loop bounds computed again on every iteration from stable values (`i < offset + length`):
 * arithmetic over reads of stable sources, their arrays' lengths and integer literals, which
 * gives the same value each time and cannot throw, so it can be computed once before the loop.
 */
function loopBounds(member: Node, sources: readonly Source[]): Derivation[] {
  const reads = new Set(
    sources.flatMap((value) => value.reads.map((read) => `${read.startIndex}:${read.endIndex}`)),
  );
  const stableArrays = new Set(
    sources.filter((value) => value.type.endsWith('[]')).map((value) => value.name),
  );
  const operand = (node: Node): boolean => {
    const bare = unparenthesized(node);
    if (bare.type === 'decimal_integer_literal') return true;
    if (reads.has(`${bare.startIndex}:${bare.endIndex}`)) return true;
    if (bare.type === 'binary_expression') return pure(bare);
    const object = field(bare, 'object');
    return (
      bare.type === 'field_access' &&
      field(bare, 'field')?.text === 'length' &&
      object !== null &&
      reads.has(`${object.startIndex}:${object.endIndex}`) &&
      stableArrays.has(object.text.replace(/^this\./, ''))
    );
  };
  const pure = (node: Node): boolean =>
    node.type === 'binary_expression' &&
    INERT_ARITHMETIC.has(node.childForFieldName('operator')?.type ?? '') &&
    operand(field(node, 'left')!) &&
    operand(field(node, 'right')!);
  const loops = ownDescendants(member, ['for_statement', 'while_statement']);
  return loops.flatMap((loop) => {
    const condition = field(loop, 'condition');
    if (!condition) return [];
    return descendants(condition, 'binary_expression').flatMap((bound) => {
      if (!pure(bound) || (bound.parent?.type === 'binary_expression' && pure(bound.parent)))
        return [];
      const name = boundName(bound);
      if (!name) return [];
      return [{ expression: bound, name, key: bound.text.replace(/\s+/g, ' ') }];
    });
  });
}

/** Whether the class can have no subclass to override a method of it. */
function isFinalClass(owner: Node): boolean {
  return owner.type === 'enum_declaration' || modifierWords(owner).includes('final');
}

/**
 * Whether `expression` reads only final fields of `owner` and literals, with operators: no
 * call, no allocation, no array element (its content may change), no write. Such a value is the
 * same for the object's whole life.
 */
function readsOnlyFinalFields(expression: Node, owner: Node): boolean {
  const banned = descendants(expression, [
    'method_invocation',
    'object_creation_expression',
    'array_creation_expression',
    'array_access',
    'assignment_expression',
    'update_expression',
    'lambda_expression',
    'method_reference',
    'instanceof_expression',
  ]);
  if (banned.length > 0) return false;
  const finals = new Set<string>();
  for (const declaration of classMembers(owner)) {
    if (declaration.type !== 'field_declaration') continue;
    if (!modifierWords(declaration).includes('final')) continue;
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator')) {
      finals.add(nameOf(declarator));
    }
  }
  const fieldReads = descendants(expression, 'field_access');
  if (fieldReads.some((access) => field(access, 'object')?.type !== 'this')) return false;
  return valueNames(expression).every((name) => finals.has(name.text));
}

/**
 * The getters of the member's class that return a value fixed for the object's life (a final
 * field, or an expression over final fields), where no subclass can override them (the class or
 * the method is final, or the method private or static). Calling one has no effect and cannot
 * throw, so its result can be cached.
 */
function fixedGetters(owner: Node): Set<string> {
  const names = new Set<string>();
  for (const method of classMembers(owner)) {
    if (method.type !== 'method_declaration') continue;
    const parameters = kids(field(method, 'parameters') ?? method);
    const words = modifierWords(method);
    const sealed =
      isFinalClass(owner) || ['final', 'private', 'static'].some((word) => words.includes(word));
    const statements = kids(field(method, 'body') ?? method).filter(
      (k) => !k.type.endsWith('comment'),
    );
    const returned =
      statements.length === 1 && statements[0]!.type === 'return_statement'
        ? kids(statements[0]!)[0]
        : undefined;
    if (
      parameters.length === 0 &&
      sealed &&
      !field(method, 'type_parameters') &&
      returned &&
      readsOnlyFinalFields(returned, owner)
    ) {
      names.add(nameOf(method));
    }
  }
  return names;
}

/** A cache's name for a getter's value: `getQuoteMode` gives `quoteMode`. */
function getterValueName(getter: string): string {
  const bare = getter.replace(/^(get|is)(?=[A-Z])/, '');
  return bare.charAt(0).toLowerCase() + bare.slice(1);
}

/** Calls in `member` of its class's fixed getters on this object, as derivations. */
function getterCalls(member: Node): Derivation[] {
  const owner = declaringClass(member);
  const body = field(member, 'body');
  if (!owner || !body || member.type === 'constructor_declaration') return [];
  const getters = fixedGetters(owner);
  return ownDescendants(member, 'method_invocation').flatMap((call) => {
    const receiver = field(call, 'object');
    const name = field(call, 'name')?.text ?? '';
    if (!getters.has(name) || (receiver && receiver.type !== 'this')) return [];
    if (kids(field(call, 'arguments') ?? call).length > 0 || field(call, 'type_arguments'))
      return [];
    return [{ expression: call, name: getterValueName(name), key: `${name}()` }];
  });
}

/** Reads of variables, literals and `this`: evaluating them first has no effect and cannot throw. */
function inert(node: Node): boolean {
  const bare = unparenthesized(node);
  if (['identifier', 'this', 'true', 'false', 'null_literal'].includes(bare.type)) return true;
  if (bare.type.endsWith('_literal')) return true;
  return (
    bare.type === 'field_access' &&
    field(bare, 'object')?.type === 'this' &&
    field(bare, 'field')?.type === 'identifier'
  );
}

/** A loop's init that only sets locals to inert values (`int i = 0`, `i = start`). */
function inertInit(init: Node | null): boolean {
  if (!init) return true;
  if (init.type === 'local_variable_declaration') {
    return kids(init)
      .filter((k) => k.type === 'variable_declarator')
      .every((declarator) => {
        const value = field(declarator, 'value');
        return value === null || inert(value);
      });
  }
  return (
    init.type === 'assignment_expression' &&
    field(init, 'left')?.type === 'identifier' &&
    inert(field(init, 'right')!)
  );
}

/** Whether every named sibling before `node` is inert. */
function inertBefore(node: Node): boolean {
  const siblings = kids(node.parent!).filter((k) => !k.type.endsWith('comment'));
  return siblings
    .slice(
      0,
      siblings.findIndex((k) => k.equals(node)),
    )
    .every(inert);
}

/** Whether `expression` is the first thing `statement` evaluates, but for inert reads. */
export function evaluatedFirst(expression: Node, statement: Node): boolean {
  for (let node = expression; !node.equals(statement); node = node.parent!) {
    const parent = node.parent;
    if (!parent) return false;
    const is = (name: string) => field(parent, name)?.equals(node) === true;
    switch (parent.type) {
      case 'parenthesized_expression':
      case 'unary_expression':
      case 'cast_expression':
      case 'expression_statement':
      case 'return_statement':
      case 'throw_statement':
        break;
      case 'binary_expression': {
        if (is('left')) break;
        const operator = parent.childForFieldName('operator')?.type;
        if (operator === '&&' || operator === '||') return false;
        if (!inert(field(parent, 'left')!)) return false;
        break;
      }
      case 'argument_list':
        if (!inertBefore(node)) return false;
        break;
      case 'method_invocation':
      case 'object_creation_expression': {
        if (is('object')) break;
        const receiver = field(parent, 'object');
        if (!is('arguments') || (receiver && !inert(receiver))) return false;
        break;
      }
      case 'field_access':
        if (!is('object')) return false;
        break;
      case 'dimensions_expr':
        break;
      case 'array_creation_expression':
        // `new String[values.length]`: the first dimension is evaluated first.
        if (
          !kids(parent)
            .find((k) => k.type === 'dimensions_expr')
            ?.equals(node)
        )
          return false;
        break;
      case 'array_access':
        if (!is('array') && !inert(field(parent, 'array')!)) return false;
        break;
      case 'assignment_expression':
        if (!is('right') || field(parent, 'left')?.type !== 'identifier') return false;
        break;
      case 'variable_declarator':
        if (!is('value')) return false;
        break;
      case 'local_variable_declaration':
        if (
          !kids(parent)
            .find((k) => k.type === 'variable_declarator')
            ?.equals(node)
        )
          return false;
        break;
      case 'for_statement':
        // `for (int i = 0; i < values.length; i++)`: the condition runs first after the init.
        if (!is('condition') || !parent.childrenForFieldName('init').every(inertInit)) return false;
        break;
      case 'if_statement':
      case 'while_statement':
      case 'switch_expression':
      case 'ternary_expression':
        if (!is('condition')) return false;
        break;
      default:
        return false;
    }
  }
  return true;
}

/** The statement of a block holding `node` directly (not a nested statement's). */
function statementOf(node: Node): Node | undefined {
  for (let current: Node | null = node; current; current = current.parent) {
    const parent = current.parent;
    if (parent && (parent.type === 'block' || parent.type === 'constructor_body')) {
      return current.type.endsWith('comment') ? undefined : current;
    }
    if (current.type === 'lambda_expression' || current.type.endsWith('_declaration')) {
      return undefined;
    }
  }
  return undefined;
}

/** Where a cache of `derivations` can go: before the statement of one of them, covering most. */
function cachePoint(derivations: readonly Derivation[]) {
  let best: { statement: Node; covered: Derivation[] } | undefined;
  for (const derivation of derivations) {
    const statement = statementOf(derivation.expression);
    if (!statement || statement.type === 'explicit_constructor_invocation') continue;
    if (!evaluatedFirst(derivation.expression, statement)) continue;
    const block = statement.parent!;
    const covered = derivations.filter(
      (other) =>
        other.expression.startIndex >= statement.startIndex &&
        other.expression.endIndex <= block.endIndex,
    );
    if (!best || covered.length > best.covered.length) best = { statement, covered };
  }
  return best;
}

export const cachedValueAccess: TransformOperator = {
  kind: 'transform',
  id: 't_cached_value_access_v1',
  candidates: (site: TransformSite) =>
    candidatesInFocusMember(site, ({ root, member, style }) => {
      const finalWord = finalLocals(root) ? 'final ' : '';
      const caches: { reads: Node[]; candidate: TransformCandidate; count: number }[] = [];
      const sources = [
        ...stableValues(member, site.model).map(fromStableValue),
        ...finalFieldSources(member, site.model),
      ];
      const groups = new Map<string, Derivation[]>();
      const all = [
        ...sources.flatMap((value) =>
          value.reads.flatMap((read) => derivationAt(read, value) ?? []),
        ),
        ...getterCalls(member),
        ...loopBounds(member, sources),
      ];
      for (const derivation of all) {
        groups.set(derivation.key, [...(groups.get(derivation.key) ?? []), derivation]);
      }
      for (const [key, derivations] of groups) {
        const point = cachePoint(derivations);
        const type = point && typeAt(site.model, point.covered[0]!.expression);
        const name = derivations[0]!.name;
        // The cache may shadow a field the member never names (`quoteMode` for getQuoteMode()).
        if (!point || !type || !freeLocalName(member, name, new Set())) continue;
        const indent = indentationOf(site.source, point.statement);
        const declaration = `${finalWord}${type} ${name} = ${point.covered[0]!.expression.text};`;
        caches.push({
          reads: point.covered.map((d) => d.expression),
          count: point.covered.length,
          candidate: {
            description: `${nameOf(member)}: ${key} is read from ${name}, cached on line ${lineAt(site.source, point.statement.startIndex)}`,
            // The cache's line after the reads: a read may start the statement it goes before.
            edits: [
              ...point.covered.map((d) => ({
                start: d.expression.startIndex,
                end: d.expression.endIndex,
                text: name,
              })),
              {
                start: point.statement.startIndex,
                end: point.statement.startIndex,
                text: `${declaration}${style.lineBreak}${indent}`,
              },
            ],
            added: [],
          },
        });
      }
      // A value read more than once is the natural cache; among equals, the one nearest the bug.
      const ranked = byClosenessToFocus(caches, site.focus).sort(
        (a, b) => Number(b.count > 1) - Number(a.count > 1),
      );
      return ranked.slice(0, CACHES_PER_SITE).map((cache) => cache.candidate);
    }),
};

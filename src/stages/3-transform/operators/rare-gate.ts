import type { Node } from 'web-tree-sitter';
import { diffHunks } from '../../../core/diff-stats.js';
import { blockStatements, enclosingMember } from '../../../lang/java/extraction.js';
import {
  localDeclarations,
  resolveLocal,
  valueNames,
  type LocalDeclaration,
} from '../../../lang/java/scopes.js';
import { fileStyle, reindent } from '../../../lang/java/style.js';
import {
  ancestor,
  descendants,
  field,
  hasSyntaxError,
  kids,
  METHOD_TYPES,
  modifierWords,
  nameOf,
  statementsOf,
  tokens,
  unparenthesized,
  withJavaTree,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { lineAt } from './added-members.js';
import {
  chooseGate,
  compact,
  gateCondition,
  type ProbedKind,
  type ProbedValue,
  type Signal,
} from './gate-signals.js';
import type {
  ProbePlan,
  SiteProfile,
  TransformCandidate,
  TransformOperator,
  TransformSite,
} from './types.js';

/*
 * Rare Input Path Conditioning: the code the bug changed goes back to its clean form with one
 * condition given a special case that lets the bug through, true for the witness's failing calls
 * and false for most other observed calls: a moved boundary holds only at equality under the
 * condition (`i < n || (i == n && <rare>)`), another changed condition becomes `<clean> || <rare>`
 * or `<clean> && !<rare>`, a removed check stays but is skipped (`x == null && !<rare>`, `x !=
 * null || <rare>`), deleted statements with no condition come back behind `if (!<rare>)`. No copy
 * of the clean code sits beside the buggy one, and the condition reads values already in scope
 * (gate-signals.ts), never a literal the witness's inputs showed; a bug that changed a value, not
 * a condition, has no site. The values are profiled by the stage with a probe this operator
 * places (see `probe`).
 */

/** The statements the gate covers, and their buggy and clean text (whole lines). */
interface GateRegion {
  member: Node;
  /** The statements covered (for a deleted one, the statement after it): their fields are read. */
  statements: Node[];
  /** Start of the first covered line: where the probe and the gate go. */
  from: number;
  /** End of the last covered statement; equal to `from` when the bug deleted the statements. */
  to: number;
  indent: string;
  buggy: string[];
  clean: string[];
  /** The names the bug's changed lines (either side) mention. */
  bugNames: Set<string>;
  /** The names the bug's added lines dereference (`x.m()`, `x[i]`). */
  bugDereferences: Set<string>;
  /** The names the statements after the region read. */
  readAfter: Set<string>;
}

const lineStart = (source: string, index: number) => source.lastIndexOf('\n', index - 1) + 1;

/** The bug patch's one run of changed lines: its removed and added sides, and what follows it. */
function changedRun(bug: string) {
  const hunks = diffHunks(bug);
  // The gate covers one place; a bug in several keeps its other places ungated.
  if (hunks.length !== 1) return undefined;
  const lines = hunks[0]!.lines;
  const changed = lines.flatMap((line, i) => (line.kind === 'context' ? [] : [i]));
  const first = changed[0]!;
  const last = changed[changed.length - 1]!;
  const run = lines.slice(first, last + 1);
  if (run.some((line) => line.kind === 'context')) return undefined;
  return {
    names: new Set(run.flatMap((line) => line.text.match(/[A-Za-z_$][\w$]*/g) ?? [])),
    dereferenced: new Set(
      run
        .filter((line) => line.kind === 'added')
        .flatMap((line) => [...line.text.matchAll(/(?<![\w$.])([A-Za-z_$][\w$]*)\s*[.[]/g)])
        .map((match) => match[1]!),
    ),
    added: run.filter((line) => line.kind === 'added').map((line) => line.text),
    removed: run.filter((line) => line.kind === 'removed').map((line) => line.text),
    next: lines.slice(last + 1).find((line) => line.text.trim() !== '')?.text,
  };
}

const leading = (line: string) => /^[ \t]*/.exec(line)![0];

/** Statements of one block covering the range: the innermost such run. */
function coveringRun(root: Node, start: number, end: number): Node[] | undefined {
  for (
    let node: Node | null = root.descendantForIndex(start, Math.max(start, end - 1));
    node;
    node = node.parent
  ) {
    if (node.parent?.type !== 'block' || node.type.endsWith('comment')) continue;
    const statements = blockStatements(node.parent).filter(
      (statement) => statement.endIndex > start && statement.startIndex < end,
    );
    if (statements[0]!.startIndex <= start && statements[statements.length - 1]!.endIndex >= end) {
      return statements;
    }
  }
  return undefined;
}

/** The names declared at the top level of statements. */
function declaredNames(statements: readonly Node[]): string[] {
  return statements
    .filter((statement) => statement.type === 'local_variable_declaration')
    .flatMap((statement) =>
      kids(statement)
        .filter((k) => k.type === 'variable_declarator')
        .map((declarator) => field(declarator, 'name')?.text ?? ''),
    );
}

function gateRegion(root: Node, site: TransformSite): GateRegion | undefined {
  const { source, focus } = site;
  const change = site.bug ? changedRun(site.bug) : undefined;
  if (!change) return undefined;
  const focusLine = lineStart(source, focus.start);
  const focusEnd = source.indexOf('\n', focus.end);
  const focusLast = focusEnd === -1 ? source.length : focusEnd;
  // How far earlier steps moved the bug's lines in or out: the clean lines follow them.
  const reference = change.added.find((line) => line.trim() !== '') ?? change.next;
  if (reference === undefined) return undefined;
  const indent = leading(source.slice(focusLine));
  const clean = reindent(change.removed, leading(reference), indent);

  const statements =
    change.added.length > 0
      ? coveringRun(root, focus.start, focus.end)
      : coveringRun(root, focus.start, focus.start + 1)?.filter(
          (statement) => statement.startIndex === focus.start,
        );
  if (!statements || statements.length === 0) return undefined;
  const block = statements[0]!.parent!;
  const member = enclosingMember(block);
  // Inside a lambda the profiled locals would have to be effectively final: left alone.
  if (!member || ancestor(block, ['lambda_expression', ...METHOD_TYPES])?.type !== member.type)
    return undefined;
  if (statements.some((s) => s.type === 'explicit_constructor_invocation')) return undefined;
  const first = statements[0]!;
  const last = statements[statements.length - 1]!;
  const from = lineStart(source, first.startIndex);
  if (source.slice(from, first.startIndex).trim() !== '') return undefined;
  const after = change.added.length === 0 ? first.startIndex : last.endIndex;
  const readAfter = new Set(
    blockStatements(block)
      .filter((s) => s.startIndex >= after)
      .flatMap((s) => valueNames(s).map((name) => name.text)),
  );
  if (change.added.length === 0) {
    return {
      member,
      statements,
      from,
      to: from,
      indent: leading(source.slice(from)),
      buggy: [],
      clean,
      bugNames: change.names,
      bugDereferences: change.dereferenced,
      readAfter,
    };
  }
  const lineEnd = source.indexOf('\n', last.endIndex);
  if (source.slice(last.endIndex, lineEnd === -1 ? source.length : lineEnd).trim() !== '')
    return undefined;
  const region = source.slice(from, last.endIndex).split(/\r?\n/);
  const linesBefore = source.slice(from, focusLine).split(/\r?\n/).length - 1;
  const linesAfter = source.slice(focusLast, last.endIndex).split(/\r?\n/).length - 1;
  const cleanRegion = [
    ...region.slice(0, linesBefore),
    ...clean,
    ...region.slice(region.length - linesAfter),
  ];
  return {
    member,
    statements,
    from,
    to: last.endIndex,
    indent: leading(region[0]!),
    buggy: region,
    clean: cleanRegion.every((line) => line.trim() === '') ? [] : cleanRegion,
    bugNames: change.names,
    bugDereferences: change.dereferenced,
    readAfter,
  };
}

/** The gate's condition spelled for where a rewrite puts it. */
interface GateText {
  /** The condition, as an operand of `||`. */
  taken: string;
  /** The condition, as an operand of `&&`. */
  takenInAnd: string;
  /** Its negation, as an operand of `&&`. */
  avoided: string;
  /** Its negation, standing alone (an `if`'s whole condition). */
  avoidedAlone: string;
}

function gateText(signals: readonly Signal[]): GateText {
  const { taken, avoided } = gateCondition(signals);
  const several = signals.length > 1;
  return {
    taken: several ? `(${taken})` : taken,
    takenInAnd: taken,
    avoided: several ? `(${avoided})` : avoided,
    avoidedAlone: avoided,
  };
}

/** One way to write the gate into the clean code: the region's new lines for a gate. */
interface GatedRewrite {
  /** What it does, for the step's description. */
  how: string;
  lines: (gate: GateText) => string[];
}

/** The wrapper a snippet of statements is parsed in, as a method body. */
const SNIPPET_HEAD = 'class Gate { void gate() {\n';

/** The statements of lines parsed as a method body, or undefined if they do not parse. */
function withStatements<T>(
  lines: readonly string[],
  use: (statements: Node[]) => T,
): T | undefined {
  return withJavaTree(`${SNIPPET_HEAD}${lines.join('\n')}\n} }`, (root) => {
    if (hasSyntaxError(root)) return undefined;
    return use(blockStatements(field(descendants(root, 'method_declaration')[0]!, 'body')!));
  });
}

const sameText = (a: readonly Node[], b: readonly Node[]) =>
  a.flatMap(tokens).join(' ') === b.flatMap(tokens).join(' ');

const operator = (node: Node) => field(node, 'operator')?.type ?? '';

const COMPARISONS = new Set(['==', '!=', '<', '<=', '>', '>=']);

/** Whether an expression is a condition: a comparison, a connective, a negation, or in a test. */
function isCondition(node: Node): boolean {
  const bare = unparenthesized(node);
  if (bare.type === 'binary_expression') {
    const op = operator(bare);
    if (COMPARISONS.has(op) || op === '&&' || op === '||') return true;
  }
  if (bare.type === 'unary_expression' && operator(bare) === '!') return true;
  if (bare.type === 'instanceof_expression') return true;
  let outer = node;
  while (outer.parent?.type === 'parenthesized_expression') outer = outer.parent;
  const parent = outer.parent;
  if (!parent) return false;
  if (['if_statement', 'while_statement', 'do_statement'].includes(parent.type)) return true;
  if (parent.type === 'for_statement' || parent.type === 'ternary_expression')
    return field(parent, 'condition')?.equals(outer) === true;
  if (parent.type === 'binary_expression') return ['&&', '||'].includes(operator(parent));
  return parent.type === 'unary_expression' && operator(parent) === '!';
}

/**
 * Where the clean and buggy statements differ, followed down while one child differs: the
 * smallest conditions that differ (`i < n` and `i <= n` for a moved boundary, `!x.isEmpty()` and
 * `x.isEmpty()` for a dropped negation), or a conditional expression the bug replaced by one of
 * its branches (`s == null ? 0 : s.length()` by `s.length()`).
 */
type Difference =
  | { kind: 'Condition'; clean: Node; buggy: Node }
  | { kind: 'Branch'; condition: Node; kept: 'consequence' | 'alternative' };

function difference(clean: Node[], buggy: Node[]): Difference | undefined {
  if (clean.length !== buggy.length) return undefined;
  const differing = clean.flatMap((node, i) => (sameText([node], [buggy[i]!]) ? [] : [i]));
  if (differing.length !== 1) return undefined;
  let pair: [Node, Node] = [clean[differing[0]!]!, buggy[differing[0]!]!];
  let found: Difference | undefined;
  for (;;) {
    const [a, b] = pair;
    // Both compile in the same place: one shaped as a condition makes the other boolean too.
    if (isCondition(a) || isCondition(b)) found = { kind: 'Condition', clean: a, buggy: b };
    if (a.type === 'ternary_expression' && b.type !== 'ternary_expression') {
      const kept = (['consequence', 'alternative'] as const).find((name) =>
        sameText([field(a, name)!], [b]),
      );
      return kept ? { kind: 'Branch', condition: field(a, 'condition')!, kept } : found;
    }
    if (a.type !== b.type || a.childCount !== b.childCount) return found;
    const children = a.children.flatMap((child, i) =>
      child && !sameText([child], [b.child(i)!]) ? [i] : [],
    );
    if (children.length !== 1) return found;
    const next: [Node, Node] = [a.child(children[0]!)!, b.child(children[0]!)!];
    // An operator token is no condition of its own: the comparison around it is the pair.
    if (next[0].childCount === 0 && !next[0].isNamed) return found;
    pair = next;
  }
}

/**
 * The rewrites of a guard whose branch the bug kept alone: the guard stays, and lets the kept
 * branch through (its `if` branch) or is skipped (its `else` branch) under the gate.
 */
function branchRewrites(
  condition: Node,
  kept: 'consequence' | 'alternative',
  replacing: (node: Node) => (text: string) => string[],
): GatedRewrite[] {
  const inner = unparenthesized(condition);
  const replaced = replacing(inner);
  if (kept === 'consequence') {
    const inOr = operandText(inner, '||');
    return [
      {
        how: 'guard let through when',
        lines: (gate: GateText) => replaced(`${inOr} || ${gate.taken}`),
      },
    ];
  }
  const inAnd = operandText(inner, '&&');
  return [
    {
      how: 'guard skipped when',
      lines: (gate: GateText) => replaced(`${inAnd} && ${gate.avoided}`),
    },
  ];
}

/** Whether an expression is an operand of an operator: a rewrite with `||` in it needs parens. */
function isOperand(node: Node): boolean {
  const parent = node.parent;
  return (
    parent !== null &&
    ['binary_expression', 'unary_expression', 'cast_expression', 'instanceof_expression'].includes(
      parent.type,
    )
  );
}

/** An expression's text as an operand of `connective`, parenthesised when it binds looser. */
function operandText(node: Node, connective: '&&' | '||'): string {
  const bare = unparenthesized(node);
  const loose =
    bare.type === 'ternary_expression' ||
    bare.type === 'assignment_expression' ||
    bare.type === 'lambda_expression' ||
    (connective === '&&' && bare.type === 'binary_expression' && operator(bare) === '||');
  return loose ? `(${bare.text})` : bare.text;
}

/** A null check's side: `x == null` or `null != x`, with its operator. */
function nullCheck(node: Node): '==' | '!=' | undefined {
  const bare = unparenthesized(node);
  if (bare.type !== 'binary_expression') return undefined;
  const op = operator(bare);
  if (op !== '==' && op !== '!=') return undefined;
  const sides = [field(bare, 'left'), field(bare, 'right')];
  return sides.some((side) => side?.type === 'null_literal') ? op : undefined;
}

/**
 * The rewrites of a changed condition `clean` (the bug made it `buggy`), each as the text that
 * replaces it: true under the gate where the bug's condition is, and the clean one otherwise.
 */
function conditionRewrites(
  clean: Node,
  buggy: Node,
): { how: string; text: (gate: GateText) => string }[] {
  // Trees are freed once the rewrites are chosen: they keep only text.
  const operand = isOperand(clean);
  const parent = clean.parent?.type === 'binary_expression' ? operator(clean.parent) : undefined;
  // `a || (b || c)` reads as `a || b || c`: parentheses only where the operators differ.
  const wrap = (text: string, top: string) => (operand && parent !== top ? `(${text})` : text);
  const bare = unparenthesized(clean);
  const bareBuggy = unparenthesized(buggy);
  const op = operator(bare);
  // A null check the bug dropped from `x != null && x.m()` stays, skipped under the gate.
  if (bare.type === 'binary_expression' && (op === '&&' || op === '||')) {
    const [left, right] = [field(bare, 'left')!, field(bare, 'right')!];
    for (const [check, rest] of [
      [left, right],
      [right, left],
    ] as const) {
      const kind = nullCheck(check);
      if (!kind || !sameText([rest], [bareBuggy]) || (kind === '!=') !== (op === '&&')) continue;
      const checkText = unparenthesized(check).text;
      const [leftText, restText, checkFirst] = [left.text, rest.text, check.equals(left)];
      const weakened = (gate: GateText) =>
        kind === '!=' ? `(${checkText} || ${gate.taken})` : `(${checkText} && ${gate.avoided})`;
      return [
        {
          how: 'null check skipped when',
          text: (gate) =>
            wrap(
              checkFirst
                ? `${weakened(gate)} ${op} ${restText}`
                : `${leftText} ${op} ${weakened(gate)}`,
              op,
            ),
        },
      ];
    }
  }
  // A boundary moved by one holds at equality only under the gate.
  const boundary: Record<string, string> = { '<': '<=', '<=': '<', '>': '>=', '>=': '>' };
  if (
    bare.type === 'binary_expression' &&
    bareBuggy.type === 'binary_expression' &&
    boundary[op] === operator(bareBuggy) &&
    sameText([field(bare, 'left')!], [field(bareBuggy, 'left')!]) &&
    sameText([field(bare, 'right')!], [field(bareBuggy, 'right')!])
  ) {
    const [left, right] = [field(bare, 'left')!.text, field(bare, 'right')!.text];
    const strict = op.length === 1 ? op : operator(bareBuggy);
    const bugAtEquality = operator(bareBuggy).length === 2;
    return [
      {
        how: 'boundary at equality when',
        text: (gate) =>
          wrap(
            `${left} ${strict} ${right} || (${left} == ${right} && ${bugAtEquality ? gate.takenInAnd : gate.avoided})`,
            '||',
          ),
      },
    ];
  }
  const [inOr, inAnd] = [operandText(clean, '||'), operandText(clean, '&&')];
  return [
    { how: 'condition also true when', text: (gate) => wrap(`${inOr} || ${gate.taken}`, '||') },
    { how: 'condition false when', text: (gate) => wrap(`${inAnd} && ${gate.avoided}`, '&&') },
  ];
}

/**
 * How the gate can be written into a region: the clean code with one condition rewritten, or,
 * for deleted statements that hold no condition, the statements back behind the gate's negation.
 * Empty when the bug changed no condition and deleted nothing: the operator has no site there.
 */
function gatedRewrites(region: GateRegion, indentUnit: string): GatedRewrite[] {
  const clean = region.clean.join('\n');
  const offset = SNIPPET_HEAD.length;
  /** The clean lines with `node` replaced: its offsets are read now, while its tree lives. */
  const replacing = (node: Node) => {
    const [head, tail] = [
      clean.slice(0, node.startIndex - offset),
      clean.slice(node.endIndex - offset),
    ];
    return (text: string) => `${head}${text}${tail}`.split('\n');
  };
  return (
    withStatements(region.clean, (cleanStatements) => {
      const found = withStatements(region.buggy, (buggyStatements) => {
        const change = difference(cleanStatements, buggyStatements);
        if (change?.kind === 'Condition') {
          const replaced = replacing(change.clean);
          return conditionRewrites(change.clean, change.buggy).map((rewrite) => ({
            how: rewrite.how,
            lines: (gate: GateText) => replaced(rewrite.text(gate)),
          }));
        }
        if (change?.kind === 'Branch')
          return branchRewrites(change.condition, change.kept, replacing);
        // An `if` the bug took away around statements it kept.
        const guard = cleanStatements.length === 1 ? cleanStatements[0]! : undefined;
        const condition = guard?.type === 'if_statement' ? field(guard, 'condition') : null;
        if (!guard || !condition || buggyStatements.length === 0) return undefined;
        const kept = (['consequence', 'alternative'] as const).find((name) => {
          const branch = field(guard, name);
          return branch !== null && sameText(statementsOf(branch), buggyStatements);
        });
        return kept ? branchRewrites(condition, kept, replacing) : undefined;
      });
      if (found) return found;
      if (region.buggy.length > 0) return [];
      // Deleted statements: a lone `if` keeps its place, skipped under the gate; others come
      // back behind its negation, unless they declare what the code after them reads.
      const guard = cleanStatements.length === 1 ? cleanStatements[0]! : undefined;
      const condition = guard?.type === 'if_statement' ? field(guard, 'condition') : null;
      if (guard && condition && !field(guard, 'alternative')) {
        const inner = unparenthesized(condition);
        const [replaced, inAnd] = [replacing(inner), operandText(inner, '&&')];
        return [
          {
            how: 'check skipped when',
            lines: (gate: GateText) => replaced(`${inAnd} && ${gate.avoided}`),
          },
        ];
      }
      if (declaredNames(cleanStatements).some((name) => region.readAfter.has(name))) return [];
      return [
        {
          how: 'skipped when',
          lines: (gate: GateText) => [
            `${region.indent}if (${gate.avoidedAlone}) {`,
            ...reindent(region.clean, region.indent, region.indent + indentUnit),
            `${region.indent}}`,
          ],
        },
      ];
    }) ?? []
  );
}

/** What the probe can record of a value of a type javac spelled, if anything. */
export function probedKind(type: string): ProbedKind | undefined {
  if (['int', 'long', 'short', 'byte'].includes(type)) return 'integral';
  if (type === 'char') return 'char';
  if (type === 'boolean') return 'boolean';
  if (type === 'String' || type === 'java.lang.String') return 'string';
  if (type.endsWith('[]')) return 'array';
  const raw = type.replace(/<.*$/, '').replace(/^.*\./, '');
  if (
    /^(Collection|List|ArrayList|LinkedList|Set|HashSet|LinkedHashSet|TreeSet|SortedSet|NavigableSet|Queue|Deque|ArrayDeque|Map|HashMap|LinkedHashMap|TreeMap|SortedMap|NavigableMap)$/.test(
      raw,
    )
  )
    return 'size';
  if (/^(StringBuilder|StringBuffer|CharSequence)$/.test(raw)) return 'length';
  // Of other objects only null is told apart; primitives left (floating point) are not probed.
  return /^[a-z]+$/.test(type) ? undefined : 'reference';
}

/** Whether a declaration's name holds a value at `point`. */
function visibleAt(declaration: LocalDeclaration, point: number): boolean {
  const { node, scope } = declaration;
  if (point < scope.startIndex || point >= scope.endIndex) return false;
  if (node.type === 'enhanced_for_statement') {
    const body = field(node, 'body');
    return body !== null && point > body.startIndex && point < body.endIndex;
  }
  if (node.type === 'variable_declarator' && !field(node, 'value')) return false;
  return point >= node.endIndex;
}

function typeOf(model: SourceModel, member: Node, declaration: LocalDeclaration): string | null {
  if (declaration.kind === 'parameter') {
    const name = field(member, 'name')!;
    const method = model.methods
      .filter((m) => m.start <= name.startIndex && name.endIndex <= m.end)
      .sort((a, b) => b.start - a.start)[0];
    return method?.parameters.find((p) => p.name === declaration.name)?.type ?? null;
  }
  const holder =
    declaration.node.type === 'variable_declarator'
      ? (declaration.node.parent ?? declaration.node)
      : declaration.node;
  return (
    model.locals.find(
      (entry) =>
        entry.name === declaration.name &&
        entry.start >= holder.startIndex &&
        entry.start <= holder.endIndex,
    )?.type ?? null
  );
}

/** The most values a probe records: the nearest declared ones. */
const MAX_PROBED = 10;

/** A constant's name: its value is the same for every call, so it tells none apart. */
const CONSTANT_NAME = /^[A-Z][A-Z0-9_]*$/;

/** Names of the file's constants: static final fields, interface fields, constant-like names. */
function constantNames(root: Node, names: readonly string[]): Set<string> {
  const constants = new Set(names.filter((name) => CONSTANT_NAME.test(name)));
  for (const declaration of descendants(root, ['field_declaration', 'constant_declaration'])) {
    const words = modifierWords(declaration);
    const constant =
      declaration.type === 'constant_declaration' ||
      declaration.parent?.type === 'interface_body' ||
      (words.includes('static') && words.includes('final'));
    if (!constant) continue;
    for (const declarator of kids(declaration).filter((k) => k.type === 'variable_declarator')) {
      const name = field(declarator, 'name')?.text;
      if (name) constants.add(name);
    }
  }
  return constants;
}

/**
 * The values of the gate's place that can be profiled: the locals and parameters in scope, the
 * nearest declared last, then the fields the covered statements read (javac types both).
 */
function probedValues(region: GateRegion, model: SourceModel): ProbedValue[] {
  const byName = new Map<string, ProbedValue>();
  const declarations = localDeclarations(region.member);
  for (const declaration of declarations) {
    if (declaration.kind === 'lambda-parameter' || !visibleAt(declaration, region.from)) continue;
    const type = typeOf(model, region.member, declaration);
    const kind = type === null ? undefined : probedKind(type);
    if (kind) byName.set(declaration.name, { name: declaration.name, kind });
  }
  const locals = [...byName.values()].slice(-MAX_PROBED);
  const localNames = new Set(declarations.map((declaration) => declaration.name));
  let root = region.member;
  while (root.parent) root = root.parent;
  const fields = new Map<string, ProbedValue>();
  const typed = (node: Node, kind: string) =>
    model.expressions.find(
      (entry) =>
        entry.node === kind && entry.start === node.startIndex && entry.end === node.endIndex,
    )?.type ?? null;
  const readNames = region.statements.flatMap((statement) =>
    valueNames(statement).map((n) => n.text),
  );
  const constants = constantNames(root, readNames);
  for (const statement of region.statements) {
    const reads: { name: string; node: Node; kind: string }[] = [
      ...valueNames(statement)
        .filter(
          (identifier) =>
            identifier.parent?.type !== 'field_access' && !resolveLocal(identifier, declarations),
        )
        .map((identifier) => ({ name: identifier.text, node: identifier, kind: 'identifier' })),
      ...descendants(statement, 'field_access')
        .filter((access) => field(access, 'object')?.type === 'this')
        .map((access) => ({ name: access.text, node: access, kind: 'member_select' })),
    ];
    for (const read of reads) {
      const bare = read.name.replace(/^this\./, '');
      // A name some local of the member takes is not read as a field (a switch's locals span
      // its case groups, beyond what the scopes tell).
      if (fields.has(read.name) || localNames.has(bare) || constants.has(bare)) continue;
      const type = typed(read.node, read.kind);
      const kind = type === null ? undefined : probedKind(type);
      if (kind) fields.set(read.name, { name: read.name, kind });
    }
  }
  const probed = [...locals, ...[...fields.values()].slice(0, MAX_PROBED - locals.length)];
  const relations = relatedNames(region.member);
  return probed.map((value) => {
    const bare = value.name.replace(/^this\./, '');
    const related = probed
      .map((other) => other.name)
      .filter((other) => relations.get(bare)?.has(other.replace(/^this\./, '')));
    return {
      ...value,
      related,
      ...(region.bugNames.has(bare) ? { readByBug: true } : {}),
      ...(region.bugDereferences.has(bare) ? { dereferencedByBug: true } : {}),
    };
  });
}

/** Operators that compare or compute: values in one such expression are related by the method. */
const RELATING = new Set(['<', '<=', '>', '>=', '==', '!=', '+', '-', '*', '/', '%']);

/** For each name the member reads, the names it compares or computes with in one expression. */
function relatedNames(member: Node): Map<string, Set<string>> {
  const related = new Map<string, Set<string>>();
  for (const expression of descendants(member, 'binary_expression')) {
    if (!RELATING.has(field(expression, 'operator')?.type ?? '')) continue;
    const names = [
      ...valueNames(expression).map((name) => name.text),
      ...descendants(expression, 'field_access').flatMap((access) =>
        field(access, 'object')?.type === 'this' ? [field(access, 'field')!.text] : [],
      ),
    ];
    for (const name of names) {
      const peers = related.get(name) ?? new Set<string>();
      for (const other of names) if (other !== name) peers.add(other);
      related.set(name, peers);
    }
  }
  return related;
}

function probe(site: TransformSite): ProbePlan | undefined {
  return withJavaTree(site.source, (root) => {
    const region = gateRegion(root, site);
    if (!region) return undefined;
    // Profiling costs a run of the classes: only where a gate can be written.
    if (gatedRewrites(region, fileStyle(site.source, root).indentUnit).length === 0)
      return undefined;
    const values = probedValues(region, site.model);
    if (values.length === 0) return undefined;
    return { at: region.from, indent: region.indent, method: nameOf(region.member), values };
  });
}

/** The operands of a chain of one operator (`a && b && c`), parentheses removed. */
function operandsOf(condition: Node, operator: '&&' | '||'): Node[] {
  const node = unparenthesized(condition);
  if (node.type === 'binary_expression' && field(node, 'operator')?.type === operator) {
    return [field(node, 'left')!, field(node, 'right')!].flatMap((side) =>
      operandsOf(side, operator),
    );
  }
  return [node];
}

/** What makes a local that is never assigned again non-null. */
const CREATIONS = ['object_creation_expression', 'array_creation_expression', 'array_initializer'];

/**
 * Conditions that the code around the region decides (compacted): the conjuncts of an `if` whose
 * branch, or a loop whose body, holds it, the disjuncts of an `if` whose `else` holds it, and
 * `x != null` of a local made by `new` and never assigned again. A gate on one of them would be
 * constant at the site.
 */
function decidedAround(region: GateRegion): Set<string> {
  const decided = new Set<string>();
  // A name assigned anywhere, or declared anywhere in the member without `new`, may be null.
  const mayBeNull = new Set(
    descendants(region.member, 'assignment_expression').map((a) => field(a, 'left')?.text),
  );
  const declarations = localDeclarations(region.member);
  for (const declaration of declarations) {
    const value = field(declaration.node, 'value');
    if (declaration.kind !== 'local' || !value || !CREATIONS.includes(value.type)) {
      mayBeNull.add(declaration.name);
    }
  }
  for (const { name } of declarations) {
    if (!mayBeNull.has(name)) decided.add(compact(`${name} != null`));
  }
  const first = region.statements[0];
  if (!first) return decided;
  for (let node = first; node.parent && !node.equals(region.member); node = node.parent) {
    const parent = node.parent;
    const condition = field(parent, 'condition');
    // A do loop's body runs once before its condition is tested.
    if (!condition || parent.type === 'do_statement') continue;
    const inElse = parent.type === 'if_statement' && field(parent, 'alternative')?.equals(node);
    const inBody =
      field(parent, 'consequence')?.equals(node) === true ||
      field(parent, 'body')?.equals(node) === true;
    if (!inElse && !inBody) continue;
    for (const operand of operandsOf(condition, inElse ? '||' : '&&')) {
      decided.add(compact(operand.text));
    }
  }
  return decided;
}

/** The most gates offered per site: all failing methods kept, then single ones. */
const GATES_PER_SITE = 3;

/**
 * Gates worth trying, the rarest among the observed calls first: one keeping every failing
 * witness method on the bug path, and ones keeping a single method (the witness may fail in
 * fewer methods, never in none).
 */
function gateChoices(profile: SiteProfile, decided: ReadonlySet<string>) {
  const methods = [
    ...new Set(profile.observations.flatMap((o) => (o.failingMethod ? [o.failingMethod] : []))),
  ].sort();
  const fraction = (gate: { others: number; othersOnBugPath: number }) =>
    gate.others === 0 ? 0 : gate.othersOnBugPath / gate.others;
  const choices = [methods, ...methods.map((method) => [method])]
    .map((kept) => ({
      methods: kept,
      gate: chooseGate(profile.values, profile.observations, new Set(kept), decided),
    }))
    .flatMap((choice) => (choice.gate.kind === 'Gate' ? [{ ...choice, gate: choice.gate }] : []))
    // Stable: at equal rarity, keeping every failing method comes first.
    .sort((a, b) => fraction(a.gate) - fraction(b.gate));
  const conditions = new Set<string>();
  return choices
    .filter((choice) => {
      const condition = gateCondition(choice.gate.signals).taken;
      if (conditions.has(condition)) return false;
      conditions.add(condition);
      return true;
    })
    .slice(0, GATES_PER_SITE);
}

function candidates(site: TransformSite): TransformCandidate[] {
  const profile = site.profile;
  if (!profile) return [];
  return withJavaTree(site.source, (root) => {
    const region = gateRegion(root, site);
    if (!region || region.from !== profile.at) return [];
    const style = fileStyle(site.source, root);
    const rewrites = gatedRewrites(region, style.indentUnit);
    return gateChoices(profile, decidedAround(region)).flatMap(({ methods, gate }) =>
      rewrites.map((rewrite) => {
        const text = rewrite.lines(gateText(gate.signals)).join(style.lineBreak);
        const { taken } = gateCondition(gate.signals);
        return {
          description: `${nameOf(region.member)}: lines ${lineAt(site.source, region.from)}–${lineAt(site.source, region.to)}, ${rewrite.how} ${taken}`,
          edits: [
            region.buggy.length === 0
              ? { start: region.from, end: region.from, text: `${text}${style.lineBreak}` }
              : { start: region.from, end: region.to, text },
          ],
          added: [],
          gate: {
            condition: taken,
            witnessMethods: methods,
            witnessCalls: gate.calls,
            otherCalls: gate.others,
            otherCallsOnBugPath: gate.othersOnBugPath,
            otherBugPathFraction: gate.others === 0 ? null : gate.othersOnBugPath / gate.others,
          },
        };
      }),
    );
  });
}

export const rareInputPathConditioning: TransformOperator = {
  kind: 'transform',
  id: 't_rare_profile_gate_v1',
  probe,
  candidates,
};

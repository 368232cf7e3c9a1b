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
  withJavaTree,
} from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { lineAt } from './added-members.js';
import { chooseGate, gateCondition, type ProbedKind, type ProbedValue } from './gate-signals.js';
import type {
  ProbePlan,
  SiteProfile,
  TransformCandidate,
  TransformOperator,
  TransformSite,
} from './types.js';

/*
 * Rare Input Path Conditioning: the statements the bug changed run as the bug has them only
 * under a condition on the values that reach them, true for the witness's failing calls and
 * false for most other observed calls; other inputs run the clean statements (the bug patch's
 * removed side). The values are profiled by the stage with a probe this operator places (see
 * `probe`); the condition is chosen by gate-signals.ts.
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

/** Top-level statements of a snippet parsed as a method body, or undefined if it does not parse. */
function snippetDeclarations(lines: readonly string[]): string[] | undefined {
  return withJavaTree(`class Gate { void gate() {\n${lines.join('\n')}\n} }`, (root) => {
    if (hasSyntaxError(root)) return undefined;
    const body = field(descendants(root, 'method_declaration')[0]!, 'body')!;
    return declaredNames(blockStatements(body));
  });
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
    };
  }
  const lineEnd = source.indexOf('\n', last.endIndex);
  if (source.slice(last.endIndex, lineEnd === -1 ? source.length : lineEnd).trim() !== '')
    return undefined;
  const region = source.slice(from, last.endIndex).split(/\r?\n/);
  const before = source.slice(from, focusLine).split(/\r?\n/).length - 1;
  const after = source.slice(focusLast, last.endIndex).split(/\r?\n/).length - 1;
  const cleanRegion = [
    ...region.slice(0, before),
    ...clean,
    ...region.slice(region.length - after),
  ];
  // A local either side declares for the code after it would be hidden inside the gate.
  const cleanNames = snippetDeclarations(cleanRegion);
  if (!cleanNames) return undefined;
  const later = blockStatements(block).filter((s) => s.startIndex >= last.endIndex);
  const usedLater = new Set(later.flatMap((s) => valueNames(s).map((name) => name.text)));
  if ([...declaredNames(statements), ...cleanNames].some((name) => usedLater.has(name)))
    return undefined;
  return {
    member,
    statements,
    from,
    to: last.endIndex,
    indent: leading(region[0]!),
    buggy: region,
    clean: cleanRegion.every((line) => line.trim() === '') ? [] : cleanRegion,
    bugNames: change.names,
  };
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
  return probed.map((value) =>
    region.bugNames.has(value.name.replace(/^this\./, '')) ? { ...value, readByBug: true } : value,
  );
}

function probe(site: TransformSite): ProbePlan | undefined {
  return withJavaTree(site.source, (root) => {
    const region = gateRegion(root, site);
    if (!region) return undefined;
    const values = probedValues(region, site.model);
    if (values.length === 0) return undefined;
    return { at: region.from, indent: region.indent, method: nameOf(region.member), values };
  });
}

/** The most gates offered per site: all failing methods kept, then single ones. */
const GATES_PER_SITE = 3;

/**
 * Gates worth trying, the rarest among the observed calls first: one keeping every failing
 * witness method on the bug path, and ones keeping a single method (the witness may fail in
 * fewer methods, never in none).
 */
function gateChoices(profile: SiteProfile) {
  const methods = [
    ...new Set(profile.observations.flatMap((o) => (o.failingMethod ? [o.failingMethod] : []))),
  ].sort();
  const fraction = (gate: { others: number; othersOnBugPath: number }) =>
    gate.others === 0 ? 0 : gate.othersOnBugPath / gate.others;
  const choices = [methods, ...methods.map((method) => [method])]
    .map((kept) => ({
      methods: kept,
      gate: chooseGate(profile.values, profile.observations, new Set(kept)),
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
    const inner = region.indent + style.indentUnit;
    const nested = (lines: string[]) => reindent(lines, region.indent, inner);
    return gateChoices(profile).map(({ methods, gate }) => {
      const { taken, avoided } = gateCondition(gate.signals);
      const lines =
        region.buggy.length === 0
          ? [`${region.indent}if (${avoided}) {`, ...nested(region.clean), `${region.indent}}`]
          : [
              `${region.indent}if (${taken}) {`,
              ...nested(region.buggy),
              ...(region.clean.length > 0
                ? [`${region.indent}} else {`, ...nested(region.clean)]
                : []),
              `${region.indent}}`,
            ];
      const text = lines.join(style.lineBreak);
      return {
        description: `${nameOf(region.member)}: lines ${lineAt(site.source, region.from)}–${lineAt(site.source, region.to)} gated on ${taken}`,
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
    });
  });
}

export const rareInputPathConditioning: TransformOperator = {
  kind: 'transform',
  id: 't_rare_profile_gate_v1',
  probe,
  candidates,
};

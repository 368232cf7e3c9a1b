import { diffArrays } from 'diff';
import type { Node } from 'web-tree-sitter';
import { sha256Text } from '../../core/fs.js';
import { seededRandom, shuffled } from '../../core/random.js';
import {
  applyEdits,
  descendants,
  field,
  indentationOf,
  isComment,
  kids,
  memberKey,
  METHOD_TYPES,
  nameOf,
  withJavaTree,
  type TextEdit,
} from '../../lang/java/syntax.js';
import type { ProjectTypes } from '../../lang/java/type-index.js';
import { lineMutants } from '../../mutants/line-operators.js';
import { INJECTORS } from '../2-inject/rules/index.js';

/*
 * Stage II's candidate mutants: plausible but wrong variants of gold, made from text alone. Each
 * is gold's file with one mutation near gold's change: part of gold left out (an incomplete fix),
 * a classic operator on a changed or relevant line, a bug type's rewrite in a changed method, or
 * a changed method reduced to returning a default. Which of them the instance's tests miss is
 * decided later, by running them.
 */

/** The rules' families, in the order they are generated and deduplicated. */
export const RULE_FAMILIES = ['partial-gold', 'operator', 'bug-type', 'extreme'] as const;
export type RuleFamily = (typeof RULE_FAMILIES)[number];
/** The rules' families, and an agent's mutants (agent/mutation.ts). */
export type MutantFamily = RuleFamily | 'agent';

/** One production file gold changes: its text before (null: gold adds the file) and after gold. */
export interface GoldFile {
  /** Project-relative path, e.g. src/main/java/org/x/Foo.java. */
  file: string;
  base: string | null;
  gold: string;
  /** 1-based lines of the gold text that gold adds or changes (from the gold patch). */
  changed: readonly number[];
  /** 1-based executable lines of the gold text in the slice of gold's change (superset-ish of changed). */
  relevant: readonly number[];
}

/** One mutant: gold's file with one mutation. */
export interface MutantCandidate {
  /** Content-addressed: the first 12 hex digits of sha256 of `${file}\0${source}`. */
  id: string;
  family: MutantFamily;
  /** 'drop-hunk', 'revert-change', 'drop-statement', a line operator's name, a bug type id or 'return-default'. */
  operator: string;
  /** One line for people, e.g. "line 42: if (a < b) { → if (a <= b) {". */
  detail: string;
  file: string;
  /** The whole mutated file text: gold's file with this one mutation. */
  source: string;
  /**
   * Lines of the gold text (1-based) the mutation changes or removes; for a pure insertion, the
   * gold line it stands before (or after, at the end of a block). Never empty.
   */
  goldLines: number[];
}

const FAMILIES: readonly MutantFamily[] = RULE_FAMILIES;

/** The gold lines a mutated text changes or removes, as for the rules' mutants (none when equal). */
export function goldLinesChangedBy(gold: string, mutated: string): number[] {
  const goldText = goldTextOf(gold);
  const mutatedLines = linesOf(mutated);
  const edits = changeGroups(mutatedLines, goldText.lines).map((group) =>
    revertEdit(goldText, mutatedLines, group),
  );
  return goldLinesOf(goldText, edits);
}

/** Lines of context around a change: changes closer than twice this share a hunk, as in git. */
const HUNK_CONTEXT = 3;

/** Statements a fix adds that leave well-formed code when dropped alone. */
const DROPPABLE_STATEMENTS = ['expression_statement', 'local_variable_declaration'];
/** Nodes whose children are statements in sequence. */
const STATEMENT_LISTS = ['block', 'constructor_body', 'switch_block_statement_group'];

/** What a method returns when its body is reduced to a default, by declared return type. */
const PRIMITIVE_DEFAULTS: Readonly<Record<string, string>> = {
  boolean: 'false',
  byte: '0',
  short: '0',
  int: '0',
  long: '0L',
  float: '0.0f',
  double: '0.0',
  char: "'\\0'",
};

/** Gold's text of one file by lines. */
interface GoldText {
  text: string;
  /** Each line with its line break. */
  lines: string[];
  /** The offset each line starts at, then the text's length. */
  starts: number[];
}

/** A mutation before it is checked against gold and base: edits to gold's text. */
interface Mutation {
  family: MutantFamily;
  operator: string;
  detail: string;
  edits: TextEdit[];
  goldLines: number[];
}

/**
 * A run of lines gold removes or adds with no unchanged line between, as 0-based line indices
 * of each side, ends exclusive.
 */
interface ChangeGroup {
  baseStart: number;
  baseEnd: number;
  goldStart: number;
  goldEnd: number;
}

/** A text's lines, each with its line break ('\r\n' stays whole). */
function linesOf(text: string): string[] {
  return text.split(/(?<=\n)/).filter((line) => line !== '');
}

function goldTextOf(text: string): GoldText {
  const lines = linesOf(text);
  const starts = [0];
  for (const line of lines) starts.push(starts.at(-1)! + line.length);
  return { text, lines, starts };
}

/** The 1-based line holding `offset`; an offset at the very end belongs to the last line. */
function lineAt(gold: GoldText, offset: number): number {
  let line = 1;
  while (line < gold.lines.length && gold.starts[line]! <= offset) line++;
  return line;
}

/**
 * The gold lines an edit changes or removes; for a pure insertion, the line it stands before,
 * or the line before that where it would stand before a closing brace.
 */
function editedLines(gold: GoldText, edit: TextEdit): number[] {
  if (edit.end > edit.start) {
    const first = lineAt(gold, edit.start);
    const last = lineAt(gold, edit.end - 1);
    return Array.from({ length: last - first + 1 }, (_, index) => first + index);
  }
  const line = lineAt(gold, edit.start);
  const atLineStart = gold.starts[line - 1] === edit.start;
  if (atLineStart && line > 1 && gold.lines[line - 1]!.trimStart().startsWith('}')) {
    return [line - 1];
  }
  return [line];
}

function goldLinesOf(gold: GoldText, edits: readonly TextEdit[]): number[] {
  const lines = new Set(edits.flatMap((edit) => editedLines(gold, edit)));
  return [...lines].sort((a, b) => a - b);
}

/** "line 7" or "lines 7-12". */
function describeLines(lines: readonly number[]): string {
  const first = lines[0]!;
  const last = lines.at(-1)!;
  return first === last ? `line ${first}` : `lines ${first}-${last}`;
}

/** Gold's change groups against base, by a line diff. */
function changeGroups(base: readonly string[], gold: readonly string[]): ChangeGroup[] {
  const groups: ChangeGroup[] = [];
  let baseAt = 0;
  let goldAt = 0;
  let open: ChangeGroup | undefined;
  for (const change of diffArrays([...base], [...gold])) {
    const count = change.value.length;
    if (!change.added && !change.removed) {
      open = undefined;
      baseAt += count;
      goldAt += count;
      continue;
    }
    if (!open) {
      open = { baseStart: baseAt, baseEnd: baseAt, goldStart: goldAt, goldEnd: goldAt };
      groups.push(open);
    }
    if (change.removed) {
      baseAt += count;
      open.baseEnd = baseAt;
    } else {
      goldAt += count;
      open.goldEnd = goldAt;
    }
  }
  return groups;
}

/** Change groups joined into hunks as `git diff` joins them: when their contexts would touch. */
function hunksOf(groups: readonly ChangeGroup[]): ChangeGroup[][] {
  const hunks: ChangeGroup[][] = [];
  for (const group of groups) {
    const hunk = hunks.at(-1);
    const previous = hunk?.at(-1);
    if (hunk && previous && group.goldStart - previous.goldEnd <= 2 * HUNK_CONTEXT) {
      hunk.push(group);
    } else {
      hunks.push([group]);
    }
  }
  return hunks;
}

/** The edit that puts base's lines back in place of gold's for one change group. */
function revertEdit(gold: GoldText, baseLines: readonly string[], group: ChangeGroup): TextEdit {
  return {
    start: gold.starts[group.goldStart]!,
    end: gold.starts[group.goldEnd]!,
    text: baseLines.slice(group.baseStart, group.baseEnd).join(''),
  };
}

/** Whether a declaration's variables are named again after it, in its block. */
function usedLater(declaration: Node): boolean {
  const names = new Set(
    kids(declaration)
      .filter((child) => child.type === 'variable_declarator')
      .map(nameOf),
  );
  return descendants(declaration.parent!, 'identifier').some(
    (identifier) => identifier.startIndex >= declaration.endIndex && names.has(identifier.text),
  );
}

/**
 * Statements gold adds in `group` that can go alone: a simple statement with a line to itself,
 * not the only statement of its block, not a declaration whose variable is used afterwards.
 */
function droppableStatements(root: Node, gold: GoldText, group: ChangeGroup): Node[] {
  return descendants(root, DROPPABLE_STATEMENTS).filter((statement) => {
    const row = statement.startPosition.row;
    if (row < group.goldStart || row >= group.goldEnd) return false;
    if (gold.lines[row]!.trim() !== statement.text) return false;
    const parent = statement.parent;
    if (!parent || !STATEMENT_LISTS.includes(parent.type)) return false;
    const siblings = kids(parent).filter(
      (child) => !isComment(child) && child.type !== 'switch_label',
    );
    if (siblings.length < 2) return false;
    return statement.type !== 'local_variable_declaration' || !usedLater(statement);
  });
}

/** Gold's change with a part left out: each hunk, each change group, each droppable statement. */
function partialGoldMutations(
  root: Node,
  gold: GoldText,
  base: string,
  goldChangesOtherFiles: boolean,
): Mutation[] {
  const baseLines = linesOf(base);
  const groups = changeGroups(baseLines, gold.lines);
  const mutation = (
    operator: string,
    edits: TextEdit[],
    detail: (lines: number[]) => string,
  ): Mutation => {
    const goldLines = goldLinesOf(gold, edits);
    return { family: 'partial-gold', operator, detail: detail(goldLines), edits, goldLines };
  };
  const mutations: Mutation[] = [];
  // First, so that a hunk or change dropped to the same text is known as what it is.
  if (!goldChangesOtherFiles && groups.length > 0) {
    mutations.push(
      mutation(
        NO_FIX,
        groups.map((group) => revertEdit(gold, baseLines, group)),
        () => "leaves gold's change out: the bug as it was (a patch that does nothing)",
      ),
    );
  }
  for (const hunk of hunksOf(groups)) {
    mutations.push(
      mutation(
        'drop-hunk',
        hunk.map((group) => revertEdit(gold, baseLines, group)),
        (lines) => `drops gold's hunk at ${describeLines(lines)}`,
      ),
    );
    // A hunk of one group would revert to the same text as the hunk itself.
    if (hunk.length === 1) continue;
    for (const group of hunk) {
      mutations.push(
        mutation(
          'revert-change',
          [revertEdit(gold, baseLines, group)],
          (lines) => `reverts gold's change at ${describeLines(lines)} to base's text`,
        ),
      );
    }
  }
  for (const group of groups) {
    if (group.goldEnd - group.goldStart < 2) continue;
    for (const statement of droppableStatements(root, gold, group)) {
      const row = statement.startPosition.row;
      mutations.push(
        mutation(
          'drop-statement',
          [{ start: gold.starts[row]!, end: gold.starts[row + 1]!, text: '' }],
          (lines) => `${describeLines(lines)}: drops ${statement.text}`,
        ),
      );
    }
  }
  return mutations;
}

/** The line operators on gold's changed and relevant lines. */
function operatorMutations(gold: GoldText, lines: ReadonlySet<number>): Mutation[] {
  // The operators see lines without '\r', which a pattern ending in `\s*$` would swallow.
  const unixText = gold.text.replace(/\r\n/g, '\n');
  return lineMutants(unixText)
    .filter((mutant) => lines.has(mutant.line))
    .map((mutant) => {
      const start = gold.starts[mutant.line - 1]!;
      return {
        family: 'operator',
        operator: mutant.operator,
        detail: `line ${mutant.line}: ${mutant.original.trim()} → ${mutant.mutated.trim()}`,
        edits: [{ start, end: start + mutant.original.length, text: mutant.mutated }],
        goldLines: [mutant.line],
      };
    });
}

/** Whether a member's declaration spans one of `lines`. */
function spansAny(member: Node, lines: readonly number[]): boolean {
  const first = member.startPosition.row + 1;
  const last = member.endPosition.row + 1;
  return lines.some((line) => line >= first && line <= last);
}

/** Each bug type's rewrites in gold's changed members that touch a changed or relevant line. */
function bugTypeMutations(
  members: readonly Node[],
  gold: GoldText,
  lines: ReadonlySet<number>,
  types: ProjectTypes,
): Mutation[] {
  return members.flatMap((member) =>
    INJECTORS.flatMap((injector) =>
      injector.sites(member, gold.text, types).flatMap((site): Mutation[] => {
        const goldLines = goldLinesOf(gold, site.edits);
        if (!goldLines.some((line) => lines.has(line))) return [];
        return [
          {
            family: 'bug-type',
            operator: injector.typeId,
            detail: site.description,
            edits: site.edits,
            goldLines,
          },
        ];
      }),
    ),
  );
}

/** `return <default>;` for a method's declared type, '' for void. */
function defaultReturn(method: Node): string {
  const type = field(method, 'type')?.text ?? '';
  if (type === 'void') return '';
  // `int values()[]` declares an array, whatever its element type.
  const value = field(method, 'dimensions') ? undefined : PRIMITIVE_DEFAULTS[type];
  return `return ${value ?? 'null'};`;
}

/**
 * The edit that reduces a body to `statement` (none: an empty body) in the body's own layout:
 * one line stays one line; otherwise the statement takes the first statement's indentation
 * and the line break of the brace's line. None for a body with content beside its braces.
 */
function bodyEdit(gold: GoldText, body: Node, statement: string): TextEdit | undefined {
  const content = kids(body);
  const first = content[0];
  const last = content.at(-1);
  if (!first || !last) return undefined;
  const openRow = body.startPosition.row;
  const closeRow = body.endPosition.row;
  if (openRow === closeRow) {
    return {
      start: body.startIndex + 1,
      end: body.endIndex - 1,
      text: statement === '' ? '' : ` ${statement} `,
    };
  }
  if (first.startPosition.row === openRow || last.endPosition.row === closeRow) return undefined;
  const lineBreak = /\r?\n$/.exec(gold.lines[openRow]!)![0];
  return {
    start: gold.starts[openRow + 1]!,
    end: gold.starts[closeRow]!,
    text: statement === '' ? '' : indentationOf(gold.text, first) + statement + lineBreak,
  };
}

/** Each changed method with a body reduced to returning a default (or to nothing, for void). */
function extremeMutations(members: readonly Node[], gold: GoldText): Mutation[] {
  return members.flatMap((method): Mutation[] => {
    const body = field(method, 'body');
    if (method.type !== 'method_declaration' || !body) return [];
    const statement = defaultReturn(method);
    const edit = bodyEdit(gold, body, statement);
    if (!edit) return [];
    const change = statement === '' ? 'body emptied' : `body replaced by ${statement}`;
    return [
      {
        family: 'extreme',
        operator: 'return-default',
        detail: `${memberKey(method)}: ${change}`,
        edits: [edit],
        goldLines: goldLinesOf(gold, [edit]),
      },
    ];
  });
}

/**
 * Every family's mutants of one file, in generation order, none equal to gold's text; one equal
 * to base's when gold changes no other file is the bug as it was (`no-fix`).
 */
function fileCandidates(
  goldFile: GoldFile,
  goldChangesOtherFiles: boolean,
  types: ProjectTypes,
): MutantCandidate[] {
  const gold = goldTextOf(goldFile.gold);
  const near = new Set([...goldFile.changed, ...goldFile.relevant]);
  const mutations = withJavaTree(gold.text, (root) => {
    const changedMembers = descendants(root, METHOD_TYPES).filter((member) =>
      spansAny(member, goldFile.changed),
    );
    return [
      ...(goldFile.base === null
        ? []
        : partialGoldMutations(root, gold, goldFile.base, goldChangesOtherFiles)),
      ...operatorMutations(gold, near),
      ...bugTypeMutations(changedMembers, gold, near, types),
      ...extremeMutations(changedMembers, gold),
    ];
  });
  return mutations.flatMap(({ edits, ...mutation }) => {
    const source = applyEdits(gold.text, edits);
    if (source === gold.text) return [];
    const id = sha256Text(`${goldFile.file}\0${source}`).slice(0, 12);
    return [{ id, ...mutation, file: goldFile.file, source }];
  });
}

/**
 * The partial fix that leaves all of gold out: the instance's failing tests kill it, unless the
 * suite lost them (the witness-drop control), where it is the blind spot that matters most; it is
 * always tried.
 */
export const NO_FIX = 'no-fix';

/** A family's own random stream, so one family's candidates do not change another's draw. */
function familyRandom(seed: number, family: MutantFamily): () => number {
  return seededRandom(Number.parseInt(sha256Text(`${seed}:${family}`).slice(0, 8), 16));
}

function compareCandidates(a: MutantCandidate, b: MutantCandidate): number {
  return (
    FAMILIES.indexOf(a.family) - FAMILIES.indexOf(b.family) ||
    (a.file < b.file ? -1 : a.file > b.file ? 1 : 0) ||
    a.goldLines[0]! - b.goldLines[0]! ||
    (a.operator < b.operator ? -1 : a.operator > b.operator ? 1 : 0)
  );
}

/**
 * Every family's candidates over gold's files, each different from gold's file and (unless gold
 * changes other files too) from base's, deduplicated by resulting text (the first in family
 * order partial-gold, operator, bug-type, extreme wins), at most `maxPerFamily` per family drawn
 * by `seed`, in family, file, first gold line and operator order; of `families` only (all by
 * default; a candidate equal to one of a family left out still counts as taken). The Java
 * grammar must be loaded (`loadJavaGrammar`).
 */
export function mutantCandidates(
  files: readonly GoldFile[],
  options: {
    types: ProjectTypes;
    seed: number;
    maxPerFamily: number;
    families?: readonly RuleFamily[];
  },
): MutantCandidate[] {
  const byText = new Map<string, MutantCandidate>();
  const generated = files
    .flatMap((file) => fileCandidates(file, files.length > 1, options.types))
    .sort((a, b) => FAMILIES.indexOf(a.family) - FAMILIES.indexOf(b.family));
  for (const candidate of generated) {
    const key = `${candidate.file}\0${candidate.source}`;
    if (!byText.has(key)) byText.set(key, candidate);
  }
  const unique = [...byText.values()];
  const families = options.families ?? RULE_FAMILIES;
  return RULE_FAMILIES.filter((family) => families.includes(family))
    .flatMap((family) => {
      const pool = unique.filter((candidate) => candidate.family === family);
      const drawable = pool.filter((candidate) => candidate.operator !== NO_FIX);
      const drawn = new Set(
        shuffled(drawable, familyRandom(options.seed, family)).slice(0, options.maxPerFamily),
      );
      return pool.filter((candidate) => candidate.operator === NO_FIX || drawn.has(candidate));
    })
    .sort(compareCandidates);
}

import { diffArrays } from 'diff';
import type { DiffHunk, DiffLine } from '../../core/diff-stats.js';

/*
 * What kind of edit a hunk of a Java diff makes, from the diff text alone: a hunk is a fragment
 * (a condition cut mid-way, a comment without its start), which a parser cannot take, so its two
 * sides are split into tokens here and compared token by token. Each changed stretch of tokens is
 * named from its tokens and where they sit (a branch or loop header, a call's arguments), and the
 * hunk from its stretches.
 */

export const EDIT_KINDS = [
  /** A branch or loop condition, or a boolean expression: operator, operand or conjunct. */
  'condition',
  /** An `if` or `while` wrapped around statements or taken from them (or only braces moved). */
  'guard',
  'statement-deleted',
  'statement-added',
  /** A call's name or arguments. */
  'call',
  /** An operand or operator of an expression that is neither a condition nor a call. */
  'operand',
  /** Imports, member signatures, field declarations, annotations. */
  'declaration',
  /** Statements replaced by others, or edits of several kinds at once. */
  'rewrite',
  /** Comments, whitespace, line breaks. */
  'non-code',
] as const;
export type EditKind = (typeof EDIT_KINDS)[number];

interface Token {
  text: string;
  /** Index of the line of the hunk's side it comes from. */
  line: number;
  /** Inside the parentheses of an if, while, for or switch. */
  inCondition: boolean;
  /** Inside a call's argument list (the nearest enclosing call). */
  inCall: boolean;
  /** A name directly followed by `(`: a method or constructor being called. */
  callee: boolean;
  /** A comparison or logical operator (not a type argument's bracket). */
  test: boolean;
  /** Next to a comparison or logical operator: part of an operand of a boolean test. */
  besideTest: boolean;
}

const KEYWORDS = new Set(
  (
    'abstract assert boolean break byte case catch char class const continue default do double ' +
    'else enum extends final finally float for goto if implements import instanceof int ' +
    'interface long native new package private protected public return short static strictfp ' +
    'super switch synchronized this throw throws transient try void volatile while var yield'
  ).split(' '),
);
const CONDITION_HEADS = new Set(['if', 'while', 'for', 'switch']);
const TEST_OPERATORS = new Set(['==', '!=', '<', '<=', '>', '>=', '&&', '||', '!', 'instanceof']);
const STATEMENT_TOKENS = new Set([';', '{', '}']);
const BRACE_TOKENS = new Set(['{', '}', 'else']);

/** `<` or `>` around type arguments (`Map<String, List<Integer>>`), by the case of type names. */
function isTypeBracket(tokens: readonly Token[], index: number): boolean {
  const before = tokens[index - 1]?.text ?? '';
  const after = tokens[index + 1]?.text ?? '';
  if (tokens[index]!.text === '<') return /^[A-Z]/.test(before) && /^[A-Z?>]/.test(after);
  if (tokens[index]!.text === '>') return /^[A-Z\]>]/.test(before);
  return false;
}

// Longest operators first, so `>>>=` is one token and not `>>` `>=`.
const TOKEN_PATTERN = new RegExp(
  [
    String.raw`"(?:[^"\\\n]|\\.)*"?`,
    String.raw`'(?:[^'\\\n]|\\.)*'?`,
    String.raw`\d[\w.]*`,
    String.raw`[A-Za-z_$][\w$]*`,
    String.raw`>>>=|<<=|>>=|>>>|\.\.\.|->|::|\+\+|--|&&|\|\||[=!<>+\-*/%&|^]=|<<|>>`,
    String.raw`[^\s]`,
  ].join('|'),
  'g',
);

/**
 * The source of a hunk side with comments blanked out, line by line. A side may start inside a
 * block comment (its end comes before any start), and javadoc lines start with `*`.
 */
function codeLines(lines: readonly string[]): string[] {
  const text = lines.join('\n');
  const firstClose = text.indexOf('*/');
  const firstOpen = text.indexOf('/*');
  let start = 0;
  if (firstClose !== -1 && (firstOpen === -1 || firstClose < firstOpen)) start = firstClose + 2;
  const blank = (comment: string) => comment.replace(/[^\n]/g, ' ');
  const code =
    blank(text.slice(0, start)) +
    text
      .slice(start)
      .replace(
        /"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\/\*[\s\S]*?(?:\*\/|$)|\/\/[^\n]*/g,
        (match) => (match.startsWith('/') ? blank(match) : match),
      );
  return code.split('\n').map((line) => (/^\s*\*(?:\s|\/|$)/.test(line) ? '' : line));
}

type Frame = 'condition' | 'call' | 'group';

/** The tokens of one side of a hunk (its code lines), each with where it sits among parentheses. */
function sideTokens(code: readonly string[]): Token[] {
  const tokens: Token[] = [];
  const frames: Frame[] = [];
  const texts = code.map((line) => line.match(TOKEN_PATTERN) ?? []);
  texts.forEach((lineTokens, line) => {
    for (const text of lineTokens) {
      const previous = tokens[tokens.length - 1];
      if (text === ')') frames.pop();
      const nearestCall = [...frames].reverse().find((frame) => frame !== 'group');
      tokens.push({
        text,
        line,
        inCondition: frames.includes('condition'),
        inCall: nearestCall === 'call',
        callee: false,
        test: false,
        besideTest: false,
      });
      if (text === '(' && previous) {
        const isName = /^[A-Za-z_$]/.test(previous.text);
        if (CONDITION_HEADS.has(previous.text)) frames.push('condition');
        else if (isName && (!KEYWORDS.has(previous.text) || /^(this|super)$/.test(previous.text))) {
          previous.callee = true;
          frames.push('call');
        } else frames.push('group');
      } else if (text === '(') frames.push('group');
    }
  });
  tokens.forEach((token, index) => {
    token.test = TEST_OPERATORS.has(token.text) && !isTypeBracket(tokens, index);
  });
  tokens.forEach((token, index) => {
    token.besideTest = Boolean(tokens[index - 1]?.test || tokens[index + 1]?.test);
  });
  return tokens;
}

/**
 * Lines that declare rather than do: imports, annotations, and members with an access modifier
 * but no initializer (an initializer's change is an expression's, classified as such).
 */
function isDeclarationLine(line: string): boolean {
  if (/^\s*(?:import|package)\s|^\s*@[A-Za-z]/.test(line)) return true;
  return /^\s*(?:public|protected|private)\b/.test(line) && !/[^=!<>]=[^=]/.test(line);
}

/** One changed stretch of tokens: what the old side had there and what the new side has. */
interface Stretch {
  removed: Token[];
  added: Token[];
}

/** Braces or `else` alone: they move with the change beside them, or are a guard's scope. */
type StretchKind = EditKind | 'braces';

function stretchKind({ removed, added }: Stretch): StretchKind {
  const all = [...removed, ...added];
  const hasStatement = (tokens: Token[]) => tokens.some((t) => STATEMENT_TOKENS.has(t.text));
  if (all.every((token) => BRACE_TOKENS.has(token.text))) return 'braces';
  const oneSided = removed.length === 0 ? added : added.length === 0 ? removed : null;
  const wraps = oneSided?.some((t) => t.text === 'if' || t.text === 'while');
  if (wraps && !oneSided!.some((t) => t.text === ';')) {
    return 'guard';
  }
  if (oneSided && hasStatement(oneSided)) {
    return oneSided === removed ? 'statement-deleted' : 'statement-added';
  }
  if (hasStatement(removed) || hasStatement(added)) return 'rewrite';
  if (all.some((t) => t.inCondition || t.besideTest || t.test)) return 'condition';
  if (all.some((t) => t.inCall || t.callee)) return 'call';
  return 'operand';
}

/** Runs of changed lines, each with the line indices it has on the old and the new side. */
function changeBlocks(lines: readonly DiffLine[]): { old: number[]; new: number[] }[] {
  const blocks: { old: number[]; new: number[] }[] = [];
  let oldLine = 0;
  let newLine = 0;
  let current: { old: number[]; new: number[] } | null = null;
  for (const line of lines) {
    if (line.kind === 'context') {
      current = null;
      oldLine++;
      newLine++;
      continue;
    }
    if (!current) blocks.push((current = { old: [], new: [] }));
    if (line.kind === 'removed') current.old.push(oldLine++);
    else current.new.push(newLine++);
  }
  return blocks;
}

function stretches(removed: Token[], added: Token[]): Stretch[] {
  const found: Stretch[] = [];
  let pending: Stretch = { removed: [], added: [] };
  let oldIndex = 0;
  let newIndex = 0;
  const flush = () => {
    if (pending.removed.length + pending.added.length > 0) found.push(pending);
    pending = { removed: [], added: [] };
  };
  for (const part of diffArrays(
    removed.map((t) => t.text),
    added.map((t) => t.text),
  )) {
    const count = part.count ?? part.value.length;
    if (part.removed) pending.removed.push(...removed.slice(oldIndex, (oldIndex += count)));
    else if (part.added) pending.added.push(...added.slice(newIndex, (newIndex += count)));
    else {
      flush();
      oldIndex += count;
      newIndex += count;
    }
  }
  flush();
  return found;
}

const EXPRESSION_KINDS: readonly EditKind[] = ['condition', 'call', 'operand'];

/** The kind of edit one hunk of a Java diff makes. */
export function editKind(hunk: DiffHunk): EditKind {
  const side = (left: DiffLine['kind']) =>
    codeLines(hunk.lines.filter((line) => line.kind !== left).map((line) => line.text));
  const oldCode = side('added');
  const newCode = side('removed');
  const oldTokens = sideTokens(oldCode);
  const newTokens = sideTokens(newCode);
  const kinds = new Set<StretchKind>();
  for (const block of changeBlocks(hunk.lines)) {
    const blockCode = [...block.old.map((i) => oldCode[i]!), ...block.new.map((i) => newCode[i]!)];
    const removed = oldTokens.filter((token) => block.old.includes(token.line));
    const added = newTokens.filter((token) => block.new.includes(token.line));
    const found = stretches(removed, added);
    if (found.length === 0) continue;
    if (blockCode.filter((line) => /\S/.test(line)).every(isDeclarationLine)) {
      kinds.add('declaration');
      continue;
    }
    // Tokens only taken away (or only added) are one edit however the token diff splits them:
    // `if (x != null) x.close();` → `x.close();` can come out as `if (` and `!= null ) x`.
    const oneSided =
      found.every((s) => s.added.length === 0) || found.every((s) => s.removed.length === 0);
    const edits = oneSided
      ? [{ removed: found.flatMap((s) => s.removed), added: found.flatMap((s) => s.added) }]
      : found;
    for (const stretch of edits) kinds.add(stretchKind(stretch));
  }
  // Braces that move with a change belong to it; alone they change a block's scope, as a guard.
  if (kinds.size > 1) kinds.delete('braces');
  if (kinds.size === 0) return 'non-code';
  const [only] = kinds;
  if (kinds.size === 1) return only === 'braces' ? 'guard' : only!;
  const expression = EXPRESSION_KINDS.find((kind) => kinds.has(kind));
  const allExpression = [...kinds].every((kind) => (EXPRESSION_KINDS as string[]).includes(kind));
  return expression && allExpression ? expression : 'rewrite';
}

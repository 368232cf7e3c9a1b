import type { Node } from 'web-tree-sitter';
import { blockStatements } from '../../../lang/java/extraction.js';
import { field, indentationOf, nameOf, type TextEdit } from '../../../lang/java/syntax.js';
import { lineAt, takenNames } from './added-members.js';
import {
  arrayComponentAllowed,
  byClosenessToFocus,
  finalLocals,
  candidatesInFocusMember,
  freeLocalName,
  finalFieldSources,
  fromStableValue,
  readsReplaced,
  stableValues,
  type Source,
} from './stable-values.js';
import type { TransformCandidate, TransformOperator } from './types.js';

/*
 * Nested Data Access: values the bug's method reads are reached through an array instead of
 * directly. Two parameters or final fields that belong together, by their names (`dataOffset`
 * and `dataLen`, `start` and `end`), are put in one array named for the pair before their first
 * read (`int[] dataSpan = { dataOffset, dataLen };`, reads `dataSpan[0]`, `dataSpan[1]`). A
 * single value is never put in a one-element array: such a holder has no reason to exist but to
 * lengthen the path, and a reviewer sees it at once. Each value is written once (see
 * stable-values.ts) and the array never escapes the call, so every read sees what it saw.
 */

const VALUES_PER_SITE = 3;

/** Words of values kept together, in their usual order, and what the pair is called. */
const PAIRS: readonly [string, string, string][] = [
  ['start', 'end', 'range'],
  ['begin', 'end', 'range'],
  ['from', 'to', 'range'],
  ['offset', 'len', 'span'],
  ['offset', 'length', 'span'],
  ['off', 'len', 'span'],
  ['pos', 'len', 'span'],
  ['low', 'high', 'bounds'],
  ['lo', 'hi', 'bounds'],
  ['min', 'max', 'limits'],
  ['first', 'last', 'ends'],
  ['width', 'height', 'size'],
  ['row', 'column', 'cell'],
  ['row', 'col', 'cell'],
];

/**
 * The array a pair of values of one type is kept in, named for the pair (`dataOffset` and
 * `dataLen` → `dataSpan`, `start` and `end` → `range`), or undefined when they are no pair.
 */
export function pairName(first: string, second: string): string | undefined {
  for (const [one, other, pair] of PAIRS) {
    for (const capital of [false, true]) {
      const word = (text: string) => (capital ? text[0]!.toUpperCase() + text.slice(1) : text);
      if (!first.endsWith(word(one)) || !second.endsWith(word(other))) continue;
      const prefix = first.slice(0, first.length - one.length);
      if (prefix !== second.slice(0, second.length - other.length)) continue;
      if (capital !== prefix.length > 0) continue;
      return capital ? `${prefix}${word(pair)}` : pair;
    }
  }
  return undefined;
}

/** The statement of the member's body holding `node`, the point a parameter's holder goes before. */
function bodyStatementOf(body: Node, node: Node): Node | undefined {
  return blockStatements(body).find(
    (statement) => statement.startIndex <= node.startIndex && node.endIndex <= statement.endIndex,
  );
}

/** The values put in one array `holder` before the first read of any, each read by its index. */
function nestedInHolder(
  values: readonly Source[],
  member: Node,
  source: string,
  holder: string,
  finalWord: boolean,
  lineBreak: string,
): TextEdit[] | undefined {
  const body = field(member, 'body');
  const firstRead = values
    .map((value) => value.reads[0])
    .filter((read): read is Node => read !== undefined)
    .sort((a, b) => a.startIndex - b.startIndex)[0];
  if (!body || !firstRead) return undefined;
  let before = bodyStatementOf(body, firstRead);
  // `this(…)`/`super(…)` must stay first: the holder follows it, and reads in it stay direct.
  if (before?.type === 'explicit_constructor_invocation') {
    before = blockStatements(body)[blockStatements(body).indexOf(before) + 1];
  }
  if (!before) return undefined;
  const start = before.startIndex;
  const reads = values.map((value) => value.reads.filter((read) => read.startIndex >= start));
  if (reads.some((list) => list.length === 0)) return undefined;
  const indent = indentationOf(source, before);
  const names = values.map((value) => value.name).join(', ');
  const declaration = `${finalWord ? 'final ' : ''}${values[0]!.type}[] ${holder} = { ${names} };`;
  // The holder's line after the reads: a read may start the statement it goes before.
  return [
    ...reads.flatMap((list, index) => readsReplaced(list, `${holder}[${index}]`)),
    { start, end: start, text: `${declaration}${lineBreak}${indent}` },
  ];
}

/** Pairs of the sources (parameters, final fields) that belong together, nearest the bug first. */
function pairsOf(sources: readonly Source[]): { pair: [Source, Source]; holder: string }[] {
  const pairs: { pair: [Source, Source]; holder: string }[] = [];
  for (const first of sources) {
    for (const second of sources) {
      const holder = pairName(first.name, second.name);
      if (first !== second && first.type === second.type && holder) {
        pairs.push({ pair: [first, second], holder });
      }
    }
  }
  return pairs;
}

/** A one-element array read only as `name[0]`: already a holder, which another would nest. */
function isHolder(value: Source): boolean {
  return (
    value.type.endsWith('[]') &&
    value.reads.length > 0 &&
    value.reads.every((read) => {
      const access = read.parent;
      return (
        access?.type === 'array_access' &&
        field(access, 'array')?.equals(read) === true &&
        field(access, 'index')?.text === '0'
      );
    })
  );
}

export const nestedDataAccess: TransformOperator = {
  kind: 'transform',
  id: 't_nested_data_access_v1',
  candidates: (site) =>
    candidatesInFocusMember(site, ({ root, member, style }) => {
      const taken = takenNames(root, site.model);
      const candidates: TransformCandidate[] = [];
      // Parameters and the instance's final fields: a pair of them is named by the caller or
      // the class, so an array for the pair reads as one value of two parts.
      const sources: Source[] = [
        ...stableValues(member, site.model)
          .filter(
            (value) =>
              value.declaration.kind === 'parameter' &&
              arrayComponentAllowed(value.type, site.model),
          )
          .map(fromStableValue),
        ...finalFieldSources(member, site.model).filter(
          (final) => !final.isStatic && arrayComponentAllowed(final.type, site.model),
        ),
      ];
      const finalWord = finalLocals(root);
      const line = (node: Node) => lineAt(site.source, node.startIndex);
      for (const { pair, holder } of byClosenessToFocus(
        pairsOf(sources.filter((source) => !isHolder(source))).map((entry) => ({
          ...entry,
          reads: [...entry.pair[0].reads, ...entry.pair[1].reads],
        })),
        site.focus,
      )) {
        if (candidates.length >= VALUES_PER_SITE) break;
        if (!freeLocalName(member, holder, taken)) continue;
        const edits = nestedInHolder(pair, member, site.source, holder, finalWord, style.lineBreak);
        if (!edits) continue;
        const [first, second] = pair;
        candidates.push({
          description: `${nameOf(member)}: '${first.name}' and '${second.name}' (line ${line(first.reads[0]!)}) are read through ${holder}[0] and ${holder}[1]`,
          edits,
          added: [],
        });
      }
      return candidates;
    }),
};

import type { Node } from 'web-tree-sitter';
import { blockStatements } from '../../../lang/java/extraction.js';
import { fileStyle } from '../../../lang/java/style.js';
import {
  field,
  indentationOf,
  nameOf,
  withJavaTree,
  type TextEdit,
} from '../../../lang/java/syntax.js';
import { lineAt, takenNames } from './added-members.js';
import {
  arrayComponentAllowed,
  byClosenessToFocus,
  finalLocals,
  focusMember,
  freeLocalName,
  finalFieldSources,
  fromStableValue,
  readsReplaced,
  stableValues,
  type Source,
  type StableValue,
} from './stable-values.js';
import type { TransformCandidate, TransformOperator } from './types.js';

/*
 * Nested Data Access: a value the bug's method reads is reached through a one-element array
 * instead of directly: a local's declaration holds the array (`int[] limit = { max };`, reads
 * `limit[0]`), a parameter or a final field of the instance is put in one before its first read.
 * The value is written once (see stable-values.ts) and the array never escapes the call, so every
 * read sees what it saw.
 */

const VALUES_PER_SITE = 3;

/** The statement of the member's body holding `node`, the point a parameter's holder goes before. */
function bodyStatementOf(body: Node, node: Node): Node | undefined {
  return blockStatements(body).find(
    (statement) => statement.startIndex <= node.startIndex && node.endIndex <= statement.endIndex,
  );
}

function nestedLocal(value: StableValue): TextEdit[] | undefined {
  const { statement, value: initial } = value.local!;
  const type = field(statement, 'type');
  if (!type || field(value.declaration.node, 'dimensions')) return undefined;
  return [
    { start: type.startIndex, end: type.endIndex, text: `${value.type}[]` },
    { start: initial.startIndex, end: initial.startIndex, text: '{ ' },
    { start: initial.endIndex, end: initial.endIndex, text: ' }' },
    ...readsReplaced(value.reads, `${value.declaration.name}[0]`),
  ];
}

function nestedInHolder(
  value: Source,
  member: Node,
  source: string,
  holder: string,
  finalWord: boolean,
  lineBreak: string,
): TextEdit[] | undefined {
  const body = field(member, 'body');
  const firstRead = value.reads[0];
  if (!body || !firstRead) return undefined;
  let before = bodyStatementOf(body, firstRead);
  // `this(…)`/`super(…)` must stay first: the holder follows it, and reads in it stay direct.
  if (before?.type === 'explicit_constructor_invocation') {
    before = blockStatements(body)[blockStatements(body).indexOf(before) + 1];
  }
  if (!before) return undefined;
  const reads = value.reads.filter((read) => read.startIndex >= before.startIndex);
  if (reads.length === 0) return undefined;
  const indent = indentationOf(source, before);
  const declaration = `${finalWord ? 'final ' : ''}${value.type}[] ${holder} = { ${value.name} };`;
  // The holder's line after the reads: a read may start the statement it goes before.
  return [
    ...readsReplaced(reads, `${holder}[0]`),
    {
      start: before.startIndex,
      end: before.startIndex,
      text: `${declaration}${lineBreak}${indent}`,
    },
  ];
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
    withJavaTree(site.source, (root) => {
      const member = focusMember(root, site.focus);
      if (!member) return [];
      const style = fileStyle(site.source, root);
      const taken = takenNames(root, site.model);
      const candidates: TransformCandidate[] = [];
      const values = stableValues(member, site.model).filter(
        (value) =>
          (value.local || value.declaration.kind === 'parameter') &&
          arrayComponentAllowed(value.type, site.model),
      );
      // A local the method computed reads more naturally through a holder than a parameter, and
      // a parameter more than an instance's final field (a constant's holder would read oddly).
      const sources: { value: Source; local?: StableValue }[] = [
        ...values
          .filter((value) => value.local)
          .map((value) => ({ value: fromStableValue(value), local: value })),
        ...values
          .filter((value) => !value.local)
          .map((value) => ({ value: fromStableValue(value) })),
        ...finalFieldSources(member, site.model)
          .filter((final) => !final.isStatic && arrayComponentAllowed(final.type, site.model))
          .map((final) => ({ value: final })),
      ];
      for (const { value, local } of byClosenessToFocus(
        sources
          .filter((source) => !isHolder(source.value))
          .map((source) => ({ ...source, reads: source.value.reads })),
        site.focus,
      )) {
        if (candidates.length >= VALUES_PER_SITE) break;
        const holder = local ? value.name : `${value.name}Holder`;
        if (!local && !freeLocalName(member, holder, taken)) continue;
        const edits = local
          ? nestedLocal(local)
          : nestedInHolder(value, member, site.source, holder, finalLocals(root), style.lineBreak);
        if (!edits) continue;
        const line = lineAt(site.source, (local?.declaration.node ?? value.reads[0]!).startIndex);
        candidates.push({
          description: `${nameOf(member)}: '${value.name}' (line ${line}) is read through ${holder}[0]`,
          edits,
          added: [],
        });
      }
      return candidates;
    }),
};

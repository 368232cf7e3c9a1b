import type { Node } from 'web-tree-sitter';
import { changedClasses, firstMatch } from '../../../lang/java/changed-members.js';
import { declaringClass, type TextEdit } from '../../../lang/java/syntax.js';
import type { ProjectTypes } from '../../../lang/java/type-index.js';
import {
  declaredMethods,
  gainedMethods,
  isEqualsOverride,
  isHashCodeOverride,
} from './equals-typo.js';
import { misnamedHashCode } from './hashcode-typo.js';
import { plausibility, type CandidateEdit, type Injector } from './types.js';

function isComment(node: Node): boolean {
  return node.type === 'line_comment' || node.type === 'block_comment';
}

/** Start of the line holding `index`. */
function lineStart(source: string, index: number): number {
  return source.lastIndexOf('\n', index - 1) + 1;
}

/** End of the line holding `index`, after its line break. */
function lineEnd(source: string, index: number): number {
  const newline = source.indexOf('\n', index);
  return newline === -1 ? source.length : newline + 1;
}

function isBlank(text: string): boolean {
  return text.trim() === '';
}

/** A divider such as `//------` belongs to the section, not to the member under it. */
function isDivider(comment: Node): boolean {
  return comment.type === 'line_comment' && /^\/\/\s*[-=*#/]{4,}\s*$/.test(comment.text);
}

/**
 * Where a node's own comments begin: the comments (javadoc included) directly above it, each on
 * its own line with no blank line in between. Dividers and trailing comments of code are left;
 * a divider directly above them is returned apart.
 */
function leadingComments(source: string, node: Node): { start: number; divider: Node | null } {
  let start = node.startIndex;
  for (let previous = node.previousSibling; previous; previous = previous.previousSibling) {
    if (!isComment(previous)) break;
    const gap = source.slice(previous.endIndex, start);
    if (!isBlank(gap) || gap.split('\n').length > 2) break;
    if (!isBlank(source.slice(lineStart(source, previous.startIndex), previous.startIndex))) break;
    if (isDivider(previous)) return { start, divider: previous };
    start = previous.startIndex;
  }
  return { start, divider: null };
}

/**
 * Deletes a member or statement with its leading comments, as whole lines. `member`: one blank
 * line next to it goes too, as members are separated by one, and so does a divider above it that
 * would be left heading another divider or the end of the class. `statement`: a blank line goes
 * only where two would meet, or where one would follow an opening brace or precede a closing one.
 */
export function linesRemoval(source: string, node: Node, kind: 'member' | 'statement'): TextEdit {
  const { start: first, divider } = leadingComments(source, node);
  let start = lineStart(source, first);
  let end = lineEnd(source, node.endIndex);
  const ownsLines =
    isBlank(source.slice(start, first)) && isBlank(source.slice(node.endIndex, end));
  if (!ownsLines) return { start: first, end: node.endIndex, text: '' };
  const below = source.slice(end).trimStart();
  if (kind === 'member' && divider && /^(\/\/\s*[-=*#/]{4,}[ \t]*\r?\n|})/.test(below))
    start = lineStart(source, divider.startIndex);
  const previousStart = start > 0 ? lineStart(source, start - 1) : start;
  const previous = source.slice(previousStart, start);
  const nextEnd = lineEnd(source, end);
  const next = source.slice(end, nextEnd);
  const previousBlank = start > 0 && isBlank(previous);
  const nextBlank = end < source.length && isBlank(next);
  if (kind === 'member') {
    if (previousBlank) start = previousStart;
    else if (nextBlank) end = nextEnd;
  } else {
    const above = source.slice(0, start).trimEnd();
    if (previousBlank && nextBlank) end = nextEnd;
    else if (nextBlank && above.endsWith('{')) end = nextEnd;
    else if (previousBlank && below.startsWith('}')) start = previousStart;
  }
  return { start, end, text: '' };
}

/**
 * Deletes `hashCode()` from a class that overrides `equals(Object)`, unless a project superclass
 * declares `hashCode()` abstract: there the class must implement it and the deletion does not
 * compile.
 */
function sites(method: Node, source: string, types: ProjectTypes): CandidateEdit[] {
  if (!isHashCodeOverride(method)) return [];
  const owner = declaringClass(method);
  if (!owner || !declaredMethods(owner).some(isEqualsOverride)) return [];
  if (types.obligingSuperclass(owner, 'hashCode()') !== undefined) return [];
  return [
    {
      description: 'hashCode() deleted: equals(Object) stays, hashing falls back to identity',
      edits: [linesRemoval(source, method, 'member')],
      plausibility: plausibility(1, 'equals overridden without its hashCode, an old classic'),
    },
  ];
}

export const hashedWithoutHashCodeInjector: Injector = {
  kind: 'injector',
  typeId: 'api_hashed_without_hashcode',
  sites,
  check: (before, after) =>
    firstMatch(
      changedClasses(before, after),
      ({ path, before: old, after: current }) => {
        const methods = declaredMethods(old);
        if (!methods.some(isEqualsOverride) || !methods.some(isHashCodeOverride)) return undefined;
        const kept = declaredMethods(current);
        if (!kept.some(isEqualsOverride) || kept.some(isHashCodeOverride)) return undefined;
        // A hashCode renamed rather than removed is the Typo in hashCode type.
        if (gainedMethods(old, current).some(misnamedHashCode)) return undefined;
        return {
          kind: 'Matches',
          evidence: `${path} overrides equals(Object) but no longer hashCode()`,
        };
      },
      'no class that overrides equals(Object) loses its hashCode() outright',
    ),
};

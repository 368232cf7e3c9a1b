import type { Node } from 'web-tree-sitter';
import type { FileStyle } from '../../../lang/java/style.js';
import { descendants, METHOD_TYPES, nameOf, type TextEdit } from '../../../lang/java/syntax.js';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';

/* What operators that add a member share: the names it must not take, and where it goes. */

/** Every member name of the file, as javac and the syntax tree see them. */
export function takenNames(root: Node, model: SourceModel): Set<string> {
  const names = new Set<string>();
  for (const type of model.types) for (const member of type.members) names.add(member.name);
  for (const method of descendants(root, METHOD_TYPES)) names.add(nameOf(method));
  return names;
}

/** Puts `text` (a whole member, indented) right after `member`, a blank line between them. */
export function insertedAfter(member: Node, text: string, style: FileStyle): TextEdit {
  return {
    start: member.endIndex,
    end: member.endIndex,
    text: `${style.lineBreak}${style.lineBreak}${text}`,
  };
}

/** The 1-based line of an offset. */
export function lineAt(source: string, index: number): number {
  return source.slice(0, index).split('\n').length;
}

import { isTestCaseMethod } from '../../../repair/test-methods.js';
import type { Node } from 'web-tree-sitter';
import {
  classMembers,
  descendants,
  field,
  isComment,
  kids,
  modifierWords,
  nameOf,
  type TextEdit,
} from '../../../lang/java/syntax.js';

/*
 * What amplification needs to know of a JUnit test class, read off its syntax: which framework
 * runs it, which of its methods are tests, and how to copy it into a new class that holds other
 * tests beside the original's fields, set-up and helpers.
 */

export type TestFramework = 'junit3' | 'junit4' | 'junit5';

/** The top-level class a test file is about: its public class, else its first one. */
export function primaryClass(root: Node): Node | undefined {
  const classes = kids(root).filter((node) => node.type === 'class_declaration');
  return classes.find((node) => modifierWords(node).includes('public')) ?? classes[0];
}

/** The annotations on a declaration, each with its name as written (`Test`, `org.junit.Test`). */
function annotations(declaration: Node): { node: Node; name: string }[] {
  const modifiers = kids(declaration).find((node) => node.type === 'modifiers');
  return (modifiers ? kids(modifiers) : [])
    .filter((node) => node.type === 'annotation' || node.type === 'marker_annotation')
    .map((node) => ({ node, name: field(node, 'name')?.text ?? '' }));
}

function simpleName(name: string): string {
  return name.slice(name.lastIndexOf('.') + 1);
}

function annotatedWith(declaration: Node, names: readonly string[]): boolean {
  return annotations(declaration).some(({ name }) => names.includes(simpleName(name)));
}

/** Imports of a file as written, without `import`, `static` and `;`, e.g. `org.junit.Assert.*`. */
export function importedNames(root: Node): { name: string; isStatic: boolean }[] {
  return kids(root)
    .filter((node) => node.type === 'import_declaration')
    .map((node) => ({
      name: node.text.replace(/^import\s+(static\s+)?/, '').replace(/\s*;$/, ''),
      isStatic: node.children.some((child) => child?.type === 'static'),
    }));
}

/**
 * The framework that runs the class: the package of its `@Test` annotation (written in full or
 * imported), else JUnit 3 when it extends TestCase, directly or through a base class of a file
 * that imports from junit.framework.
 */
export function frameworkOf(root: Node, testClass: Node): TestFramework | undefined {
  const written = classMembers(testClass).flatMap((member) =>
    member.type === 'method_declaration'
      ? annotations(member)
          .map(({ name }) => name)
          .filter((name) => simpleName(name) === 'Test')
      : [],
  );
  const imports = importedNames(root)
    .filter((entry) => !entry.isStatic)
    .map((entry) => entry.name);
  const declares = (annotation: string) =>
    written.includes(annotation) ||
    (written.includes('Test') &&
      (imports.includes(annotation) || imports.includes(annotation.replace(/\.Test$/, '.*'))));
  if (declares('org.junit.jupiter.api.Test')) return 'junit5';
  if (declares('org.junit.Test')) return 'junit4';
  const superclass = field(testClass, 'superclass')?.text.replace(/^extends\s+/, '') ?? '';
  if (/^(junit\.framework\.)?TestCase$/.test(superclass)) return 'junit3';
  if (superclass && imports.some((name) => name.startsWith('junit.framework.'))) return 'junit3';
  return undefined;
}

/** Annotations of tests that run once per argument set or are generated: not amplified. */
const OTHER_TEST_ANNOTATIONS = ['ParameterizedTest', 'RepeatedTest', 'TestFactory', 'TestTemplate'];
const DISABLED_ANNOTATIONS = ['Ignore', 'Disabled'];

/** A plain test the framework runs (not disabled, not parameterized, repeated or generated). */
export function isPlainTest(member: Node, framework: TestFramework): boolean {
  if (member.type !== 'method_declaration' || !field(member, 'body')) return false;
  if (framework === 'junit3') return isTestCaseMethod(member);
  return annotatedWith(member, ['Test']) && !annotatedWith(member, DISABLED_ANNOTATIONS);
}

/**
 * A member that makes the framework run the original's tests: every test method (disabled,
 * parameterized and the like included), JUnit 3's `suite()` and JUnit 5's @Nested classes. A copy
 * of the class leaves them out, or it would run the original's tests again.
 */
export function runsOriginalTests(member: Node, framework: TestFramework): boolean {
  if (member.type === 'class_declaration') return annotatedWith(member, ['Nested']);
  if (member.type !== 'method_declaration') return false;
  if (framework === 'junit3') {
    return (
      isTestCaseMethod(member) ||
      (nameOf(member) === 'suite' && modifierWords(member).includes('static'))
    );
  }
  return annotatedWith(member, ['Test', ...OTHER_TEST_ANNOTATIONS]);
}

/**
 * The header of a test method under a new name, from its start to its body: the test
 * annotation loses `expected` (the copy's body decides what is expected), the rest is kept.
 */
export function renamedHeader(source: string, method: Node, name: string): string {
  const body = field(method, 'body')!;
  const edits: TextEdit[] = [];
  const nameNode = field(method, 'name')!;
  edits.push({ start: nameNode.startIndex, end: nameNode.endIndex, text: name });
  for (const { node } of annotations(method)) {
    const argumentList = field(node, 'arguments');
    if (simpleName(field(node, 'name')?.text ?? '') !== 'Test' || !argumentList) continue;
    const kept = kids(argumentList).filter(
      (pair) => pair.type === 'element_value_pair' && field(pair, 'key')?.text !== 'expected',
    );
    edits.push({
      start: argumentList.startIndex,
      end: argumentList.endIndex,
      text: kept.length > 0 ? `(${kept.map((pair) => pair.text).join(', ')})` : '',
    });
  }
  let header = source.slice(method.startIndex, body.startIndex);
  for (const edit of edits.sort((a, b) => b.start - a.start)) {
    header =
      header.slice(0, edit.start - method.startIndex) +
      edit.text +
      header.slice(edit.end - method.startIndex);
  }
  return header;
}

/** The whole lines a member occupies, with the comments on their own lines right above it. */
function memberLines(source: string, member: Node): TextEdit {
  let first = member;
  for (
    let previous = member.previousSibling;
    previous && isComment(previous) && ownsLineStart(source, previous.startIndex);
    previous = previous.previousSibling
  ) {
    first = previous;
  }
  let start = first.startIndex;
  if (ownsLineStart(source, start)) start = source.lastIndexOf('\n', start - 1) + 1;
  const rest = /^[ \t]*\r?\n/.exec(source.slice(member.endIndex));
  return { start, end: member.endIndex + (rest?.[0].length ?? 0), text: '' };
}

/**
 * Edits removing members (and their Javadoc), neighbours together, each run of them with one of
 * the blank lines around it, so the file keeps its layout: one blank line between members, none
 * after an opening brace or before a closing one.
 */
export function membersRemoval(source: string, members: readonly Node[]): TextEdit[] {
  const runs: TextEdit[] = [];
  for (const lines of members.map((member) => memberLines(source, member))) {
    const last = runs.at(-1);
    if (last && lines.start >= last.end && source.slice(last.end, lines.start).trim() === '') {
      last.end = lines.end;
    } else {
      runs.push(lines);
    }
  }
  return runs.map(({ start, end }) => {
    const blankBefore = /\n[ \t]*\r?\n$/.exec(source.slice(0, start));
    const blankAfter = /^[ \t]*\r?\n/.exec(source.slice(end));
    if (blankAfter && (blankBefore || /\{[ \t]*\r?\n$/.test(source.slice(0, start)))) {
      return { start, end: end + blankAfter[0].length, text: '' };
    }
    if (blankBefore && /^[ \t]*(\}|$)/.test(source.slice(end))) {
      return { start: start - blankBefore[0].length + 1, end, text: '' };
    }
    return { start, end, text: '' };
  });
}

/** Whether only whitespace stands before `index` on its line. */
function ownsLineStart(source: string, index: number): boolean {
  const lineStart = source.lastIndexOf('\n', index - 1) + 1;
  return /^[ \t]*$/.test(source.slice(lineStart, index));
}

/** Inserts members (each text indented already) at the end of a class's body. */
export function membersAppended(
  source: string,
  testClass: Node,
  members: readonly string[],
  lineBreak: string,
): TextEdit {
  const closing = field(testClass, 'body')!.lastChild!;
  const text = members.map((member) => `${lineBreak}${member}${lineBreak}`).join('');
  const at = ownsLineStart(source, closing.startIndex)
    ? source.lastIndexOf('\n', closing.startIndex - 1) + 1
    : closing.startIndex;
  return { start: at, end: at, text };
}

/**
 * Edits giving the class a new name: its declaration, its constructors and every reference to it
 * inside it (`Original.class`, `Original.this`, `Original.CONSTANT`), so the copy refers to itself.
 */
export function classRenaming(testClass: Node, name: string): TextEdit[] {
  const original = nameOf(testClass);
  return descendants(testClass, ['identifier', 'type_identifier'])
    .filter((node) => node.text === original)
    .map((node) => ({ start: node.startIndex, end: node.endIndex, text: name }));
}

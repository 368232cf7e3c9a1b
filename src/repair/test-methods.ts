import type { Node } from 'web-tree-sitter';
import {
  classMembers,
  CLASS_TYPES,
  field,
  kids,
  loadJavaGrammar,
  modifierWords,
  nameOf,
  withJavaTree,
} from '../lang/java/syntax.js';
import { superclassName } from '../lang/java/type-index.js';

/*
 * The test methods of a test class, read from its source: what a class-level test name stands
 * for. Only the class's own declarations are seen; test methods it inherits are not.
 */

/** JUnit 4's and 5's annotations that make a method a test the runner runs. */
const TEST_ANNOTATIONS = new Set([
  'Test',
  'ParameterizedTest',
  'RepeatedTest',
  'TestFactory',
  'TestTemplate',
]);
/** A disabled test never runs, so it can neither fail nor pass. */
const DISABLING_ANNOTATIONS = new Set(['Ignore', 'Disabled']);

export type DeclaredTestMethods = { kind: 'Found'; methods: string[] } | { kind: 'NoSuchClass' };

/** Simple names of a declaration's annotations: `@org.junit.Test(expected = …)` is `Test`. */
function annotationNames(declaration: Node): string[] {
  return modifierWords(declaration)
    .filter((word) => word.startsWith('@'))
    .map((word) => word.slice(word.lastIndexOf('.') + 1).replace(/^@/, ''));
}

/** JUnit 3: in a TestCase, every public void no-argument `test*` method is a test. */
export function isTestCaseMethod(method: Node): boolean {
  const words = modifierWords(method);
  const parameters = field(method, 'parameters');
  return (
    nameOf(method).startsWith('test') &&
    words.includes('public') &&
    !words.includes('static') &&
    !words.includes('abstract') &&
    field(method, 'type')?.type === 'void_type' &&
    (parameters ? kids(parameters).length === 0 : false)
  );
}

/** The class a binary name within its file names (`Outer$Inner`), or null. */
export function findClass(root: Node, binaryName: string): Node | null {
  let scope: Node[] = kids(root);
  let found: Node | null = null;
  for (const simpleName of binaryName.split('$')) {
    found =
      scope.find(
        (node) =>
          (CLASS_TYPES as readonly string[]).includes(node.type) && nameOf(node) === simpleName,
      ) ?? null;
    if (!found) return null;
    scope = classMembers(found);
  }
  return found;
}

/**
 * The test methods a class declares, in source order: `@Test` and JUnit 5's other test
 * annotations, or, in a class extending TestCase, JUnit 3's `public void test*()`; disabled
 * ones left out. `binaryName` is the class's name within the file: `Outer` or `Outer$Inner`.
 */
export async function declaredTestMethods(
  source: string,
  binaryName: string,
): Promise<DeclaredTestMethods> {
  await loadJavaGrammar();
  return withJavaTree(source, (root) => {
    const testClass = findClass(root, binaryName);
    if (!testClass) return { kind: 'NoSuchClass' };
    const junit3 = superclassName(testClass) === 'TestCase';
    const methods = classMembers(testClass)
      .filter((member) => member.type === 'method_declaration')
      .filter((method) => {
        const annotations = annotationNames(method);
        if (annotations.some((name) => DISABLING_ANNOTATIONS.has(name))) return false;
        return (
          annotations.some((name) => TEST_ANNOTATIONS.has(name)) ||
          (junit3 && isTestCaseMethod(method))
        );
      })
      .map(nameOf);
    return { kind: 'Found', methods: [...new Set(methods)] };
  });
}

import { beforeAll, describe, expect, it } from 'vitest';
import type { Node } from 'web-tree-sitter';
import {
  applyEdits,
  loadJavaGrammar,
  withEditedJavaTree,
  withJavaTree,
  type TextEdit,
} from './syntax.js';

const SOURCE = `package p;

class Greeter {
    String greet(String name) {
        String prefix = "héllo 👋 ";
        if (name != null) {
            return prefix + name;
        }
        return prefix;
    }

    int count(int[] values) {
        int total = 0;
        for (int v : values) {
            total += v;
        }
        return total;
    }
}
`;

/** What a parse says, node by node: type, offsets and row/column of every node. */
function shape(root: Node): string[] {
  const out: string[] = [];
  const visit = (node: Node) => {
    out.push(
      `${node.type} ${node.startIndex}-${node.endIndex} ${node.startPosition.row}:${node.startPosition.column}-${node.endPosition.row}:${node.endPosition.column}`,
    );
    for (const child of node.children) if (child) visit(child);
  };
  visit(root);
  return out;
}

function editAt(find: string, replacement: string): TextEdit {
  const start = SOURCE.indexOf(find);
  return { start, end: start + find.length, text: replacement };
}

beforeAll(loadJavaGrammar);

describe('withEditedJavaTree', () => {
  it('gives the tree a full parse of the edited text gives, and leaves the old tree alone', () => {
    const edits = [
      editAt('👋 ";', '👋 " + "!";'),
      editAt('name != null', 'name == null'),
      editAt('            total += v;\n', ''),
      editAt('return prefix;', 'return prefix.trim();\n        // done'),
    ];
    const edited = applyEdits(SOURCE, edits);
    const expected = withJavaTree(edited, shape);
    withJavaTree(SOURCE, (root, tree) => {
      const before = shape(root);
      expect(withEditedJavaTree(tree, SOURCE, edits, shape)).toEqual(expected);
      expect(shape(tree.rootNode)).toEqual(before);
    });
  });

  it('reports a syntax error the edit introduces', () => {
    withJavaTree(SOURCE, (root, tree) => {
      expect(root.hasError).toBe(false);
      const broken = withEditedJavaTree(
        tree,
        SOURCE,
        [editAt('return total;', 'return total')],
        (r) => r.hasError,
      );
      expect(broken).toBe(true);
    });
  });
});

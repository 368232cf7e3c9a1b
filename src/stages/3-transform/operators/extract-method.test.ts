import { beforeAll, describe, expect, it } from 'vitest';
import { blockStatements } from '../../../lang/java/extraction.js';
import { descendants, field, loadJavaGrammar, withJavaTree } from '../../../lang/java/syntax.js';
import { declaresOnlyConstants } from './extract-method.js';

beforeAll(async () => {
  await loadJavaGrammar();
});

/** Whether the body of `void run() { … }` only declares constants. */
function onlyConstants(body: string): boolean {
  return withJavaTree(`class C { void run() { ${body} } }`, (root) => {
    const member = descendants(root, 'method_declaration')[0]!;
    const block = field(member, 'body')!;
    return declaresOnlyConstants({ member, block, statements: blockStatements(block) });
  });
}

describe('declaresOnlyConstants', () => {
  it('takes literals and objects made of literals for constants, nothing computed', () => {
    expect(onlyConstants('final int prime = 31; String none = null;')).toBe(true);
    expect(onlyConstants('StringBuilder b = new StringBuilder();')).toBe(true);
    expect(onlyConstants('StringBuilder b = new StringBuilder("    ");')).toBe(true);
    expect(onlyConstants('StringBuilder b = new StringBuilder(text);')).toBe(false);
    expect(onlyConstants('Runnable r = new Runnable() { public void run() {} };')).toBe(false);
    expect(onlyConstants('int n = 1; n++;')).toBe(false);
  });
});

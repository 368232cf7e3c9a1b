import { beforeAll, describe, expect, it } from 'vitest';
import { blockStatements, type StatementRun } from '../../../lang/java/extraction.js';
import { descendants, field, loadJavaGrammar, withJavaTree } from '../../../lang/java/syntax.js';
import { analyseExtraction } from '../../../lang/java/extraction.js';
import { declaresOnlyConstants, isNoStep, splitsAPair } from './extract-method.js';

beforeAll(async () => {
  await loadJavaGrammar();
});

/** What `ask` says of the statements of `body` in `void run(Object obj, int[] array) { … }`. */
function ofRun(body: string, ask: (run: StatementRun) => boolean): boolean {
  return withJavaTree(`class C { void run(Object obj, int[] array) { ${body} } }`, (root) => {
    const member = descendants(root, 'method_declaration')[0]!;
    const block = field(member, 'body')!;
    return ask({ member, block, statements: blockStatements(block) });
  });
}

const onlyConstants = (body: string) => ofRun(body, declaresOnlyConstants);
const noStep = (body: string) => ofRun(body, isNoStep);

describe('declaresOnlyConstants', () => {
  it('takes literals and objects made of literals for constants, nothing computed', () => {
    expect(onlyConstants('final int prime = 31; String none = null;')).toBe(true);
    expect(onlyConstants('StringBuilder b = new StringBuilder();')).toBe(true);
    expect(onlyConstants('StringBuilder b = new StringBuilder("    ");')).toBe(true);
    expect(onlyConstants('final int[] endHolder = new int[1];')).toBe(true);
    expect(onlyConstants("char[] marks = new char[] { 'a', 'b' };")).toBe(true);
    expect(onlyConstants('StringBuilder b = new StringBuilder(text);')).toBe(false);
    expect(onlyConstants('int[] counts = new int[size];')).toBe(false);
    expect(onlyConstants('int[] firsts = new int[] { first };')).toBe(false);
    expect(onlyConstants('Runnable r = new Runnable() { public void run() {} };')).toBe(false);
    expect(onlyConstants('int n = 1; n++;')).toBe(false);
  });
});

describe('isNoStep', () => {
  it('takes a renaming, a cast or one call of values at hand for no stage', () => {
    expect(noStep('final Range other = (Range) obj;')).toBe(true);
    expect(noStep('Object same = this.value;')).toBe(true);
    expect(noStep('Objects.requireNonNull(array, "array");')).toBe(true);
    expect(noStep('final int prime = 31;')).toBe(true);
    expect(noStep('final int len = slice.len;')).toBe(true);
    expect(noStep('final int[] offset = { slice.offset };')).toBe(true);
    expect(noStep('final Object object = readObject(obj);')).toBe(true);
    expect(noStep('findObject(obj, array);')).toBe(true);
  });

  it('takes a computed value, a call of computed arguments or two statements for a stage', () => {
    expect(noStep('String value = values.get(name);')).toBe(false);
    expect(noStep('final Object object = readObject(obj.next());')).toBe(false);
    expect(noStep('final int[] ends = { obj.hashCode() };')).toBe(false);
    expect(noStep('out.write(array[0] + 1);')).toBe(false);
    expect(noStep('Objects.requireNonNull(array, "array"); check(array);')).toBe(false);
    expect(noStep('if (obj == null) { throw new IllegalStateException(); }')).toBe(false);
  });
});

describe('splitsAPair', () => {
  /** Whether moving the first statement of `method`'s body would take one of a pair alone. */
  const splits = (method: string) =>
    withJavaTree(`class C { ${method} }`, (root) => {
      const member = descendants(root, 'method_declaration')[0]!;
      const block = field(member, 'body')!;
      const run = { member, block, statements: blockStatements(block).slice(0, 1) };
      const extraction = analyseExtraction(run);
      if (extraction.kind === 'Refused') throw new Error('not extractable');
      return splitsAPair(member, extraction.inputs);
    });

  it('refuses a helper of o1 alone in compare(o1, o2): its signature shows o2 was meant', () => {
    // commons-codec's Rule comparator after an identical-value-comparison bug.
    expect(
      splits(
        'int compare(Phoneme o1, Phoneme o2) { boolean shorter = o1.text.length() < o1.text.length(); return shorter ? -1 : 0; }',
      ),
    ).toBe(true);
    expect(splits('int diff(int left, int right) { int d = left * 2; return d; }')).toBe(true);
    // Both of the pair, parameters of other types, or names that are no pair: a helper as usual.
    expect(
      splits(
        'int compare(Phoneme o1, Phoneme o2) { boolean shorter = o1.text.length() < o2.text.length(); return shorter ? -1 : 0; }',
      ),
    ).toBe(false);
    expect(splits('int put(String o1, int o2) { int d = o1.length(); return d; }')).toBe(false);
    expect(splits('int put(String key, String value) { int d = key.length(); return d; }')).toBe(
      false,
    );
  });
});

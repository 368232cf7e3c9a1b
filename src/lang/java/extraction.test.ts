import { beforeAll, describe, expect, it } from 'vitest';
import { analyseExtraction, blockStatements, enclosingMember } from './extraction.js';
import { helperNames } from './naming.js';
import { descendants, loadJavaGrammar, withJavaTree } from './syntax.js';

beforeAll(loadJavaGrammar);

/** Analyses the statements of the method `m` whose text starts with one of `marks`. */
function analysed(body: string, marks: string[], method = `int m(int a, int[] xs) {\n${body}\n}`) {
  const source = `class C {\n  int f;\n  ${method}\n}\n`;
  return withJavaTree(source, (root) => {
    const blocks = descendants(root, 'block');
    for (const block of blocks) {
      const statements = blockStatements(block).filter((s) =>
        marks.some((mark) => s.text.startsWith(mark)),
      );
      if (statements.length === marks.length) {
        const analysis = analyseExtraction({ member: enclosingMember(block)!, block, statements });
        return analysis.kind === 'Extractable'
          ? {
              kind: analysis.kind,
              inputs: analysis.inputs.map((i) => i.name),
              result: analysis.result.kind,
            }
          : analysis;
      }
    }
    throw new Error(`no block holds ${marks.join(', ')}`);
  });
}

describe('statement extraction', () => {
  it('passes the locals the statements read, and returns the one read after them', () => {
    expect(analysed('int b = a + 1;\nint c = b * f;\nreturn c;', ['int c'])).toEqual({
      kind: 'Extractable',
      inputs: ['b'],
      result: 'local',
    });
    expect(analysed('int b = a;\nif (b > 0) { f = b; }\nreturn 0;', ['if'])).toMatchObject({
      inputs: ['b'],
      result: 'none',
    });
    // The tail of a method: the helper returns what the method returns.
    expect(
      analysed('int b = a;\nfor (int x : xs) { b += x; }\nreturn b;', ['for', 'return']),
    ).toMatchObject({
      kind: 'Refused',
    });
    expect(analysed('int b = a;\nif (b > 0) { return 1; }\nreturn b;', ['if', 'return'])).toEqual({
      kind: 'Extractable',
      inputs: ['b'],
      result: 'tail',
    });
  });

  it('refuses what would not behave the same in a method of its own', () => {
    expect(analysed('int b = a;\nif (b > 0) { return 1; }\nreturn b;', ['if'])).toMatchObject({
      kind: 'Refused',
      reason: 'a return that would only leave the helper',
    });
    expect(analysed('int b = a;\nb++;\nreturn b;', ['b++'])).toMatchObject({
      kind: 'Refused',
      reason: "'b' is assigned, and read after",
    });
    expect(
      analysed('for (int x : xs) {\n if (x > 0) break;\n f++;\n}\nreturn 0;', ['if']),
    ).toMatchObject({
      kind: 'Refused',
      reason: 'a break out of the statements',
    });
    expect(analysed('', ['this.f'], 'C(int a) {\nif (a > 0) {\nthis.f = a;\n}\n}')).toMatchObject({
      kind: 'Refused',
      reason: 'a field assigned in a constructor',
    });
    expect(analysed('int b = a, c = a;\nreturn b + c;', ['int b'])).toMatchObject({
      kind: 'Refused',
      reason: '2 locals are read after the statements',
    });
    // A lambda's own return and a loop's own break stay inside what moves.
    expect(
      analysed(
        'Runnable r = () -> { return; };\nfor (int x : xs) { if (x > 0) break; }\nreturn 0;',
        ['Runnable', 'for'],
      ),
    ).toMatchObject({ kind: 'Extractable', inputs: ['xs'] });
  });
});

describe('helper names', () => {
  const named = (statement: string, taken: string[] = []) =>
    withJavaTree(`class C { void readRecord() { ${statement} } }`, (root) => {
      const block = descendants(root, 'block')[0]!;
      return helperNames(blockStatements(block), { member: 'readRecord' }, new Set(taken))[0];
    });

  it('reads the name off what the statements do and what they are about', () => {
    expect(named('if (index < 0) { throw new IllegalArgumentException(); }')).toBe('checkIndex');
    expect(named('for (String key : keys) { result.add(key); }')).toBe('collectKeys');
    expect(named('for (String key : keys) { if (key == null) return; }')).toBe('findKeys');
    expect(named('buffer.append(separator);')).toBe('appendSeparator');
    // A name the class already uses is never taken, nor one made from the method's name.
    expect(
      named('if (index < 0) { throw new IllegalArgumentException(); }', ['checkIndex']),
    ).toBeUndefined();
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { camelName, forwardingNames, helperNames, nameWords, plainName } from './naming.js';
import { blockStatements } from './extraction.js';
import { descendants, field, loadJavaGrammar, withJavaTree } from './syntax.js';

beforeAll(async () => {
  await loadJavaGrammar();
});

/** The names offered for a method's whole body moved into a helper. */
function wholeBody(method: string, nouns: string[] = [], taken: string[] = []): string[] {
  return withJavaTree(`class C { ${method} }`, (root) => {
    const declaration = descendants(root, 'method_declaration')[0]!;
    const body = field(declaration, 'body')!;
    const member = field(declaration, 'name')!.text;
    return helperNames(blockStatements(body), { member, tail: true, nouns }, new Set(taken));
  });
}

describe('names for added code', () => {
  it("writes a constant's name as words of a camelCase name", () => {
    expect(camelName(['BITS', 'length'])).toBe('bitsLength');
    expect(camelName(['cached', 'MAX_SIZE'])).toBe('cachedMaxSize');
    expect(camelName(['parse', 'Header'])).toBe('parseHeader');
  });

  it('splits a camelCase name into its words', () => {
    expect(nameWords('parseHeaderLine')).toEqual(['parse', 'Header', 'Line']);
    expect(nameWords('toString')).toEqual(['to', 'String']);
  });

  it('names a moved whole body after what the method computes, never do… or …Internal', () => {
    expect(wholeBody('boolean equals(Object o) { return o == this; }')[0]).toBe('isEqualTo');
    expect(wholeBody('int hashCode() { return 31 * size; }')[0]).toBe('computeHashCode');
    // A bug in the name leaves the body what it was: named after the method it was meant as.
    expect(wholeBody('int hashcode() { return 83 + start + 7 * end; }')[0]).toBe('computeHashCode');
    expect(wholeBody('boolean equal(Object o) { return o == this; }')[0]).toBe('isEqualTo');
    expect(wholeBody('int getSize() { return size; }')[0]).toBe('computeSize');
    expect(wholeBody('boolean isAscii(String text) { return text.isEmpty(); }', ['text'])[0]).toBe(
      'checkAscii',
    );
    expect(wholeBody('String escape(String text) { return text; }', ['text'])[0]).toBe(
      'escapeText',
    );
    const all = [
      ...wholeBody('boolean equals(Object o) { return o == this; }', [], ['isEqualTo', 'sameAs']),
      ...wholeBody('int hashCode() { return 31 * size; }', [], ['computeHashCode']),
    ];
    expect(all.filter((name) => /^do[A-Z]|Internal$/.test(name))).toEqual([]);
  });

  it("names a loop after what its body does, not after the loop's own counter", () => {
    const named = (statement: string) =>
      withJavaTree(`class C { void print() { ${statement} } }`, (root) => {
        const block = descendants(root, 'block')[0]!;
        return helperNames(blockStatements(block), { member: 'print', tail: false }, new Set())[0];
      });
    expect(named('for (int i = 1; i < array.length; i++) { out.write(array[i]); }')).toBe(
      'writeArray',
    );
    expect(named('for (String line : lines) { if (line.isEmpty()) blanks++; }')).toBe('countLines');
    // Checks before the work leave the name to the work.
    expect(named('if (array == null) { throw new IllegalStateException(); }')).toBe('checkArray');
    expect(
      named('if (array == null) { throw new IllegalStateException(); } Arrays.sort(array);'),
    ).toBe('sortArray');
    // A return after the loop gives what it counted; one inside it ends a search.
    expect(named('for (byte b : bytes) { if (b == 37) count++; } return count;')).toBe(
      'countBytes',
    );
    expect(named('for (byte b : bytes) { if (b == 37) return true; } return false;')).toBe(
      'findBytes',
    );
    // The switch's breaks find nothing; a bound named `len` says nothing.
    const escape = withJavaTree(
      'class C { void escape(String s, StringBuilder sb) { int len = s.length(); for (int i = 0; i < len; i++) { switch (s.charAt(i)) { case 1: sb.append(1); break; default: sb.append(0); } } } }',
      (root) => {
        const block = descendants(root, 'block')[0]!;
        const loop = blockStatements(block).slice(1);
        return helperNames(
          loop,
          { member: 'escape', tail: true, nouns: ['s', 'sb', 'String'] },
          new Set(),
        );
      },
    );
    expect(escape[0]).toBe('escapeString');
  });

  it('takes the vague abbreviations of a parameter for no name', () => {
    expect(wholeBody('String escape(String str) { return str; }', ['str'])).toEqual([]);
  });

  it('names a forwarding method after what the call passes, else after the callee or caller', () => {
    const names = (callee: string, args: string[], parameters: string[], caller: string) =>
      forwardingNames(callee, { arguments: args, parameters, caller }, new Set());
    expect(names('parse', ['line'], ['text'], 'readRecord')[0]).toBe('parseLine');
    expect(names('parse', ['o'], ['text'], 'readRecord')[0]).toBe('parseText');
    expect(names('format', ['o'], ['o'], 'printRecord')[0]).toBe('formatRecord');
    expect(names('total', [], [], 'wider')[0]).toBe('computeTotal');
    expect(names('getHeader', [], [], 'wider')[0]).toBe('resolveHeader');
    expect(names('countOffset', ['offset'], ['offset'], 'read')).toEqual(['countOffsetForRead']);
    // An index, an output or an input is named by its role.
    expect(names('getString', ['index'], ['index'], 'getEnum')[0]).toBe('getStringAt');
    expect(names('writeArray', ['array', 'out'], ['array', 'out'], 'write')[0]).toBe(
      'writeArrayTo',
    );
    expect(names('parse', ['reader'], ['reader'], 'load')[0]).toBe('parseFrom');
    // A callee whose name already ends with the argument gains nothing from it.
    expect(names('printRecord', ['record'], ['record'], 'print')).toEqual([]);
    // An abbreviation says nothing: `matches(input, ipl)` is no `matchesInputIpl`.
    expect(names('matches', ['ipl'], ['ipl'], 'find')[0]).toBe('computeMatches');
    expect(names('getEntry', ['key'], ['key'], 'lookup')[0]).toBe('getEntryKey');
  });
});
describe('plainName', () => {
  it('skips names no maintainer writes: xInternal, doX, the member named twice', () => {
    expect(
      plainName(
        ['setHeaderForSetHeader', 'doSetHeader', 'setHeaderInternal', 'applyHeader'],
        'setHeader',
      ),
    ).toBe('applyHeader');
    expect(plainName(['setSetHeader', 'readHeader'], 'setHeader')).toBe('readHeader');
    expect(plainName(['setHeaderInternal'], 'setHeader')).toBeUndefined();
  });
});

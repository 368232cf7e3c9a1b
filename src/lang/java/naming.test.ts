import { beforeAll, describe, expect, it } from 'vitest';
import { adapterNames, camelName, helperNames, nameWords, plainName } from './naming.js';
import { blockStatements } from './extraction.js';
import { descendants, field, loadJavaGrammar, withJavaTree } from './syntax.js';

beforeAll(async () => {
  await loadJavaGrammar();
});

/** The names offered for statements of `method` moved into a helper. */
function moved(method: string, taken: string[] = []): string[] {
  return withJavaTree(`class C { ${method} }`, (root) => {
    const declaration = descendants(root, 'method_declaration')[0]!;
    const body = field(declaration, 'body')!;
    const member = field(declaration, 'name')!.text;
    return helperNames(blockStatements(body), { member }, new Set(taken));
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

  it('names moved statements after what they do, never after the method they leave', () => {
    // commons-csv's read(char[], int, int): the loop counts line endings, bounded by `offset`.
    const read = `int read(char[] buf, int offset, int len) {
      for (int i = offset; i < offset + len; i++) {
        final char ch = buf[i];
        if (ch == LF) {
          if (CR != (i > offset ? buf[i - 1] : lastChar)) { lineNumber++; }
        } else if (ch == CR) { lineNumber++; }
      }
    }`;
    expect(moved(read)).toEqual(['countLines']);
    // A cursor the loop's condition reads counts nothing: this loop scans the text.
    expect(
      moved(
        'void print(String text) { int pos = 0; while (pos < text.length()) { out.write(text.charAt(pos)); pos++; } }',
      ),
    ).not.toContain('countPos');
    // The method's own name and its parameters name nothing the statements do.
    expect(moved('int getSize() { return size; }')).toEqual([]);
    expect(moved('String escape(String text) { return text.trim(); }')).toEqual(['trimText']);
    // A comparison returned says no verb: `applyHeaderMap` would say nothing.
    expect(moved('boolean isConsistent() { return headerMap.size() == values.length; }')).toEqual(
      [],
    );
    expect(
      moved('boolean isMapped(String name) { return map != null && map.containsKey(name); }'),
    ).not.toContain('checkMapped');
  });

  it("names a loop after what its body does, not after the loop's own counter", () => {
    const named = (statement: string) =>
      withJavaTree(`class C { void print() { ${statement} } }`, (root) => {
        const block = descendants(root, 'block')[0]!;
        return helperNames(blockStatements(block), { member: 'print' }, new Set())[0];
      });
    expect(named('for (int i = 1; i < array.length; i++) { out.write(array[i]); }')).toBe(
      'writeArray',
    );
    // What a loop counts is what it increments; a bare `count` says nothing, its collection does.
    expect(named('for (String line : lines) { if (line.isEmpty()) blanks++; }')).toBe(
      'countBlanks',
    );
    expect(
      named('for (int i = 0; i < values.length; i++) { if (values[i] == 0) zeroCount++; }'),
    ).toBe('countZeros');
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
    // The switch's breaks find nothing; a bound named `len` says nothing, the text indexed does.
    const escape = withJavaTree(
      'class C { void escape(String text, StringBuilder sb) { int len = text.length(); for (int i = 0; i < len; i++) { switch (text.charAt(i)) { case 1: sb.append(1); break; default: sb.append(0); } } } }',
      (root) => {
        const block = descendants(root, 'block')[0]!;
        const loop = blockStatements(block).slice(1);
        return helperNames(loop, { member: 'escape' }, new Set());
      },
    );
    expect(escape).toEqual(['appendText']);
  });

  it('takes the verb from the work, not from the calls a condition asks, and never says handle', () => {
    const named = (statement: string) =>
      withJavaTree(
        `class C { void print(Reader reader, Appendable out) { ${statement} } }`,
        (root) => {
          const block = descendants(root, 'block')[0]!;
          return helperNames(blockStatements(block), { member: 'print' }, new Set());
        },
      );
    // commons-csv's readLine after a rare gate: `buffer.length()` asks, `read()` works.
    expect(named('if (next == LF || buffer.length() > 0) { read(); }')[0]).toBe('readNext');
    // The chain prints what it is given, not the flag a condition tests.
    expect(
      named(
        'if (isQuoteCharacterSet() && ignoreEmptyLines) { printWithQuotes(reader, out); } else { IOUtils.copy(reader, out); }',
      )[0],
    ).toBe('printReader');
    // Without a call: what it counts, else the state it updates.
    expect(
      named(
        'if (ch == LF) { if (CR != lastChar) { eolCounter++; } } else if (ch == CR) { eolCounter++; }',
      )[0],
    ).toBe('countEols');
    expect(named('if (ch == LF) { lastChar = ch; }')[0]).toBe('updateLastChar');
    // Nothing a reader can check: no name (never `handleStrict`).
    expect(named('if (strict) { n = 1; }')).toEqual([]);
    expect(named('if (strict) { pos = 1; }')).toEqual(['updatePos']);
  });

  it('names an adapter after what it is given, never after the method calling it', () => {
    const names = (callee: string, inputs: string[]) => adapterNames(callee, inputs, new Set());
    expect(names('parse', ['line'])[0]).toBe('parseLine');
    // An index, an output or an input is named by its role.
    expect(names('getString', ['index'])[0]).toBe('getStringAt');
    expect(names('writeArray', ['array', 'out'])[0]).toBe('writeArrayTo');
    expect(names('parse', ['reader'])[0]).toBe('parseFrom');
    // A callee whose name already ends with the input, or an abbreviation, gives no name.
    expect(names('printRecord', ['record'])).toEqual([]);
    expect(names('matches', ['ipl'])).toEqual([]);
    expect(names('countOffset', ['offset'])).toEqual([]);
    // A field the adapter reads itself names it when no parameter does, never before one.
    expect(adapterNames('read', [], new Set(), ['pending', 'pendingLength'])[0]).toBe(
      'readPending',
    );
    expect(adapterNames('parse', ['line'], new Set(), ['buffer'])[0]).toBe('parseLine');
    expect(adapterNames('read', [], new Set(), ['buf'])).toEqual([]);
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

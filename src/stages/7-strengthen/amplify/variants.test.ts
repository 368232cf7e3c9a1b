import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { JUNIT3_CLASS, JUNIT4_CLASS, JUNIT5_CLASS } from './test-support.js';
import { inputVariants, testMethods, type InputVariant, type TestMethod } from './variants.js';

beforeAll(loadJavaGrammar);

function scanned(source: string) {
  const scan = testMethods(source);
  if (scan.kind !== 'TestClass') throw new Error(scan.reason);
  return scan;
}

function method(source: string, name: string): TestMethod {
  return scanned(source).methods.find((m) => m.name === name)!;
}

/** Every variant of a method (a max no method reaches), as `operator: detail`. */
function allVariants(source: string, name: string): InputVariant[] {
  return inputVariants(source, method(source, name), { seed: 1, max: 1000 });
}

function described(variants: readonly InputVariant[]): string[] {
  return variants.map((v) => `${v.operator}: ${v.detail.replace(/ \(line \d+\)$/, '')}`);
}

/** A JUnit 4 test with a literal of each kind, in and out of the places no operator touches. */
const PARSER_TEST = `package p;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class ParserTest {
    @Test
    public void parses() {
        Parser parser = new Parser(8);
        parser.feed("ab", 3L);
        int[] buffer = new int[4];
        @SuppressWarnings("unused") String tag = "t";
        assertEquals("message", 5, parser.size(0));
    }

    @Test
    public void clears() {
        parser().clear();
        assertTrue(flag);
    }

    @Test
    public void skips() {
        Parser parser = new Parser(0x10);
        parser.skip(width-0);
        parser.skip(2147483647);
        parser.skip(-2147483648);
        assertTrue(parser.done());
    }
}
`;

describe('testMethods', () => {
  it('finds the plain @Test methods of a JUnit 4 class, not the ignored one', () => {
    const scan = scanned(JUNIT4_CLASS);
    expect(scan.framework).toBe('junit4');
    expect(scan.className).toBe('WordWrapTest');
    expect(scan.methods.map((m) => m.name)).toEqual([
      'wrapsAtWidth',
      'countsWords',
      'rejectsNegativeWidth',
      'findsNothingInEmptyText',
    ]);
    const countsWords = scan.methods[1]!;
    expect(JUNIT4_CLASS.slice(countsWords.range.start, countsWords.range.end)).toMatch(
      /^@Test\n {4}public void countsWords\(\) \{[^]*\n {4}\}$/,
    );
    expect(JUNIT4_CLASS.slice(countsWords.bodyRange.start, countsWords.bodyRange.end)).toBe(
      '{\n        wrap.add("alpha");\n        wrap.add("beta");\n        assertEquals(2, wrap.count());\n    }',
    );
  });

  it('leaves out parameterized tests and the tests of nested classes in JUnit 5', () => {
    const scan = scanned(JUNIT5_CLASS);
    expect(scan.framework).toBe('junit5');
    expect(scan.methods.map((m) => m.name)).toEqual(['addsAmounts', 'rejectsOtherCurrency']);
  });

  it("takes a TestCase's public void test*() methods, not its suite or helpers", () => {
    const scan = scanned(JUNIT3_CLASS);
    expect(scan.framework).toBe('junit3');
    expect(scan.methods.map((m) => m.name)).toEqual(['testPushPop', 'testEmpty']);
  });

  it('refuses what is no runnable test class', () => {
    expect(testMethods('public class Parser { void parse() {} }')).toEqual({
      kind: 'NotATestClass',
      reason: 'no JUnit 3, 4 or 5 test found',
    });
    expect(
      testMethods(
        JUNIT4_CLASS.replace('public class WordWrapTest', 'public abstract class WordWrapTest'),
      ),
    ).toMatchObject({ kind: 'NotATestClass', reason: expect.stringMatching(/^abstract/) });
  });
});

describe('inputVariants', () => {
  it('applies each operator once per variant, skipping annotations, array sizes and oracles', () => {
    // Not the 4 of `new int[4]`, not "unused" in the annotation, not the expected 5 or the
    // message of the assertion; the 0 of the value it checks, yes.
    expect(described(allVariants(PARSER_TEST, 'parses'))).toEqual([
      'integer-plus-one: 8 → 9',
      'integer-minus-one: 8 → 7',
      'integer-zero: 8 → 0',
      'integer-max: 8 → Integer.MAX_VALUE',
      'integer-min: 8 → Integer.MIN_VALUE',
      'call-duplicated: parser.feed("ab", 3L); duplicated',
      'call-removed: parser.feed("ab", 3L); removed',
      'string-empty: "ab" → ""',
      'string-without-last-char: "ab" → "a"',
      'string-doubled: "ab" → "abab"',
      'string-null: "ab" → null',
      'integer-plus-one: 3L → 4L',
      'integer-minus-one: 3L → 2L',
      'integer-zero: 3L → 0L',
      'integer-max: 3L → Long.MAX_VALUE',
      'integer-min: 3L → Long.MIN_VALUE',
      // "t" without its last character is "" again: one variant, not two.
      'string-empty: "t" → ""',
      'string-doubled: "t" → "tt"',
      // 0 → 0 changes nothing.
      'integer-plus-one: 0 → 1',
      'integer-minus-one: 0 → -1',
      'integer-max: 0 → Integer.MAX_VALUE',
      'integer-min: 0 → Integer.MIN_VALUE',
    ]);
  });

  it('gives each variant the whole body with its one change', () => {
    const variants = allVariants(PARSER_TEST, 'parses');
    const body = (operator: string, detail: string) =>
      variants.find((v) => v.operator === operator && v.detail.startsWith(detail))!.body;
    const original = PARSER_TEST.slice(
      method(PARSER_TEST, 'parses').bodyRange.start,
      method(PARSER_TEST, 'parses').bodyRange.end,
    );
    expect(body('call-duplicated', 'parser.feed')).toBe(
      original.replace(
        '        parser.feed("ab", 3L);\n',
        '        parser.feed("ab", 3L);\n        parser.feed("ab", 3L);\n',
      ),
    );
    expect(body('call-removed', 'parser.feed')).toBe(
      original.replace('        parser.feed("ab", 3L);\n', ''),
    );
    expect(body('string-null', '"ab"')).toBe(original.replace('"ab"', 'null'));
    expect(variants[0]).toMatchObject({
      id: `integer-plus-one@${original.indexOf('8)')}`,
      method: 'parses',
      detail: '8 → 9 (line 11)',
    });
    expect(new Set(variants.map((v) => v.id)).size).toBe(variants.length);
  });

  it('keeps literals within what javac accepts and apart from a preceding minus', () => {
    expect(described(allVariants(PARSER_TEST, 'skips'))).toEqual([
      'integer-plus-one: 0x10 → 17',
      'integer-minus-one: 0x10 → 15',
      'integer-zero: 0x10 → 0',
      'integer-max: 0x10 → Integer.MAX_VALUE',
      'integer-min: 0x10 → Integer.MIN_VALUE',
      'call-duplicated: parser.skip(width-0); duplicated',
      'call-removed: parser.skip(width-0); removed',
      'integer-plus-one: 0 → 1',
      'integer-minus-one: 0 → (-1)',
      'call-duplicated: parser.skip(2147483647); duplicated',
      'call-removed: parser.skip(2147483647); removed',
      // No 2147483648: javac takes it only after a minus.
      'integer-minus-one: 2147483647 → 2147483646',
      'integer-zero: 2147483647 → 0',
      'integer-max: 2147483647 → Integer.MAX_VALUE',
      'integer-min: 2147483647 → Integer.MIN_VALUE',
      'call-duplicated: parser.skip(-2147483648); duplicated',
      'call-removed: parser.skip(-2147483648); removed',
      'integer-minus-one: 2147483648 → 2147483647',
      'integer-zero: 2147483648 → 0',
      'integer-max: -2147483648 → Integer.MAX_VALUE',
      'integer-min: -2147483648 → Integer.MIN_VALUE',
    ]);
  });

  it('writes `x + 1` made 0 as `x`, but leaves a string sum as it is', () => {
    const source = PARSER_TEST.replace(
      '        parser.skip(width-0);\n',
      '        parser.skip(buf.length + 1);\n        parser.tag("v" + 1);\n',
    );
    const variants = allVariants(source, 'skips');
    // Made 0 by minus-one or by zero, it is the one variant.
    expect(described(variants)).toContain('integer-minus-one: buf.length + 1 → buf.length');
    expect(variants.filter((v) => v.body.includes('parser.skip(buf.length);'))).toHaveLength(1);
    expect(variants.filter((v) => v.body.includes('parser.tag("v" + 0);'))).toHaveLength(1);
  });

  it('removes a call only where the test still calls something', () => {
    // parser() is called inside the statement itself: removing it leaves assertions alone.
    expect(described(allVariants(PARSER_TEST, 'clears'))).toEqual([
      'call-duplicated: parser().clear(); duplicated',
    ]);
  });

  it('leaves JUnit 5 messages (last) and expected values alone, and varies the code assertThrows runs', () => {
    expect(described(allVariants(JUNIT5_CLASS, 'addsAmounts'))).toEqual([
      'integer-plus-one: 5L → 6L',
      'integer-minus-one: 5L → 4L',
      'integer-zero: 5L → 0L',
      'integer-max: 5L → Long.MAX_VALUE',
      'integer-min: 5L → Long.MIN_VALUE',
      'string-empty: "EUR" → ""',
      'string-without-last-char: "EUR" → "EU"',
      'string-doubled: "EUR" → "EUREUR"',
      'string-null: "EUR" → null',
    ]);
    expect(described(allVariants(JUNIT5_CLASS, 'rejectsOtherCurrency'))).toContain(
      'string-null: "USD" → null',
    );
  });

  it('draws the same variants for the same seed, at most max, none like the original', () => {
    const wraps = method(JUNIT4_CLASS, 'wrapsAtWidth');
    const drawn = (seed: number) => inputVariants(JUNIT4_CLASS, wraps, { seed, max: 4 });
    expect(drawn(42)).toEqual(drawn(42));
    expect(drawn(42)).toHaveLength(4);
    expect(drawn(42).map((v) => v.id)).not.toEqual(drawn(43).map((v) => v.id));
    const original = JUNIT4_CLASS.slice(wraps.bodyRange.start, wraps.bodyRange.end);
    const every = inputVariants(JUNIT4_CLASS, wraps, { seed: 42, max: 1000 });
    expect(every.map((v) => v.body)).not.toContain(original);
    expect(new Set(every.map((v) => v.body)).size).toBe(every.length);
    // A draw keeps the source order of what it drew.
    const order = every.map((v) => v.id);
    const positions = drawn(42).map((v) => order.indexOf(v.id));
    expect(positions).toEqual([...positions].sort((a, b) => a - b));
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { callAfter, callTargets, callVariants } from './calls.js';
import { JUNIT4_CLASS } from './test-support.js';
import { inputVariants, testMethods } from './variants.js';

beforeAll(loadJavaGrammar);

/** A production class with each kind of member a call can target, lines numbered from 1. */
const WORD_WRAP = `package org.example.text;

import java.util.List;

public class WordWrap<T> {
    private final int width;

    public WordWrap(int width) {
        this.width = width;
    }

    public String first(String text) {
        return text.isEmpty() ? null : text.split(" ")[0];
    }

    public static boolean fits(String word, int width) {
        return word.length() <= width;
    }

    private int spare(String line) {
        return width - line.length();
    }

    public T tag(T value, byte[] codes) {
        return value;
    }

    void reset() {
    }

    public List<String> words(String text) {
        return java.util.Arrays.asList(text.split(" "));
    }
}
`;

/** The line of `text` in `source`, from 1. */
function lineOf(source: string, text: string): number {
  return source.split('\n').findIndex((line) => line.includes(text)) + 1;
}

describe('callTargets', () => {
  it("finds the callable members spanning the lines, with the types a test's call needs", () => {
    const lines = [
      'this.width = width',
      'text.isEmpty()',
      'word.length()',
      'width - line',
      'return value',
      'void reset',
    ];
    const targets = callTargets(
      WORD_WRAP,
      lines.map((text) => lineOf(WORD_WRAP, text)),
    );
    expect(targets).toEqual([
      {
        className: 'org.example.text.WordWrap',
        name: 'WordWrap',
        kind: 'constructor',
        parameters: ['int'],
        returns: 'WordWrap',
        constructible: false,
      },
      expect.objectContaining({
        name: 'first',
        kind: 'method',
        parameters: ['String'],
        returns: 'String',
      }),
      expect.objectContaining({
        name: 'fits',
        kind: 'static',
        parameters: ['String', 'int'],
        returns: 'boolean',
      }),
      // The private helper is left out; a type variable is held as an Object.
      expect.objectContaining({ name: 'tag', parameters: ['T', 'byte[]'], returns: 'Object' }),
      expect.objectContaining({ name: 'reset', parameters: [], returns: 'void' }),
    ]);
  });

  it('finds nothing off the lines, or in a file that does not parse', () => {
    expect(callTargets(WORD_WRAP, [1, 2, 3])).toEqual([]);
    expect(callTargets('class {', [1])).toEqual([]);
  });
});

describe('callVariants', () => {
  const method = (source: string, name: string) => {
    const scan = testMethods(source);
    if (scan.kind !== 'TestClass') throw new Error(scan.reason);
    return scan.methods.find((entry) => entry.name === name)!;
  };
  const lines = () => [lineOf(WORD_WRAP, 'text.isEmpty()'), lineOf(WORD_WRAP, 'word.length()')];

  it("appends one call a variant, on the test's own objects, with arguments from the pools", () => {
    const countsWords = method(JUNIT4_CLASS, 'countsWords');
    const targets = callTargets(WORD_WRAP, lines());
    const variants = callVariants(JUNIT4_CLASS, countsWords, targets, { seed: 1, max: 100 });
    expect(variants.length).toBeGreaterThan(5);
    for (const variant of variants) {
      expect(variant.operator).toBe('call-added');
      expect(variant.body).toMatch(
        /^\{\n {8}wrap\.add\("alpha"\);\n {8}wrap\.add\("beta"\);\n {8}assertEquals\(2, wrap\.count\(\)\);\n {8}(String result = wrap\.first\(.*\)|boolean result = WordWrap\.fits\(.*, .*\));\n {4}\}$/,
      );
    }
    const bodies = variants.map((variant) => variant.body);
    // The test's own string literals join the pool, as does null for a reference.
    expect(bodies.some((body) => body.includes('wrap.first("alpha")'))).toBe(true);
    expect(bodies.some((body) => body.includes('wrap.first(null)'))).toBe(true);
    expect(bodies.some((body) => body.includes('WordWrap.fits("", -1)'))).toBe(true);
    expect(new Set(bodies).size).toBe(bodies.length);
  });

  it('draws at most max, the same for the same seed', () => {
    const countsWords = method(JUNIT4_CLASS, 'countsWords');
    const targets = callTargets(WORD_WRAP, lines());
    const drawn = callVariants(JUNIT4_CLASS, countsWords, targets, { seed: 4, max: 3 });
    expect(drawn).toHaveLength(3);
    expect(callVariants(JUNIT4_CLASS, countsWords, targets, { seed: 4, max: 3 })).toEqual(drawn);
    expect(callVariants(JUNIT4_CLASS, countsWords, [], { seed: 4, max: 3 })).toEqual([]);
  });

  it('calls on a local at the end of the block it is declared in, and names a static call in full from another package', () => {
    const source = JUNIT4_CLASS.replace(
      'package org.example.text;',
      'package org.example.other;\n\nimport org.example.text.WordWrap;',
    );
    const wraps = method(source, 'wrapsAtWidth');
    const targets = callTargets(WORD_WRAP, lines());
    const bodies = callVariants(source, wraps, targets, { seed: 1, max: 500 }).map(
      (variant) => variant.body,
    );
    expect(
      bodies.some((body) => body.includes('boolean result = org.example.text.WordWrap.fits(')),
    ).toBe(true);
    expect(
      bodies.some((body) =>
        body.endsWith('        String result = wrap.first("first line");\n    }'),
      ),
    ).toBe(true);
  });

  it('appends a call to an input variant, after the input it changed', () => {
    const countsWords = method(JUNIT4_CLASS, 'countsWords');
    const nulled = inputVariants(JUNIT4_CLASS, countsWords, { seed: 1, max: 100 }).find((variant) =>
      variant.detail.startsWith('"alpha" → null'),
    )!;
    const [after] = callAfter(JUNIT4_CLASS, countsWords, nulled, callTargets(WORD_WRAP, lines()), {
      seed: 2,
    });
    expect(after).toMatchObject({
      id: `${nulled.id}+call-added@0`,
      method: 'countsWords',
      operator: 'call-added',
      detail: expect.stringMatching(/^"alpha" → null \(line \d+\), then .* added \(line \d+\)$/),
    });
    expect(after!.body).toMatch(
      /^\{\n {8}wrap\.add\(null\);\n {8}wrap\.add\("beta"\);\n[^]*\n {8}\w+ result = [^\n]*;\n {4}\}$/,
    );
  });

  it('holds a result in its declared type where the test can name it, else in an Object', () => {
    const targets = callTargets(WORD_WRAP, [lineOf(WORD_WRAP, 'Arrays.asList')]);
    expect(targets).toEqual([
      expect.objectContaining({ name: 'words', returns: 'java.util.List' }),
    ]);
    const declared = (source: string) =>
      callVariants(source, method(source, 'countsWords'), targets, {
        seed: 1,
        max: 1,
      })[0]!.body.match(/(\w+) result = /)?.[1];
    // WordWrapTest imports java.util.List; without the import the local is an Object.
    expect(declared(JUNIT4_CLASS)).toBe('List');
    expect(declared(JUNIT4_CLASS.replace('import java.util.List;\n', ''))).toBe('Object');
  });
});

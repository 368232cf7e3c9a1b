import { beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, loadJavaGrammar } from '../src/lang/java/syntax.js';
import { cachedValueAccess } from '../src/stages/3-transform/operators/cached-value.js';
import { nestedDataAccess } from '../src/stages/3-transform/operators/nested-access.js';
import { intermediateStatePassing } from '../src/stages/3-transform/operators/state-holder.js';
import type { TransformSite } from '../src/stages/3-transform/operators/types.js';
import { loadShape, shapeSite, type Shape } from './shapes.js';

/* The Data Flow operators on a small file: a site, the exact rewrite, and near misses refused. */

let source: string;
let shape: Shape;

beforeAll(async () => {
  await loadJavaGrammar();
  shape = await loadShape('Values.java');
  source = shape.source;
});

/** The site whose bug is the line holding `text`. */
function siteAt(text: string): TransformSite {
  return shapeSite(shape, text);
}

describe('Nested Data Access', () => {
  it('puts two parameters that belong together in one array named for the pair', () => {
    const [candidate, ...others] = nestedDataAccess.candidates(siteAt('digitCount++;'));
    expect(candidate!.description).toBe(
      "digits: 'dataOffset' and 'dataLen' (line 110) are read through dataSpan[0] and dataSpan[1]",
    );
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        int digitCount = 0;
        for (int i = dataOffset; i < dataOffset + dataLen; i++) {`,
        `        int digitCount = 0;
        int[] dataSpan = { dataOffset, dataLen };
        for (int i = dataSpan[0]; i < dataSpan[0] + dataSpan[1]; i++) {`,
      ),
    );
    // A single value is never put in a one-element array (`dataHolder[0]`): no other candidate.
    expect(others).toEqual([]);
    const marks = nestedDataAccess.candidates(siteAt('return i;'));
    expect(marks.map((c) => c.description).join('\n')).not.toMatch(/'from'/);
  });

  it('puts no single local, parameter or final field in a one-element array', () => {
    for (const bug of [
      'return text.substring(0, limit);',
      'return width - word.length();',
      'found++;',
      'return chosen;',
      'return widthHolder[0] + 1;',
    ]) {
      expect(nestedDataAccess.candidates(siteAt(bug))).toEqual([]);
    }
  });
});

describe('Intermediate State Passing', () => {
  it('has a private method compute the value and hand it back, no one-element holder', () => {
    const [candidate] = intermediateStatePassing.candidates(
      siteAt('return text.substring(0, limit);'),
    );
    expect(candidate!.added).toEqual(['computeLimit']);
    const after = applyEdits(source, candidate!.edits);
    expect(after).toBe(
      source.replace(
        `        int limit = max - 1;
        if (text.length() > limit) {
            return text.substring(0, limit);
        }
        return text;
    }
`,
        `        int limit = computeLimit(max);
        if (text.length() > limit) {
            return text.substring(0, limit);
        }
        return text;
    }

    private int computeLimit(int max) {
        return max - 1;
    }
`,
      ),
    );
    expect(candidate!.edits.map((edit) => edit.text).join('\n')).not.toMatch(/\[1\]|\[0\]/);
  });

  it('builds an object made empty and then set field by field in a method that returns it', () => {
    const [candidate] = intermediateStatePassing.candidates(
      siteAt('return room.size - room.used <= outLen;'),
    );
    expect(candidate!.added).toEqual(['buildRoom']);
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        final Room room = new Room();
        room.size = out.length;
        room.used = outOffset;
        return room.size - room.used <= outLen;
    }
`,
        `        final Room room = buildRoom(out, outOffset);
        return room.size - room.used <= outLen;
    }

    private Room buildRoom(byte[] out, int outOffset) {
        final Room room = new Room();
        room.size = out.length;
        room.used = outOffset;
        return room;
    }
`,
      ),
    );
    // An object made empty and then changed by calls is not built by its statements: left alone.
    expect(intermediateStatePassing.candidates(siteAt('return listing.toString();'))).toEqual([]);
  });

  it("takes a value a caller computes and passes to the bug's method", () => {
    const [candidate] = intermediateStatePassing.candidates(siteAt('return "[" + text + "]";'));
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        String upper = word.toUpperCase();
        return decorate(upper);
    }
`,
        `        String upper = computeUpper(word);
        return decorate(upper);
    }

    private String computeUpper(String word) {
        return word.toUpperCase();
    }
`,
      ),
    );
  });

  it("takes a value of the method when the bug is in the method's header", () => {
    const [candidate] = intermediateStatePassing.candidates(
      siteAt('public String clip(String text, int max) {'),
    );
    expect(candidate!.added).toEqual(['computeLimit']);
  });

  it('refuses a value of a method the body calls that only renames another (a cast)', () => {
    // `Values values = (Values) other;` in sameNames: `computeValues(other)` would only cast.
    expect(
      intermediateStatePassing.candidates(siteAt('public boolean same(Object other) {')),
    ).toEqual([]);
  });

  it("refuses the bug's own declaration, a local written again, a literal, a type variable", () => {
    expect(intermediateStatePassing.candidates(siteAt('int limit = max - 1;'))).toEqual([]);
    expect(intermediateStatePassing.candidates(siteAt('return found;'))).toEqual([]);
    // A literal is not computed: no method is made to fill a holder with it.
    expect(
      intermediateStatePassing.candidates(siteAt('return word.isEmpty() ? base : word.length();')),
    ).toEqual([]);
    expect(intermediateStatePassing.candidates(siteAt('return chosen;'))).toEqual([]);
  });
});

describe('Cached Value Access', () => {
  it('computes a derived value once, before its first use, and reads the cache after', () => {
    const [candidate] = cachedValueAccess.candidates(siteAt('return width - word.length();'));
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        if (word.length() >= width) {
            return 0;
        }
        return width - word.length();`,
        `        int wordLength = word.length();
        if (wordLength >= width) {
            return 0;
        }
        return width - wordLength;`,
      ),
    );
  });

  it("caches a final field's derivation, never a field's that can change", () => {
    const [candidate] = cachedValueAccess.candidates(siteAt('return names[names.length - 1];'));
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        if (names.length == 0) {
            return null;
        }
        return names[names.length - 1];`,
        `        int namesLength = names.length;
        if (namesLength == 0) {
            return null;
        }
        return names[namesLength - 1];`,
      ),
    );
    expect(
      cachedValueAccess.candidates(siteAt('return title.isEmpty() ? 0 : title.length();')),
    ).toEqual([]);
  });

  it('caches a getter of a final field the class cannot have overridden, not of a mutable one', () => {
    const candidates = cachedValueAccess.candidates(
      siteAt('return left + getSeparator() + getTitle() + right;'),
    );
    expect(candidates).toHaveLength(1);
    expect(applyEdits(source, candidates[0]!.edits)).toBe(
      source.replace(
        `        if (getSeparator().isEmpty() || getTitle().isEmpty()) {
            return left + right;
        }
        return left + getSeparator() + getTitle() + right;`,
        `        String separator = getSeparator();
        if (separator.isEmpty() || getTitle().isEmpty()) {
            return left + right;
        }
        return left + separator + getTitle() + right;`,
      ),
    );
  });

  it("caches a loop's bound before the loop", () => {
    const [candidate] = cachedValueAccess.candidates(siteAt("if (text[i] == ' ') {"));
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        for (int i = 0; i < text.length; i++) {`,
        `        int textLength = text.length;
        for (int i = 0; i < textLength; i++) {`,
      ),
    );
  });

  it("hoists a loop's bound computed from stable values, named as its parts say", () => {
    const [candidate] = cachedValueAccess.candidates(siteAt('if (Character.isDigit(data[i])) {'));
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        for (int i = dataOffset; i < dataOffset + dataLen; i++) {`,
        `        int dataEnd = dataOffset + dataLen;
        for (int i = dataOffset; i < dataEnd; i++) {`,
      ),
    );
    // A bound over a value the loop changes is computed again for a reason: left alone.
    expect(cachedValueAccess.candidates(siteAt('if (marks[i] > 0) {'))).toEqual([]);
  });

  it('refuses a derivation evaluated only under a condition', () => {
    // Both reads of word.length() sit right of && or ||: computing one earlier could throw
    // where the code did not.
    expect(
      cachedValueAccess.candidates(
        siteAt('return strict && word.length() > 3 || word.length() > 5;'),
      ),
    ).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, loadJavaGrammar } from '../src/lang/java/syntax.js';
import { anchorAfter, locateAnchor } from '../src/stages/3-transform/focus.js';
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
  it("reads the bug's local through a one-element array its declaration holds", () => {
    const site = siteAt('return text.substring(0, limit);');
    const [candidate] = nestedDataAccess.candidates(site);
    expect(candidate!.description).toMatch(/^clip: 'limit' .* limit\[0\]$/);
    const after = applyEdits(source, candidate!.edits);
    expect(after).toBe(
      source.replace(
        `        int limit = max - 1;
        if (text.length() > limit) {
            return text.substring(0, limit);
        }`,
        `        int[] limit = { max - 1 };
        if (text.length() > limit[0]) {
            return text.substring(0, limit[0]);
        }`,
      ),
    );
    // The bug's line is rewritten: the anchor follows it.
    const anchor = anchorAfter(
      { file: 'Values.java', lines: ['return text.substring(0, limit);'] },
      site.focus,
      candidate!.edits,
      after,
    );
    expect(anchor.lines).toEqual(['return text.substring(0, limit[0]);']);
    expect(locateAnchor(after, anchor)).toBeDefined();
  });

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
    // One-element holders come after it, nearest the bug first; a value written again is in none.
    expect(others.map((c) => c.description)).toEqual([
      "digits: 'data' (line 111) is read through dataHolder[0]",
      "digits: 'dataLen' (line 110) is read through dataLenHolder[0]",
    ]);
    const marks = nestedDataAccess.candidates(siteAt('return i;'));
    expect(marks.map((c) => c.description).join('\n')).not.toMatch(/'from'/);
  });

  it('puts a parameter in a holder before its first read', () => {
    const candidates = nestedDataAccess.candidates(siteAt('return width - word.length();'));
    const width = candidates.find((c) => c.description.includes("'width'"))!;
    expect(applyEdits(source, width.edits)).toContain(
      `        int[] widthHolder = { width };
        if (word.length() >= widthHolder[0]) {
            return 0;
        }
        return widthHolder[0] - word.length();`,
    );
  });

  it("puts an instance's final field in a holder", () => {
    const names = nestedDataAccess
      .candidates(siteAt('found++;'))
      .find((c) => c.description.includes("'names'"))!;
    expect(applyEdits(source, names.edits)).toContain(
      `        int found = 0;
        String[][] namesHolder = { names };
        for (String name : namesHolder[0]) {`,
    );
  });

  it('refuses a local written after its declaration and a type variable', () => {
    const counted = nestedDataAccess.candidates(siteAt('found++;'));
    expect(counted.map((c) => c.description)).toEqual([
      expect.stringContaining("'prefix'"),
      expect.stringContaining("'names'"),
    ]);
    const picked = nestedDataAccess.candidates(siteAt('return chosen;'));
    expect(picked.map((c) => c.description)).toEqual([expect.stringContaining("'left'")]);
  });
});

describe('Nested Data Access on a holder', () => {
  it('never nests a one-element holder in another', () => {
    const candidates = nestedDataAccess.candidates(siteAt('return widthHolder[0] + 1;'));
    expect(candidates.map((c) => c.description)).toEqual([
      expect.stringMatching(/^paddedWidth: 'word' .* wordHolder\[0\]$/),
    ]);
  });
});

describe('Intermediate State Passing', () => {
  it('has a private method compute the value into a holder the bug reads', () => {
    const [candidate] = intermediateStatePassing.candidates(
      siteAt('return text.substring(0, limit);'),
    );
    expect(candidate!.added).toEqual(['computeLimit']);
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        int limit = max - 1;
        if (text.length() > limit) {
            return text.substring(0, limit);
        }
        return text;
    }
`,
        `        int[] limitHolder = new int[1];
        computeLimit(limitHolder, max);
        if (text.length() > limitHolder[0]) {
            return text.substring(0, limitHolder[0]);
        }
        return text;
    }

    private void computeLimit(int[] limitHolder, int max) {
        limitHolder[0] = max - 1;
    }
`,
      ),
    );
  });

  it('builds an object made empty and then set field by field in the method that fills the holder', () => {
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
        `        final Room[] roomHolder = new Room[1];
        buildRoom(roomHolder, out, outOffset);
        return roomHolder[0].size - roomHolder[0].used <= outLen;
    }

    private void buildRoom(Room[] roomHolder, byte[] out, int outOffset) {
        final Room room = new Room();
        room.size = out.length;
        room.used = outOffset;
        roomHolder[0] = room;
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
        `        String[] upperHolder = new String[1];
        computeUpper(upperHolder, word);
        return decorate(upperHolder[0]);
    }

    private void computeUpper(String[] upperHolder, String word) {
        upperHolder[0] = word.toUpperCase();
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

  it("takes a value of a method the body calls when the bug is in the method's header", () => {
    const [candidate] = intermediateStatePassing.candidates(
      siteAt('public boolean same(Object other) {'),
    );
    expect(candidate!.description).toMatch(/^sameNames: 'values' .* computeValues/);
    expect(applyEdits(source, candidate!.edits)).toContain(
      `        Values[] valuesHolder = new Values[1];
        computeValues(valuesHolder, other);
        return valuesHolder[0].names.length == names.length;
    }

    private void computeValues(Values[] valuesHolder, Object other) {
        valuesHolder[0] = (Values) other;
    }
`,
    );
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

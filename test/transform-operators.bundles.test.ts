import { beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, loadJavaGrammar } from '../src/lang/java/syntax.js';
import { localStateBundling } from '../src/stages/3-transform/operators/local-state-bundle.js';
import { parameterBundling } from '../src/stages/3-transform/operators/parameter-bundle.js';
import type { TransformSite } from '../src/stages/3-transform/operators/types.js';
import { loadShape, shapeSite, type Shape } from './shapes.js';

/* The two bundling operators on a small file: a site, the exact rewrite, near misses refused. */

let source: string;
let shape: Shape;

beforeAll(async () => {
  await loadJavaGrammar();
  shape = await loadShape('Bundles.java');
  source = shape.source;
});

/** The site whose bug is the line holding `text`. */
function siteAt(text: string): TransformSite {
  return shapeSite(shape, text);
}

describe('Parameter Bundling', () => {
  it("bundles a private method's parameters into a Slice its call builds", () => {
    const [candidate] = parameterBundling.candidates(siteAt('total += buffer[i];'));
    expect(candidate!.added).toEqual(['Slice']);
    expect(applyEdits(source, candidate!.edits)).toBe(
      source
        .replace(
          'return sum(data, offset, length);',
          'return sum(new Slice(data, offset, length));',
        )
        .replace(
          `    private int sum(byte[] buffer, int offset, int length) {
`,
          `    private int sum(Slice slice) {
        byte[] buffer = slice.buffer;
        int offset = slice.offset;
        int length = slice.length;
`,
        )
        .replace(
          `        return total;
    }
`,
          `        return total;
    }

    private static final class Slice {
        final byte[] buffer;
        final int offset;
        final int length;

        Slice(byte[] buffer, int offset, int length) {
            this.buffer = buffer;
            this.offset = offset;
            this.length = length;
        }
    }
`,
        ),
    );
  });

  it('moves the statements around the bug into a helper taking a Range, the bug line untouched', () => {
    const [candidate, wider] = parameterBundling.candidates(
      siteAt('throw new IllegalArgumentException("start after end: " + start);'),
    );
    expect(candidate!.added).toEqual(['checkStart', 'Range']);
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `    public String window(String text, int start, int end) {
        if (start > end) {
            throw new IllegalArgumentException("start after end: " + start);
        }
        return text.substring(start, end);
    }
`,
        `    public String window(String text, int start, int end) {
        checkStart(new Range(start, end));
        return text.substring(start, end);
    }

    private void checkStart(Range range) {
        int start = range.start;
        int end = range.end;
        if (start > end) {
            throw new IllegalArgumentException("start after end: " + start);
        }
    }

    private static final class Range {
        final int start;
        final int end;

        Range(int start, int end) {
            this.start = start;
            this.end = end;
        }
    }
`,
      ),
    );
    // The check with the return after it is window's whole body, which never moves.
    expect(wider).toBeUndefined();
  });

  it('refuses a public method with one value to bundle', () => {
    expect(parameterBundling.candidates(siteAt('return value;'))).toEqual([]);
  });
});

describe('Local State Bundling', () => {
  it('moves the counters of a loop into a Tally read and written through fields', () => {
    const [candidate] = localStateBundling.candidates(siteAt('letters += word.length();'));
    expect(candidate!.added).toEqual(['Tally']);
    expect(applyEdits(source, candidate!.edits)).toBe(
      source.replace(
        `        int count = 0;
        int letters = 0;
        for (String word : words) {
            count++;
            letters += word.length();
        }
        return count == 0 ? 0 : (double) letters / count;
    }
`,
        `        Tally tally = new Tally();
        for (String word : words) {
            tally.count++;
            tally.letters += word.length();
        }
        return tally.count == 0 ? 0 : (double) tally.letters / tally.count;
    }

    private static final class Tally {
        int count;
        int letters;
    }
`,
      ),
    );
  });

  it('leaves constant locals (case labels) and locals an anonymous class captures alone', () => {
    // `limit` may be a case label: with it left, `widest` has no local partner, and the
    // method's parameter is copied into the context instead.
    const [constant] = localStateBundling.candidates(
      siteAt('widest = Math.max(widest, word.length());'),
    );
    expect(constant!.description).toBe(
      'longest: values words, widest moved into a private LongestState',
    );
    const longest = applyEdits(source, constant!.edits);
    expect(longest).toContain(`        LongestState state = new LongestState();
        state.words = words;
        final int limit = 80;
`);
    expect(longest).toContain('case limit:');
    expect(longest).toContain('for (String word : state.words) {');
    const [candidate] = localStateBundling.candidates(siteAt('skipped++;'));
    expect(candidate!.description).toBe(
      'counter: locals seen, skipped moved into a private CounterState',
    );
    const after = applyEdits(source, candidate!.edits);
    expect(after).toContain('log.append("empty at ").append(state.seen);');
    expect(after).toContain('final StringBuilder log = new StringBuilder();');
  });
});

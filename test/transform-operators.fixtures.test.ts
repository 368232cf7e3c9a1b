import { beforeAll, describe, expect, it } from 'vitest';
import { applyEdits, loadJavaGrammar } from '../src/lang/java/syntax.js';
import { callSiteRerouting } from '../src/stages/3-transform/operators/call-reroute.js';
import { extractApplySplit } from '../src/stages/3-transform/operators/extract-apply.js';
import { helperCallInsertion } from '../src/stages/3-transform/operators/helper-call.js';
import { pipelineStageSplit } from '../src/stages/3-transform/operators/pipeline-split.js';
import type {
  TransformCandidate,
  TransformSite,
} from '../src/stages/3-transform/operators/types.js';
import { loadShape, shapeSite, type Shape } from './shapes.js';

/* Each operator on a small file: a site, the exact rewrite, and near misses it must refuse. */

let source: string;
let lines: Shape;
let fields: Shape;
let reader: Shape;

beforeAll(async () => {
  await loadJavaGrammar();
  lines = await loadShape('Lines.java');
  fields = await loadShape('Fields.java');
  reader = await loadShape('Reader.java');
  source = lines.source;
});

/** The site whose bug is the line holding `text` (in Lines.java unless another shape is given). */
function siteAt(text: string, shape: Shape = lines): TransformSite {
  return shapeSite(shape, text);
}

describe('Helper Call Insertion', () => {
  it('moves the statement around the bug into a helper named after what it checks', () => {
    const [candidate, ...wider] = helperCallInsertion.candidates(
      siteAt('if (line.length() > limit) {'),
    );
    expect(candidate!.added).toEqual(['checkLine']);
    expect(applyEdits(source, candidate!.edits)).toBe(
      source
        .replace(
          `            if (line.length() > limit) {
                throw new IllegalArgumentException("line too long: " + line);
            }
`,
          '            checkLine(line, limit);\n',
        )
        .replace(
          `        return out.toString();
    }
`,
          `        return out.toString();
    }

    private void checkLine(String line, int limit) {
        if (line.length() > limit) {
            throw new IllegalArgumentException("line too long: " + line);
        }
    }
`,
        ),
    );
    // Wider runs come next: the loop, whose local `out` the helper reads and does not write,
    // then the loop with the rest of the body, the helper returning what the method returns.
    expect(wider.map((c) => c.description)).toEqual([
      expect.stringMatching(/^describe: lines 14–19 moved into private /),
      expect.stringMatching(/^describe: lines 14–20 moved into private /),
    ]);
  });

  it('refuses runs whose return would only leave the helper; moves a loop with the local it writes', () => {
    // `return line;`, its if and its loop cannot move alone; with the `return null` after the
    // loop they are the whole body, which never moves.
    expect(helperCallInsertion.candidates(siteAt('return line;'))).toEqual([]);
    // `widest` is assigned in the loop and read after: the loop cannot move alone, only with
    // the declaration of `widest`, the helper then owning it and returning it.
    const widened = helperCallInsertion.candidates(siteAt('widest = line.length();'));
    expect(widened.map((c) => c.description)).toEqual([
      expect.stringMatching(/^width: lines 33–38 moved into private /),
    ]);
    const [name] = widened[0]!.added;
    expect(applyEdits(source, widened[0]!.edits)).toContain(
      `        int widest = ${name}(minimum);
        return widest;
    }

    private int ${name}(int minimum) {
        int widest = minimum;
        for (String line : lines) {`,
    );
  });
});

describe('Helper Call Insertion in a generic method', () => {
  it("leaves the member's type parameters off a helper that does not use them", () => {
    const [candidate] = helperCallInsertion.candidates(siteAt('if (index < 0) {'));
    const [name] = candidate!.added;
    const after = applyEdits(source, candidate!.edits);
    expect(after).toContain(`        ${name}(index);\n        return items.get(index);`);
    expect(after).toContain(`    private void ${name}(int index) {`);
  });
});

describe('Call-Site Rerouting', () => {
  it('refuses a call whose arguments are plain values: its adapter would only forward', () => {
    // lengthOf(line) from total(), total() from wider(): a new method calling another with its
    // own parameters is a reviewer's tell, whatever it is named.
    expect(callSiteRerouting.candidates(siteAt('return line.trim().length();'))).toEqual([]);
    expect(callSiteRerouting.candidates(siteAt('sum += lengthOf(line);'))).toEqual([]);
  });
});

const RENDER_BUG = 'text = text.substring(0, text.length() - separator.length());';

describe('Extract-and-Apply Split', () => {
  it('splits the value the bug computes from the code that uses it, the value typed by javac', () => {
    const [candidate] = extractApplySplit.candidates(siteAt(RENDER_BUG, fields));
    expect(candidate!.added).toEqual(['computeText', 'trimText']);
    expect(applyEdits(fields.source, candidate!.edits)).toBe(
      fields.source.replace(
        `        String text = entries.toString();
        if (text.endsWith(separator)) {
            ${RENDER_BUG}
        }

        return text.trim();
    }
`,
        `        String text = computeText(entries, separator);
        return trimText(text);
    }

    private String computeText(StringBuilder entries, String separator) {
        String text = entries.toString();
        if (text.endsWith(separator)) {
            ${RENDER_BUG}
        }
        return text;
    }

    private String trimText(String text) {
        return text.trim();
    }
`,
      ),
    );
  });

  it('returns an extracted value as it is read, and applies it in the rest of the method', () => {
    const [candidate] = extractApplySplit.candidates(
      siteAt('return value.trim().length() + padding;', fields),
    );
    expect(candidate!.added).toEqual(['readValue', 'trimValue']);
    expect(applyEdits(fields.source, candidate!.edits))
      .toContain(`        String value = readValue(name);
        return trimValue(value, padding);
    }

    private String readValue(String name) {
        return values.get(name);
    }

    private int trimValue(String value, int padding) {
        if (value == null) {`);
  });

  it('refuses a bug in a loop that accumulates into a local: no value crosses a boundary', () => {
    // `total` is written by the loop and read by the return: neither side can own it alone.
    expect(extractApplySplit.candidates(siteAt('total++;', fields))).toEqual([]);
  });
});

describe('Pipeline Stage Split', () => {
  it("cuts the method's body into ordered stages at its blank lines, the bug inside one", () => {
    const [candidate, ...others] = pipelineStageSplit.candidates(siteAt(RENDER_BUG, fields));
    expect(candidate!.added).toEqual(['collectEntries', 'computeText', 'trimText']);
    expect(applyEdits(fields.source, candidate!.edits)).toBe(
      fields.source.replace(
        `        StringBuilder entries = new StringBuilder();
        for (String name : order) {
            entries.append(name).append('=').append(values.get(name)).append(separator);
        }

        String text = entries.toString();
        if (text.endsWith(separator)) {
            ${RENDER_BUG}
        }

        return text.trim();
    }
`,
        `        StringBuilder entries = collectEntries(separator);
        String text = computeText(entries, separator);
        return trimText(text);
    }

    private StringBuilder collectEntries(String separator) {
        StringBuilder entries = new StringBuilder();
        for (String name : order) {
            entries.append(name).append('=').append(values.get(name)).append(separator);
        }
        return entries;
    }

    private String computeText(StringBuilder entries, String separator) {
        String text = entries.toString();
        if (text.endsWith(separator)) {
            ${RENDER_BUG}
        }
        return text;
    }

    private String trimText(String text) {
        return text.trim();
    }
`,
      ),
    );
    // Two-stage pipelines come next, each stage again passing one value on.
    expect(others.map((c) => c.added.length)).toEqual([2, 2]);
  });

  it('leaves the guard clauses in the method and stages what follows them', () => {
    const [candidate] = pipelineStageSplit.candidates(
      siteAt('String shown = value == null ? "-" : value.trim();', fields),
    );
    expect(candidate!.added).toEqual(['readValue', 'trimValue']);
    expect(applyEdits(fields.source, candidate!.edits)).toBe(
      fields.source.replace(
        `        String value = values.get(name);
        String shown = value == null ? "-" : value.trim();
        return name + ": " + shown;
    }
`,
        `        String value = readValue(name);
        return trimValue(value, name);
    }

    private String readValue(String name) {
        return values.get(name);
    }

    private String trimValue(String value, String name) {
        String shown = value == null ? "-" : value.trim();
        return name + ": " + shown;
    }
`,
      ),
    );
    // A bug in a guard clause would stay in the method: no stage holds it.
    expect(pipelineStageSplit.candidates(siteAt('return "";', fields))).toEqual([]);
  });

  it('refuses a body whose steps share a local they all write', () => {
    // In count(), `total` is declared, written by the loop and returned: no cut passes one value.
    expect(pipelineStageSplit.candidates(siteAt('total++;', fields))).toEqual([]);
  });
});

describe('the split operators on a helper with nothing left to split', () => {
  const SHORTEN = 'return value.length() > 10 ? value.substring(0, 10) : value;';

  it('split its only caller instead, the call to the bug inside a stage', () => {
    for (const operator of [extractApplySplit, pipelineStageSplit]) {
      const [candidate] = operator.candidates(siteAt(SHORTEN, fields));
      expect(candidate!.description).toMatch(/^summary: /);
      const after = applyEdits(fields.source, candidate!.edits);
      expect(after).toContain(
        `    private String shorten(String value) {\n        ${SHORTEN}\n    }`,
      );
    }
  });

  it('split the helper a method with a bug in its header only delegates to', () => {
    for (const operator of [extractApplySplit, pipelineStageSplit]) {
      const [candidate] = operator.candidates(siteAt('public int sizeOf(String name) {', fields));
      expect(candidate!.description).toMatch(/^measure: /);
      expect(applyEdits(fields.source, candidate!.edits)).toContain(
        '    public int sizeOf(String name) {\n        return measure(name);\n    }',
      );
    }
  });
});

/**
 * Whether the method a candidate adds only hands its own parameters, in order, to one call: a
 * forwarder (`countOffsetForRead(offset, len, buf)` → `countOffset(offset, len, buf)`).
 */
function forwardedParameters(candidate: TransformCandidate): boolean {
  const [, added] = candidate.edits;
  const match = /\(([^)]*)\)[^{]*\{\s*(?:return )?\w+\(([^)]*)\);\s*\}/.exec(added!.text);
  if (!match) return false;
  const names = match[1]!
    .split(',')
    .map((parameter) => parameter.trim().split(/\s+/).at(-1))
    .join(', ');
  return match[2]!.trim() === names;
}

/** The site in Reader.java, the shapes of commons-csv where a reviewer found each tell. */
function readerSite(text: string): TransformSite {
  return shapeSite(reader, text);
}

describe("the tells a Java reviewer found in commons-csv's cases", () => {
  it('names a moved loop after what it counts, not after the bound in its condition', () => {
    const candidates = helperCallInsertion.candidates(readerSite('final char ch = buf[i];'));
    // The loop, then the `if (len > 0)` around it, which counts the same lines.
    expect(candidates.map((c) => c.added)).toEqual([['countLines'], ['countLines']]);
    expect(applyEdits(reader.source, candidates[0]!.edits)).toContain(
      `        if (len > 0) {
            countLines(offset, len, buf);
            lastChar = buf[offset + len - 1];
        }
        return len;
    }

    private void countLines(int offset, int len, char[] buf) {
        for (int i = offset; i < offset + len; i++) {`,
    );
    const names = candidates.flatMap((c) => c.added).join(' ');
    expect(names).not.toMatch(/Offset|Read|Internal|^do[A-Z]/);
  });

  it("never moves a method's whole body into a helper named from the method's", () => {
    // isMapped's one statement: the helper would be all of it, called with isMapped's own
    // parameters (`checkMapped(name)`); no part of it is a statement of its own.
    const bug = 'return headerMap != null && headerMap.containsKey(name);';
    expect(helperCallInsertion.candidates(readerSite(bug))).toEqual([]);
    // Nor a helper that only returns one call of values at hand (`containsMap(map, name)`).
    expect(helperCallInsertion.candidates(readerSite('return map.containsKey(name);'))).toEqual([]);
  });

  it('reroutes a call only through an adapter that computes its arguments or reads a field', () => {
    const candidates = callSiteRerouting.candidates(readerSite('final char ch = buf[i];'));
    // readAgain passes read its own parameters: no adapter (`countOffsetForRead` was one); nor
    // does tally, up the chain, which hands readLines its own parameter, nor readLine, whose
    // adapter would only fix the constant LIMIT (`readFrom(line, from)`). drain's call reads two
    // fields the adapter reads itself; tallyAll, a caller of a caller, computes its argument.
    expect(candidates.map((c) => c.added)).toEqual([['readText'], ['readPending'], ['tallyText']]);
    for (const candidate of candidates) expect(forwardedParameters(candidate)).toBe(false);
    // The check itself tells a forwarder, as the operator once wrote it.
    const forwarder = `    private void countOffsetForRead(final int offset, final int len, final char[] buf) {
        countOffset(offset, len, buf);
    }`;
    const edit = { start: 0, end: 0, text: forwarder };
    expect(forwardedParameters({ description: '', edits: [edit, edit], added: [] })).toBe(true);
    expect(applyEdits(reader.source, candidates[1]!.edits)).toContain(
      `        readPending();
        pendingLength = 0;
        return lineNumber - before;
    }

    private int readPending() {
        return read(pending, 0, pendingLength);
    }
`,
    );
    expect(applyEdits(reader.source, candidates[2]!.edits)).toContain(
      `            total += tallyText(text);
        }
        return total;
    }

    private long tallyText(String text) {
        return tally(text.trim());
    }
`,
    );
    expect(applyEdits(reader.source, candidates[0]!.edits)).toContain(
      `    public long readLines(String text) {
        readText(text);
        return lineNumber;
    }

    private int readText(String text) {
        return read(text.toCharArray(), 0, text.length());
    }
`,
    );
    // isSet calls isMapped(name): its adapter would only forward.
    const mapped = 'return headerMap != null && headerMap.containsKey(name);';
    expect(callSiteRerouting.candidates(readerSite(mapped))).toEqual([]);
  });
});

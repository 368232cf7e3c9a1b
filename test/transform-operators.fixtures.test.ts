import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { packageRoot } from '../src/core/package-root.js';
import { applyEdits, loadJavaGrammar } from '../src/lang/java/syntax.js';
import { callSiteRerouting } from '../src/stages/3-transform/operators/call-reroute.js';
import { helperCallInsertion } from '../src/stages/3-transform/operators/helper-call.js';
import type { TransformSite } from '../src/stages/3-transform/operators/types.js';
import { analyzeSource, type SourceModel } from '../src/toolchains/jvm/source-model.js';

/* Each operator on a small file: a site, the exact rewrite, and near misses it must refuse. */

const FILE = path.join(
  packageRoot(),
  'test',
  'fixtures',
  'transform-operators',
  'shapes',
  'Lines.java',
);
let source: string;
let model: SourceModel;

beforeAll(async () => {
  await loadJavaGrammar();
  source = await readFile(FILE, 'utf8');
  const outcome = await analyzeSource(
    { file: FILE, classpath: [], release: '8', ranges: [[0, source.length]] },
    cacheLayout(resolveCacheDir()),
  );
  if (outcome.kind !== 'analyzed') throw new Error(outcome.reason);
  model = outcome.model;
});

/** The site whose bug is the line holding `text`. */
function siteAt(text: string): TransformSite {
  const start = source.indexOf(text);
  if (start < 0 || source.indexOf(text, start + 1) >= 0)
    throw new Error(`'${text}' is not once in the file`);
  return { source, focus: { start, end: start + text.length }, model };
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

  it('refuses runs whose return would only leave the helper, or that write a local read after', () => {
    // `return line;`, its if and its loop cannot move alone; with the `return null` after the
    // loop, the tail of the method can.
    const early = helperCallInsertion.candidates(siteAt('return line;'));
    expect(early.map((c) => c.description)).toEqual([
      expect.stringMatching(/^first: lines 24–29 moved into private /),
    ]);
    expect(helperCallInsertion.candidates(siteAt('widest = line.length();'))).toEqual([]);
  });
});

describe('Call-Site Rerouting', () => {
  it("routes the class's call of the bug's method through a forwarding method", () => {
    const candidates = callSiteRerouting.candidates(siteAt('return line.trim().length();'));
    expect(candidates.map((c) => c.added)).toEqual([['lengthOfLine']]);
    expect(applyEdits(source, candidates[0]!.edits)).toBe(
      source.replace('sum += lengthOf(line);', 'sum += lengthOfLine(line);').replace(
        `        return sum;
    }
`,
        `        return sum;
    }

    private int lengthOfLine(String line) {
        return lengthOf(line);
    }
`,
      ),
    );
  });

  it('reroutes a call on this object only, never one on another instance', () => {
    const candidates = callSiteRerouting.candidates(siteAt('sum += lengthOf(line);'));
    // total() is called twice in wider(): on this object and on `other`; only the first moves.
    const rerouted = candidates.filter((c) => c.description.includes('the call to total'));
    expect(rerouted).toHaveLength(1);
    expect(applyEdits(source, rerouted[0]!.edits)).toContain(
      'return computeTotal() > other.total();',
    );
  });
});

import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from './package-root.js';
import { SequenceMatcher, similarity } from './sequence-matcher.js';

interface PythonCase {
  a: string[];
  b: string[];
  ratio: number;
}

describe('SequenceMatcher', () => {
  it("gives Python difflib's ratio on every recorded case, popular elements included", async () => {
    // Computed by test/fixtures/difflib/make-ratios.py; several cases differ from Python's own
    // ratio with autojunk off, so the heuristic is exercised.
    const file = path.join(packageRoot(), 'test', 'fixtures', 'difflib', 'ratios.json');
    const cases = JSON.parse(await readFile(file, 'utf8')) as PythonCase[];
    expect(cases.length).toBeGreaterThan(20);
    for (const { a, b, ratio } of cases) expect(similarity(a, b)).toBe(ratio);
  });

  it('finds the blocks difflib finds', () => {
    const blocks = new SequenceMatcher([...'abxcd'], [...'abcd']).matchingBlocks();
    expect(blocks).toEqual([
      { a: 0, b: 0, size: 2 },
      { a: 3, b: 2, size: 2 },
    ]);
    expect(similarity([], [])).toBe(1);
    expect(similarity(['x'], [])).toBe(0);
  });
});

import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { similarity } from '../core/sequence-matcher.js';
import { caseEvolution, evolutionByDepth, operatorOccurrences } from './patch-evolution.js';

const CLEAN = [
  'class A {',
  '  int f(int x) {',
  '    if (x < 0) {',
  '      return 0;',
  '    }',
  '    return x;',
  '  }',
  '}',
  '',
].join('\n');
const patchTo = (text: string) => createTwoFilesPatch('a/A.java', 'b/A.java', CLEAN, text);

// The bug, then a helper around it, then the helper renamed and its call moved.
const BUGGY = CLEAN.replace('x < 0', 'x <= 0');
const STEP1 = BUGGY.replace(
  '    if (x <= 0) {\n      return 0;\n    }\n    return x;\n  }',
  '    return clamp(x);\n  }\n\n  private int clamp(int x) {\n    if (x <= 0) {\n      return 0;\n    }\n    return x;\n  }',
);
const STEP2 = STEP1.replace(/clamp/g, 'atLeastZero');

describe('patch evolution', () => {
  it('measures a depth-1 case as its own final patch', () => {
    const evolution = caseEvolution([patchTo(STEP1)]);
    expect(evolution).toMatchObject({ depth: 1, files: 1, hunks: 1, lineAccumulation: 1 });
    expect(evolution.steps[0]).toMatchObject({ retention: 1, similarity: 1 });
    // The diff's non-empty changed lines: `-if (x < 0) {` and four added ones (the diff is
    // minimal, so the moved if/return lines are context).
    expect(evolution.finalLines).toBe(5);
  });

  it('counts the reworked lines of earlier steps, and what of them the final patch keeps', () => {
    const evolution = caseEvolution([patchTo(STEP1), patchTo(STEP2)]);
    expect(evolution.lineAccumulation).toBe(2);
    // Of step 1's 4 non-empty added lines, the two naming `clamp` are gone from the final patch.
    expect(evolution.steps[0]!.retention).toBe(0.5);
    expect(evolution.steps[0]!.similarity).toBeLessThan(1);
    expect(evolution.steps[1]).toMatchObject({ retention: 1, similarity: 1 });
    const step1Lines = [
      '-if (x < 0) {',
      '+return clamp(x);',
      '+}',
      '+private int clamp(int x) {',
      '+if (x <= 0) {',
    ];
    const finalLines = step1Lines.map((line) => line.replace('clamp', 'atLeastZero'));
    expect(evolution.steps[0]!.similarity).toBe(similarity(step1Lines, finalLines));
  });

  it('averages per depth, with the early and late halves of deeper sequences', () => {
    const rows = evolutionByDepth([
      caseEvolution([patchTo(STEP1)]),
      caseEvolution([patchTo(STEP1), patchTo(STEP2)]),
      caseEvolution([patchTo(STEP1), patchTo(STEP1)]),
    ]);
    expect(rows.map((row) => [row.depth, row.runs])).toEqual([
      [1, 1],
      [2, 2],
    ]);
    expect(rows[0]!.earlySteps).toBeNull();
    expect(rows[1]!.firstStepRetention).toBe(0.75);
    expect(rows[1]!.lateSteps).toEqual({ retention: 1, similarity: 1 });
  });

  it('counts operator occurrences, most frequent first', () => {
    expect(operatorOccurrences([['a', 'b'], ['b'], ['c', 'b', 'a']])).toEqual([
      ['b', 3],
      ['a', 2],
      ['c', 1],
    ]);
  });
});

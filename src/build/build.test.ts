import { describe, expect, it } from 'vitest';
import { countedCases, type BuildCaseRecord } from './build.js';

function entry(
  bucket: string,
  outcome: BuildCaseRecord['outcome'],
  injection = 'inj1',
): BuildCaseRecord {
  return {
    cell: { typeId: 't', bucket, depth: 1 },
    project: 'p@1',
    injection,
    transform: 'trf',
    outcome,
    durationMs: 1,
  };
}

describe('countedCases', () => {
  it('counts a case once, in the first cell that archived it, and no short entry', () => {
    const first = entry('mid-long', { kind: 'Archived', caseId: 'p@1-a' });
    const twin = entry('mid-short', { kind: 'Archived', caseId: 'p@1-a' });
    const other = entry('short', { kind: 'Archived', caseId: 'p@1-b' }, 'inj2');
    const short = entry('short', { kind: 'Short', stage: 'step 1 x', reason: 'no site' }, 'inj3');
    const counted = countedCases([first, twin, short, other]);
    expect([...counted]).toEqual([first, other]);
  });
});

import { describe, expect, it } from 'vitest';
import type { CaseRecord } from '../4-archive/case.js';
import { feedbackFor } from './attempt.js';
import { caseMatcher } from './evaluate.js';
import { DiagnosisSchema, type Diagnosis } from './records.js';

const caseOf = (id: string, typeId: string, bucket: string, depth: number) =>
  ({
    id,
    project: { name: id.split('@')[0] },
    bugType: { id: typeId, category: 'Logic' },
    trace: { bucket },
    transforms: { depth },
  }) as unknown as CaseRecord;

describe('caseMatcher', () => {
  const csv = caseOf('commons-csv@1.9.0-0123456789abcdef', 'logic_guard', 'short', 1);
  const io = caseOf('commons-io@2.11.0-0123456789abcdef', 'npe_guard', 'long', 10);

  it('takes every case without filters, id globs ORed, key=value terms ANDed', () => {
    expect([csv, io].filter(caseMatcher([]))).toEqual([csv, io]);
    expect([csv, io].filter(caseMatcher(['commons-csv@*']))).toEqual([csv]);
    expect([csv, io].filter(caseMatcher(['commons-csv@*,commons-io@*', 'depth=10']))).toEqual([io]);
    expect([csv, io].filter(caseMatcher(['type=logic_guard', 'bucket=long']))).toEqual([]);
    expect([csv, io].filter(caseMatcher(['project=commons-io', 'category=Logic']))).toEqual([io]);
  });

  it('refuses an unknown key in one line', () => {
    expect(() => caseMatcher(['size=3'])).toThrow(/unknown key 'size'/);
  });
});

describe('feedbackFor', () => {
  it('has words for every diagnosis', () => {
    const samples: Diagnosis[] = DiagnosisSchema.options.map((option) => {
      const kind = option.shape.kind.value;
      return {
        kind,
        violations: [{ file: 'pom.xml', edit: 'edited', what: 'build file' }],
        messages: ['A.java:1: oops'],
        verdict: 'TestFailed',
        side: 'buggy',
        kinds: ['TestFailed', 'Passed'],
        reason: 'why',
      } as unknown as Diagnosis;
    });
    for (const diagnosis of samples) expect(feedbackFor(diagnosis).length).toBeGreaterThan(10);
  });
});

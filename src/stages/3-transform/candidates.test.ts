import { describe, expect, it } from 'vitest';
import {
  deterministicSource,
  followAnchor,
  type CandidateVerdict,
  type StepCandidate,
} from './candidates.js';
import type { TransformCandidate, TransformOperator } from './operators/types.js';
import { BUG_ANCHOR, BUGGY_COUNTER, COUNTER, counterSite } from './test-support.js';

const focus = counterSite().focus;

describe('followAnchor', () => {
  it('keeps the anchor when its file is untouched or its lines are still there', () => {
    expect(followAnchor(BUG_ANCHOR, focus, [])).toEqual(BUG_ANCHOR);
    const wrapped = BUGGY_COUNTER.replace(
      '    public void add',
      '    private int size;\n\n    public void add',
    );
    expect(
      followAnchor(BUG_ANCHOR, focus, [{ file: COUNTER, before: BUGGY_COUNTER, after: wrapped }]),
    ).toEqual(BUG_ANCHOR);
  });

  it('follows the lines into the file an agent moved them to', () => {
    const moved = 'src/main/java/p/Steps.java';
    const changes = [
      {
        file: COUNTER,
        before: BUGGY_COUNTER,
        after: BUGGY_COUNTER.replace('if (step < 0) {', 'if (Steps.admits(step)) {'),
      },
      {
        file: moved,
        before: '',
        after:
          'class Steps {\n    void f(int step) {\n        if (step < 0) {\n        }\n    }\n}\n',
      },
    ];
    expect(followAnchor(BUG_ANCHOR, focus, changes)).toEqual({
      file: moved,
      lines: BUG_ANCHOR.lines,
    });
  });

  it('reads a rewritten bug line where a line diff puts it', () => {
    const after = BUGGY_COUNTER.replace('if (step < 0) {', 'if (admitted(step) && step < 0) {');
    expect(
      followAnchor(BUG_ANCHOR, focus, [{ file: COUNTER, before: BUGGY_COUNTER, after }]),
    ).toEqual({
      file: COUNTER,
      lines: ['if (admitted(step) && step < 0) {'],
    });
  });

  it('loses the anchor when the bug line is deleted', () => {
    const after = BUGGY_COUNTER.replace('        if (step < 0) {\n', '');
    expect(
      followAnchor(BUG_ANCHOR, focus, [{ file: COUNTER, before: BUGGY_COUNTER, after }]),
    ).toBeUndefined();
  });
});

/** An operator whose candidates insert a field named after each of `names`. */
function fieldOperator(names: string[]): TransformOperator {
  return {
    kind: 'transform',
    id: 't_call_stack_deepen_v1',
    candidates: (site): TransformCandidate[] =>
      names.map((name) => {
        const at = site.source.indexOf('    public void add');
        return {
          description: `adds ${name}`,
          edits: [{ start: at, end: at, text: `    private int ${name};\n\n` }],
          added: [name],
        };
      }),
  };
}

describe('deterministicSource', () => {
  it("offers the operator's candidates in order, as changes to the bug's file, until one is kept", async () => {
    const judged: StepCandidate[] = [];
    const verdicts: CandidateVerdict<string>[] = [
      { kind: 'Rejected', reason: 'does not compile' },
      { kind: 'Kept', evidence: 'kept' },
    ];
    const source = deterministicSource(fieldOperator(['a', 'b', 'c']), 3);
    const offer = await source.offer(counterSite(), async (candidate) => {
      judged.push(candidate);
      return verdicts[judged.length - 1]!;
    });
    expect(judged).toHaveLength(2);
    expect(judged[0]!.changes).toEqual([
      { file: COUNTER, before: BUGGY_COUNTER, after: expect.stringContaining('private int a;') },
    ]);
    expect(offer).toMatchObject({
      kind: 'Kept',
      candidate: { description: 'adds b', added: ['b'], anchor: BUG_ANCHOR },
      evidence: 'kept',
      engine: { kind: 'deterministic' },
      rejected: [{ description: 'adds a', reason: 'does not compile' }],
    });
  });

  it('tries no more than its limit, and ends with the last reason', async () => {
    let judged = 0;
    const offer = await deterministicSource(fieldOperator(['a', 'b', 'c']), 2).offer(
      counterSite(),
      async () => ({ kind: 'Rejected', reason: `no ${++judged}` }),
    );
    expect(offer).toMatchObject({ kind: 'NoneKept', reason: 'no 2' });
    expect(judged).toBe(2);
  });

  it('says when there is no site or no analysis', async () => {
    const never = async () => ({ kind: 'Rejected', reason: 'unused' }) as const;
    expect(await deterministicSource(fieldOperator([]), 2).offer(counterSite(), never)).toEqual({
      kind: 'NoneKept',
      reason: 't_call_stack_deepen_v1 has no site around the bug',
      rejected: [],
    });
    const site = counterSite({ model: async () => ({ kind: 'Failed', reason: 'javac crashed' }) });
    expect(await deterministicSource(fieldOperator(['a']), 2).offer(site, never)).toMatchObject({
      kind: 'NoneKept',
      reason: 'javac crashed',
    });
  });
  it('loses the bug with the error as its reason when the operator throws on the site', async () => {
    const never = async () => ({ kind: 'Rejected', reason: 'unused' }) as const;
    const throwing = (where: 'probe' | 'candidates'): TransformOperator => ({
      ...fieldOperator(['a']),
      ...(where === 'probe'
        ? {
            probe: () => {
              throw new TypeError("Cannot read properties of undefined (reading 'startIndex')");
            },
          }
        : {
            candidates: () => {
              throw new RangeError('no such node');
            },
          }),
    });
    expect(await deterministicSource(throwing('probe'), 2).offer(counterSite(), never)).toEqual({
      kind: 'NoneKept',
      reason:
        "t_call_stack_deepen_v1 failed on this site: Cannot read properties of undefined (reading 'startIndex')",
      rejected: [],
    });
    expect(
      await deterministicSource(throwing('candidates'), 2).offer(counterSite(), never),
    ).toMatchObject({
      kind: 'NoneKept',
      reason: 't_call_stack_deepen_v1 failed on this site: no such node',
    });
  });
});

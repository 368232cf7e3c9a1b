import { createTwoFilesPatch } from 'diff';
import { describe, expect, it } from 'vitest';
import type { StatementScope, StatementUnit } from '../../toolchains/jvm/slicer.js';
import { modifiedLines, type ModifiedLines } from '../../repair/patch.js';
import { sliceOf } from './slice.js';

/** A git-style patch of one file, `before` → `after`, with `context` lines around changes. */
function patchOf(file: string, before: string[], after: string[], context = 3): string {
  return createTwoFilesPatch(
    `a/${file}`,
    `b/${file}`,
    `${before.join('\n')}\n`,
    `${after.join('\n')}\n`,
    undefined,
    undefined,
    { context },
  );
}

const BEFORE = [
  'class F {', // 1
  '  int run(int a) {', // 2
  '    int b = a;', // 3
  '    if (b > 0) {', // 4
  '      b = check(b);', // 5
  '    }', // 6
  '    b++;', // 7
  '    return b;', // 8
  '  }', // 9
  '}', // 10
];

describe('modifiedLines', () => {
  it('gives the new-side numbers of added lines', () => {
    const after = [...BEFORE.slice(0, 3), '    log(a);', '    log(b);', ...BEFORE.slice(3)];
    expect(modifiedLines(patchOf('F.java', BEFORE, after), 'F.java')).toEqual({
      changed: [4, 5],
      anchors: [],
    });
  });

  it('gives a changed line as the added line that replaces it, with no anchor', () => {
    const after = BEFORE.map((line) => (line === '    b++;' ? '    b += 2;' : line));
    expect(modifiedLines(patchOf('F.java', BEFORE, after), 'F.java')).toEqual({
      changed: [7],
      anchors: [],
    });
  });

  it('anchors a deletion on the line it now stands before', () => {
    // `b++;` (7) removed: `return b;` becomes line 7.
    const after = BEFORE.filter((line) => line !== '    b++;');
    expect(modifiedLines(patchOf('F.java', BEFORE, after), 'F.java')).toEqual({
      changed: [],
      anchors: [7],
    });
  });

  it('anchors a deletion that ended a block on the line before it, not on the brace', () => {
    // The if's only statement removed: the anchor is the if's line (4), not its `}` (5).
    const after = BEFORE.filter((line) => line !== '      b = check(b);');
    expect(modifiedLines(patchOf('F.java', BEFORE, after), 'F.java')).toEqual({
      changed: [],
      anchors: [4],
    });
  });

  it('anchors a deletion at the end of the file on the last line', () => {
    const after = BEFORE.slice(0, -1);
    expect(modifiedLines(patchOf('F.java', BEFORE, after), 'F.java')).toEqual({
      changed: [],
      anchors: [9],
    });
  });

  it('anchors a deletion of a -U0 patch, which shows no lines around it, on the line after', () => {
    const patch = ['--- a/F.java', '+++ b/F.java', '@@ -7 +6,0 @@', '-    b++;', ''].join('\n');
    expect(modifiedLines(patch, 'F.java')).toEqual({ changed: [], anchors: [7] });
  });

  it('keeps changes and deletions of several hunks apart, each counted on the new side', () => {
    const long = [...BEFORE.slice(0, 9), ...Array.from({ length: 10 }, () => ''), ...BEFORE];
    const after = [...long];
    after.splice(2, 1, '    int b = a + 1;'); // line 3 changed
    after.splice(25, 1); // the second copy's `b++;` (line 26) removed
    const patch = patchOf('F.java', long, after);
    expect(patch.match(/^@@/gm)).toHaveLength(2);
    expect(modifiedLines(patch, 'F.java')).toEqual({ changed: [3], anchors: [26] });
  });

  it('reads only the named file of a multi-file patch', () => {
    const first = patchOf(
      'src/A.java',
      BEFORE,
      BEFORE.map((line) => line.replace('b++', 'b--')),
    );
    const second = patchOf(
      'src/B.java',
      BEFORE,
      BEFORE.filter((line) => line !== '    int b = a;'),
    );
    const removed = createTwoFilesPatch('a/src/C.java', '/dev/null', BEFORE.join('\n'), '');
    const patch = first + second + removed;
    expect(modifiedLines(patch, 'src/A.java')).toEqual({ changed: [7], anchors: [] });
    expect(modifiedLines(patch, 'src/B.java')).toEqual({ changed: [], anchors: [3] });
    // A removed file has no fixed side; an unnamed one has no lines in the patch.
    expect(modifiedLines(patch, 'src/C.java')).toEqual({ changed: [], anchors: [] });
    expect(modifiedLines(patch, 'src/D.java')).toEqual({ changed: [], anchors: [] });
  });
});

/** A member for hand-written units, spanning `start`..`end`. */
function member(name: string, start: number, end: number): StatementScope {
  return { kind: 'method', name, owner: 'p.F', start, end };
}

/** Units from a compact list: id is the position, one line unless `end` is given. */
function units(
  specs: {
    scope: StatementScope;
    start: number;
    end?: number;
    defs?: string[];
    uses?: string[];
    executable?: boolean;
  }[],
): StatementUnit[] {
  return specs.map((spec, id) => ({
    id,
    start: spec.start,
    end: spec.end ?? spec.start,
    scope: spec.scope,
    defs: spec.defs ?? [],
    uses: spec.uses ?? [],
    calls: [],
    executable: spec.executable ?? true,
  }));
}

const changedAt = (...changed: number[]): ModifiedLines => ({ changed, anchors: [] });

describe('sliceOf: hops', () => {
  // A def→use chain in one method: line 11 defines a, 12 reads a and defines b, and so on.
  const run = member('run()', 10, 20);
  const chain = units([
    { scope: run, start: 11, defs: ['a'] },
    { scope: run, start: 12, uses: ['a'], defs: ['b'] },
    { scope: run, start: 13, uses: ['b'], defs: ['c'] },
    { scope: run, start: 14, uses: ['c'], defs: ['d'] },
    { scope: run, start: 15, uses: ['d'] },
  ]);

  it('follows def→use forward for as many hops as allowed, and no further', () => {
    const two = sliceOf(chain, changedAt(12), { scopedHops: 2, unscopedHops: 0 });
    expect(two.seeds).toEqual([1]);
    expect(two.forward).toEqual([12, 13, 14]);
    const all = sliceOf(chain, changedAt(12), { scopedHops: 5, unscopedHops: 0 });
    expect(all.forward).toEqual([12, 13, 14, 15]);
  });

  it('follows use→def backward, bounded the same way', () => {
    const one = sliceOf(chain, changedAt(14), { scopedHops: 1, unscopedHops: 0 });
    expect(one.backward).toEqual([13, 14]);
    const all = sliceOf(chain, changedAt(14));
    expect(all.backward).toEqual([11, 12, 13, 14]);
    // Forward and backward are separate slices: going back to 11 does not come forward again.
    expect(all.forward).toEqual([14, 15]);
    expect(all.relevant).toEqual([11, 12, 13, 14, 15]);
  });

  it('tells how each unit was reached', () => {
    const slice = sliceOf(chain, changedAt(13), { scopedHops: 2, unscopedHops: 0 });
    expect(slice.byUnit).toEqual([
      {
        unit: 0,
        reached: [{ kind: 'Backward', step: { hop: 2, scoped: true, from: 1, symbol: 'a' } }],
      },
      {
        unit: 1,
        reached: [{ kind: 'Backward', step: { hop: 1, scoped: true, from: 2, symbol: 'b' } }],
      },
      { unit: 2, reached: [{ kind: 'Seed' }] },
      {
        unit: 3,
        reached: [{ kind: 'Forward', step: { hop: 1, scoped: true, from: 2, symbol: 'c' } }],
      },
      {
        unit: 4,
        reached: [{ kind: 'Forward', step: { hop: 2, scoped: true, from: 3, symbol: 'd' } }],
      },
    ]);
  });
});

describe('sliceOf: scopes', () => {
  // `set` writes field f; `get` reads it into a local; `later` reads what `get` wrote to field g.
  const set = member('set(int)', 1, 5);
  const get = member('get()', 6, 10);
  const later = member('later()', 11, 15);
  const fileUnits = units([
    { scope: set, start: 2, defs: ['local:x'] },
    { scope: set, start: 3, uses: ['local:x'], defs: ['field:p.F.f'] },
    { scope: get, start: 7, uses: ['field:p.F.f'], defs: ['local:y'] },
    { scope: get, start: 8, uses: ['local:y'], defs: ['field:p.F.g'] },
    { scope: later, start: 12, uses: ['field:p.F.g'] },
  ]);

  it('keeps the scoped hops inside the seeds’ members, however many', () => {
    const slice = sliceOf(fileUnits, changedAt(2), { scopedHops: 5, unscopedHops: 0 });
    expect(slice.forward).toEqual([2, 3]);
  });

  it('reaches another member reading a field the slice defines with the unscoped hop only', () => {
    const slice = sliceOf(fileUnits, changedAt(2), { scopedHops: 5, unscopedHops: 1 });
    expect(slice.forward).toEqual([2, 3, 7]);
    expect(slice.byUnit.find((entry) => entry.unit === 2)!.reached).toEqual([
      { kind: 'Forward', step: { hop: 1, scoped: false, from: 1, symbol: 'field:p.F.f' } },
    ]);
    // A second unscoped hop goes on within `get` and then to `later`.
    const two = sliceOf(fileUnits, changedAt(2), { scopedHops: 5, unscopedHops: 2 });
    expect(two.forward).toEqual([2, 3, 7, 8]);
    expect(sliceOf(fileUnits, changedAt(2), { scopedHops: 5, unscopedHops: 3 }).forward).toEqual([
      2, 3, 7, 8, 12,
    ]);
  });

  it('reaches a writer of the field in another member backward, by the unscoped hop', () => {
    const slice = sliceOf(fileUnits, changedAt(7), { scopedHops: 5, unscopedHops: 0 });
    expect(slice.backward).toEqual([7]);
    expect(sliceOf(fileUnits, changedAt(7)).backward).toEqual([3, 7]);
  });
});

describe('sliceOf: seeds and lines', () => {
  // if (b > 0) {   ← header unit, line 4
  //   b = check(b);  line 5
  // }              ← line 6, no unit
  // b++;           ← line 7
  // return b;      ← lines 8-9, one statement
  const run = member('run(int)', 2, 10);
  const body = units([
    { scope: run, start: 2, defs: ['local:a'], executable: false },
    { scope: run, start: 3, uses: ['local:a'], defs: ['local:b'] },
    { scope: run, start: 4, uses: ['local:b'] },
    { scope: run, start: 5, uses: ['local:b'], defs: ['local:b'] },
    { scope: run, start: 7, uses: ['local:b'], defs: ['local:b'] },
    { scope: run, start: 8, end: 9, uses: ['local:b'] },
  ]);

  it('maps a line to the narrowest unit that spans it; a brace line maps to nothing', () => {
    expect(sliceOf(body, changedAt(4)).seeds).toEqual([2]);
    expect(sliceOf(body, changedAt(5)).seeds).toEqual([3]);
    expect(sliceOf(body, changedAt(9)).seeds).toEqual([5]);
    expect(sliceOf(body, changedAt(6)).seeds).toEqual([]);
  });

  it('maps a line in a lambda body to its statement, not to the statement holding the lambda', () => {
    const run = member('run(java.util.List)', 1, 10);
    // names.forEach(n -> {   2
    //   String s = n.trim();  3
    //   print(s);             4
    // });                     5
    const nested = units([
      { scope: run, start: 2, end: 5, uses: ['local:names'], defs: ['local:n'] },
      { scope: run, start: 3, uses: ['local:n'], defs: ['local:s'] },
      { scope: run, start: 4, uses: ['local:s'] },
    ]);
    expect(sliceOf(nested, changedAt(3)).seeds).toEqual([1]);
    expect(sliceOf(nested, changedAt(5)).seeds).toEqual([0]);
    // An anchor that a unit spans is seeded like any line.
    expect(sliceOf(nested, { changed: [], anchors: [4] }).seeds).toEqual([2]);
  });

  it('maps an anchor off every unit to the nearest unit after it in its member', () => {
    expect(sliceOf(body, { changed: [], anchors: [6] }).seeds).toEqual([4]);
    // After the last statement: the nearest before it. Outside every member: nothing.
    expect(sliceOf(body, { changed: [], anchors: [10] }).seeds).toEqual([5]);
    expect(sliceOf(body, { changed: [], anchors: [30] }).seeds).toEqual([]);
  });

  it('gives all lines of a multi-line statement, and none of a non-executable unit', () => {
    const slice = sliceOf(body, changedAt(3));
    expect(slice.backward).toEqual([2, 3]);
    expect(slice.forward).toEqual([3, 4, 5, 7, 8, 9]);
    expect(slice.relevant).toEqual([3, 4, 5, 7, 8, 9]);
  });
});

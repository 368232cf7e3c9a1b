import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { createTwoFilesPatch } from 'diff';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { makeTempDir, removeTree } from '../src/core/fs.js';
import { modifiedLines, type ModifiedLines } from '../src/repair/patch.js';
import { sliceOf, type Slice, type SliceOptions } from '../src/stages/7-strengthen/slice.js';
import { analyseStatements, type StatementUnit } from '../src/toolchains/jvm/slicer.js';

/*
 * Slices of gold patches on small Java files, with javac's symbols (the runner's Slicer): each
 * fixture is the fixed file, written out and analysed; its gold patch is made from a buggy
 * version by `diff`. Line numbers in the comments are those of the fixed file.
 */

const cache = cacheLayout(resolveCacheDir());
let dir: string;

beforeAll(async () => {
  dir = await makeTempDir('slicer-fixtures');
});

afterAll(async () => {
  await removeTree(dir);
});

interface Sliced {
  units: StatementUnit[];
  modified: ModifiedLines;
  slice: Slice;
}

/** The fixed file's units, the lines the gold patch `buggy` → `fixed` modifies, their slice. */
async function sliceFixture(
  name: string,
  buggy: string[],
  fixed: string[],
  options?: SliceOptions,
): Promise<Sliced> {
  const file = `${name}.java`;
  await writeFile(path.join(dir, file), `${fixed.join('\n')}\n`);
  const outcome = await analyseStatements(
    { file: path.join(dir, file), classpath: [], release: '17' },
    cache,
  );
  if (outcome.kind !== 'Analysed') throw new Error(outcome.reason);
  expect(outcome.errors).toEqual([]);
  const patch = createTwoFilesPatch(
    `a/${file}`,
    `b/${file}`,
    `${buggy.join('\n')}\n`,
    `${fixed.join('\n')}\n`,
  );
  const modified = modifiedLines(patch, file);
  return { units: outcome.units, modified, slice: sliceOf(outcome.units, modified, options) };
}

/** `lines` with the line holding `text` replaced by `by` (which must be there once). */
function replaced(lines: string[], text: string, by: string): string[] {
  expect(lines.filter((line) => line.includes(text))).toHaveLength(1);
  return lines.map((line) => (line.includes(text) ? line.replace(text, by) : line));
}

const SHADOW = [
  'class Shadow {', // 1
  '  private int x;', // 2
  '  int local(int y) {', // 3
  '    int x = y * 2;', // 4
  '    return x + 1;', // 5
  '  }', // 6
  '  int field() {', // 7
  '    this.x = 3;', // 8
  '    return x;', // 9
  '  }', // 10
  '  int reader() {', // 11
  '    return x * 2;', // 12
  '  }', // 13
  '}', // 14
];

describe('a local that shadows a field', () => {
  it('is its own symbol: a change to the local does not reach the readers of the field', async () => {
    const { modified, slice } = await sliceFixture(
      'Shadow',
      replaced(SHADOW, 'y * 2', 'y * 3'),
      SHADOW,
    );
    expect(modified).toEqual({ changed: [4], anchors: [] });
    // Forward to its return; backward to the parameter (the signature runs no code).
    expect(slice.forward).toEqual([4, 5]);
    expect(slice.backward).toEqual([3, 4]);
    expect(slice.relevant).toEqual([4, 5]);
  });

  it('`this.x` and `x` are the field: a write through `this` reaches every reader of it', async () => {
    const { units, slice } = await sliceFixture(
      'Shadow',
      replaced(SHADOW, 'this.x = 3', 'this.x = 4'),
      SHADOW,
    );
    // `return x;` in the same method by a scoped hop, `reader()` by the unscoped one; never the
    // local of `local(int)`.
    expect(slice.forward).toEqual([8, 9, 12]);
    expect(slice.relevant).toEqual([8, 9, 12]);
    const reader = units.find((unit) => unit.start === 12)!;
    expect(slice.byUnit.find((entry) => entry.unit === reader.id)!.reached).toEqual([
      {
        kind: 'Forward',
        step: { hop: 1, scoped: false, from: expect.any(Number), symbol: 'field:Shadow.x' },
      },
    ]);
  });
});

const GUARD = [
  'class Guard {', // 1
  '  private int taken;', // 2
  '  int take(int[] items, int n) {', // 3
  '    int total = 0;', // 4
  '    for (int i = 0; i < n; i++) {', // 5
  '      total += items[i];', // 6
  '    }', // 7
  '    taken = total;', // 8
  '    return total;', // 9
  '  }', // 10
  '}', // 11
];

describe('a pure deletion', () => {
  it('keeps an anchor where the deleted lines were, and slices from it', async () => {
    // The fix removes a guard that refused some counts.
    const buggy = [
      ...GUARD.slice(0, 3),
      '    if (n > 2) {',
      '      throw new IllegalArgumentException("n");',
      '    }',
      ...GUARD.slice(3),
    ];
    const { units, modified, slice } = await sliceFixture('Guard', buggy, GUARD);
    expect(modified).toEqual({ changed: [], anchors: [4] });
    expect(slice.seeds.map((id) => units[id]!.start)).toEqual([4]);
    // total = 0 flows into the loop's sum, the field and the return.
    expect(slice.forward).toEqual([4, 6, 8, 9]);
    expect(slice.relevant).toEqual([4, 6, 8, 9]);
  });

  it('at the end of a block anchors on the statement before it', async () => {
    const buggy = [...GUARD.slice(0, 6), '      if (total < 0) break;', ...GUARD.slice(6)];
    const { units, modified, slice } = await sliceFixture('Guard', buggy, GUARD);
    expect(modified).toEqual({ changed: [], anchors: [6] });
    expect(slice.seeds.map((id) => units[id]!.start)).toEqual([6]);
    expect(slice.relevant).toEqual([4, 5, 6, 8, 9]);
  });
});

const LAMBDAS = [
  'import java.util.List;', // 1
  'class Lambdas {', // 2
  '  int run(List<String> names) {', // 3
  '    names.forEach(name -> {', // 4
  '      String shown = "[" + name + "]";', // 5
  '      System.out.println(shown);', // 6
  '    });', // 7
  '    String name = "outer";', // 8
  '    return name.length();', // 9
  '  }', // 10
  '}', // 11
];

describe('lambdas', () => {
  it('keep a parameter named like a local of the method apart from it', async () => {
    const { slice } = await sliceFixture(
      'Lambdas',
      replaced(LAMBDAS, '"outer"', '"inner"'),
      LAMBDAS,
    );
    // The lambda's `name` (line 5) is another variable than the local of line 8.
    expect(slice.forward).toEqual([8, 9]);
    expect(slice.relevant).toEqual([8, 9]);
  });

  it('have their statements as units of the enclosing method', async () => {
    const { units, slice } = await sliceFixture(
      'Lambdas',
      replaced(LAMBDAS, '"[" + name', '"<" + name'),
      LAMBDAS,
    );
    const body = units.filter((unit) => unit.start === 5 || unit.start === 6);
    expect(body.map((unit) => [unit.start, unit.scope.kind, unit.scope.name])).toEqual([
      [5, 'method', 'run(java.util.List)'],
      [6, 'method', 'run(java.util.List)'],
    ]);
    // Forward to the print of `shown`; backward to the call that binds `name`, not line 8.
    expect(slice.forward).toEqual([5, 6]);
    expect(slice.backward).toEqual([3, 4, 5, 6, 7]);
  });
});

const FIELDS = [
  'class Fields {', // 1
  '  private int limit = 10;', // 2
  '  int check(int n) {', // 3
  '    return n > limit ? limit : n;', // 4
  '  }', // 5
  '  int unrelated(int n) {', // 6
  '    return n + 1;', // 7
  '  }', // 8
  '}', // 9
];

describe('a field initializer', () => {
  const buggy = replaced(FIELDS, '= 10', '= 100');

  it('reaches the methods that read the field by the unscoped hop', async () => {
    const { units, slice } = await sliceFixture('Fields', buggy, FIELDS);
    const declaration = units.find((unit) => unit.start === 2)!;
    expect(declaration.scope).toMatchObject({ kind: 'field', name: 'limit' });
    expect(declaration.executable).toBe(true);
    expect(slice.forward).toEqual([2, 4]);
    expect(slice.relevant).toEqual([2, 4]);
  });

  it('reaches no method without it', async () => {
    const { slice } = await sliceFixture('Fields', buggy, FIELDS, {
      scopedHops: 5,
      unscopedHops: 0,
    });
    expect(slice.forward).toEqual([2]);
  });
});

const LOOPS = [
  'class Loops {', // 1
  '  int sum(int[] values, int limit) {', // 2
  '    int total = 0;', // 3
  '    for (int i = 0;', // 4
  '         i < values.length; i++) {', // 5
  '      if (values[i] > limit) {', // 6
  '        total += limit;', // 7
  '      } else {', // 8
  '        total += values[i];', // 9
  '      }', // 10
  '    }', // 11
  '    return total;', // 12
  '  }', // 13
  '}', // 14
];

describe('a compound statement', () => {
  it('is a unit for its header; each statement of its bodies is one of its own', async () => {
    const { units } = await sliceFixture(
      'Loops',
      replaced(LOOPS, 'values[i] > limit', 'values[i] >= limit'),
      LOOPS,
    );
    expect(units.map((unit) => [unit.start, unit.end, unit.executable])).toEqual([
      [2, 2, false], // the signature, defining the parameters
      [3, 3, true],
      [4, 5, true], // for (init; cond; update)
      [6, 6, true], // if (cond)
      [7, 7, true],
      [9, 9, true],
      [12, 12, true],
    ]);
  });

  it('seeds its header alone for a change to the condition, its body statement for one there', async () => {
    const header = await sliceFixture(
      'Loops',
      replaced(LOOPS, 'values[i] > limit', 'values[i] >= limit'),
      LOOPS,
    );
    expect(header.slice.seeds.map((id) => header.units[id]!.start)).toEqual([6]);
    // The condition defines nothing: backward to the loop that sets i, never into the branches.
    expect(header.slice.forward).toEqual([6]);
    expect(header.slice.relevant).toEqual([4, 5, 6]);

    const body = await sliceFixture(
      'Loops',
      replaced(LOOPS, 'total += limit', 'total += limit + 1'),
      LOOPS,
    );
    expect(body.slice.seeds.map((id) => body.units[id]!.start)).toEqual([7]);
    // Forward to the return; backward to every other write of total, and through `values[i]`
    // to the loop header; the if's condition neither defines nor needs total.
    expect(body.slice.forward).toEqual([7, 9, 12]);
    expect(body.slice.relevant).toEqual([3, 4, 5, 7, 9, 12]);
  });
});

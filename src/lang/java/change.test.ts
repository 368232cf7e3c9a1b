import { beforeAll, describe, expect, it } from 'vitest';
import type { FileChange } from '../../core/file-change.js';
import { apiSignatureChanges, semanticallyDifferent, touchedMembers } from './change.js';
import { loadJavaGrammar } from './syntax.js';

const FILE = 'src/main/java/p/Box.java';
const BEFORE = `package p;

public class Box {
    private int size;

    public boolean fits(int other) {
        return size <= other;
    }

    int twice() {
        return size * 2;
    }

    static class Lid {
        Lid(int width) {
        }
    }
}
`;

const change = (after: string, file = FILE): FileChange => ({ file, before: BEFORE, after });

beforeAll(async () => {
  await loadJavaGrammar();
});

describe('what a change touches', () => {
  it('ignores comments and layout', () => {
    expect(
      semanticallyDifferent(change(BEFORE.replace('return size', '// why\n        return  size'))),
    ).toBe(false);
    expect(semanticallyDifferent(change(BEFORE.replace('size <= other', 'size < other')))).toBe(
      true,
    );
  });

  it('locates touched members by binary class, name and lines', () => {
    const touched = touchedMembers(
      change(BEFORE.replace('Lid(int width) {', 'Lid(int width) {\n            width++;')),
    );
    expect(touched).toEqual([
      {
        file: FILE,
        key: 'Box.Lid.Lid(int)',
        binaryClass: 'p.Box$Lid',
        name: '<init>',
        cleanLine: 15,
        buggyLines: { first: 15, last: 17 },
      },
    ]);
  });

  it('names public and protected signatures that change, and leaves package-private ones alone', () => {
    expect(
      apiSignatureChanges(change(BEFORE.replace('fits(int other)', 'fits(long other)'))),
    ).toEqual([
      'removed or changed: Box.public boolean fits ( int other )',
      'added: Box.public boolean fits ( long other )',
    ]);
    expect(apiSignatureChanges(change(BEFORE.replace('int twice()', 'long twice()')))).toEqual([]);
  });
});

import { beforeAll, describe, expect, it } from 'vitest';
import {
  changedClasses,
  changedInPlace,
  changedMembers,
  firstMatch,
  type StructuralCheck,
} from './changed-members.js';
import { loadJavaGrammar, withJavaTrees } from './syntax.js';

const SOURCE = `class Box {
    int size;

    int size() {
        return size;
    }

    boolean fits(int n) {
        return n <= size;
    }

    static class Lid {
        boolean open() {
            return false;
        }
    }
}

class Shelf {
    int count() {
        return 0;
    }
}
`;

beforeAll(loadJavaGrammar);

/** Each change as `key: before text → after text`, `-` for a side that is absent. */
function described(after: string, find: typeof changedMembers | typeof changedInPlace): string[] {
  return withJavaTrees(SOURCE, after, (a, b) =>
    find(a, b).map(
      (change) =>
        `${change.key}: ${change.before ? 'present' : '-'} → ${change.after ? 'present' : '-'}`,
    ),
  );
}

describe('changedMembers', () => {
  it('lists members whose tokens differ, and members only one version has', () => {
    const after = SOURCE.replace('n <= size', 'n < size').replace(
      '    int size() {\n        return size;\n    }\n',
      '    int capacity() {\n        return size;\n    }\n',
    );
    expect(described(after, changedMembers)).toEqual([
      'Box.size(): present → -',
      'Box.fits(int): present → present',
      'Box.capacity(): - → present',
    ]);
  });

  it('ignores comments and layout', () => {
    const after = SOURCE.replace('return n <= size;', 'return n<=size; // fits');
    expect(described(after, changedMembers)).toEqual([]);
  });
});

describe('changedInPlace', () => {
  it('keeps only members present in both versions', () => {
    const after = SOURCE.replace('n <= size', 'n < size').replace('int size()', 'int capacity()');
    expect(described(after, changedInPlace)).toEqual(['Box.fits(int): present → present']);
  });

  it('pairs overloads that erase alike by position', () => {
    const overloads = `class Sum {
    int of(java.util.List<String> xs) { return 1; }
    int of(java.util.List<Integer> xs) { return 2; }
}
`;
    const after = overloads.replace('return 2', 'return 3');
    expect(
      withJavaTrees(overloads, after, (a, b) =>
        changedInPlace(a, b).map((change) => `${change.key}: ${change.after.text}`),
      ),
    ).toEqual(['Sum.of(List): int of(java.util.List<Integer> xs) { return 3; }']);
  });
});

describe('changedClasses', () => {
  const paths = (after: string) =>
    withJavaTrees(SOURCE, after, (a, b) => changedClasses(a, b).map((change) => change.path));

  it('lists the classes at the same path whose tokens differ, enclosing ones included', () => {
    expect(paths(SOURCE.replace('return false', 'return true'))).toEqual(['Box', 'Box.Lid']);
    expect(paths(SOURCE.replace('return 0', 'return 1'))).toEqual(['Shelf']);
  });

  it('leaves out classes that differ only in comments, and classes gone from the new version', () => {
    expect(paths(SOURCE.replace('return 0;', 'return 0; // empty'))).toEqual([]);
    expect(paths(SOURCE.replace('class Shelf', 'class Rack'))).toEqual([]);
  });
});

describe('firstMatch', () => {
  const matches = (evidence: string): StructuralCheck => ({ kind: 'Matches', evidence });
  const mismatch = (reason: string): StructuralCheck => ({ kind: 'Mismatch', reason });

  it('returns the first match, judging no further', () => {
    const judged: string[] = [];
    const verdict = firstMatch(
      ['a', 'b', 'c'],
      (change) => {
        judged.push(change);
        return change === 'a' ? mismatch('a is off') : matches(`${change} fits`);
      },
      'nothing fits',
    );
    expect(verdict).toEqual(matches('b fits'));
    expect(judged).toEqual(['a', 'b']);
  });

  it('gives the last reason when nothing matches', () => {
    const verdict = firstMatch(
      ['a', 'b', 'c'],
      (change) => (change === 'c' ? undefined : mismatch(`${change} is off`)),
      'nothing fits',
    );
    expect(verdict).toEqual(mismatch('b is off'));
  });

  it('gives its own reason when the judge has nothing to say, or there is no change', () => {
    expect(firstMatch(['a'], () => undefined, 'nothing fits')).toEqual(mismatch('nothing fits'));
    expect(firstMatch([], () => matches('never'), 'nothing fits')).toEqual(
      mismatch('nothing fits'),
    );
  });
});

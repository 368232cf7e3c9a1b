import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import {
  apiSignatureChanges,
  semanticallyDifferent,
  staticFindings,
  touchedMembers,
  type FileChange,
} from './change.js';
import { injectorFor } from './rules/index.js';
import { loadBugTypeSpecs, type BugTypeSpec } from './spec.js';

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
let specs: BugTypeSpec[];
const spec = (id: string) => specs.find((s) => s.id === id)!;

beforeAll(async () => {
  await loadJavaGrammar();
  specs = await loadBugTypeSpecs();
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

describe('static findings', () => {
  const guard = () => injectorFor('logic_predicate_inversion_in_guard');

  it('accepts a change of the type with its evidence and touched members', () => {
    const identical = spec('api_identical_value_comparison');
    const found = staticFindings(
      [change(BEFORE.replace('size <= other', 'size <= size'))],
      'src/main/java',
      identical,
      injectorFor(identical.id),
    );
    expect(found).toMatchObject({ ok: true, touched: [{ key: 'Box.fits(int)' }] });
  });

  it('rejects changes outside production sources, empty ones, signature changes and other types', () => {
    const g = spec('logic_predicate_inversion_in_guard');
    const findings = (changes: FileChange[]) =>
      staticFindings(changes, 'src/main/java', g, guard());
    expect(findings([])).toMatchObject({ ok: false, stage: 'diff' });
    expect(findings([change(BEFORE, 'src/test/java/p/BoxTest.java')])).toMatchObject({
      ok: false,
      stage: 'diff',
    });
    expect(findings([change(BEFORE.replace('int size;', 'int size; // px'))])).toMatchObject({
      ok: false,
      stage: 'diff',
      reason: 'only whitespace or comments changed',
    });
    expect(
      findings([change(BEFORE.replace('public boolean fits', 'public boolean fitsIn'))]),
    ).toMatchObject({
      ok: false,
      stage: 'signature',
    });
    expect(findings([change(BEFORE.replace('size * 2', 'size * 3'))])).toMatchObject({
      ok: false,
      stage: 'structure',
    });
    expect(
      findings([change(BEFORE.replace('return size <= other;', 'return size <= other'))]),
    ).toMatchObject({
      ok: false,
      stage: 'structure',
      reason: `${FILE} does not parse`,
    });
  });
});

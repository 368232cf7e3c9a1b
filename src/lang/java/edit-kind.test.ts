import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffHunks } from '../../core/diff-stats.js';
import { editKind } from './edit-kind.js';

/** A Defects4J production patch (fixed → buggy), copied from the shared data (MIT). */
const defects4jPatch = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, '../../../test/fixtures/defects4j', name), 'utf8');

// Real patches from Defects4J (MIT; ../shared/data/defects4j), fixed → buggy as stored there.
/** Defects4J Csv bug 1. */
const CSV_1 = defects4jPatch('Csv-1.src.patch');

/** Defects4J Csv bug 5. */
const CSV_5 = defects4jPatch('Csv-5.src.patch');

/** Defects4J Csv bug 7. */
const CSV_7 = defects4jPatch('Csv-7.src.patch');

/** Defects4J Csv bug 9. */
const CSV_9 = defects4jPatch('Csv-9.src.patch');

/** Defects4J Csv bug 13. */
const CSV_13 = defects4jPatch('Csv-13.src.patch');

/** Defects4J Csv bug 15. */
const CSV_15 = defects4jPatch('Csv-15.src.patch');

/** Defects4J Codec bug 2. */
const CODEC_2 = defects4jPatch('Codec-2.src.patch');

/** Defects4J Codec bug 4. */
const CODEC_4 = defects4jPatch('Codec-4.src.patch');

/** Defects4J Codec bug 6. */
const CODEC_6 = defects4jPatch('Codec-6.src.patch');

/** Defects4J Codec bug 8. */
const CODEC_8 = defects4jPatch('Codec-8.src.patch');

const kinds = (diff: string) => diffHunks(diff).map(editKind);

/** A hunk of one Java file from its lines, each prefixed with ' ', '+' or '-'. */
function hunk(...lines: string[]): string {
  const oldCount = lines.filter((line) => !line.startsWith('+')).length;
  const newCount = lines.filter((line) => !line.startsWith('-')).length;
  return `--- a/A.java\n+++ b/A.java\n@@ -1,${oldCount} +1,${newCount} @@\n${lines.join('\n')}\n`;
}

describe('edit kinds of real bugs', () => {
  it('a condition narrowed inside an if', () => {
    expect(kinds(CSV_1)).toEqual(['condition']);
  });

  it('a dropped conjunct', () => {
    expect(kinds(CODEC_2)).toEqual(['condition']);
  });

  it('a guard taken from the statement it protected', () => {
    expect(kinds(CSV_5)).toEqual(['guard']);
  });

  it('a removed import, then a deleted check', () => {
    expect(kinds(CSV_7)).toEqual(['declaration', 'statement-deleted']);
  });

  it('a deleted early return', () => {
    expect(kinds(CSV_9)).toEqual(['statement-deleted']);
  });

  it('a call dropped from a chain, and a branch deleted before another', () => {
    expect(kinds(CSV_13)).toEqual(['call', 'statement-deleted']);
  });

  it("a constructor call's argument, with javadoc around it", () => {
    expect(kinds(CODEC_4)).toEqual(['call']);
  });

  it('statements and a guarded call added', () => {
    expect(kinds(CODEC_8)).toEqual(['statement-added', 'statement-added']);
  });

  it('a branch put before another', () => {
    expect(kinds(CSV_15)).toEqual(['statement-added']);
  });

  it('a declaration deleted, a loop unwrapped (its header starting mid-comment), a return rewritten', () => {
    expect(kinds(CODEC_6)).toEqual(['statement-deleted', 'guard', 'rewrite']);
  });
});

describe('edit kinds of small edits', () => {
  it('an operand replaced outside any condition or call', () => {
    expect(
      kinds(hunk('     int a = 1;', '-    total += a;', '+    total += b;', '     return total;')),
    ).toEqual(['operand']);
  });

  it('a method name replaced', () => {
    expect(kinds(hunk('-    list.add(x);', '+    list.remove(x);'))).toEqual(['call']);
  });

  it('an operator of a returned comparison', () => {
    expect(kinds(hunk('-    return a < b;', '+    return a <= b;'))).toEqual(['condition']);
  });

  it("an operand of a comparison outside any branch header, even a call's", () => {
    expect(
      kinds(hunk('-    return a.size() == b.length;', '+    return a.size() == a.size();')),
    ).toEqual(['condition']);
  });

  it('a type argument is no comparison', () => {
    expect(
      kinds(hunk('-    List<String> names = load();', '+    List<Object> names = load();')),
    ).toEqual(['operand']);
  });

  it('a one-line guard taken away', () => {
    expect(kinds(hunk('-    if (x != null) x.close();', '+    x.close();'))).toEqual(['guard']);
  });

  it('a changed comment, or a line broken in two, is no code change', () => {
    expect(kinds(hunk('-    // old words', '+    // new words', '     run();'))).toEqual([
      'non-code',
    ]);
    expect(kinds(hunk('-    run(a, b);', '+    run(a,', '+        b);'))).toEqual(['non-code']);
  });

  it('does not take a string or a comment for code', () => {
    expect(kinds(hunk('-    log("if (a < b) {");', '+    log("if (a <= b) {");'))).toEqual([
      'call',
    ]);
    expect(kinds(hunk('     /* a < b', '-     * old', '+     * new', '      */'))).toEqual([
      'non-code',
    ]);
  });

  it("a constant's initializer is an expression, its signature a declaration", () => {
    expect(
      kinds(
        hunk(
          '-    private static final int LIMIT = 10;',
          '+    private static final int LIMIT = 11;',
        ),
      ),
    ).toEqual(['operand']);
    expect(kinds(hunk('-    public int size() {', '+    protected int size() {'))).toEqual([
      'declaration',
    ]);
  });
});

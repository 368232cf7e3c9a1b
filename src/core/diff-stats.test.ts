import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { diffHunks, median, patchSize, summariseSizes, type PatchSize } from './diff-stats.js';

/** A Defects4J production patch (fixed → buggy), copied from the shared data (MIT). */
const defects4jPatch = (name: string) =>
  readFileSync(path.resolve(import.meta.dirname, '../../test/fixtures/defects4j', name), 'utf8');

// Real patches from Defects4J (MIT; ../shared/data/defects4j), fixed → buggy as stored there.
/** Defects4J Csv bug 7. */
const CSV_7 = defects4jPatch('Csv-7.src.patch');

/** Defects4J Csv bug 13. */
const CSV_13 = defects4jPatch('Csv-13.src.patch');

/** An injected bug as the inject stage writes it (jsdiff's form: no `diff --git` line). */
const INJECTED = `--- a/src/main/java/org/json/simple/parser/Yylex.java
+++ b/src/main/java/org/json/simple/parser/Yylex.java
@@ -104,7 +104,7 @@
     int i = 0;  /* index in packed string  */
     int j = offset;  /* index in unpacked array */
     int l = packed.length();
-    while (i < l) {
+    while (i <= l) {
       int high = packed.charAt(i++) << 16;
       result[j++] = high | packed.charAt(i++);
     }
`;

describe('diff statistics', () => {
  it('counts the hunks and lines of a git diff, file by file', () => {
    const hunks = diffHunks(CSV_7);
    expect(hunks.map((hunk) => hunk.file)).toEqual([
      'src/main/java/org/apache/commons/csv/CSVParser.java',
      'src/main/java/org/apache/commons/csv/CSVParser.java',
    ]);
    expect(hunks[0]!.lines.filter((line) => line.kind === 'removed')).toEqual([
      { kind: 'removed', text: 'import java.util.Arrays;' },
    ]);
    expect(patchSize(hunks)).toEqual({
      files: 1,
      hunks: 2,
      added: 0,
      removed: 4,
      changedLines: 4,
      largerSide: 4,
    });
  });

  it('counts every file of a patch that changes several', () => {
    expect(patchSize(diffHunks(CSV_13))).toEqual({
      files: 2,
      hunks: 2,
      added: 2,
      removed: 4,
      changedLines: 6,
      largerSide: 4,
    });
  });

  it('reads an injected patch, a one-line replacement being 2 changed lines and 1 on the larger side', () => {
    const hunks = diffHunks(INJECTED);
    expect(hunks).toHaveLength(1);
    expect(hunks[0]!.file).toBe('src/main/java/org/json/simple/parser/Yylex.java');
    expect(hunks[0]!.lines).toHaveLength(8);
    expect(patchSize(hunks)).toMatchObject({ changedLines: 2, largerSide: 1, hunks: 1, files: 1 });
  });

  it('does not count the no-newline marker as a line', () => {
    const diff =
      '--- a/A.java\n+++ b/A.java\n@@ -1 +1 @@\n-int a;\n\\ No newline at end of file\n+int b;\n\\ No newline at end of file\n';
    expect(diffHunks(diff)[0]!.lines).toEqual([
      { kind: 'removed', text: 'int a;' },
      { kind: 'added', text: 'int b;' },
    ]);
  });

  it('takes the median of odd and even counts, and 0 of none', () => {
    expect(median([5, 1, 3])).toBe(3);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBe(0);
  });

  it('summarises sizes as spreads and shares', () => {
    const size = (changedLines: number, hunks: number, files: number): PatchSize => ({
      files,
      hunks,
      added: changedLines,
      removed: 0,
      changedLines,
      largerSide: changedLines,
    });
    const summary = summariseSizes([size(2, 1, 1), size(1, 1, 1), size(4, 2, 1), size(13, 3, 2)]);
    expect(summary).toMatchObject({
      patches: 4,
      changedLines: { median: 3, mean: 5 },
      hunks: { median: 1.5, mean: 1.75 },
      atMostTwoLines: 0.5,
      oneHunk: 0.5,
      severalFiles: 0.25,
      changedLineBuckets: { '<= 2': 0.5, '3-5': 0.25, '6-10': 0, '> 10': 0.25 },
    });
  });
});

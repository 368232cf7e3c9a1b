import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { parsePatch } from 'diff';
import { afterEach, describe, expect, it } from 'vitest';
import { makeTempDir, removeTree } from '../core/fs.js';
import { runProcess } from '../core/process.js';
import { reversePatch, withGitPrefixes } from './patch.js';

const FIXTURES = path.resolve(import.meta.dirname, '../../test/fixtures');

/** Real Defects4J production patches (fixed → buggy; MIT), as the shared data stores them. */
const REAL_PATCHES = [
  ...['Csv-1', 'Csv-5', 'Csv-7', 'Csv-9', 'Csv-13', 'Csv-15', 'Codec-2', 'Codec-4', 'Codec-6'].map(
    (name) => path.join(FIXTURES, 'defects4j', `${name}.src.patch`),
  ),
  // No newline at the end of a file, CRLF lines, mode changes, a deleted file, an svn diff.
  ...['Cli-2', 'Chart-8', 'Closure-147', 'Codec-13', 'Chart-7'].map((name) =>
    path.join(FIXTURES, 'repair/defects4j-patches', `${name}.src.patch`),
  ),
];

const SHARED_DEFECTS4J = path.resolve(import.meta.dirname, '../../../shared/data/defects4j');

const PATCH = `diff --git a/src/main/java/p/A.java b/src/main/java/p/A.java
index 1111111..2222222 100644
--- a/src/main/java/p/A.java
+++ b/src/main/java/p/A.java
@@ -10,6 +10,7 @@ class A {
     int f(int x) {
         int y = x;
-        if (y > 0) {
+        if (y >= 0) {
+            y++;
             return y;
         }
         return -y;
@@ -40,4 +41,3 @@ class A {
     }
-    -- not a header
     // end
 }
`;

const REVERSED = `diff --git a/src/main/java/p/A.java b/src/main/java/p/A.java
index 2222222..1111111 100644
--- a/src/main/java/p/A.java
+++ b/src/main/java/p/A.java
@@ -10,7 +10,6 @@ class A {
     int f(int x) {
         int y = x;
-        if (y >= 0) {
-            y++;
+        if (y > 0) {
             return y;
         }
         return -y;
@@ -41,3 +40,4 @@ class A {
     }
+    -- not a header
     // end
 }
`;

/**
 * The old side of a patch as files: each hunk's context and removed lines at the line its header
 * names, filler lines between hunks. Parsed with jsdiff, independently of the code under test.
 */
function oldSide(diff: string): Map<string, { text: string; executable: boolean }> {
  const files = new Map<string, { text: string; executable: boolean }>();
  for (const file of parsePatch(diff)) {
    if (file.isCreate || file.oldFileName === undefined) continue;
    const lines: string[] = [];
    let noNewlineAtEnd = false;
    for (const hunk of file.hunks) {
      while (lines.length < hunk.oldStart - 1) lines.push(`// filler ${lines.length + 1}`);
      let lastWasOld = false;
      for (const line of hunk.lines) {
        if (line.startsWith('\\')) noNewlineAtEnd ||= lastWasOld;
        else if (line[0] === ' ' || line[0] === '-') lines.push(line.slice(1));
        if (!line.startsWith('\\')) lastWasOld = line[0] !== '+';
      }
    }
    if (lines.length === 0) lines.push('// a file whose content the patch does not change');
    files.set(file.oldFileName.replace(/^a\//, ''), {
      text: lines.join('\n') + (noNewlineAtEnd ? '' : '\n'),
      executable: file.oldMode === '100755',
    });
  }
  return files;
}

let temporary: string | undefined;
afterEach(async () => {
  if (temporary) await removeTree(temporary);
  temporary = undefined;
});

async function gitApply(dir: string, diff: string): Promise<void> {
  const patchFile = path.join(dir, '..', 'change.patch');
  await writeFile(patchFile, diff);
  const run = await runProcess('git', ['apply', '--whitespace=nowarn', patchFile], {
    cwd: dir,
    timeoutMs: 60_000,
  });
  expect(run.stderr).toBe('');
  expect(run.exitCode).toBe(0);
}

async function treeText(dir: string, files: Iterable<string>): Promise<Map<string, string | null>> {
  const texts = new Map<string, string | null>();
  for (const file of files) {
    const at = path.join(dir, file);
    texts.set(file, existsSync(at) ? await readFile(at, 'utf8') : null);
  }
  return texts;
}

/** Applies the patch to its old side, then its reversal: the old side must come back. */
async function expectReversalUndoes(diff: string): Promise<void> {
  temporary = await makeTempDir('reverse');
  const tree = path.join(temporary, 'tree');
  await mkdir(tree);
  const before = oldSide(diff);
  for (const [file, { text, executable }] of before) {
    await mkdir(path.dirname(path.join(tree, file)), { recursive: true });
    await writeFile(path.join(tree, file), text);
    if (executable) await chmod(path.join(tree, file), 0o755);
  }
  const beforeTexts = new Map([...before].map(([file, { text }]) => [file, text]));
  await gitApply(tree, diff);
  expect(await treeText(tree, before.keys())).not.toEqual(beforeTexts);
  await gitApply(tree, reversePatch(diff));
  expect(await treeText(tree, before.keys())).toEqual(beforeTexts);
}

describe('reversePatch', () => {
  it('swaps the sides: hunk ranges, removed and added lines, index ids; function context kept', () => {
    expect(reversePatch(PATCH)).toBe(REVERSED);
  });

  it('counts a hunk by its header, so a removed line reading "-- x" stays in its hunk', () => {
    expect(reversePatch(PATCH)).toContain('+    -- not a header\n');
  });

  it('turns a deleted file into a created one, with the names on their git sides', () => {
    const deleted = `diff --git a/src/p/Gone.java b/src/p/Gone.java
deleted file mode 100644
index fe20eb0..0000000
--- a/src/p/Gone.java
+++ /dev/null
@@ -1,2 +0,0 @@
-package p;
-class Gone {}
`;
    expect(reversePatch(deleted)).toBe(`diff --git a/src/p/Gone.java b/src/p/Gone.java
new file mode 100644
index 0000000..fe20eb0
--- /dev/null
+++ b/src/p/Gone.java
@@ -0,0 +1,2 @@
+package p;
+class Gone {}
`);
  });

  it('swaps modes and renames', () => {
    const renamed = `diff --git a/p/Old.java b/q/New.java
old mode 100755
new mode 100644
similarity index 90%
rename from p/Old.java
rename to q/New.java
`;
    expect(reversePatch(renamed)).toBe(`diff --git a/q/New.java b/p/Old.java
old mode 100644
new mode 100755
similarity index 90%
rename from q/New.java
rename to p/Old.java
`);
  });

  it('keeps "no newline at end of file" with the line it belongs to', () => {
    const noNewline = `--- a/A.java
+++ b/A.java
@@ -1,2 +1,2 @@
 class A {
-}
\\ No newline at end of file
+}
`;
    expect(reversePatch(noNewline)).toBe(`--- a/A.java
+++ b/A.java
@@ -1,2 +1,2 @@
 class A {
-}
+}
\\ No newline at end of file
`);
  });

  it('refuses what the patch alone cannot undo, and malformed hunks', () => {
    expect(() =>
      reversePatch('diff --git a/x.png b/x.png\nBinary files a/x.png and b/x.png differ\n'),
    ).toThrow(/binary/);
    expect(() =>
      reversePatch('diff --git a/A b/B\nsimilarity index 100%\ncopy from A\ncopy to B\n'),
    ).toThrow(/copy/);
    expect(() => reversePatch('--- a/A\n+++ b/A\n@@ -1,3 +1,3 @@\n x\n-y\n')).toThrow(/ends early/);
    expect(() => reversePatch('--- a/A\n+++ b/A\n@@ -1,2 +1,2 @@\n x\n*y\n')).toThrow(/not a line/);
  });

  it('gives back each real Defects4J patch when reversed twice, byte for byte', () => {
    for (const file of REAL_PATCHES) {
      const original = readFileSync(file, 'utf8');
      expect(reversePatch(original), file).not.toBe(original);
      expect(reversePatch(reversePatch(original)), file).toBe(original);
    }
  });

  it('undoes each real Defects4J patch when applied to the buggy side by git', async () => {
    for (const file of REAL_PATCHES) {
      await expectReversalUndoes(withGitPrefixes(readFileSync(file, 'utf8')));
      await removeTree(temporary!);
    }
  });

  // The whole Defects4J data, when the shared data is next to this checkout.
  it.runIf(existsSync(SHARED_DEFECTS4J))(
    'gives back every patch of the shared Defects4J data when reversed twice',
    () => {
      let patches = 0;
      for (const project of readdirSync(SHARED_DEFECTS4J)) {
        const dir = path.join(SHARED_DEFECTS4J, project, 'patches');
        if (!existsSync(dir)) continue;
        for (const name of readdirSync(dir)) {
          const original = readFileSync(path.join(dir, name), 'utf8');
          expect(reversePatch(reversePatch(original)), `${project}/${name}`).toBe(original);
          patches++;
        }
      }
      expect(patches).toBeGreaterThan(800);
    },
  );
});

describe('withGitPrefixes', () => {
  it("names an svn diff's files from git's a/ and b/, so git apply -p1 finds them", () => {
    const svn = readFileSync(
      path.join(FIXTURES, 'repair/defects4j-patches/Chart-7.src.patch'),
      'utf8',
    );
    const prefixed = withGitPrefixes(svn);
    expect(prefixed.split('\n').slice(0, 4)).toEqual([
      'Index: source/org/jfree/data/time/TimePeriodValues.java',
      '===================================================================',
      '--- a/source/org/jfree/data/time/TimePeriodValues.java\t(revision 1087)',
      '+++ b/source/org/jfree/data/time/TimePeriodValues.java\t(revision 1086)',
    ]);
    expect(prefixed.split('\n').slice(4)).toEqual(svn.split('\n').slice(4));
  });

  it('leaves a git diff as it is, and /dev/null unprefixed', () => {
    for (const file of REAL_PATCHES.filter((name) => !name.endsWith('Chart-7.src.patch'))) {
      const diff = readFileSync(file, 'utf8');
      expect(withGitPrefixes(diff), file).toBe(diff);
    }
    expect(withGitPrefixes('--- /dev/null\n+++ A.java\n@@ -0,0 +1 @@\n+x\n')).toBe(
      '--- /dev/null\n+++ b/A.java\n@@ -0,0 +1 @@\n+x\n',
    );
  });
});

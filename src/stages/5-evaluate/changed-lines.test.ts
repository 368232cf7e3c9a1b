import { describe, expect, it } from 'vitest';
import { changedBuggyLines } from './changed-lines.js';

const patch = `--- a/src/main/java/A.java
+++ b/src/main/java/A.java
@@ -10,6 +10,6 @@
 class A {
     int f(int x) {
-        if (x < 0) {
-            return 0;
-        }
+        if (x <= 0) {
+            return 0;
+        }
         return x;
@@ -30,4 +30,3 @@
     void g() {
-        check();
         run();
     }
`;

describe('changedBuggyLines', () => {
  it('takes added lines, and the line in place of lines only removed', () => {
    expect(changedBuggyLines(patch)).toEqual(new Map([['src/main/java/A.java', [12, 13, 14, 31]]]));
  });
});

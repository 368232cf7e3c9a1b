import { describe, expect, it } from 'vitest';
import { anchorAfter, bugAnchor, locateAnchor } from './focus.js';

/* A file where the line after a deleted method (`/**`) is also the file's first javadoc line. */
const BUGGY = [
  'class Pair {', //           0
  '    /**', //                1
  '     * Left.', //           2
  '     */', //                3
  '    int left;', //          4
  '', //                       5
  '    public boolean equals(Object o) {', // 6
  '        return o == this;', //           7
  '    }', //                               8
  '', //                                    9
  '    /**', //                             10
  '     * Right.', //                       11
  '     */', //                             12
  '    int right;', //                      13
  '}', //                                   14
].join('\n');

const DELETION = `--- a/Pair.java
+++ b/Pair.java
@@ -8,10 +8,6 @@
         return o == this;
     }
 
-    public int hashCode() {
-        return left;
-    }
-
     /**
      * Right.
      */
`;

describe('bug anchors', () => {
  it("finds a deletion's next line where the deletion was, not its first look-alike", () => {
    const anchor = bugAnchor(DELETION)!;
    expect(anchor).toEqual({ file: 'Pair.java', lines: ['/**'], near: 10 });
    const found = locateAnchor(BUGGY, anchor)!;
    expect(found.line).toBe(10);
    expect(BUGGY.slice(found.start, found.end)).toBe('/**');
    // Without the line it was seen at, the first match is all there is.
    expect(locateAnchor(BUGGY, { file: 'Pair.java', lines: ['/**'] })!.line).toBe(1);
  });

  it('follows the place through a step that adds lines above it', () => {
    const anchor = bugAnchor(DELETION)!;
    const focus = locateAnchor(BUGGY, anchor)!;
    const insert = BUGGY.indexOf('    public boolean equals');
    const helper = '    private int size() {\n        return 2;\n    }\n\n';
    const after = BUGGY.slice(0, insert) + helper + BUGGY.slice(insert);
    const moved = anchorAfter(anchor, focus, [{ start: insert, end: insert, text: helper }], after);
    expect(moved.near).toBe(14);
    expect(locateAnchor(after, moved)!.line).toBe(14);
  });
});

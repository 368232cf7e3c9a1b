import { describe, expect, it } from 'vitest';
import { diffHunks } from '../../core/diff-stats.js';
import { editKind } from './edit-kind.js';

// Real patches from Defects4J (MIT; ../shared/data/defects4j), fixed → buggy as stored there.
/** Defects4J Csv bug 1. */
const CSV_1 = String.raw`diff --git a/src/main/java/org/apache/commons/csv/ExtendedBufferedReader.java b/src/main/java/org/apache/commons/csv/ExtendedBufferedReader.java
index 219fe68..563ece1 100644
--- a/src/main/java/org/apache/commons/csv/ExtendedBufferedReader.java
+++ b/src/main/java/org/apache/commons/csv/ExtendedBufferedReader.java
@@ -55,7 +55,7 @@ class ExtendedBufferedReader extends BufferedReader {
     @Override
     public int read() throws IOException {
         int current = super.read();
-        if (current == '\r' || (current == '\n' && lastChar != '\r')) {
+        if (current == '\n') {
             lineCounter++;
         }
         lastChar = current;
`;

/** Defects4J Csv bug 5. */
const CSV_5 = String.raw`diff --git a/src/main/java/org/apache/commons/csv/CSVPrinter.java b/src/main/java/org/apache/commons/csv/CSVPrinter.java
index a8aa33f..3255360 100644
--- a/src/main/java/org/apache/commons/csv/CSVPrinter.java
+++ b/src/main/java/org/apache/commons/csv/CSVPrinter.java
@@ -322,9 +322,7 @@ public final class CSVPrinter implements Flushable, Closeable {
      */
     public void println() throws IOException {
         final String recordSeparator = format.getRecordSeparator();
-        if (recordSeparator != null) {
             out.append(recordSeparator);
-        }
         newRecord = true;
     }
 
`;

/** Defects4J Csv bug 7. */
const CSV_7 = String.raw`diff --git a/src/main/java/org/apache/commons/csv/CSVParser.java b/src/main/java/org/apache/commons/csv/CSVParser.java
index 315a11c..a6a6d49 100644
--- a/src/main/java/org/apache/commons/csv/CSVParser.java
+++ b/src/main/java/org/apache/commons/csv/CSVParser.java
@@ -29,7 +29,6 @@ import java.io.StringReader;
 import java.net.URL;
 import java.nio.charset.Charset;
 import java.util.ArrayList;
-import java.util.Arrays;
 import java.util.Collection;
 import java.util.Iterator;
 import java.util.LinkedHashMap;
@@ -369,9 +368,6 @@ public final class CSVParser implements Iterable<CSVRecord>, Closeable {
             // build the name to index mappings
             if (header != null) {
                 for (int i = 0; i < header.length; i++) {
-                    if (hdrMap.containsKey(header[i])) {
-                        throw new IllegalStateException("The header contains duplicate names: " + Arrays.toString(header));
-                    }
                     hdrMap.put(header[i], Integer.valueOf(i));
                 }
             }
`;

/** Defects4J Csv bug 9. */
const CSV_9 = String.raw`diff --git a/src/main/java/org/apache/commons/csv/CSVRecord.java b/src/main/java/org/apache/commons/csv/CSVRecord.java
index e814b70..3abb468 100644
--- a/src/main/java/org/apache/commons/csv/CSVRecord.java
+++ b/src/main/java/org/apache/commons/csv/CSVRecord.java
@@ -177,9 +177,6 @@ public final class CSVRecord implements Serializable, Iterable<String> {
      * @return the given map.
      */
     <M extends Map<String, String>> M putIn(final M map) {
-        if (mapping == null) {
-            return map;
-        }
         for (final Entry<String, Integer> entry : mapping.entrySet()) {
             final int col = entry.getValue().intValue();
             if (col < values.length) {
`;

/** Defects4J Csv bug 13. */
const CSV_13 = String.raw`diff --git a/src/main/java/org/apache/commons/csv/CSVFormat.java b/src/main/java/org/apache/commons/csv/CSVFormat.java
index 8c71f3a..847f30a 100644
--- a/src/main/java/org/apache/commons/csv/CSVFormat.java
+++ b/src/main/java/org/apache/commons/csv/CSVFormat.java
@@ -316,7 +316,7 @@ public final class CSVFormat implements Serializable {
      *      http://dev.mysql.com/doc/refman/5.1/en/load-data.html</a>
      */
     public static final CSVFormat MYSQL = DEFAULT.withDelimiter(TAB).withEscape(BACKSLASH).withIgnoreEmptyLines(false)
-            .withQuote(null).withRecordSeparator(LF).withNullString("\\N");
+            .withQuote(null).withRecordSeparator(LF);
 
     /**
      * Returns true if the given character is a line break character.
diff --git a/src/main/java/org/apache/commons/csv/CSVPrinter.java b/src/main/java/org/apache/commons/csv/CSVPrinter.java
index 0e9a2de..ac4234b 100644
--- a/src/main/java/org/apache/commons/csv/CSVPrinter.java
+++ b/src/main/java/org/apache/commons/csv/CSVPrinter.java
@@ -136,9 +136,7 @@ public final class CSVPrinter implements Flushable, Closeable {
         if (!newRecord) {
             out.append(format.getDelimiter());
         }
-        if (object == null) {
-            out.append(value);
-        } else if (format.isQuoteCharacterSet()) {
+        if (format.isQuoteCharacterSet()) {
             // the original object is needed so can check for Number
             printAndQuote(object, value, offset, len);
         } else if (format.isEscapeCharacterSet()) {
`;

/** Defects4J Csv bug 15. */
const CSV_15 = String.raw`diff --git a/src/main/java/org/apache/commons/csv/CSVFormat.java b/src/main/java/org/apache/commons/csv/CSVFormat.java
index dc7588b..35c2ad1 100644
--- a/src/main/java/org/apache/commons/csv/CSVFormat.java
+++ b/src/main/java/org/apache/commons/csv/CSVFormat.java
@@ -1186,7 +1186,9 @@ public final class CSVFormat implements Serializable {
             } else {
                 char c = value.charAt(pos);
 
-                if (c <= COMMENT) {
+                if (newRecord && (c < 0x20 || c > 0x21 && c < 0x23 || c > 0x2B && c < 0x2D || c > 0x7E)) {
+                    quote = true;
+                } else if (c <= COMMENT) {
                     // Some other chars at the start of a value caused the parser to fail, so for now
                     // encapsulate if we start in anything less than '#'. We are being conservative
                     // by including the default comment char too.
`;

/** Defects4J Codec bug 2. */
const CODEC_2 = String.raw`diff --git a/src/java/org/apache/commons/codec/binary/Base64.java b/src/java/org/apache/commons/codec/binary/Base64.java
index dc2ecfc1..c00fbe5e 100644
--- a/src/java/org/apache/commons/codec/binary/Base64.java
+++ b/src/java/org/apache/commons/codec/binary/Base64.java
@@ -443,7 +443,7 @@ public class Base64 implements BinaryEncoder, BinaryDecoder {
                     }
                     break;
             }
-            if (lineLength > 0 && pos > 0) {
+            if (lineLength > 0) {
                 System.arraycopy(lineSeparator, 0, buf, pos, lineSeparator.length);
                 pos += lineSeparator.length;
             }
`;

/** Defects4J Codec bug 4. */
const CODEC_4 = String.raw`diff --git a/src/java/org/apache/commons/codec/binary/Base64.java b/src/java/org/apache/commons/codec/binary/Base64.java
index 31671e69..e4d1276c 100644
--- a/src/java/org/apache/commons/codec/binary/Base64.java
+++ b/src/java/org/apache/commons/codec/binary/Base64.java
@@ -222,7 +222,7 @@ public class Base64 implements BinaryEncoder, BinaryDecoder {
      * </p>
      */
     public Base64() {
-        this(0);
+        this(false);
     }
 
     /**
`;

/** Defects4J Codec bug 6. */
const CODEC_6 = String.raw`diff --git a/src/java/org/apache/commons/codec/binary/Base64InputStream.java b/src/java/org/apache/commons/codec/binary/Base64InputStream.java
index 479638bc..583a5847 100644
--- a/src/java/org/apache/commons/codec/binary/Base64InputStream.java
+++ b/src/java/org/apache/commons/codec/binary/Base64InputStream.java
@@ -145,7 +145,6 @@ public class Base64InputStream extends FilterInputStream {
         } else if (len == 0) {
             return 0;
         } else {
-            int readLen = 0;
             /*
              Rationale for while-loop on (readLen == 0):
              -----
@@ -162,7 +161,6 @@ public class Base64InputStream extends FilterInputStream {
              -----
              This is a fix for CODEC-101
             */
-            while (readLen == 0) {
                 if (!base64.hasData()) {
                     byte[] buf = new byte[doEncode ? 4096 : 8192];
                     int c = in.read(buf);
@@ -177,9 +175,7 @@ public class Base64InputStream extends FilterInputStream {
                         base64.decode(buf, 0, c);
                     }
                 }
-                readLen = base64.readResults(b, offset, len);
-            }
-            return readLen;
+            return base64.readResults(b, offset, len);
         }
     }
 
`;

/** Defects4J Codec bug 8. */
const CODEC_8 = String.raw`diff --git a/src/java/org/apache/commons/codec/binary/Base64.java b/src/java/org/apache/commons/codec/binary/Base64.java
index 2521c27b..76f14f50 100644
--- a/src/java/org/apache/commons/codec/binary/Base64.java
+++ b/src/java/org/apache/commons/codec/binary/Base64.java
@@ -416,6 +416,13 @@ public class Base64 implements BinaryEncoder, BinaryDecoder {
         return eof ? -1 : 0;
     }
 
+    void setInitialBuffer(byte[] out, int outPos, int outAvail) {
+        if (out != null && out.length == outAvail) {
+            buffer = out;
+            pos = outPos;
+            readPos = outPos;
+        }
+    }
     /**
      * <p>
      * Encodes all of the provided data, starting at inPos, for inAvail bytes. Must be called at least twice: once with
diff --git a/src/java/org/apache/commons/codec/binary/Base64InputStream.java b/src/java/org/apache/commons/codec/binary/Base64InputStream.java
index ad006f2e..a706702f 100644
--- a/src/java/org/apache/commons/codec/binary/Base64InputStream.java
+++ b/src/java/org/apache/commons/codec/binary/Base64InputStream.java
@@ -166,6 +166,9 @@ public class Base64InputStream extends FilterInputStream {
                 if (!base64.hasData()) {
                     byte[] buf = new byte[doEncode ? 4096 : 8192];
                     int c = in.read(buf);
+                    if (c > 0 && b.length == len) {
+                        base64.setInitialBuffer(b, offset, len);
+                    }
                     if (doEncode) {
                         base64.encode(buf, 0, c);
                     } else {
`;

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

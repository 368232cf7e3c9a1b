import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { finalClass, javaChar, javaString, keepOnly, methodsOf } from './assertions.js';
import {
  parseObservations,
  stableObservations,
  type Observation,
  type StableObservations,
} from './observations.js';
import { probeClass } from './probes.js';
import { JUNIT3_CLASS, JUNIT4_CLASS, JUNIT5_CLASS } from './test-support.js';
import { inputVariants, testMethods, type InputVariant } from './variants.js';
import type { TestFramework } from './test-class.js';

beforeAll(loadJavaGrammar);

function unchanged(source: string, name: string): InputVariant {
  const scan = testMethods(source);
  if (scan.kind !== 'TestClass') throw new Error(scan.reason);
  const method = scan.methods.find((m) => m.name === name)!;
  return {
    id: 'unchanged',
    method: name,
    operator: 'string-empty',
    detail: '',
    body: source.slice(method.bodyRange.start, method.bodyRange.end),
  };
}

function methodText(source: string, name: string): string {
  const start = source.search(new RegExp(`\\n {4}(@Test.*\\n {4})?\\w[^\\n]* ${name}\\(`));
  const end = source.indexOf('\n    }\n', start);
  return source.slice(start + 1, end + 6);
}

/** One run that wrote `lines` (objects as Observe.java writes them). */
function run(...lines: object[]): Observation[] {
  const parsed = parseObservations(lines.map((line) => JSON.stringify(line)).join('\n'));
  if (parsed.kind !== 'Parsed') throw new Error(parsed.reason);
  return parsed.observations;
}

/** Two runs that each wrote `lines`. */
function twoRuns(...lines: object[]): StableObservations {
  return stableObservations([run(...lines), run(...lines)]);
}

const value = (key: string, type: string, className: string, text: string, primitive = true) => ({
  key,
  type,
  class: `java.lang.${className}`,
  value: text,
  ...(primitive ? { primitive } : {}),
});

/** The line of the probe class holding `text`, as a stack trace would give it. */
function lineOf(probe: string, text: string): number {
  return probe.split('\n').findIndex((line) => line.includes(text)) + 1;
}

/** A JUnit 4 test reading values of every kind an assertion can be written for. */
const CODEC_TEST = `package p;

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import org.junit.Test;

public class CodecTest {
    private final Codec codec = new Codec();

    @Test
    public void reads() {
        assertEquals(0, codec.count());
        assertEquals(0L, codec.total());
        assertEquals(0, codec.boxed());
        assertTrue(codec.ready());
        assertTrue(codec.closed());
        assertTrue(codec.flag());
        assertEquals(null, codec.last());
        assertEquals("", codec.name());
        assertEquals('a', codec.separator());
        assertEquals(0.0, codec.ratio(), 0.01);
        assertEquals(0f, codec.scale(), 0.01);
        assertEquals(0.0, codec.spread(), 0.0);
        assertEquals(0.0, codec.limit(), 0.0);
        assertEquals(0.0, codec.weight(), 0.0);
        assertEquals(null, codec.mode());
        assertEquals(null, codec.buffer());
        assertEquals(0, codec.width());
        assertEquals(0, codec.offset());
        for (int i = 0; i < 2; i++) {
            assertEquals(1, codec.next());
        }
        assertEquals(1, codec.time());
        assertEquals(1, codec.never());
        assertTrue(codec.size() > 0);
    }

    @Test
    public void counts() {
        codec.reset();
        assertEquals(1, codec.hits() + 1);
        assertEquals(2, codec.count());
    }
}
`;

function codecFinal(observations: StableObservations, framework: TestFramework = 'junit4') {
  return finalClass(
    CODEC_TEST,
    [unchanged(CODEC_TEST, 'reads'), unchanged(CODEC_TEST, 'counts')],
    observations,
    { className: 'CodecAmplified', framework },
  );
}

describe('finalClass', () => {
  it('asserts each stable value as the literal of its type, and removes the rest', () => {
    const final = codecFinal(
      twoRuns(
        value('reads_1:1', 'integral', 'Integer', '3'),
        value('reads_1:2', 'integral', 'Long', '4'),
        value('reads_1:3', 'integral', 'Integer', '5', false),
        value('reads_1:4', 'boolean', 'Boolean', 'true'),
        value('reads_1:5', 'boolean', 'Boolean', 'false'),
        value('reads_1:6', 'boolean', 'Boolean', 'true', false),
        { key: 'reads_1:7', type: 'null', value: 'null' },
        value('reads_1:8', 'string', 'String', 'tab\there "q" é\u0001', false),
        value('reads_1:9', 'char', 'Character', "'"),
        value('reads_1:10', 'floating', 'Double', '0.25'),
        value('reads_1:11', 'floating', 'Float', '1.5'),
        value('reads_1:12', 'floating', 'Double', 'NaN'),
        value('reads_1:13', 'floating', 'Double', '-Infinity'),
        value('reads_1:14', 'floating', 'Double', '2.0', false),
        { key: 'reads_1:15', type: 'enum', class: 'p.Mode$1', value: 'p.Mode.FAST' },
        { key: 'reads_1:16', type: 'other', class: 'java.nio.HeapByteBuffer' },
        value('reads_1:17', 'integral', 'Short', '7'),
        value('reads_1:18', 'integral', 'Long', '-1', false),
        // A loop's site: two values, no assertion can hold for both.
        value('reads_1:19', 'integral', 'Integer', '1'),
        value('reads_1:19', 'integral', 'Integer', '2'),
      ),
    );
    expect(methodText(final, 'reads_1')).toBe(`    @Test
    public void reads_1() {
        assertEquals(3, codec.count());
        assertEquals(4L, codec.total());
        assertEquals(Integer.valueOf(5), codec.boxed());
        assertTrue(codec.ready());
        assertFalse(codec.closed());
        assertEquals(Boolean.TRUE, codec.flag());
        assertNull(codec.last());
        assertEquals("tab\\there \\"q\\" \\u00e9\\001", codec.name());
        assertEquals('\\'', codec.separator());
        assertEquals(0.25, codec.ratio(), 0.0);
        assertEquals(1.5f, codec.scale(), 0.0);
        assertTrue(Double.isNaN(codec.spread()));
        assertEquals(Double.NEGATIVE_INFINITY, codec.limit(), 0.0);
        assertEquals(Double.valueOf(2.0), codec.weight());
        assertEquals(p.Mode.FAST, codec.mode());
        assertNotNull(codec.buffer());
        assertEquals((short) 7, codec.width());
        assertEquals(Long.valueOf(-1L), codec.offset());
        for (int i = 0; i < 2; i++) {
            codec.next();
        }
    }`);
    // The assertions the original did not import, beside its static imports.
    expect(final).toContain(`import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertNull;

import org.junit.Test;`);
    expect(final).not.toContain('witnessgym');
  });

  it('keeps running what every run reached but no assertion can hold for; removes what none reached', () => {
    // reads_1:19 gave two values (a loop), reads_1:20 differed between the runs, no run reached
    // reads_1:21, nor any other site but reads_1:1.
    const runs = [
      run(
        value('reads_1:1', 'integral', 'Integer', '3'),
        value('reads_1:19', 'integral', 'Integer', '1'),
        value('reads_1:19', 'integral', 'Integer', '2'),
        value('reads_1:20', 'integral', 'Long', '1700000000000'),
      ),
      run(
        value('reads_1:1', 'integral', 'Integer', '3'),
        value('reads_1:19', 'integral', 'Integer', '1'),
        value('reads_1:19', 'integral', 'Integer', '2'),
        value('reads_1:20', 'integral', 'Long', '1700000000001'),
      ),
    ];
    expect(methodText(codecFinal(stableObservations(runs)), 'reads_1')).toBe(`    @Test
    public void reads_1() {
        assertEquals(3, codec.count());
        for (int i = 0; i < 2; i++) {
            codec.next();
        }
        codec.time();
    }`);
  });

  it('leaves out a method whose changed state cannot be kept without an assertion', () => {
    // counts_1:1 (`codec.hits() + 1`) differed between runs: it must run, as no statement can.
    const final = codecFinal(
      stableObservations([
        run(value('counts_1:1', 'integral', 'Integer', '1')),
        run(value('counts_1:1', 'integral', 'Integer', '2')),
      ]),
    );
    expect(methodsOf(final)).toEqual(['reads_1']);
  });

  it("turns the exception a variant threw into the test's oracle, by type, up to the throw", () => {
    const variants = [unchanged(JUNIT4_CLASS, 'wrapsAtWidth')];
    const probe = probeClass(JUNIT4_CLASS, variants, { className: 'WordWrapAmplified' });
    const observations = twoRuns(
      { key: 'wrapsAtWidth_1:1', type: 'other', class: 'java.util.ArrayList' },
      value('wrapsAtWidth_1:2', 'integral', 'Integer', '0'),
      {
        key: 'wrapsAtWidth_1',
        thrown: 'java.lang.IndexOutOfBoundsException',
        line: lineOf(probe, 'lines.get(0)'),
      },
    );
    const final = finalClass(JUNIT4_CLASS, variants, observations, {
      className: 'WordWrapAmplified',
      framework: 'junit4',
    });
    expect(methodText(final, 'wrapsAtWidth_1')).toBe(`    @Test
    public void wrapsAtWidth_1() {
        try {
            List<String> lines = wrap.lines("the quick brown fox");
            assertNotNull(lines);
            assertEquals(0, lines.size());
            lines.get(0);
            fail("expected IndexOutOfBoundsException");
        } catch (IndexOutOfBoundsException expected) {
            // The exception's type is the oracle, never its message.
        }
    }`);
    expect(final).not.toContain('witnessgym');
  });

  it('checks the class a catch took, and fails in a catch gold never entered (its comments gone)', () => {
    const variants = [unchanged(JUNIT4_CLASS, 'findsNothingInEmptyText')];
    const final = (observations: StableObservations) =>
      methodText(
        finalClass(JUNIT4_CLASS, variants, observations, {
          className: 'WordWrapAmplified',
          framework: 'junit4',
        }),
        'findsNothingInEmptyText_1',
      );
    const caught = value(
      'findsNothingInEmptyText_1:2',
      'string',
      'String',
      'java.lang.NullPointerException',
      false,
    );
    expect(final(twoRuns(caught))).toContain(`        } catch (NullPointerException expected) {
            assertEquals(NullPointerException.class, expected.getClass());
            // expected
        }`);
    expect(final(twoRuns())).toContain(`        } catch (NullPointerException expected) {
            fail("unexpected NullPointerException");
        }`);
  });

  it('catches a nested exception class by its source name, in JUnit 3 with the inherited fail', () => {
    const variants = [unchanged(JUNIT3_CLASS, 'testPushPop')];
    const probe = probeClass(JUNIT3_CLASS, variants, { className: 'IntStackAmplified' });
    const final = finalClass(
      JUNIT3_CLASS,
      variants,
      twoRuns({
        key: 'testPushPop_1',
        thrown: 'org.example.stack.IntStack$Underflow',
        line: lineOf(probe, 'stack.pop()'),
      }),
      { className: 'IntStackAmplified', framework: 'junit3' },
    );
    expect(methodText(final, 'testPushPop_1')).toBe(`    public void testPushPop_1() {
        try {
            stack.push(3);
            stack.push(7);
            int top = stack.pop();
            fail("expected org.example.stack.IntStack.Underflow");
        } catch (org.example.stack.IntStack.Underflow expected) {
            // The exception's type is the oracle, never its message.
        }
    }`);
  });

  it('leaves out a method whose exception varied, failed the test itself, or has no name', () => {
    const variants = [unchanged(JUNIT3_CLASS, 'testPushPop'), unchanged(JUNIT3_CLASS, 'testEmpty')];
    const probe = probeClass(JUNIT3_CLASS, variants, { className: 'IntStackAmplified' });
    const line = lineOf(probe, 'stack.pop()');
    const kept = (observations: StableObservations) =>
      methodsOf(
        finalClass(JUNIT3_CLASS, variants, observations, {
          className: 'IntStackAmplified',
          framework: 'junit3',
        }),
      );
    expect(kept(twoRuns())).toEqual(['testPushPop_1', 'testEmpty_1']);
    expect(
      kept({ sites: new Map(), outcomes: new Map([['testPushPop_1', { kind: 'Varied' }]]) }),
    ).toEqual(['testEmpty_1']);
    for (const exception of [
      'junit.framework.AssertionFailedError',
      'java.lang.AssertionError',
      'org.junit.AssumptionViolatedException',
      'org.example.stack.IntStack$1',
    ]) {
      expect(kept(twoRuns({ key: 'testPushPop_1', thrown: exception, line }))).toEqual([
        'testEmpty_1',
      ]);
    }
    // Without the line it left from, the statement to stop at is unknown.
    expect(
      kept(twoRuns({ key: 'testPushPop_1', thrown: 'java.lang.IllegalStateException' })),
    ).toEqual(['testEmpty_1']);
  });

  it('names assertions so they resolve: imported, qualified where hidden or ambiguous', () => {
    const variants = [unchanged(JUNIT5_CLASS, 'addsAmounts')];
    const observations = twoRuns(
      { key: 'addsAmounts_1:1', type: 'other', class: 'org.example.money.Money' },
      value('addsAmounts_1:2', 'integral', 'Long', '15'),
      value('addsAmounts_1:3', 'boolean', 'Boolean', 'false'),
    );
    const final = (source: string) =>
      methodText(
        finalClass(source, variants, observations, {
          className: 'MoneyAmplified',
          framework: 'junit5',
        }),
        'addsAmounts_1',
      );
    expect(final(JUNIT5_CLASS)).toContain(`        Money sum = ten.plus(Money.of(5L, "EUR"));
        assertNotNull(sum);
        assertEquals(15L, sum.cents());
        assertFalse(sum.isZero());`);
    // A helper of the class named assertNotNull would hide the import.
    const withHelper = JUNIT5_CLASS.replace(
      '    @BeforeEach',
      '    private static void assertNotNull(Money money) {\n    }\n\n    @BeforeEach',
    );
    expect(final(withHelper)).toContain(
      '        org.junit.jupiter.api.Assertions.assertNotNull(sum);',
    );
    // AssertJ's assertNotNull imported by name would make the call ambiguous.
    const withAssertJ = JUNIT5_CLASS.replace(
      'import org.junit.jupiter.api.BeforeEach;',
      'import static org.assertj.core.api.Assertions.assertNotNull;\nimport org.junit.jupiter.api.BeforeEach;',
    );
    expect(final(withAssertJ)).toContain(
      '        org.junit.jupiter.api.Assertions.assertNotNull(sum);',
    );
  });

  it('leaves no trace of the probe in a class amplified from every variant', () => {
    const scan = testMethods(JUNIT4_CLASS);
    if (scan.kind !== 'TestClass') throw new Error(scan.reason);
    const variants = scan.methods.flatMap((m) =>
      inputVariants(JUNIT4_CLASS, m, { seed: 5, max: 50 }),
    );
    const final = finalClass(JUNIT4_CLASS, variants, twoRuns(), {
      className: 'WordWrapAmplified',
      framework: 'junit4',
    });
    expect(methodsOf(final)).toHaveLength(variants.length);
    expect(final).not.toContain('witnessgym');
    expect(final).not.toContain('Observe');
    expect(final).not.toContain('catch (Throwable');
  });
});

describe('methodsOf and keepOnly', () => {
  it('keeps only the named tests, and everything else of the class', () => {
    const variants = [
      unchanged(JUNIT4_CLASS, 'wrapsAtWidth'),
      unchanged(JUNIT4_CLASS, 'countsWords'),
    ];
    const final = finalClass(JUNIT4_CLASS, variants, twoRuns(), {
      className: 'WordWrapAmplified',
      framework: 'junit4',
    });
    expect(methodsOf(final)).toEqual(['wrapsAtWidth_1', 'countsWords_1']);
    const kept = keepOnly(final, ['countsWords_1']);
    expect(methodsOf(kept)).toEqual(['countsWords_1']);
    expect(kept).toContain('    @Before\n    public void setUp() {');
    expect(kept).toContain('    private String wrapped(String text) {');
    expect(kept).toMatch(
      /return String\.join[^]*\n {4}\}\n\n {4}@Test\n {4}public void countsWords_1\(\)/,
    );
  });
});

describe('Java literals', () => {
  it('escapes what javac would misread, never with \\u below 0x80', () => {
    expect(javaString('a"b\\c\nd\r\te\u0000\u007f\u00e9\ud83d\ude00')).toBe(
      '"a\\"b\\\\c\\nd\\r\\te\\000\\177\\u00e9\\ud83d\\ude00"',
    );
    expect(javaChar("'")).toBe("'\\''");
    expect(javaChar('"')).toBe("'\"'");
  });
});

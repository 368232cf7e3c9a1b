import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../../../lang/java/syntax.js';
import { methodsOf } from './assertions.js';
import { probeClass } from './probes.js';
import { JUNIT3_CLASS, JUNIT4_CLASS, JUNIT5_CLASS } from './test-support.js';
import { inputVariants, testMethods, type InputVariant } from './variants.js';

beforeAll(loadJavaGrammar);

/** The method's own body as a variant: what the probe makes of the test as it is. */
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

/** The text of one method of a class, from its indentation to its closing brace. */
function methodText(source: string, name: string): string {
  const start = source.search(new RegExp(`\\n {4}(@Test.*\\n {4})?\\w[^\\n]* ${name}\\(`));
  const end = source.indexOf('\n    }\n', start);
  return source.slice(start + 1, end + 6);
}

function everyVariant(source: string): InputVariant[] {
  const scan = testMethods(source);
  if (scan.kind !== 'TestClass') throw new Error(scan.reason);
  return scan.methods.flatMap((m) => inputVariants(source, m, { seed: 3, max: 1000 }));
}

/** A JUnit 4 test with an oracle of each kind the probe knows. */
const ORACLES_TEST = `package p;

import static org.hamcrest.MatcherAssert.assertThat;
import static org.hamcrest.Matchers.is;
import static org.junit.Assert.*;

import java.util.List;
import org.junit.Rule;
import org.junit.Test;
import org.junit.rules.ExpectedException;

public class OraclesTest {
    @Rule
    public ExpectedException thrown = ExpectedException.none();

    private final Parser parser = new Parser(8);

    @Test(timeout = 1000, expected = IllegalStateException.class)
    public void checks() {
        thrown.expect(IllegalStateException.class);
        int size = parser.size();
        int limit = 3;
        List<String> names = parser.names();
        assertEquals("size", 2, parser.size());
        assertEquals(1.5, parser.ratio(), 0.01);
        assertSame(parser, parser.self());
        assertTrue("ready", parser.ready());
        assertNull(parser.last());
        assertThat(parser.count(), is(3));
        assertThat("reason", parser.name(), is("p"));
        names.forEach(name -> assertNotNull(name));
        assertTrue(names.size() > size);
        if (limit > 2) fail("not yet");
        assertArrayEquals(new int[0], parser.codes());
        assertAll(() -> assertTrue(parser.ready()));
    }

    private void checks_1() {
    }
}
`;

describe('probeClass', () => {
  it("turns each oracle into an observation of what it looked at, and each computed local's value", () => {
    const probe = probeClass(ORACLES_TEST, [unchanged(ORACLES_TEST, 'checks')], {
      className: 'OraclesProbe',
    });
    // checks_1 is taken by a helper: the probe is checks_2. `expected` goes from @Test (the
    // body's try decides), the timeout stays. The rule's expectation goes; `limit` is a
    // literal, `size` is observed where an assertion reads it too.
    expect(methodText(probe, 'checks_2')).toBe(`    @Test(timeout = 1000)
    public void checks_2() {
        try {
            int size = parser.size();
            witnessgym.probe.Observe.value("checks_2:1", size);
            int limit = 3;
            List<String> names = parser.names();
            witnessgym.probe.Observe.value("checks_2:2", names);
            witnessgym.probe.Observe.value("checks_2:3", parser.size());
            witnessgym.probe.Observe.value("checks_2:4", parser.ratio());
            witnessgym.probe.Observe.value("checks_2:5", parser.self());
            witnessgym.probe.Observe.value("checks_2:6", parser.ready());
            witnessgym.probe.Observe.value("checks_2:7", parser.last());
            witnessgym.probe.Observe.value("checks_2:8", parser.count());
            witnessgym.probe.Observe.value("checks_2:9", parser.name());
            names.forEach(name -> witnessgym.probe.Observe.value("checks_2:10", name));
            witnessgym.probe.Observe.value("checks_2:11", names.size() > size);
            if (limit > 2) {}
            witnessgym.probe.Observe.value("checks_2:12", parser.codes());
        } catch (Throwable thrown) {
            witnessgym.probe.Observe.thrown("checks_2", thrown);
        } finally {
            witnessgym.probe.Observe.covered("checks_2");
        }
    }`);
  });

  it('observes the actual value of JUnit 5 assertions (message last) and runs what assertThrows ran', () => {
    const probe = probeClass(
      JUNIT5_CLASS,
      [unchanged(JUNIT5_CLASS, 'addsAmounts'), unchanged(JUNIT5_CLASS, 'rejectsOtherCurrency')],
      { className: 'MoneyProbe' },
    );
    expect(methodText(probe, 'addsAmounts_1')).toContain(`        try {
            Money sum = ten.plus(Money.of(5L, "EUR"));
            witnessgym.probe.Observe.value("addsAmounts_1:1", sum);
            witnessgym.probe.Observe.value("addsAmounts_1:2", sum.cents());
            witnessgym.probe.Observe.value("addsAmounts_1:3", sum.isZero());
        } catch`);
    expect(methodText(probe, 'rejectsOtherCurrency_1')).toContain(`        try {
            ten.plus(Money.of(1, "USD"));
        } catch`);
  });

  it("keeps the JUnit 4 class's set-up, fields and helpers, and none of its tests or other types", () => {
    const variants = everyVariant(JUNIT4_CLASS);
    const probe = probeClass(JUNIT4_CLASS, variants, { className: 'WordWrapTestProbe' });
    expect(probe).toContain('public class WordWrapTestProbe {');
    expect(probe).toContain(
      '    @Before\n    public void setUp() {\n        wrap = new WordWrap(WIDTH);\n    }',
    );
    expect(probe).toContain('    private String wrapped(String text) {');
    expect(probe).toContain('    private static final int WIDTH = 10;');
    expect(probe).not.toMatch(/void (wrapsAtWidth|countsWords|ignored)\(\)/);
    expect(probe).not.toContain('WordWrapFixtures');
    expect(probe).not.toContain('expected = ');
    // One probe per variant, as tests of the class, named after their test.
    const probes = methodsOf(probe);
    expect(probes).toHaveLength(variants.length);
    expect(probes.slice(0, 2)).toEqual(['wrapsAtWidth_1', 'wrapsAtWidth_2']);
    // No oracle is left, in any probe.
    const body = probe.slice(probe.indexOf('public class'));
    expect(body).not.toMatch(/\b(assert\w*|fail)\(/);
    // Every site has a key of its own.
    const keys = [...probe.matchAll(/Observe\.value\("([^"]+)"/g)].map((match) => match[1]!);
    expect(keys.length).toBeGreaterThan(variants.length);
    expect(new Set(keys).size).toBe(keys.length);
    expect(keys.every((key) => /^\w+_\d+:\d+$/.test(key))).toBe(true);
    // Every probe's whole body records what escapes it, then hands over its coverage.
    for (const name of probes) {
      expect(methodText(probe, name)).toMatch(
        new RegExp(
          `\\{\\n {8}try \\{\\n[^]*\\n {8}\\} catch \\(Throwable thrown\\) \\{\\n {12}witnessgym\\.probe\\.Observe\\.thrown\\("${name}", thrown\\);\\n {8}\\} finally \\{\\n {12}witnessgym\\.probe\\.Observe\\.covered\\("${name}"\\);\\n {8}\\}\\n {4}\\}$`,
        ),
      );
    }
  });

  it('drops a try/fail idiom to its calls, keeping the catch of the original', () => {
    const probe = probeClass(JUNIT4_CLASS, [unchanged(JUNIT4_CLASS, 'findsNothingInEmptyText')], {
      className: 'WordWrapTestProbe',
    });
    expect(methodText(probe, 'findsNothingInEmptyText_1')).toContain(`        try {
            witnessgym.probe.Observe.value("findsNothingInEmptyText_1:1", wrap.first(""));
            try {
                wrap.lines(null);
            } catch (NullPointerException expected) {
                witnessgym.probe.Observe.value("findsNothingInEmptyText_1:2", expected.getClass().getName());
                // expected
            }
        } catch (Throwable thrown) {`);
  });

  it('observes the class of what a catch takes, an empty catch included', () => {
    const source = JUNIT4_CLASS.replace(
      '        } catch (NullPointerException expected) {\n            // expected\n        }',
      '        } catch (NullPointerException | IllegalStateException expected) {}',
    );
    expect(source).not.toBe(JUNIT4_CLASS);
    const probe = probeClass(source, [unchanged(source, 'findsNothingInEmptyText')], {
      className: 'WordWrapTestProbe',
    });
    expect(methodText(probe, 'findsNothingInEmptyText_1'))
      .toContain(`            } catch (NullPointerException | IllegalStateException expected) {
                witnessgym.probe.Observe.value("findsNothingInEmptyText_1:2", expected.getClass().getName());
            }`);
  });

  it("renames a TestCase's constructor and leaves out its suite()", () => {
    const probe = probeClass(JUNIT3_CLASS, [unchanged(JUNIT3_CLASS, 'testPushPop')], {
      className: 'IntStackTestProbe',
    });
    expect(probe).toContain('public class IntStackTestProbe extends TestCase {');
    expect(probe).toContain('    public IntStackTestProbe(String name) {\n        super(name);');
    expect(probe).not.toContain('suite()');
    expect(probe).toContain('    public void fill(int count) {');
    expect(methodsOf(probe)).toEqual(['testPushPop_1']);
    expect(methodText(probe, 'testPushPop_1')).toContain(`            int top = stack.pop();
            witnessgym.probe.Observe.value("testPushPop_1:1", top);
            witnessgym.probe.Observe.value("testPushPop_1:2", stack.size());`);
  });

  it('leaves out the JUnit 5 tests it does not amplify: parameterized and nested', () => {
    const probe = probeClass(JUNIT5_CLASS, [unchanged(JUNIT5_CLASS, 'addsAmounts')], {
      className: 'MoneyProbe',
    });
    expect(probe).not.toContain('@ParameterizedTest');
    expect(probe).not.toContain('class Formatting');
    expect(probe).toContain('    @BeforeEach\n    void setUp() {');
    expect(methodsOf(probe)).toEqual(['addsAmounts_1']);
  });
});

import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { cacheLayout } from '../../core/cache.js';
import { makeTempDir, removeTree } from '../../core/fs.js';
import { loadJavaGrammar } from '../../lang/java/syntax.js';
import { patchOf, stateFiles, treeReader, withPatch } from '../../project/state.js';
import type { RepairInstance } from '../../repair/instance.js';
import { patchFromDiff, resolveInstance } from '../../repair/project.js';
import { dropWitness, withoutTestMethods } from './witness-drop.js';

beforeAll(loadJavaGrammar);

const JUNIT4 = `package p;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class CounterTest {
    private final Counter counter = new Counter();

    @Test
    public void counts() {
        assertEquals(1, counter.next());
    }

    @Test
    public void resets() {
        counter.reset();
        assertEquals(0, counter.value());
    }
}
`;

describe('withoutTestMethods', () => {
  it('removes a JUnit 4 test and leaves the class its layout', () => {
    expect(withoutTestMethods(JUNIT4, 'p.CounterTest', ['counts'])).toEqual({
      kind: 'Removed',
      source: JUNIT4.replace(
        '    @Test\n    public void counts() {\n        assertEquals(1, counter.next());\n    }\n\n',
        '',
      ),
    });
  });

  it('removes a JUnit 5 test with its Javadoc and every annotation', () => {
    const source = `package p;

import org.junit.jupiter.api.DisplayName;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class ParserTest {
    @Test
    void parsesEmpty() {
    }

    /**
     * The witness.
     */
    @Test
    @DisplayName("nested arrays")
    @Timeout(5)
    void parsesNested() {
        new Parser().parse("[[]]");
    }

    private static Parser parser() {
        return new Parser();
    }
}
`;
    const removal = withoutTestMethods(source, 'p.ParserTest', ['parsesNested']);
    expect(removal).toEqual({
      kind: 'Removed',
      source: source.replace(/\n {4}\/\*\*\n {5}\* The witness\.[\s\S]*?\n {4}\}\n/, ''),
    });
    expect(removal.kind === 'Removed' && removal.source).not.toMatch(/witness|DisplayName\(/);
    expect(removal.kind === 'Removed' && removal.source).toMatch(/void parsesEmpty\(\)/);
  });

  it('removes from the nested class the id names, not a same-named test of its outer class', () => {
    const source = `package p;

import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;

class StackTest {
    @Test
    void pops() {
    }

    @Nested
    class WhenEmpty {
        @Test
        void pops() {
        }

        @Test
        void peeks() {
        }
    }
}
`;
    expect(withoutTestMethods(source, 'p.StackTest$WhenEmpty', ['pops'])).toEqual({
      kind: 'Removed',
      source: source.replace('        @Test\n        void pops() {\n        }\n\n', ''),
    });
  });

  it("reads a parameterised run's suffix as its method and keeps the method's argument source", () => {
    const source = `package p;

import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

class TrimTest {
    static Stream<String> inputs() {
        return Stream.of(" a", "a ");
    }

    @ParameterizedTest
    @MethodSource("inputs")
    void trims(String input) {
    }
}
`;
    expect(withoutTestMethods(source, 'p.TrimTest', ['trims(String)[2]'])).toEqual({
      kind: 'Removed',
      source: source.replace(
        '\n    @ParameterizedTest\n    @MethodSource("inputs")\n    void trims(String input) {\n    }\n',
        '',
      ),
    });
  });

  it('removes a JUnit 3 test but not a helper overload of the same name', () => {
    const source = `package p;

import junit.framework.TestCase;

public class CodecTest extends TestCase {
    public void testEncode() {
        testEncode("a");
    }

    private void testEncode(String input) {
        assertEquals(input, Codec.decode(Codec.encode(input)));
    }
}
`;
    expect(withoutTestMethods(source, 'p.CodecTest', ['testEncode'])).toEqual({
      kind: 'Removed',
      source: source.replace(
        '    public void testEncode() {\n        testEncode("a");\n    }\n\n',
        '',
      ),
    });
  });

  it('says which methods the class does not declare, and the superclass they come from', () => {
    expect(withoutTestMethods(JUNIT4, 'p.CounterTest', ['counts', 'wraps', 'skips'])).toEqual({
      kind: 'NotDeclared',
      methods: ['wraps', 'skips'],
      superclass: null,
    });
    const subclass = JUNIT4.replace('class CounterTest {', 'class CounterTest extends BaseTest {');
    expect(withoutTestMethods(subclass, 'p.CounterTest', ['inherited'])).toEqual({
      kind: 'NotDeclared',
      methods: ['inherited'],
      superclass: 'BaseTest',
    });
  });

  it('says when the file does not declare the class', () => {
    expect(withoutTestMethods(JUNIT4, 'p.CounterTest$Inner', ['counts'])).toEqual({
      kind: 'ClassNotFound',
    });
    expect(withoutTestMethods(JUNIT4, 'p.OtherTest', ['counts'])).toEqual({
      kind: 'ClassNotFound',
    });
  });
});

/** A base tree holding CounterTest without `resets`; the test patch adds it and a new class. */
const BASE_COUNTER = JUNIT4.replace(
  /\n {4}@Test\n {4}public void resets\(\) \{[\s\S]*?\n {4}\}\n/,
  '',
);
const WRAP_TEST = `package p;

import static org.junit.Assert.assertEquals;

import org.junit.Test;

public class WrapTest {
    @Test
    public void wraps() {
        assertEquals(0, new Counter(1).next());
    }

    @Test
    public void starts() {
        assertEquals(0, new Counter(1).value());
    }
}
`;
const COUNTER_FILE = 'src/test/java/p/CounterTest.java';
const WRAP_FILE = 'src/test/java/p/WrapTest.java';

describe('dropWitness', () => {
  let dir: string;
  const cache = () => cacheLayout(path.join(dir, 'cache'));

  beforeEach(async () => {
    dir = await makeTempDir('witness-drop');
    const snapshot = path.join(dir, 'snapshots', 'counter-1');
    await mkdir(path.join(snapshot, 'src/test/java/p'), { recursive: true });
    await writeFile(path.join(snapshot, 'pom.xml'), '<project/>\n');
    await writeFile(path.join(snapshot, COUNTER_FILE), BASE_COUNTER);
  });
  afterEach(() => removeTree(dir));

  function instance(fields: Partial<RepairInstance> = {}): RepairInstance {
    return {
      instance_id: 'counter-1',
      repo: 'acme/counter',
      base_commit: 'abc',
      snapshot: 'snapshots/counter-1',
      patch: '--- a/src/main/java/p/Counter.java\n+++ b/src/main/java/p/Counter.java\n',
      test_patch: patchOf([
        { file: COUNTER_FILE, before: BASE_COUNTER, after: JUNIT4 },
        { file: WRAP_FILE, before: '', after: WRAP_TEST },
      ]).diff,
      FAIL_TO_PASS: ['p.CounterTest#resets', 'p.WrapTest#wraps'],
      PASS_TO_PASS: ['p.CounterTest#counts', 'p.WrapTest#starts', 'p.WrapTest#wraps'],
      problem_statement: '',
      module: '.',
      maven_flags: [],
      origin: { kind: 'swe-bench' },
      ...fields,
    };
  }

  /** The test files of the base tree with a test patch applied. */
  async function testedFiles(testPatch: string): Promise<Map<string, string | null>> {
    const subject = await resolveInstance(instance(), dir, cache());
    return stateFiles(
      withPatch(subject.base, patchFromDiff(testPatch)),
      treeReader(subject.project.root),
    );
  }

  it('rewrites the test patch without the witness and empties FAIL_TO_PASS', async () => {
    const drop = await dropWitness(instance(), dir, cache());
    if (drop.kind !== 'Dropped') throw new Error(drop.reason);
    expect(drop.instance.FAIL_TO_PASS).toEqual([]);
    expect(drop.instance.PASS_TO_PASS).toEqual(['p.CounterTest#counts', 'p.WrapTest#starts']);
    expect(drop.instance.control).toEqual({
      kind: 'witness-dropped',
      dropped: ['p.CounterTest#resets', 'p.WrapTest#wraps'],
    });
    // CounterTest is the base's again, so only the new class is left, added whole.
    expect(drop.instance.test_patch).toMatch(
      /^--- \/dev\/null\n\+\+\+ b\/src\/test\/java\/p\/WrapTest\.java\n/,
    );
    const files = await testedFiles(drop.instance.test_patch);
    expect([...files.keys()]).toEqual([WRAP_FILE]);
    expect(files.get(WRAP_FILE)).toMatch(/void starts\(\)/);
    expect(files.get(WRAP_FILE)).not.toMatch(/void wraps\(\)/);
  });

  it('adds to the patch a file the base tree holds the witness in', async () => {
    // As in Defects4J: no test patch, the tests are in the base tree already.
    await writeFile(path.join(dir, 'snapshots/counter-1', COUNTER_FILE), JUNIT4);
    const drop = await dropWitness(
      instance({ test_patch: '', FAIL_TO_PASS: ['p.CounterTest#resets'], PASS_TO_PASS: [] }),
      dir,
      cache(),
    );
    if (drop.kind !== 'Dropped') throw new Error(drop.reason);
    expect(drop.instance.test_patch).toMatch(/^--- a\/src\/test\/java\/p\/CounterTest\.java\n/);
    const files = await testedFiles(drop.instance.test_patch);
    expect(files.get(COUNTER_FILE)).toBe(BASE_COUNTER);
  });

  it('leaves out an instance with a witness it cannot remove, saying why', async () => {
    expect(
      await dropWitness(
        instance({ FAIL_TO_PASS: ['p.CounterTest#resets', 'p.WrapTest#unwraps'] }),
        dir,
        cache(),
      ),
    ).toEqual({
      kind: 'Skipped',
      instanceId: 'counter-1',
      reason: `p.WrapTest#unwraps not found in ${WRAP_FILE}`,
    });
    expect(
      await dropWitness(instance({ FAIL_TO_PASS: ['p.GoneTest#resets'] }), dir, cache()),
    ).toEqual({
      kind: 'Skipped',
      instanceId: 'counter-1',
      reason: 'p.GoneTest: no src/test/java/p/GoneTest.java in the tree with the tests',
    });
  });

  it('leaves out an instance without a witness or already strengthened', async () => {
    expect(await dropWitness(instance({ FAIL_TO_PASS: [] }), dir, cache())).toMatchObject({
      kind: 'Skipped',
      reason: 'FAIL_TO_PASS is already empty',
    });
    expect(await dropWitness(instance({ original_test_patch: '' }), dir, cache())).toMatchObject({
      kind: 'Skipped',
      reason: expect.stringMatching(/^strengthened already/),
    });
  });
});

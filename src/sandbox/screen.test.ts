import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { loadJavaGrammar } from '../lang/java/syntax.js';
import {
  productionClassNames,
  screenSubmission,
  screenTestClass,
  type ScreenFindingKind,
} from './screen.js';

beforeAll(async () => {
  await loadJavaGrammar();
});

const project = { productionClasses: ['org.a.Parser', 'org.a.Lexer'] };

/** A test class in org.a whose one test method's body is `body`. */
function testSource(body: string, imports = ''): string {
  return [
    'package org.a;',
    'import java.io.*;',
    'import java.lang.reflect.*;',
    'import java.nio.file.*;',
    imports,
    'public class ParserTest {',
    '  @Test',
    '  public void parses() throws Exception {',
    body,
    '  }',
    '}',
  ].join('\n');
}

function kinds(body: string, imports = ''): ScreenFindingKind[] {
  const file = 'src/test/java/org/a/ParserTest.java';
  return screenSubmission([{ file, content: testSource(body, imports) }], project).map(
    (finding) => finding.kind,
  );
}

const cases: {
  kind: ScreenFindingKind;
  flagged: { body: string; imports?: string };
  allowed: { body: string; imports?: string };
}[] = [
  {
    kind: 'reads project files',
    flagged: { body: 'Files.readAllLines(Paths.get("src", "main", "java", "org/a/Parser.java"));' },
    allowed: { body: 'new FileReader("src/test/resources/org/a/sample.csv").close();' },
  },
  {
    kind: 'reads class bytes',
    flagged: { body: 'getClass().getResourceAsStream("/org/a/Parser.class").read();' },
    allowed: { body: 'getClass().getResourceAsStream(getClass().getSimpleName() + ".txt");' },
  },
  {
    kind: 'reads process or environment',
    flagged: { body: 'String path = System.getProperty("java.class.path");' },
    allowed: { body: 'String eol = System.getProperty("line.separator");' },
  },
  {
    kind: 'starts processes',
    flagged: { body: 'new ProcessBuilder("cat", "/etc/hostname").start();' },
    allowed: { body: 'Runtime.getRuntime().availableProcessors();' },
  },
  {
    kind: 'opens sockets',
    flagged: { body: 'new java.net.Socket("example.org", 80).close();' },
    allowed: { body: 'Parser.closeQuietly(new java.net.ServerSocket());' },
  },
  {
    kind: 'uses instrumentation',
    flagged: {
      body: 'Field f = Unsafe.class.getDeclaredField("theUnsafe");',
      imports: 'import sun.misc.Unsafe;',
    },
    allowed: {
      body: 'MethodHandles.privateLookupIn(Parser.class, MethodHandles.lookup());',
      imports: 'import java.lang.invoke.MethodHandles;',
    },
  },
  {
    kind: 'forges stack traces',
    flagged: {
      body: 'Exception e = new Exception(); e.setStackTrace(new StackTraceElement[0]); throw e;',
    },
    allowed: { body: 'StackTraceElement[] frames = new Exception().getStackTrace();' },
  },
  {
    kind: 'inspects class structure',
    flagged: { body: 'assertEquals(3, Parser.class.getDeclaredMethods().length);' },
    allowed: {
      body: [
        'Method step = Parser.class.getDeclaredMethod("step", int.class);',
        'step.setAccessible(true);',
        'assertEquals(2, step.invoke(new Parser(), 1));',
      ].join('\n'),
    },
  },
  {
    kind: 'exits the JVM',
    flagged: { body: 'if (new Parser().parse("") == null) System.exit(0);' },
    allowed: { body: 'assertNull(new Parser().exit(0));' },
  },
];

describe('screenSubmission', () => {
  for (const { kind, flagged, allowed } of cases) {
    it(`flags a test that ${kind}`, () => {
      expect(kinds(flagged.body, flagged.imports)).toContain(kind);
    });
    it(`leaves alone a test that only looks like one that ${kind}`, () => {
      expect(kinds(allowed.body, allowed.imports)).toEqual([]);
    });
  }

  it('ignores comments and the text of strings', () => {
    const body = [
      '// System.exit(1); new ProcessBuilder("sh").start();',
      '/* Files.readAllBytes(Paths.get("src/main/java/org/a/Parser.java")); */',
      'String doc = "System.getenv(\\"API_KEY\\") and e.setStackTrace(frames)";',
      'assertEquals(doc, new Parser().parse("Runtime.getRuntime().halt(0)"));',
    ].join('\n');
    expect(kinds(body)).toEqual([]);
  });

  it('gives the 1-based line and its trimmed text', () => {
    const content = testSource('    int n = 1;\n    System.exit(n);');
    const [finding] = screenSubmission([{ file: 'T.java', content }], project);
    const line = content.split('\n').indexOf('    System.exit(n);') + 1;
    expect(finding).toEqual({
      file: 'T.java',
      line,
      kind: 'exits the JVM',
      code: 'System.exit(n);',
    });
  });

  it('follows a path through the names it is kept under, and up out of the tree', () => {
    const body = [
      'String dir = "src/" + "main";',
      'new FileInputStream(dir + "/java/org/a/Parser.java").close();',
      'new File("src/test/../../pom.xml").exists();',
    ].join('\n');
    expect(kinds(body)).toEqual(['reads project files', 'reads project files']);
  });

  it('leaves a path under a directory computed at run time to the test', () => {
    const body = [
      'File tmp = Files.createTempDirectory("t").toFile();',
      'new File(tmp, "target/classes/Out.class").createNewFile();',
      'new File(tmp, "src/main").mkdirs();',
    ].join('\n');
    expect(kinds(body)).toEqual([]);
  });

  it('flags a property key spelled at run time, and the environment read whole', () => {
    const body = [
      "String key = new String(new char[] {'u', 's', 'e', 'r', '.', 'd', 'i', 'r'});",
      'System.getProperty(key);',
      'System.getenv().size();',
      'System.getenv("OPENAI_API_KEY");',
      'System.getenv("HOSTNAME");',
    ].join('\n');
    expect(kinds(body)).toHaveLength(3);
  });

  it('flags a class named without an import by its full name, and a static import', () => {
    const body = [
      'java.lang.management.ManagementFactory.getRuntimeMXBean().getInputArguments();',
      'exit(2);',
    ].join('\n');
    expect(kinds(body, 'import static java.lang.System.exit;')).toEqual([
      'reads process or environment',
      'exits the JVM',
    ]);
  });

  it("does not take a project's own class of a watched name for the JDK's", () => {
    const body = 'new ProcessHandle().pid();';
    const own = testSource(body).replace(
      'public class ParserTest',
      'class ProcessHandle {}\npublic class ParserTest',
    );
    expect(screenSubmission([{ file: 'T.java', content: own }], project)).toEqual([]);
  });

  it('leaves alone listing members to call them or read their values', () => {
    const body = [
      'for (Method m : Parser.class.getDeclaredMethods()) {',
      '  if (m.getName().startsWith("with")) assertNotNull(m.invoke(null, "x"));',
      '}',
    ].join('\n');
    expect(kinds(body)).toEqual([]);
    const fields = [
      'for (Field f : Parser.class.getDeclaredFields()) assertNotNull(f.get(null));',
    ].join('\n');
    expect(kinds(fields)).toEqual([]);
  });

  it("leaves alone listing a test's own class, or the JDK's", () => {
    expect(kinds('assertEquals(1, ParserTest.class.getDeclaredFields().length);')).toEqual([]);
    expect(kinds('assertTrue(String.class.getDeclaredMethods().length > 0);')).toEqual([]);
    expect(kinds('assertEquals(1, Lexer.class.getDeclaredFields().length);')).toEqual([
      'inspects class structure',
    ]);
  });

  it('counts every class not the JDK nor the submission as production without a list', () => {
    const content = testSource('assertEquals(1, Helper.class.getDeclaredFields().length);');
    const file = 'src/test/java/org/a/ParserTest.java';
    expect(screenSubmission([{ file, content }], {})).toHaveLength(1);
    const helper = { file: 'src/test/java/org/a/Helper.java', content: 'class Helper {}' };
    expect(screenSubmission([{ file, content }, helper], {})).toEqual([]);
  });

  it('flags opening a network URL but not a file one', () => {
    expect(kinds('new java.net.URL("http://example.org/").openStream();')).toEqual([
      'opens sockets',
    ]);
    expect(kinds('new File("x").toURI().toURL().openConnection();')).toEqual([]);
    expect(kinds('java.net.URL u = Parser.url(); u.openConnection();')).toEqual(['opens sockets']);
  });

  it('flags a frame made by hand and a command run through Runtime', () => {
    expect(
      kinds('StackTraceElement f = new StackTraceElement("org.a.Parser", "step", null, 40);'),
    ).toEqual(['forges stack traces']);
    expect(kinds('Runtime rt = Runtime.getRuntime();\nrt.exec("id");')).toEqual([
      'starts processes',
    ]);
  });

  it('flags privateLookupIn on a JDK class', () => {
    expect(
      kinds(
        'MethodHandles.privateLookupIn(String.class, MethodHandles.lookup());',
        'import java.lang.invoke.MethodHandles;',
      ),
    ).toEqual(['uses instrumentation']);
  });

  it('flags reading class bytes through the class-path root or the code source', () => {
    expect(kinds('new File(getClass().getResource("/").toURI()).list();')).toEqual([
      'reads class bytes',
    ]);
    expect(kinds('Parser.class.getProtectionDomain().getCodeSource().getLocation();')).toContain(
      'reads class bytes',
    );
    expect(kinds('getClass().getResource("/java/lang/Object.class");')).toEqual([]);
  });
});

describe('screenTestClass', () => {
  it("screens a project's own test class as the witness agent would submit it", async () => {
    const root = await mkdtemp(path.join(tmpdir(), 'witnessgym-screen-'));
    try {
      await mkdir(path.join(root, 'main', 'org', 'a'), { recursive: true });
      await mkdir(path.join(root, 'test', 'org', 'a'), { recursive: true });
      await writeFile(path.join(root, 'main', 'org', 'a', 'Parser.java'), 'package org.a;');
      // As commons-codec's PureJavaCrc32Test: a `main` that exits the JVM.
      const exiting = testSource('new Parser();').replace(
        '  @Test',
        '  public static void main(String[] args) { System.exit(1); }\n  @Test',
      );
      await writeFile(path.join(root, 'test', 'org', 'a', 'ParserTest.java'), exiting);
      await writeFile(
        path.join(root, 'test', 'org', 'a', 'LexerTest.java'),
        testSource('new Parser();').replace('ParserTest', 'LexerTest'),
      );
      const screened = { productionClasses: await productionClassNames(path.join(root, 'main')) };
      expect(screened.productionClasses).toEqual(['org.a.Parser']);
      const test = path.join(root, 'test');
      expect(
        (await screenTestClass(test, 'org.a.ParserTest$Nested', screened)).map((f) => f.kind),
      ).toEqual(['exits the JVM']);
      expect(await screenTestClass(test, 'org.a.LexerTest', screened)).toEqual([]);
    } finally {
      await rm(root, { recursive: true, force: true });
    }
  });
});

import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { cacheLayout, resolveCacheDir } from '../src/core/cache.js';
import { exists, makeTempDir, removeTree } from '../src/core/fs.js';
import { runProcess } from '../src/core/process.js';
import { loadJavaGrammar } from '../src/lang/java/syntax.js';
import { finalClass, methodsOf } from '../src/stages/7-strengthen/amplify/assertions.js';
import {
  parseObservations,
  stableObservations,
  type Observation,
} from '../src/stages/7-strengthen/amplify/observations.js';
import { observeSourceRoot, probeClass } from '../src/stages/7-strengthen/amplify/probes.js';
import {
  JUNIT3_CLASS,
  JUNIT4_CLASS,
  JUNIT5_CLASS,
} from '../src/stages/7-strengthen/amplify/test-support.js';
import { inputVariants, testMethods } from '../src/stages/7-strengthen/amplify/variants.js';
import { callTargets, callVariants } from '../src/stages/7-strengthen/amplify/calls.js';
import { jdkTool } from '../src/toolchains/maven/maven.js';

/*
 * Amplification against javac and the JVM: Observe.java and the probe classes of every variant of
 * a JUnit 3, 4 and 5 test class compile at Java 8; the JUnit 3 and 4 probes run on the gold
 * classes (JUnitCore, twice), their observation files parse, and the amplified classes built from
 * them compile without Observe on the classpath and pass on gold. JUnit 5's amplified class is
 * compiled only (running it needs the platform launcher).
 */

/** The suite's own Maven repository (its cache), which the jars below are resolved into. */
const REPOSITORY = cacheLayout(resolveCacheDir()).mavenRepo;
/** JUnit 4 (with hamcrest) and Jupiter's params (with its API, opentest4j, apiguardian). */
const ARTIFACTS = ['junit:junit:4.13.2', 'org.junit.jupiter:junit-jupiter-params:5.8.2'];

async function resolveArtifacts(): Promise<void> {
  for (const artifact of ARTIFACTS) {
    const run = await runProcess(
      'mvn',
      [
        '-q',
        '-B',
        `-Dmaven.repo.local=${REPOSITORY}`,
        'org.apache.maven.plugins:maven-dependency-plugin:3.6.1:get',
        `-Dartifact=${artifact}`,
      ],
      { timeoutMs: 600_000 },
    );
    if (run.exitCode !== 0) throw new Error(`mvn dependency:get ${artifact}: ${run.stdout}`);
  }
}

/** The newest version of an artifact's jar in a Maven repository, if it holds one. */
async function newestJar(
  repository: string,
  group: string,
  artifact: string,
  versions: RegExp,
): Promise<string | undefined> {
  const dir = path.join(repository, ...group.split('.'), artifact);
  const found = (await exists(dir)) ? await readdir(dir) : [];
  for (const version of found
    .filter((v) => versions.test(v))
    .sort((a, b) => b.localeCompare(a, 'en', { numeric: true }))) {
    const jar = path.join(dir, version, `${artifact}-${version}.jar`);
    if (await exists(jar)) return jar;
  }
  return undefined;
}

interface JunitJars {
  repository: string;
  classpath: string[];
}

/** JUnit 3/4 (one jar), Jupiter's API and params, and what they refer to, from one repository. */
async function junitJars(): Promise<JunitJars | undefined> {
  await resolveArtifacts();
  for (const repository of [REPOSITORY]) {
    const required = await Promise.all([
      newestJar(repository, 'junit', 'junit', /^4\.1\d/),
      newestJar(repository, 'org.junit.jupiter', 'junit-jupiter-api', /^5\./),
      newestJar(repository, 'org.junit.jupiter', 'junit-jupiter-params', /^5\./),
      newestJar(repository, 'org.opentest4j', 'opentest4j', /./),
      newestJar(repository, 'org.hamcrest', 'hamcrest-core', /./),
    ]);
    const optional = await Promise.all([
      newestJar(repository, 'org.apiguardian', 'apiguardian-api', /./),
      newestJar(repository, 'org.junit.platform', 'junit-platform-commons', /^1\./),
    ]);
    if (required.every((jar) => jar !== undefined)) {
      return {
        repository,
        classpath: [...required, ...optional].filter((jar) => jar !== undefined),
      };
    }
  }
  return undefined;
}

const JARS = await junitJars();

// The tests are named after the classes' scans, made before any hook runs.
await loadJavaGrammar();

/** The production classes the test classes of test-support.ts call. */
const GOLD: Record<string, string> = {
  'org/example/text/WordWrap.java': `package org.example.text;

import java.util.ArrayList;
import java.util.List;

public class WordWrap {
    private final int width;
    private final List<String> words = new ArrayList<>();

    public WordWrap(int width) {
        if (width < 0) throw new IllegalArgumentException("width " + width);
        this.width = width;
    }

    public List<String> lines(String text) {
        List<String> lines = new ArrayList<>();
        StringBuilder line = new StringBuilder();
        for (String word : text.split(" ")) {
            if (line.length() > 0 && line.length() + 1 + word.length() > width) {
                lines.add(line.toString());
                line.setLength(0);
            }
            if (line.length() > 0) line.append(' ');
            line.append(word);
        }
        if (line.length() > 0) lines.add(line.toString());
        return lines;
    }

    public void add(String word) {
        words.add(word);
    }

    public int count() {
        return words.size();
    }

    public String first(String text) {
        return text.isEmpty() ? null : text.split(" ")[0];
    }
}
`,
  'org/example/money/Money.java': `package org.example.money;

public final class Money {
    private final long cents;
    private final String currency;

    private Money(long cents, String currency) {
        this.cents = cents;
        this.currency = currency;
    }

    public static Money of(long cents, String currency) {
        return new Money(cents, currency);
    }

    public Money plus(Money other) {
        if (!currency.equals(other.currency)) throw new IllegalArgumentException("currency");
        return new Money(Math.addExact(cents, other.cents), currency);
    }

    public long cents() {
        return cents;
    }

    public boolean isZero() {
        return cents == 0;
    }

    public String format() {
        return String.format("%d.%02d %s", cents / 100, cents % 100, currency);
    }
}
`,
  'org/example/stack/IntStack.java': `package org.example.stack;

public class IntStack {
    private final int[] items;
    private int size;

    public IntStack(int capacity) {
        items = new int[capacity];
    }

    public void push(int value) {
        if (value < 0) throw new IllegalArgumentException("negative: " + value);
        items[size++] = value;
    }

    public int pop() {
        if (size == 0) throw new IllegalStateException("empty");
        return items[--size];
    }

    public int size() {
        return size;
    }

    public boolean isEmpty() {
        return size == 0;
    }
}
`,
};

/** Each test class, its package's directory, and the variants amplification draws from it. */
const CLASSES = [
  { source: JUNIT4_CLASS, dir: 'org/example/text' },
  { source: JUNIT3_CLASS, dir: 'org/example/stack' },
  { source: JUNIT5_CLASS, dir: 'org/example/money' },
].map(({ source, dir }) => ({ source, dir, scan: testMethods(source) }));

if (!JARS) {
  throw new Error(
    `the JUnit jars ${ARTIFACTS.join(', ')} are not in ${REPOSITORY} after resolving them`,
  );
}

describe(`amplified classes compile and pass on gold (JUnit jars from ${JARS.repository})`, () => {
  let work: string;
  let sources: string;
  let gold: string;
  let probes: string;

  beforeAll(async () => {
    work = await makeTempDir('amplify-javac');
    sources = path.join(work, 'src');
    gold = path.join(work, 'gold');
    probes = path.join(work, 'probes');
    for (const [file, text] of Object.entries(GOLD)) {
      await mkdir(path.dirname(path.join(sources, file)), { recursive: true });
      await writeFile(path.join(sources, file), text);
    }
    await javac(
      gold,
      [gold],
      Object.keys(GOLD).map((file) => path.join(sources, file)),
    );
  });
  afterAll(async () => {
    await removeTree(work);
  });

  async function javac(out: string, classpath: string[], files: string[]): Promise<void> {
    await mkdir(out, { recursive: true });
    const run = await runProcess(
      jdkTool('javac'),
      [
        '--release',
        '8',
        '-nowarn',
        '-d',
        out,
        '-cp',
        [...classpath, ...JARS!.classpath].join(':'),
        ...files,
      ],
      { timeoutMs: 120_000 },
    );
    expect(run.stderr + run.stdout, 'javac').not.toMatch(/error/);
    expect(run.exitCode).toBe(0);
  }

  async function written(dir: string, className: string, text: string): Promise<string> {
    const file = path.join(sources, dir, `${className}.java`);
    await writeFile(file, text);
    return file;
  }

  /** Runs a JUnit 3/4 class with JUnitCore; its observations, when asked for. */
  async function junitCore(classpath: string[], testClass: string, observations?: string) {
    return runProcess(
      jdkTool('java'),
      [
        ...(observations ? [`-Dwitnessgym.observations=${observations}`] : []),
        '-cp',
        [...classpath, ...JARS!.classpath].join(':'),
        'org.junit.runner.JUnitCore',
        testClass,
      ],
      { timeoutMs: 120_000 },
    );
  }

  it('compiles Observe.java and the probe class of every variant and added call, at Java 8', async () => {
    const observe = path.join(observeSourceRoot(), 'witnessgym', 'probe', 'Observe.java');
    const files = [observe];
    for (const { source, dir, scan } of CLASSES) {
      if (scan.kind !== 'TestClass') throw new Error(scan.reason);
      // Calls to every method of the package's production classes, each line a target.
      const targets = Object.entries(GOLD)
        .filter(([file]) => path.dirname(file) === dir)
        .flatMap(([, text]) =>
          callTargets(
            text,
            text.split('\n').map((_, index) => index + 1),
          ),
        );
      expect(targets.length).toBeGreaterThan(0);
      const variants = scan.methods.flatMap((m) => [
        ...inputVariants(source, m, { seed: 11, max: 1000 }),
        ...callVariants(source, m, targets, { seed: 11, max: 1000 }),
      ]);
      expect(variants.some((variant) => variant.operator === 'call-added')).toBe(true);
      const name = `${scan.className}Probe`;
      files.push(await written(dir, name, probeClass(source, variants, { className: name })));
    }
    await javac(probes, [gold], files);
  });

  for (const { source, dir, scan } of CLASSES.slice(0, 2)) {
    if (scan.kind !== 'TestClass') continue;
    it(`amplifies ${scan.className} (${scan.framework}) from two runs on gold into tests that pass there`, async () => {
      const variants = scan.methods.flatMap((m) =>
        inputVariants(source, m, { seed: 11, max: 1000 }),
      );
      const probe = `${scan.className}Probe`;
      const runs: Observation[][] = [];
      for (const round of [1, 2]) {
        const file = path.join(work, `${scan.className}-${round}.jsonl`);
        const ran = await junitCore([probes, gold], `${dir.replace(/\//g, '.')}.${probe}`, file);
        expect(ran.exitCode, ran.stdout).toBe(0);
        const parsed = parseObservations(await readFile(file, 'utf8'));
        if (parsed.kind !== 'Parsed') throw new Error(`line ${parsed.line}: ${parsed.reason}`);
        runs.push(parsed.observations);
      }
      const stable = stableObservations(runs);
      expect([...stable.outcomes.values()].some((o) => o.kind === 'Threw')).toBe(true);

      const name = `${scan.className}Amplified`;
      const amplified = finalClass(source, variants, stable, {
        className: name,
        framework: scan.framework,
      });
      expect(amplified).not.toContain('witnessgym');
      expect(amplified).toMatch(/assertEquals\(/);
      const out = path.join(work, `final-${scan.className}`);
      // Without the probes' classes: the amplified class needs nothing of Observe.
      await javac(out, [gold], [await written(dir, name, amplified)]);
      const ran = await junitCore([out, gold], `${dir.replace(/\//g, '.')}.${name}`);
      expect(ran.stdout).toContain(`OK (${methodsOf(amplified).length} test`);
      expect(ran.exitCode).toBe(0);
    });
  }

  it('compiles a JUnit 5 amplified class with values, expected exceptions and added imports', async () => {
    const { source, dir, scan } = CLASSES[2]!;
    if (scan.kind !== 'TestClass') throw new Error(scan.reason);
    const variants = scan.methods.flatMap((m) => inputVariants(source, m, { seed: 11, max: 1000 }));
    const name = `${scan.className}Amplified`;
    const probeLines = probeClass(source, variants, { className: name }).split('\n');
    // What a run on gold records: sums of each addsAmounts probe, the exception of each
    // rejectsOtherCurrency probe, thrown from its call of plus().
    const run: Observation[] = methodsOf(probeLines.join('\n')).flatMap((method): Observation[] => {
      if (method.startsWith('addsAmounts')) {
        return [
          {
            kind: 'Value',
            key: `${method}:1`,
            value: { kind: 'other', className: 'org.example.money.Money' },
          },
          {
            kind: 'Value',
            key: `${method}:2`,
            value: {
              kind: 'integral',
              className: 'java.lang.Long',
              text: '15',
              primitive: true,
            },
          },
          {
            kind: 'Value',
            key: `${method}:3`,
            value: {
              kind: 'boolean',
              className: 'java.lang.Boolean',
              text: 'false',
              primitive: true,
            },
          },
        ];
      }
      const declared = probeLines.findIndex((line) => line.includes(` ${method}()`));
      const line =
        probeLines.findIndex((text, i) => i > declared && text.includes('ten.plus(')) + 1;
      return [{ kind: 'Thrown', method, exception: 'java.lang.IllegalArgumentException', line }];
    });
    const amplified = finalClass(source, variants, stableObservations([run, run]), {
      className: name,
      framework: 'junit5',
    });
    expect(methodsOf(amplified)).toHaveLength(variants.length);
    expect(amplified).toContain('import static org.junit.jupiter.api.Assertions.assertNotNull;');
    expect(amplified).toContain('} catch (IllegalArgumentException expected) {');
    expect(amplified).not.toContain('witnessgym');
    await javac(path.join(work, 'final-money'), [gold], [await written(dir, name, amplified)]);
  });
});

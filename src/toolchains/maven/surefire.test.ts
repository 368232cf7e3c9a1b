import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  baseTestMethod,
  failingMethodsOf,
  UNNAMED_THROWABLE,
  verdictFromReports,
} from '../../core/test-reports.js';
import { combineRuns, type SingleVerdict } from '../../core/verdict.js';
import { parseSurefireXml } from './surefire.js';

const fixtures = path.resolve(import.meta.dirname, '../../../test/fixtures/surefire');
const load = (relative: string) =>
  parseSurefireXml(readFileSync(path.join(fixtures, relative), 'utf8'));

describe('Surefire XML, JUnit 4 (json-simple, real reports)', () => {
  it('reads a passing class', () => {
    const reports = load('junit4/pass-TEST-org.json.simple.parser.JSONParserTest.xml');
    expect(reports).toHaveLength(1);
    expect(reports[0]!.testClass).toBe('org.json.simple.parser.JSONParserTest');
    expect(reports[0]!.counts).toEqual({ tests: 5, failures: 0, errors: 0, skipped: 0 });
    expect(reports[0]!.cases.every((c) => c.outcome === 'passed')).toBe(true);
    expect(verdictFromReports(reports).kind).toBe('Passed');
  });

  it('reads an assertion failure as TestFailed with method, type and frames', () => {
    const verdict = verdictFromReports(
      load('junit4/failure-TEST-org.json.simple.JsonArrayTest.xml'),
    );
    expect(verdict.kind).toBe('TestFailed');
    if (verdict.kind !== 'TestFailed') return;
    const [first] = verdict.failures;
    expect(first).toMatchObject({
      testClass: 'org.json.simple.JsonArrayTest',
      category: 'failure',
      exceptionType: 'java.lang.AssertionError',
    });
    expect(first!.testMethod).toMatch(/^test/);
    expect(first!.frames[0]).toMatch(/^org\.junit\.Assert\.fail/);
    expect(first!.frames.length).toBeLessThanOrEqual(8);
  });

  it('reads a non-assertion exception as TestErrored with its message', () => {
    const verdict = verdictFromReports(load('junit4/error-TEST-org.json.simple.JsonArrayTest.xml'));
    expect(verdict.kind).toBe('TestErrored');
    if (verdict.kind !== 'TestErrored') return;
    expect(verdict.failures).toHaveLength(1);
    expect(verdict.failures[0]).toMatchObject({
      testMethod: 'testAsCollection',
      category: 'error',
      exceptionType: 'java.lang.NullPointerException',
    });
  });

  it('puts assertion failures first when a class both fails and errors', () => {
    const verdict = verdictFromReports(load('junit4/mixed-TEST-org.json.simple.JsonArrayTest.xml'));
    expect(verdict.kind).toBe('TestFailed');
    if (verdict.kind !== 'TestFailed') return;
    const categories = verdict.failures.map((failure) => failure.category);
    expect(categories).toContain('error');
    expect(categories.indexOf('error')).toBeGreaterThan(categories.lastIndexOf('failure'));
    expect(verdict.counts.failures).toBe(categories.filter((c) => c === 'failure').length);
    const cast = verdict.failures.find((f) => f.exceptionType === 'java.lang.ClassCastException');
    expect(cast?.message).toContain("loader 'bootstrap'");
  });

  it('treats an OutOfMemoryError as a crash, not as a bug exposed', () => {
    const verdict = verdictFromReports(load('junit4/oom-TEST-org.json.simple.JsonArrayTest.xml'));
    expect(verdict.kind).toBe('Crashed');
  });
});

describe('report edge cases', () => {
  it('gives NoTestsRan when there is no report or every test was skipped', () => {
    expect(verdictFromReports([]).kind).toBe('NoTestsRan');
    const xml = `<testsuite name="a.BTest" tests="2" failures="0" errors="0" skipped="2" time="0">
      <testcase name="one" classname="a.BTest"><skipped message="assumption"/></testcase>
      <testcase name="two" classname="a.BTest"><skipped/></testcase></testsuite>`;
    expect(verdictFromReports(parseSurefireXml(xml))).toMatchObject({
      kind: 'NoTestsRan',
      reason: 'every test was skipped',
    });
  });

  it('reads a failure message holding thousands of escaped characters', () => {
    const message = '&lt;a&gt;&amp;'.repeat(2000);
    const xml = `<testsuite name="a.BTest" tests="1" failures="1" errors="0" skipped="0" time="0">
      <testcase name="one" classname="a.BTest"><failure message="${message}" type="java.lang.AssertionError">${message}</failure></testcase></testsuite>`;
    const [suite] = parseSurefireXml(xml);
    expect(suite!.cases[0]!.detail?.message).toBe('<a>&'.repeat(2000));
  });

  it('reads localised times written by old Surefire versions', () => {
    const xml = `<testsuite name="a.BTest" tests="1" failures="0" errors="0" skipped="0" time="1,234.5">
      <testcase name="one" classname="a.BTest" time="1,234.5"/></testsuite>`;
    expect(parseSurefireXml(xml)[0]!.timeMs).toBe(1_234_500);
  });
});

describe('several runs of one class', () => {
  const passed: SingleVerdict = {
    kind: 'Passed',
    counts: { tests: 1, failures: 0, errors: 0, skipped: 0 },
    testTimeMs: 3,
  };
  const failed = verdictFromReports(load('junit4/failure-TEST-org.json.simple.JsonArrayTest.xml'));

  it('keeps the verdict when all runs agree', () => {
    expect(combineRuns([passed, passed, passed])).toBe(passed);
  });

  it('reports Flaky with every run when they disagree', () => {
    const combined = combineRuns([failed, passed, failed]);
    expect(combined).toMatchObject({
      kind: 'Flaky',
      kinds: ['TestFailed', 'Passed', 'TestFailed'],
    });
  });
});

describe('Surefire XML, JUnit 3 style (joda-time, real reports)', () => {
  it('reads a passing TestCase class', () => {
    const verdict = verdictFromReports(load('junit3/pass-TEST-org.joda.time.TestDays.xml'));
    expect(verdict).toMatchObject({ kind: 'Passed', counts: { tests: 29, skipped: 0 } });
  });

  it('reads junit.framework assertion failures as TestFailed', () => {
    const verdict = verdictFromReports(
      load('junit3/failure-TEST-org.joda.time.TestDateTime_Basics.xml'),
    );
    expect(verdict.kind).toBe('TestFailed');
    if (verdict.kind !== 'TestFailed') return;
    expect(verdict.failures).toHaveLength(2);
    expect(verdict.failures[0]).toMatchObject({
      testClass: 'org.joda.time.TestDateTime_Basics',
      exceptionType: 'junit.framework.AssertionFailedError',
    });
    expect(verdict.failures[0]!.message).toMatch(/^expected same:<2002-04-05T13:24/);
  });
});

describe('Surefire XML, JUnit 5 (commons-csv, real reports)', () => {
  it('counts @Disabled tests as skipped and still passes the class', () => {
    const reports = load('junit5/skipped-TEST-org.apache.commons.csv.CSVPrinterTest.xml');
    const skipped = reports[0]!.cases.filter((c) => c.outcome === 'skipped').length;
    expect(skipped).toBe(reports[0]!.counts.skipped);
    expect(skipped).toBeGreaterThan(0);
    expect(verdictFromReports(reports).kind).toBe('Passed');
  });

  it('gives NoTestsRan for a class disabled as a whole', () => {
    const verdict = verdictFromReports(
      load('junit5/disabled-TEST-org.apache.commons.csv.issues.JiraCsv213Test.xml'),
    );
    expect(verdict.kind).toBe('NoTestsRan');
  });

  it('reads opentest4j assertion failures as TestFailed', () => {
    const verdict = verdictFromReports(
      load('junit5/failure-TEST-org.apache.commons.csv.CSVFormatTest.xml'),
    );
    expect(verdict.kind).toBe('TestFailed');
    if (verdict.kind !== 'TestFailed') return;
    expect(verdict.failures[0]).toMatchObject({
      exceptionType: 'org.opentest4j.AssertionFailedError',
      message: 'Expected java.lang.IllegalArgumentException to be thrown, but nothing was thrown.',
    });
    expect(verdict.failures[0]!.frames).toContain(
      'org.junit.jupiter.api.AssertThrows.assertThrows(AssertThrows.java:71)',
    );
  });

  it('keeps parameterized invocations apart', () => {
    const [report] = load('junit5/parameterized-TEST-org.apache.commons.csv.CSVFileParserTest.xml');
    const names = report!.cases.map((c) => c.testMethod);
    expect(new Set(names).size).toBe(names.length);
    expect(names.some((name) => /\[\d+\]$/.test(name))).toBe(true);
  });
});

/*
 * Real reports of Surefire 3.5.2 (`mvn test -DtrimStackTrace=false`) on the classes under
 * test/fixtures/surefire/quirks/source: JUnit 4's own provider, JUnit 4 through the vintage engine
 * (as commons-compress runs it) and JUnit 5. Surefire's `type` attribute is the printed trace up to
 * its first ':', which for a throwable printing without its class holds its message.
 */
describe('Surefire XML, the type attribute quirks (real reports)', () => {
  const failing = (relative: string) =>
    Object.fromEntries(
      Object.entries(failingMethodsOf(verdictFromReports(load(relative)))).map(([method, type]) => [
        baseTestMethod(method),
        type,
      ]),
    );
  const junit4 = {
    arrayLengths: 'org.junit.internal.ArrayComparisonFailure',
    arrayElement: 'org.junit.internal.ArrayComparisonFailure',
    arrayWithMessage: 'org.junit.internal.ArrayComparisonFailure',
    nestedArrays: 'org.junit.internal.ArrayComparisonFailure',
    comparison: 'org.junit.ComparisonFailure',
    plainAssertion: 'java.lang.AssertionError',
    messageWithColon: 'java.lang.IllegalStateException',
    noMessage: 'java.lang.UnsupportedOperationException',
    nullPointer: 'java.lang.NullPointerException',
    nestedCause: 'java.lang.RuntimeException',
    causeOnly: 'java.lang.RuntimeException',
    opaqueToString: UNNAMED_THROWABLE,
    innerClass: 'quirks.Quirks4Test$Inner',
    multiLineMessage: 'java.lang.IllegalArgumentException',
    leadingNewlineMessage: 'java.lang.IllegalArgumentException',
    checkedException: 'java.io.IOException',
  };

  it('holds the message, not the class, in the type attribute of an array comparison', () => {
    const xml = readFileSync(
      path.join(fixtures, 'quirks/junit4/TEST-quirks.Quirks4Test.xml'),
      'utf8',
    );
    expect(xml).toContain('type="array lengths differed, expected.length=3 actual.length=2;');
    expect(xml).toContain('type="round trip of one"');
    expect(xml).toContain('type="something went wrong"');
  });

  it("names every failure's class under JUnit 4's provider and under the vintage engine", () => {
    expect(failing('quirks/junit4/TEST-quirks.Quirks4Test.xml')).toEqual(junit4);
    expect(failing('quirks/vintage/TEST-quirks.Quirks4Test.xml')).toEqual(junit4);
  });

  it("names every failure's class under JUnit 5", () => {
    expect(failing('quirks/junit5/TEST-quirks.Quirks5Test.xml')).toEqual({
      arrayLengths: 'org.opentest4j.AssertionFailedError',
      arrayElement: 'org.opentest4j.AssertionFailedError',
      equality: 'org.opentest4j.AssertionFailedError',
      plainAssertion: 'org.opentest4j.AssertionFailedError',
      failWithColon: 'org.opentest4j.AssertionFailedError',
      throwsOther: 'org.opentest4j.AssertionFailedError',
      throwsNothing: 'org.opentest4j.AssertionFailedError',
      grouped: 'org.opentest4j.MultipleFailuresError',
      nestedCause: 'java.lang.RuntimeException',
      noMessage: 'java.lang.UnsupportedOperationException',
      opaqueToString: UNNAMED_THROWABLE,
      parameterised: 'org.opentest4j.AssertionFailedError',
    });
  });
});

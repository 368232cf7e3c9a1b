import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { verdictFromReports } from '../../core/test-reports.js';
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

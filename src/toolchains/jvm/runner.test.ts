import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  failingMethodsOf,
  signatureMismatch,
  verdictFromReports,
} from '../../core/test-reports.js';
import { parseSurefireXml } from '../maven/surefire.js';
import type { TestResult } from './protocol.js';
import { toReports } from './runner.js';

const quirks = path.resolve(import.meta.dirname, '../../../test/fixtures/surefire/quirks/vintage');

describe('toReports', () => {
  // The bridge's answer and Surefire 3.5.2's report for the same JUnit 4 class (vintage engine),
  // each a real run: among its failures, assertArrayEquals and a throwable printing no class name.
  const warm = JSON.parse(
    readFileSync(path.join(quirks, 'warm-jvm-results.json'), 'utf8'),
  ) as TestResult[];
  const surefire = parseSurefireXml(
    readFileSync(path.join(quirks, 'TEST-quirks.Quirks4Test.xml'), 'utf8'),
  );

  it("reads each failure's type as Surefire's report of the same run does", () => {
    const fromWarm = failingMethodsOf(verdictFromReports(toReports(warm)));
    const fromMaven = failingMethodsOf(verdictFromReports(surefire));
    expect(Object.keys(fromWarm)).toHaveLength(16);
    expect(signatureMismatch(fromWarm, fromMaven)).toBeUndefined();
    expect(fromWarm.arrayLengths).toBe('org.junit.internal.ArrayComparisonFailure');
  });
});

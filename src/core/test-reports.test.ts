import { describe, expect, it } from 'vitest';
import { signatureMismatch, thrownClass, UNNAMED_THROWABLE } from './test-reports.js';

const expected = { parses: 'java.lang.AssertionError', reads: 'java.lang.NullPointerException' };

describe('signatureMismatch', () => {
  it('accepts the same methods failing the same way', () => {
    expect(signatureMismatch(expected, { ...expected })).toBeUndefined();
  });

  it("folds a parameterised test's runs, as Surefire names them, into their method", () => {
    const runs = {
      'parses[Renault-rinD|rina-GENERIC]': 'java.lang.AssertionError',
      'parses[2]': 'java.lang.AssertionError',
      'reads(String)[1]': 'java.lang.NullPointerException',
    };
    expect(signatureMismatch(expected, runs)).toBeUndefined();
    expect(signatureMismatch(expected, { 'parses[1]': expected.parses })).toBe(
      'reads does not fail (expected java.lang.NullPointerException)',
    );
  });

  it('names a method that no longer fails, fails otherwise, or fails unexpectedly', () => {
    expect(signatureMismatch(expected, { parses: expected.parses })).toBe(
      'reads does not fail (expected java.lang.NullPointerException)',
    );
    expect(
      signatureMismatch(expected, { ...expected, reads: 'java.lang.IllegalStateException' }),
    ).toBe(
      'reads fails with java.lang.IllegalStateException, expected java.lang.NullPointerException',
    );
    expect(signatureMismatch(expected, { ...expected, writes: 'java.lang.AssertionError' })).toBe(
      'writes fails with java.lang.AssertionError, unexpected',
    );
  });
});

describe('thrownClass', () => {
  const at = (frame: string) => [frame, 'a.FooTest.reads(FooTest.java:9)'];

  it('reads the class from the printed line, with or without a message', () => {
    expect(
      thrownClass({ printed: 'java.lang.IllegalStateException: key: value', frames: [] }),
    ).toBe('java.lang.IllegalStateException');
    expect(thrownClass({ printed: 'java.lang.UnsupportedOperationException', frames: [] })).toBe(
      'java.lang.UnsupportedOperationException',
    );
    expect(thrownClass({ printed: 'a.FooTest$Inner: inner class', frames: [] })).toBe(
      'a.FooTest$Inner',
    );
  });

  it("names JUnit 4's array comparison by where it was built, whatever its message says", () => {
    const frames = at(
      'org.junit.internal.ComparisonCriteria.arrayEquals(ComparisonCriteria.java:89)',
    );
    for (const printed of [
      'array lengths differed, expected.length=3 actual.length=2; arrays first differed at element [2]; expected:<3> but was:<end of array>',
      'round.trip: arrays first differed at element [0]; expected:<1> but was:<2>',
    ]) {
      expect(thrownClass({ printed, frames })).toBe('org.junit.internal.ArrayComparisonFailure');
    }
    const loaded = at(
      'app//org.junit.internal.ComparisonCriteria.arrayEquals(ComparisonCriteria.java:89)',
    );
    expect(thrownClass({ printed: 'arrays first differed', frames: loaded })).toBe(
      'org.junit.internal.ArrayComparisonFailure',
    );
  });

  it('leaves unnamed a throwable that prints without a qualified class name', () => {
    // joda-time's LimitChronology.LimitException prints `IllegalArgumentException: …`.
    for (const printed of [
      'IllegalArgumentException: The instant is below the supported minimum',
      'something went wrong: see above',
      '',
      undefined,
    ]) {
      expect(thrownClass({ printed, frames: at('a.Foo.bar(Foo.java:3)') })).toBe(UNNAMED_THROWABLE);
    }
  });
});

import { describe, expect, it } from 'vitest';
import { signatureMismatch } from './verify.js';

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

import { describe, expect, it } from 'vitest';
import { signatureMismatch } from './verify.js';

const expected = { parses: 'java.lang.AssertionError', reads: 'java.lang.NullPointerException' };

describe('signatureMismatch', () => {
  it('accepts the same methods failing the same way', () => {
    expect(signatureMismatch(expected, { ...expected })).toBeUndefined();
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

import { describe, expect, it } from 'vitest';
import { plainName } from './naming.js';

describe('plainName', () => {
  it('skips names no maintainer writes: xInternal, doX, the member named twice', () => {
    expect(
      plainName(
        ['setHeaderForSetHeader', 'doSetHeader', 'setHeaderInternal', 'applyHeader'],
        'setHeader',
      ),
    ).toBe('applyHeader');
    expect(plainName(['setSetHeader', 'readHeader'], 'setHeader')).toBe('readHeader');
    expect(plainName(['setHeaderInternal'], 'setHeader')).toBeUndefined();
  });
});

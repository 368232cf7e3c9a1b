import { describe, expect, it } from 'vitest';
import { specText } from './types.js';

describe('specText', () => {
  it('is the same for the same arguments in any order, and differs when one differs', () => {
    const spec = { name: 'openai', model: 'm', temperature: 0, stop: ['a'] };
    expect(specText({ temperature: 0, stop: ['a'], model: 'm', name: 'openai' })).toBe(
      specText(spec),
    );
    expect(specText({ ...spec, model: 'n' })).not.toBe(specText(spec));
    expect(specText({ ...spec, temperature: null })).not.toBe(specText(spec));
  });
});

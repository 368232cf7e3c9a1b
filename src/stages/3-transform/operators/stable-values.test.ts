import { describe, expect, it } from 'vitest';
import type { SourceModel } from '../../../toolchains/jvm/source-model.js';
import { arrayComponentAllowed } from './stable-values.js';

const model = {
  types: [{ typeParameters: ['E'] }],
  methods: [{ typeParameters: ['T'] }],
} as unknown as SourceModel;

describe('arrayComponentAllowed', () => {
  it('takes plain and array types', () => {
    expect(arrayComponentAllowed('int', model)).toBe(true);
    expect(arrayComponentAllowed('String[]', model)).toBe(true);
    expect(arrayComponentAllowed('Map.Entry', model)).toBe(true);
  });

  it('refuses what javac cannot make an array of: generics and type variables', () => {
    expect(arrayComponentAllowed('List<String>', model)).toBe(false);
    expect(arrayComponentAllowed('T', model)).toBe(false);
    expect(arrayComponentAllowed('E[]', model)).toBe(false);
  });
});

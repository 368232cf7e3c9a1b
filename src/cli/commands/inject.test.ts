import { describe, expect, it } from 'vitest';
import type { InjectSummary, TypeSummary } from '../../stages/2-inject/records.js';
import { formatInjectSummary } from './inject.js';

const type = (overrides: Partial<TypeSummary>): TypeSummary => ({
  typeId: 't',
  name: 'T',
  sitesFound: 4,
  tried: 2,
  accepted: 2,
  acceptanceRate: 1,
  rejectedBy: {},
  ended: 'count-reached',
  durationMs: 1000,
  ...overrides,
});

const summary = (types: TypeSummary[]): InjectSummary => ({
  project: 'demo@1.0',
  engine: { kind: 'rules' },
  seed: 1,
  wanted: 2,
  maxTries: 60,
  out: '/tmp/out',
  types,
  coverage: { accepted: 4, files: 3, members: 4, witnesses: 1 },
  durationMs: 3000,
});

describe('the inject summary', () => {
  it('names every type that fell short of --count, and why', () => {
    const text = formatInjectSummary(
      summary([
        type({ typeId: 'reached' }),
        type({ typeId: 'none', sitesFound: 0, tried: 0, accepted: 0, ended: 'sites-exhausted' }),
        type({
          typeId: 'spent',
          sitesFound: 3,
          tried: 3,
          accepted: 1,
          rejectedBy: { 'not-exposed': 2 },
          ended: 'sites-exhausted',
        }),
        type({
          typeId: 'capped',
          sitesFound: 900,
          tried: 60,
          accepted: 0,
          ended: 'tries-exhausted',
        }),
      ]),
    );
    const lines = text.split('\n');
    const from = lines.indexOf('3 of 4 types fell short of --count 2:');
    expect(from).toBeGreaterThan(0);
    expect(lines.slice(from + 1, from + 4)).toEqual([
      '  none: 0 of 2, no site of this type in the methods the witnesses reach',
      '  spent: 1 of 2, every one of its 3 sites was tried (rejected: 2 not-exposed)',
      '  capped: 0 of 2, its 60 tries (--max-tries) were spent; raise --max-tries to try more of its 900 sites',
    ]);
  });

  it('says nothing of shortfalls when every type got its count', () => {
    expect(formatInjectSummary(summary([type({})]))).not.toContain('fell short');
  });

  it('says how many files, methods and witnesses the accepted bugs cover', () => {
    expect(formatInjectSummary(summary([type({})]))).toContain(
      '4 accepted bugs in 3 files and 4 methods, exposed by 1 witness class',
    );
  });
});

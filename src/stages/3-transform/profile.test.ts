import { describe, expect, it } from 'vitest';
import type { Observation } from './operators/gate-signals.js';
import { addObservations, probeStatement, type ProbePlan } from './profile.js';

const plan: ProbePlan = {
  at: 0,
  indent: '  ',
  method: 'pick',
  values: [
    { name: 'index', kind: 'integral' },
    { name: 'name', kind: 'string' },
  ],
};

describe('probeStatement', () => {
  it('records the test method and each value, tab-separated, with nulls and strings encoded', () => {
    const text = probeStatement(plan, '/tmp/calls.tsv', '\n');
    expect(text.startsWith('  try {\n')).toBe(true);
    expect(text.endsWith('  } catch (java.io.IOException witnessgymError) {\n  }\n')).toBe(true);
    expect(text).toContain('java.nio.file.Paths.get("/tmp/calls.tsv")');
    expect(text).toContain(
      '(witnessgymTest + "\\t" + String.valueOf(index) + "\\t" + (name == null ? "~" : name.length() + ":" + java.net.URLEncoder.encode(name.substring(0, Math.min(name.length(), 40)), "UTF-8")) + "\\n")',
    );
  });
});

describe('addObservations', () => {
  it('merges equal calls per failing method, and counts other methods as one role', () => {
    const into = new Map<string, Observation>();
    const recorded = addObservations(
      into,
      'testA\t1\t~\ntestA\t1\t~\ntestB\t1\t~\nsetUp\t2\t1:x\nbroken\n',
      plan,
      (method) => (method.startsWith('test') ? 'failing' : 'other'),
    );
    expect([...into.values()]).toEqual([
      { failingMethod: 'testA', values: ['1', '~'], count: 2 },
      { failingMethod: 'testB', values: ['1', '~'], count: 1 },
      { failingMethod: null, values: ['2', '1:x'], count: 1 },
    ]);
    expect([...recorded]).toEqual(['testA', 'testB']);
  });

  it('skips the calls of a failing method an earlier run already counted', () => {
    const into = new Map<string, Observation>();
    addObservations(into, 'testA\t1\t~\n', plan, () => 'failing');
    addObservations(into, 'testA\t1\t~\nother\t3\t~\n', plan, (method) =>
      method === 'testA' ? 'counted' : 'other',
    );
    expect([...into.values()]).toEqual([
      { failingMethod: 'testA', values: ['1', '~'], count: 1 },
      { failingMethod: null, values: ['3', '~'], count: 1 },
    ]);
  });
});

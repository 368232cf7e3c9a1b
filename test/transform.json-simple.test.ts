import path from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { makeTempDir } from '../src/core/fs.js';
import type { TransformSummary } from '../src/stages/3-transform/driver.js';
import type { InjectionRecord } from '../src/stages/2-inject/records.js';
import type { TransformRecord } from '../src/stages/3-transform/transform.js';
import { cli, readLines } from './helpers.js';
import { sharedInjection } from './shared-fixture.js';

/*
 * The transform stage end to end on json-simple: bugs injected by the CLI, then Helper Call
 * Insertion and Local State Bundling applied in sequence, each step validated, the final state
 * confirmed by Maven; rerun, nothing is done twice. (Call-Site Rerouting, which refuses
 * forwarding adapters, finds no call with arguments to compute after Helper Call Insertion on
 * these bugs.)
 */

const SEQUENCE = 't_call_stack_deepen_v1,t_local_state_bundle_v1';
let injected: string;
let out: string;
let first: TransformSummary;

function transformInto(dir: string, sequence = SEQUENCE) {
  return cli([
    'transform',
    'json-simple',
    '--from',
    injected,
    '--transforms',
    sequence,
    '--out',
    dir,
    '--json',
  ]);
}

beforeAll(async () => {
  const dir = await makeTempDir('transform-test');
  injected = await sharedInjection(dir);
  out = path.join(dir, 'transform');
  const result = await transformInto(out);
  expect([0, 1], result.stderr).toContain(result.exitCode);
  first = result.json as TransformSummary;
});

describe('transform json-simple', () => {
  it('keeps cases whose every step compiles and keeps the witness failing, confirmed by Maven', async () => {
    const injections = await readLines<InjectionRecord>(path.join(injected, 'injections.jsonl'));
    const cases = await readLines<TransformRecord>(path.join(out, 'transformed.jsonl'));
    expect(cases).toHaveLength(injections.length);
    expect(first.kept + first.short).toBe(injections.length);
    const kept = cases.filter((record) => record.outcome.kind === 'Kept');
    expect(kept.length).toBeGreaterThan(0);
    for (const record of kept) {
      if (record.outcome.kind !== 'Kept') continue;
      expect(record.outcome.maven).toMatch(/^Test(Failed|Errored)$/);
      // The bug's patch, then one patch per step, in order.
      expect(record.outcome.state.patches).toHaveLength(3);
      expect(record.steps.map((step) => step.operator)).toEqual(SEQUENCE.split(','));
      // Fewer witness methods may fail after a step, never others or otherwise.
      for (const step of record.steps) {
        for (const [method, exception] of Object.entries(step.failingMethods)) {
          expect(record.buggyFailures[method]).toBe(exception);
        }
      }
      const helper = record.steps[0]!.diff;
      expect(helper).toMatch(/\+\s+private (static )?[\w<>[\], ]+ [a-z]\w+\(/);
      // No comment of ours: a comment line the step adds is one it moved (removed elsewhere).
      for (const step of record.steps) {
        const lines = step.diff.split('\n');
        const removed = new Set(
          lines.filter((l) => l.startsWith('-')).map((l) => l.slice(1).trim()),
        );
        const addedComments = lines.filter((l) => /^\+[^+].*(\/\/|\/\*)/.test(l));
        for (const line of addedComments) expect(removed, line).toContain(line.slice(1).trim());
      }
    }
    // Where a short case stopped agrees with the steps it kept: none before a precondition,
    // those before the step it names (the one of that index in the sequence), or all of them.
    for (const record of cases.filter((entry) => entry.outcome.kind === 'Short')) {
      if (record.outcome.kind !== 'Short') continue;
      expect(record.outcome.reason).not.toBe('');
      const at = record.outcome.stoppedAt;
      const keptSteps =
        at.kind === 'precondition' ? 0 : at.kind === 'step' ? at.index : record.sequence.length;
      expect(record.steps).toHaveLength(keptSteps);
      if (at.kind === 'step') expect(at.operator).toBe(record.sequence[at.index]);
    }
  });

  it('resumes: a second run decides nothing again', async () => {
    const again = await transformInto(out);
    const summary = again.json as TransformSummary;
    expect(summary).toMatchObject({ kept: 0, short: 0, resumed: first.kept + first.short });
    const cases = await readLines<TransformRecord>(path.join(out, 'transformed.jsonl'));
    expect(cases).toHaveLength(first.kept + first.short);
  });

  it('names an unknown operator in one line, exit 2, before any work', async () => {
    const result = await transformInto(path.join(out, 'other'), 't_no_such_operator_v1');
    expect(result.exitCode).toBe(2);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toMatch(/t_no_such_operator_v1/);
  });
});

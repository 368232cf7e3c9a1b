import { describe, expect, it } from 'vitest';
import { jsonLinesSink, plainLine, plainSink, statusLine } from './render.js';
import type { ProgressEvent } from './types.js';

const decided: ProgressEvent = {
  kind: 'CandidateDecided',
  typeId: 'api_equals_typo',
  candidateId: 'abc',
  decision: 'Rejected',
  what: 'Box.equals(Object)',
  detail: 'not-exposed: the witness does not expose the change (Passed)',
  accepted: 1,
  tried: 3,
};

describe('progress rendering', () => {
  it('plain lines name the stage; pure progress events give none', () => {
    expect(plainLine(decided)).toBe(
      'inject: api_equals_typo: rejected Box.equals(Object) (not-exposed: the witness does not expose the change (Passed))',
    );
    expect(
      plainLine({ kind: 'StageStarted', stage: 'trace', subject: 'x', total: 3, unit: 'classes' }),
    ).toBeNull();
    const lines: string[] = [];
    const sink = plainSink((line) => lines.push(line));
    sink.emit({ kind: 'Note', stage: 'fetch', message: 'downloading x' });
    sink.emit({
      kind: 'ItemDone',
      stage: 'trace',
      done: 2,
      total: 5,
      item: 'p.ATest',
      outcome: 'Passed',
    });
    expect(lines).toEqual(['fetch: downloading x', 'trace: 2/5 p.ATest: Passed']);
  });

  it('JSON lines carry the event and its time', () => {
    const lines: string[] = [];
    jsonLinesSink((line) => lines.push(line)).emit(decided);
    expect(JSON.parse(lines[0]!)).toMatchObject({ ...decided, at: expect.any(String) });
  });

  it('the status line shows done/total, rate and ETA', () => {
    const line = statusLine(
      {
        stage: 'trace',
        subject: 'json-simple',
        startedAt: 0,
        total: 10,
        unit: 'classes',
        done: 4,
        typeDurations: [],
      },
      8000,
    );
    expect(line).toBe('[trace] json-simple · 4/10 classes · 0.50/s · ETA 12s · 8s');
    const inject = statusLine(
      {
        stage: 'inject',
        subject: 'json-simple',
        startedAt: 0,
        total: null,
        unit: 'candidates',
        done: 6,
        type: { id: 't2', index: 2, of: 3, wanted: 2, accepted: 1, tried: 2, startedAt: 60_000 },
        typeDurations: [60_000],
      },
      90_000,
    );
    expect(inject).toBe(
      '[inject] json-simple · type 2/3 t2 · 1/2 accepted, 2 tried · 4.0 candidates/min · ETA 1m30s · 1m30s',
    );
  });
});

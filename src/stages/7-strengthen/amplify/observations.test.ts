import { describe, expect, it } from 'vitest';
import {
  parseObservations,
  stableObservations,
  type Observation,
  type ObservedValue,
} from './observations.js';

function parsed(text: string): Observation[] {
  const result = parseObservations(text);
  if (result.kind !== 'Parsed') throw new Error(result.reason);
  return result.observations;
}

/** One run's file, written as Observe.java writes it. */
function run(...lines: object[]): Observation[] {
  return parsed(lines.map((line) => JSON.stringify(line)).join('\n') + '\n');
}

const int = (key: string, value: number) => ({
  key,
  type: 'integral',
  class: 'java.lang.Integer',
  value: String(value),
  primitive: true,
});
const text = (key: string, value: string) => ({
  key,
  type: 'string',
  class: 'java.lang.String',
  value,
});

describe('parseObservations', () => {
  it('reads each kind of line Observe.java writes', () => {
    expect(
      parsed(
        [
          '{"key":"t_1:1","type":"null","value":"null"}',
          '{"key":"t_1:2","type":"integral","class":"java.lang.Long","value":"7","primitive":true}',
          '{"key":"t_1:3","type":"string","class":"java.lang.String","value":"h\\u00e9\\u000a\\"q"}',
          '{"key":"t_1:4","type":"enum","class":"p.Mode$1","value":"p.Mode.FAST"}',
          '{"key":"t_1:5","type":"other","class":"java.util.ArrayList"}',
          '{"key":"t_1","thrown":"java.lang.IllegalStateException","line":42}',
          '{"key":"t_2","thrown":"java.lang.StackOverflowError"}',
          '',
        ].join('\n'),
      ),
    ).toEqual([
      { kind: 'Value', key: 't_1:1', value: { kind: 'null' } },
      {
        kind: 'Value',
        key: 't_1:2',
        value: { kind: 'integral', className: 'java.lang.Long', text: '7', primitive: true },
      },
      {
        kind: 'Value',
        key: 't_1:3',
        value: { kind: 'string', className: 'java.lang.String', text: 'hé\n"q', primitive: false },
      },
      {
        kind: 'Value',
        key: 't_1:4',
        value: { kind: 'enum', className: 'p.Mode$1', text: 'p.Mode.FAST', primitive: false },
      },
      { kind: 'Value', key: 't_1:5', value: { kind: 'other', className: 'java.util.ArrayList' } },
      { kind: 'Thrown', method: 't_1', exception: 'java.lang.IllegalStateException', line: 42 },
      { kind: 'Thrown', method: 't_2', exception: 'java.lang.StackOverflowError', line: undefined },
    ]);
  });

  it('reports the first line that is not an observation', () => {
    expect(
      parseObservations('{"key":"a","type":"null","value":"null"}\n{"key":"b","type"'),
    ).toMatchObject({
      kind: 'Malformed',
      line: 2,
    });
    // A string without its value, an object with one: not what Observe writes.
    expect(
      parseObservations('{"key":"a","type":"string","class":"java.lang.String"}'),
    ).toMatchObject({ kind: 'Malformed', line: 1 });
    expect(
      parseObservations('{"key":"a","type":"other","class":"p.X","value":"p.X@1b6d3586"}'),
    ).toMatchObject({ kind: 'Malformed', line: 1 });
  });
});

describe('stableObservations', () => {
  const value = (kind: 'integral', text: string): ObservedValue => ({
    kind,
    className: 'java.lang.Integer',
    text,
    primitive: true,
  });

  it('keeps a site that gave the same values, in the same order, in every run', () => {
    const runs = [
      run(int('t_1:1', 3), int('t_1:2', 1), int('t_1:2', 2)),
      run(int('t_1:1', 3), int('t_1:2', 1), int('t_1:2', 2)),
    ];
    const { sites } = stableObservations(runs);
    expect(sites.get('t_1:1')).toEqual({ kind: 'Stable', values: [value('integral', '3')] });
    // A site in a loop: stable as a sequence (the final class decides what to make of it).
    expect(sites.get('t_1:2')).toEqual({
      kind: 'Stable',
      values: [value('integral', '1'), value('integral', '2')],
    });
  });

  it('drops a site whose values differ between runs, in value, order or number', () => {
    const { sites } = stableObservations([
      run(int('t_1:1', 3), int('t_1:2', 1), int('t_1:2', 2), int('t_1:3', 5)),
      run(int('t_1:1', 4), int('t_1:2', 2), int('t_1:2', 1)),
    ]);
    expect(sites.get('t_1:1')).toMatchObject({ kind: 'Unstable' });
    expect(sites.get('t_1:2')).toMatchObject({ kind: 'Unstable' });
    // Reached in one run only.
    expect(sites.get('t_1:3')).toMatchObject({ kind: 'Unstable' });
    // The same integer, once of primitive type and once boxed, is no stable site either.
    const boxed = { ...int('t_1:1', 3), primitive: undefined };
    expect(stableObservations([run(int('t_1:1', 3)), run(boxed)]).sites.get('t_1:1')).toMatchObject(
      { kind: 'Unstable' },
    );
  });

  it('drops strings with an identity hash or a date or time in them, though every run agrees', () => {
    const twice = (...lines: object[]) => stableObservations([run(...lines), run(...lines)]).sites;
    const sites = twice(
      text('t_1:1', 'Parser@1b6d3586'),
      text('t_1:2', 'built 2024-03-01'),
      text('t_1:3', 'at 12:30:05'),
      text('t_1:4', 'Fri Mar 01 12:30:05 UTC 2024'),
      text('t_1:5', 'user@example.org'),
      text('t_1:6', 'a,b;c'),
    );
    expect(sites.get('t_1:1')).toEqual({ kind: 'Unstable', reason: 'holds an identity hash' });
    expect(sites.get('t_1:2')).toEqual({ kind: 'Unstable', reason: 'holds a date or time' });
    expect(sites.get('t_1:3')).toEqual({ kind: 'Unstable', reason: 'holds a date or time' });
    expect(sites.get('t_1:4')).toEqual({ kind: 'Unstable', reason: 'holds a date or time' });
    expect(sites.get('t_1:5')).toMatchObject({ kind: 'Stable' });
    expect(sites.get('t_1:6')).toMatchObject({ kind: 'Stable' });
  });

  it('keeps of an object only that it was there, whatever its class in each run', () => {
    const { sites } = stableObservations([
      run({ key: 't_1:1', type: 'other', class: 'p.Parser$$Lambda$14/0x0000000800c03000' }),
      run({ key: 't_1:1', type: 'other', class: 'p.Parser$$Lambda$15/0x0000000800c04000' }),
    ]);
    expect(sites.get('t_1:1')).toEqual({
      kind: 'Stable',
      values: [{ kind: 'other', className: 'p.Parser$$Lambda$14/0x0000000800c03000' }],
    });
  });

  it('keeps the exception a method threw only when every run threw it from the same line', () => {
    const threw = (method: string, exception: string, line?: number) => ({
      key: method,
      thrown: exception,
      ...(line === undefined ? {} : { line }),
    });
    const { outcomes } = stableObservations([
      run(
        threw('t_1', 'java.lang.IllegalStateException', 40),
        threw('t_2', 'java.lang.IllegalStateException', 50),
        threw('t_3', 'java.lang.IllegalStateException', 60),
        threw('t_4', 'java.lang.IllegalStateException', 70),
      ),
      run(
        threw('t_1', 'java.lang.IllegalStateException', 40),
        threw('t_2', 'java.lang.IllegalArgumentException', 50),
        threw('t_3', 'java.lang.IllegalStateException', 61),
      ),
    ]);
    expect(outcomes.get('t_1')).toEqual({
      kind: 'Threw',
      exception: 'java.lang.IllegalStateException',
      line: 40,
    });
    expect(outcomes.get('t_2')).toEqual({ kind: 'Varied' });
    expect(outcomes.get('t_3')).toEqual({ kind: 'Varied' });
    // Thrown in one run, completed in the other.
    expect(outcomes.get('t_4')).toEqual({ kind: 'Varied' });
    expect(outcomes.has('t_5')).toBe(false);
  });
});

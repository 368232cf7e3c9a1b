import { describe, expect, it } from 'vitest';
import { chooseGate, decodeToken, gateCondition, type Observation } from './gate-signals.js';

const call = (failing: boolean | string, values: string[], count = 1): Observation => ({
  failingMethod: failing === true ? 'testFails' : failing || null,
  values,
  count,
});

describe('decodeToken', () => {
  it('reads nulls, flags, numbers and a string probe token (URL-encoded text after its length)', () => {
    expect(decodeToken('string', '~')).toEqual({ isNull: true });
    expect(decodeToken('boolean', 'false')).toEqual({ isNull: false, flag: false });
    expect(decodeToken('integral', '-4')).toEqual({ isNull: false, number: -4 });
    expect(decodeToken('string', '5:a+b%2Bc')).toEqual({
      isNull: false,
      number: 5,
      text: 'a b+c',
      complete: true,
    });
    expect(decodeToken('string', '90:abc').complete).toBe(false);
  });
});

describe('chooseGate', () => {
  const values = [
    { name: 'index', kind: 'integral' as const },
    { name: 'name', kind: 'string' as const },
  ];

  it('picks the comparison that excludes the most other calls, then the next, and counts who is left', () => {
    const gate = chooseGate(values, [
      call(true, ['7', '3:abc']),
      call(true, ['9', '3:abd']),
      call(false, ['2', '3:abc'], 5),
      call(false, ['8', '1:x'], 2),
      call(false, ['8', '3:abz']),
    ]);
    expect(gate).toEqual({
      kind: 'Gate',
      signals: [
        { text: 'index >= 7', negated: 'index < 7' },
        { text: 'name != null', negated: 'name == null' },
        { text: 'name.length() == 3', negated: 'name.length() != 3' },
      ],
      calls: 2,
      others: 8,
      othersOnBugPath: 1,
    });
  });

  it('is true for every failing call: a value that varies among them gives no equality', () => {
    const gate = chooseGate(values, [
      call(true, ['1', '~']),
      call(true, ['4', '~']),
      call(false, ['1', '2:ok']),
    ]);
    expect(gate.kind === 'Gate' && gate.signals.map((s) => s.text)).toEqual(['name == null']);
  });

  it('with no other call to exclude, falls back to one equality that keeps the path rare', () => {
    const gate = chooseGate(values, [call(true, ['3', '2:ab'])]);
    expect(gate).toMatchObject({ kind: 'Gate', others: 0, othersOnBugPath: 0 });
    expect(gate.kind === 'Gate' && gate.signals.map((s) => s.text)).toEqual(['index == 3']);
  });

  it('spells sizes of zero and one as isEmpty, and chars as literals', () => {
    const gate = chooseGate(
      [
        { name: 'rows', kind: 'size' },
        { name: 'c', kind: 'char' },
      ],
      [call(true, ['0', '34']), call(false, ['2', '34']), call(false, ['0', '97'])],
    );
    expect(gate.kind === 'Gate' && gateCondition(gate.signals)).toEqual({
      taken: "rows != null && rows.isEmpty() && c == '\"'",
      avoided: "rows == null || !rows.isEmpty() || c != '\"'",
    });
    const atLeastOne = chooseGate(
      [{ name: 'rows', kind: 'size' }],
      [call(true, ['1']), call(true, ['4']), call(false, ['0'])],
    );
    expect(atLeastOne.kind === 'Gate' && gateCondition(atLeastOne.signals).taken).toBe(
      'rows != null && !rows.isEmpty()',
    );
  });

  it('between conditions that exclude as much, prefers one on a value the bug does not read', () => {
    const gate = chooseGate(
      [
        { name: 'header', kind: 'array', readByBug: true },
        { name: 'width', kind: 'integral' },
      ],
      [call(true, ['~', '9']), call(false, ['2', '4']), call(false, ['3', '5'])],
    );
    expect(gate.kind === 'Gate' && gate.signals.map((s) => s.text)).toEqual(['width == 9']);
  });

  it('never gates on the null of a value the bug reads: that would restate the bug', () => {
    const bugRead = [{ name: 'rows', kind: 'size', readByBug: true }] as const;
    const observations = [call(true, ['~']), call(false, ['2']), call(false, ['0'])];
    expect(chooseGate(bugRead, observations).kind).toBe('NoGate');
    // Another value that separates the calls still makes a gate.
    const gate = chooseGate(
      [...bugRead, { name: 'width', kind: 'integral' }],
      [call(true, ['~', '9']), call(false, ['2', '4']), call(false, ['0', '5'])],
    );
    expect(gate.kind === 'Gate' && gate.signals.map((s) => s.text)).toEqual(['width == 9']);
    // The same null on a value the bug does not read is an ordinary special case.
    const other = chooseGate([{ name: 'rows', kind: 'size' }], observations);
    expect(other.kind === 'Gate' && other.signals.map((s) => s.text)).toEqual(['rows == null']);
  });

  it('keeps only the failing methods asked for: the calls of the others are excluded too', () => {
    const observations = [
      call('testShort', ['2', '2:ab']),
      call('testLong', ['9', '2:ab']),
      call(false, ['3', '2:ab']),
    ];
    // Both methods' calls: no condition true for both excludes the other call.
    expect(chooseGate(values, observations)).toEqual({
      kind: 'NoGate',
      reason: 'no condition true for the failing calls excludes another',
    });
    const gate = chooseGate(values, observations, new Set(['testLong']));
    expect(gate).toMatchObject({ kind: 'Gate', calls: 1, others: 2, othersOnBugPath: 0 });
    expect(gate.kind === 'Gate' && gate.signals.map((s) => s.text)).toEqual(['index == 9']);
  });

  it('of an object that is neither sized nor a string, asks only whether it is null', () => {
    const gate = chooseGate(
      [{ name: 'source', kind: 'reference' }],
      [call(true, ['~']), call(false, ['!']), call(false, ['!'])],
    );
    expect(gate).toMatchObject({ kind: 'Gate', others: 2, othersOnBugPath: 0 });
    expect(gate.kind === 'Gate' && gate.signals.map((s) => s.text)).toEqual(['source == null']);
  });

  it('refuses when no failing call reached the site, or none of its values is shared', () => {
    expect(chooseGate(values, [call(false, ['1', '~'])]).kind).toBe('NoGate');
    expect(
      chooseGate(
        [{ name: 'flag', kind: 'boolean' }],
        [call(true, ['true']), call(true, ['false'])],
      ),
    ).toEqual({
      kind: 'NoGate',
      reason: 'no condition on the profiled values holds for every failing call',
    });
  });
});

import { describe, expect, it } from 'vitest';
import { chooseGate, decodeToken, gateCondition, type Observation } from './gate-signals.js';

const call = (failing: boolean | string, values: string[], count = 1): Observation => ({
  failingMethod: failing === true ? 'testFails' : failing || null,
  values,
  count,
});

const texts = (gate: ReturnType<typeof chooseGate>) =>
  gate.kind === 'Gate' ? gate.signals.map((s) => s.text) : gate.reason;

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
    { name: 'index', kind: 'integral' as const, related: ['name'] },
    { name: 'name', kind: 'string' as const },
  ];

  it('picks the condition that excludes the most other calls, then the next, and counts who is left', () => {
    const gate = chooseGate(values, [
      call(true, ['0', '3:abc']),
      call(true, ['0', '2:ab']),
      call(false, ['2', '3:abc'], 5),
      call(false, ['0', '0:'], 2),
      call(false, ['0', '4:abcd']),
    ]);
    expect(gate).toEqual({
      kind: 'Gate',
      signals: [
        { text: 'index == 0', negated: 'index != 0' },
        { text: 'name != null', negated: 'name == null' },
        { text: '!name.isEmpty()', negated: 'name.isEmpty()' },
      ],
      calls: 2,
      others: 8,
      othersOnBugPath: 1,
    });
  });

  it('never gates on a condition the code around the site already decides', () => {
    const flags = [
      { name: 'hasUnderscores', kind: 'boolean' as const },
      { name: 'bytes', kind: 'array' as const },
    ];
    const alone = [call(true, ['true', '3'])];
    // With no other call observed, the most natural condition is taken: the flag...
    expect(texts(chooseGate(flags, alone))).toEqual(['hasUnderscores']);
    // ...unless an enclosing `if (hasUnderscores)` makes it true at every call.
    const gate = chooseGate(flags, alone, undefined, new Set(['hasUnderscores']));
    expect(texts(gate)).not.toContain('hasUnderscores');
    expect(gate.kind).toBe('Gate');
    // A value made by `new` just before needs no null check before its length is read.
    expect(texts(chooseGate(flags, alone, undefined, new Set(['hasUnderscores'])))).toEqual([
      'bytes != null',
      'bytes.length > 0',
    ]);
    expect(
      texts(chooseGate(flags, alone, undefined, new Set(['hasUnderscores', 'bytes!=null']))),
    ).toEqual(['bytes.length > 0']);
  });

  it('never writes a value the failing calls showed: calls told apart only by one get no gate', () => {
    // Today's form would have written `index == 7` or `name.equals("abc")`.
    expect(chooseGate(values, [call(true, ['7', '3:abc']), call(false, ['5', '3:abd'])])).toEqual({
      kind: 'NoGate',
      reason: 'no condition true for the failing calls excludes another',
    });
  });

  it('compares two values in scope with each other, and strings recorded whole by equals', () => {
    const gate = chooseGate(values, [
      call(true, ['7', '3:abc']),
      call(true, ['9', '5:abcde']),
      call(false, ['2', '3:abc']),
      call(false, ['4', '6:abcdef']),
    ]);
    expect(texts(gate)).toEqual(['name != null', 'index > name.length()']);
    const names = [
      { name: 'key', kind: 'string' as const, related: ['last'] },
      { name: 'last', kind: 'string' as const },
    ];
    const same = chooseGate(names, [
      call(true, ['2:ab', '2:ab']),
      call(false, ['2:ab', '2:ac']),
      call(false, ['1:a', '2:ab']),
    ]);
    expect(texts(same)).toEqual(['key != null', 'key.equals(last)']);
    // A prefix alone cannot show two long strings equal: no call is judged by it.
    const cut = 'x'.repeat(40);
    expect(
      chooseGate(names, [
        call(true, [`50:${cut}`, `50:${cut}`]),
        call(false, [`50:${cut}`, `50:${cut}`]),
      ]),
    ).toMatchObject({ kind: 'NoGate' });
  });

  it('compares only numbers that measure something: a length or size, or an int named as one', () => {
    const observations = [call(true, ['4:abcd', '4']), call(false, ['4:abcd', '2'])];
    const chance = [
      { name: 'name', kind: 'string', related: ['recordNumber', 'offset'] },
      { name: 'recordNumber', kind: 'integral' },
    ] as const;
    expect(chooseGate(chance, observations).kind).toBe('NoGate');
    const measured = [chance[0], { name: 'offset', kind: 'integral' }] as const;
    expect(texts(chooseGate(measured, observations))).toEqual([
      'name != null',
      'name.length() == offset',
    ]);
  });

  it('compares only values the method already relates in one expression', () => {
    // commons-csv's isMapped: `name.length() <= characterPosition`, two values the method never
    // compares or computes with, reads as planted.
    const observations = [call(true, ['4:abcd', '4']), call(false, ['4:abcd', '2'])];
    const unrelated = [
      { name: 'name', kind: 'string' },
      { name: 'offset', kind: 'integral' },
    ] as const;
    expect(chooseGate(unrelated, observations).kind).toBe('NoGate');
    const related = [unrelated[0], { ...unrelated[1], related: ['name'] }] as const;
    expect(texts(chooseGate(related, observations))).toEqual([
      'name != null',
      'name.length() == offset',
    ]);
  });

  it('spells sizes of zero as isEmpty, and never compares a char (only a literal would)', () => {
    const gate = chooseGate(
      [
        { name: 'rows', kind: 'size' },
        { name: 'c', kind: 'char' },
      ],
      [call(true, ['0', '34']), call(false, ['2', '34']), call(false, ['0', '97'])],
    );
    expect(gate.kind === 'Gate' && gateCondition(gate.signals)).toEqual({
      taken: 'rows != null && rows.isEmpty()',
      avoided: 'rows == null || !rows.isEmpty()',
    });
    expect(gate).toMatchObject({ others: 2, othersOnBugPath: 1 });
  });

  it('between conditions that exclude as much, prefers one on a value the bug does not read', () => {
    const gate = chooseGate(
      [
        { name: 'header', kind: 'array', readByBug: true },
        { name: 'width', kind: 'integral' },
      ],
      [call(true, ['0', '0']), call(false, ['2', '4']), call(false, ['3', '5'])],
    );
    expect(texts(gate)).toEqual(['width == 0']);
  });

  it('never gates on the null of a value the bug reads, nor compares two values it reads', () => {
    const bugRead = [{ name: 'rows', kind: 'size', readByBug: true }] as const;
    const observations = [call(true, ['~']), call(false, ['2']), call(false, ['0'])];
    expect(chooseGate(bugRead, observations).kind).toBe('NoGate');
    // The same null on a value the bug does not read is an ordinary special case.
    const other = chooseGate([{ name: 'rows', kind: 'size' }], observations);
    expect(texts(other)).toEqual(['rows == null']);
    // `i == n` beside the bug's own `i <= n` would be its condition again.
    const bound = [
      { name: 'i', kind: 'integral', readByBug: true },
      { name: 'n', kind: 'integral', readByBug: true },
    ] as const;
    expect(chooseGate(bound, [call(true, ['3', '3']), call(false, ['2', '3'])]).kind).toBe(
      'NoGate',
    );
  });

  it("checks null before a dereference, unless the bug's own lines dereference a value never seen null", () => {
    const observations = [call(true, ['4', '4']), call(false, ['4', '2']), call(false, ['3', '3'])];
    const read = [
      { name: 'buf', kind: 'array', readByBug: true, dereferencedByBug: true },
      { name: 'length', kind: 'integral', related: ['buf'] },
    ] as const;
    expect(texts(chooseGate(read, observations))).toEqual(['buf.length == length']);
    // Read by the bug but only passed on (`map.get(buf)`): a null would not fail there.
    const passed = [{ name: 'buf', kind: 'array', readByBug: true }, read[1]] as const;
    expect(texts(chooseGate(passed, observations))).toEqual([
      'buf != null',
      'buf.length == length',
    ]);
    const seenNull = [...observations, call(false, ['~', '1'])];
    expect(texts(chooseGate(read, seenNull))).toEqual(['buf != null', 'buf.length == length']);
  });

  it('keeps only the failing methods asked for: the calls of the others are excluded too', () => {
    const observations = [
      call('testShort', ['0', '2:ab']),
      call('testLong', ['9', '2:ab']),
      call(false, ['3', '2:ab']),
    ];
    // Both methods' calls: no condition true for both excludes the other call.
    expect(chooseGate(values, observations)).toEqual({
      kind: 'NoGate',
      reason: 'no condition true for the failing calls excludes another',
    });
    const gate = chooseGate(values, observations, new Set(['testShort']));
    expect(gate).toMatchObject({ kind: 'Gate', calls: 1, others: 2, othersOnBugPath: 0 });
    expect(texts(gate)).toEqual(['index == 0']);
  });

  it('with no other call to exclude, falls back to the most natural condition', () => {
    const gate = chooseGate(
      [...values, { name: 'quiet', kind: 'boolean' }],
      [call(true, ['3', '2:ab', 'true'])],
    );
    expect(gate).toMatchObject({ kind: 'Gate', others: 0, othersOnBugPath: 0 });
    expect(texts(gate)).toEqual(['quiet']);
  });

  it('of an object that is neither sized nor a string, asks only whether it is null', () => {
    const gate = chooseGate(
      [{ name: 'source', kind: 'reference' }],
      [call(true, ['~']), call(false, ['!']), call(false, ['!'])],
    );
    expect(gate).toMatchObject({ kind: 'Gate', others: 2, othersOnBugPath: 0 });
    expect(texts(gate)).toEqual(['source == null']);
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

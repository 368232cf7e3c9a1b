/*
 * The rare condition of Rare Input Path Conditioning, chosen from a profile of the values that
 * reached the bug site: flags, null and emptiness checks, comparisons of values in scope with each
 * other or with 0, 1 or -1, each true for every call of the witness's failing methods, picked
 * greedily to exclude the most other observed calls. Pure and deterministic: the same profile
 * gives the same condition.
 */

/** How a probed value is recorded and what can be asked of it. */
export type ProbedKind =
  | 'integral'
  | 'char'
  | 'boolean'
  | 'string'
  | 'array'
  | 'size'
  | 'length'
  /** Any other object: only whether it is null. */
  | 'reference';

export interface ProbedValue {
  name: string;
  kind: ProbedKind;
  /**
   * Whether the bug's changed lines read it: a condition on it tends to restate the bug (a null
   * check before the dereference the bug made unguarded), so others that exclude as much win.
   */
  readByBug?: boolean;
  /** Whether the bug's changed lines dereference it (`x.m()`, `x[i]`): a null there fails anyway. */
  dereferencedByBug?: boolean;
  /**
   * The values the method already compares or computes with it in one expression
   * (`offset + len > array.length` relates offset, len and array): only those it may be compared
   * with. Two values the method never relates (`name.length() <= characterPosition`) read as
   * planted.
   */
  related?: readonly string[];
}

/** One call that reached the site: the failing witness method it came from, and its values. */
export interface Observation {
  /** The witness's test method, when it is one that fails on the bug; null for any other call. */
  failingMethod: string | null;
  /** One token per probed value: a number, `true`/`false`, `~` for null, `<length>:<text>`. */
  values: readonly string[];
  /** How many calls recorded exactly these values. */
  count: number;
}

/** One conjunct of the gate, in Java, with its negation for a guard that keeps the clean code. */
export interface Signal {
  text: string;
  negated: string;
}

export type GateChoice =
  | {
      kind: 'Gate';
      /** The conjuncts in order (null checks before what dereferences). */
      signals: Signal[];
      /** The kept failing methods' calls (all on the bug path). */
      calls: number;
      /** Observed calls other than the kept failing methods', and how many still pass the gate. */
      others: number;
      othersOnBugPath: number;
    }
  | { kind: 'NoGate'; reason: string };

interface Decoded {
  isNull: boolean;
  number?: number;
  flag?: boolean;
  /** A string's recorded text and whether it is all of it (the probe keeps a prefix). */
  text?: string;
  complete?: boolean;
}

/** The longest text the probe records of a string. */
export const PROBED_TEXT_LIMIT = 40;

export function decodeToken(kind: ProbedKind, token: string): Decoded {
  if (token === '~') return { isNull: true };
  if (kind === 'reference') return { isNull: false };
  if (kind === 'boolean') return { isNull: false, flag: token === 'true' };
  if (kind === 'string') {
    const colon = token.indexOf(':');
    const length = Number(token.slice(0, colon));
    const text = decodeURIComponent(token.slice(colon + 1).replace(/\+/g, ' '));
    return { isNull: false, number: length, text, complete: text.length === length };
  }
  return { isNull: false, number: Number(token) };
}

interface Predicate {
  /** The probed values it reads. */
  values: number[];
  /** The values it dereferences: each needs its null check first. */
  dereferences: number[];
  /** Whether it is a value's `== null` or `!= null`. */
  nullCheck: boolean;
  signal: Signal;
  /** Whether it holds for a call's values; undefined when the probe's record cannot tell. */
  test: (decoded: readonly Decoded[]) => boolean | undefined;
  /** Lower reads more naturally; ties in exclusion go to the more natural one. */
  rank: number;
}

const NEGATED: Record<string, string> = {
  '==': '!=',
  '!=': '==',
  '>': '<=',
  '<=': '>',
  '<': '>=',
  '>=': '<',
};

const COMPARE: Record<string, (a: number, b: number) => boolean> = {
  '==': (a, b) => a === b,
  '!=': (a, b) => a !== b,
  '>': (a, b) => a > b,
  '<=': (a, b) => a <= b,
  '<': (a, b) => a < b,
  '>=': (a, b) => a >= b,
};

function comparison(left: string, operator: string, right: string): Signal {
  return {
    text: `${left} ${operator} ${right}`,
    negated: `${left} ${NEGATED[operator]!} ${right}`,
  };
}

function call(text: string): Signal {
  return { text, negated: `!${text}` };
}

/** How a value reads as a number in Java, if it does: an int, or a length or size. */
function numberView(value: ProbedValue): { read: string; sized: boolean } | null {
  switch (value.kind) {
    case 'integral':
      return { read: value.name, sized: false };
    case 'string':
    case 'size':
    case 'length':
      return { read: `${value.name}.${value.kind === 'size' ? 'size' : 'length'}()`, sized: true };
    case 'array':
      return { read: `${value.name}.length`, sized: true };
    // A char is only ever compared with a literal, which the gate does not write.
    case 'char':
    case 'boolean':
    case 'reference':
      return null;
  }
}

const isReference = (value: ProbedValue) =>
  value.kind !== 'integral' && value.kind !== 'char' && value.kind !== 'boolean';

/**
 * Comparisons of a number with the constants a maintainer writes without a reason from the data
 * (0, 1, -1, empty): never a value the witness's inputs showed.
 */
function constantComparisons(value: ProbedValue, view: { read: string; sized: boolean }) {
  const empty = value.kind === 'string' || value.kind === 'size' || value.kind === 'length';
  if (view.sized) {
    return [
      {
        signal: empty ? call(`${value.name}.isEmpty()`) : comparison(view.read, '==', '0'),
        holds: (n: number) => n === 0,
        rank: 1,
      },
      {
        signal: empty
          ? { text: `!${value.name}.isEmpty()`, negated: `${value.name}.isEmpty()` }
          : comparison(view.read, '>', '0'),
        holds: (n: number) => n > 0,
        rank: 1,
      },
      { signal: comparison(view.read, '==', '1'), holds: (n: number) => n === 1, rank: 3 },
      { signal: comparison(view.read, '>', '1'), holds: (n: number) => n > 1, rank: 3 },
    ];
  }
  return [
    ...(['==', '>', '<', '!=', '>=', '<='] as const).map((operator) => ({
      signal: comparison(view.read, operator, '0'),
      holds: (n: number) => COMPARE[operator]!(n, 0),
      rank: 1,
    })),
    { signal: comparison(view.read, '==', '1'), holds: (n: number) => n === 1, rank: 3 },
    { signal: comparison(view.read, '>', '1'), holds: (n: number) => n > 1, rank: 3 },
    { signal: comparison(view.read, '==', '-1'), holds: (n: number) => n === -1, rank: 3 },
  ];
}

/** Every predicate on one probed value alone true for all the failing calls. */
function predicatesOf(
  value: ProbedValue,
  index: number,
  failing: readonly (readonly Decoded[])[],
): Predicate[] {
  const found: Predicate[] = [];
  const own = failing.map((decoded) => decoded[index]!);
  const reference = isReference(value);
  if (reference && own.every((d) => d.isNull)) {
    // Gating the bug's own dereference on the null that breaks it (`if (rows == null) {
    // rows.size() …`) restates the bug in a line no maintainer writes.
    if (value.readByBug) return found;
    found.push({
      values: [index],
      dereferences: [],
      nullCheck: true,
      signal: comparison(value.name, '==', 'null'),
      test: (d) => d[index]!.isNull,
      rank: 1,
    });
    return found;
  }
  if (own.some((d) => d.isNull)) return found;
  if (value.kind === 'boolean') {
    const flag = own[0]!.flag!;
    if (own.every((d) => d.flag === flag)) {
      found.push({
        values: [index],
        dereferences: [],
        nullCheck: false,
        signal: flag
          ? { text: value.name, negated: `!${value.name}` }
          : { text: `!${value.name}`, negated: value.name },
        test: (d) => d[index]!.flag === flag,
        rank: 0,
      });
    }
    return found;
  }
  if (reference) {
    found.push({
      values: [index],
      dereferences: [],
      nullCheck: true,
      signal: comparison(value.name, '!=', 'null'),
      test: (d) => !d[index]!.isNull,
      rank: 1,
    });
  }
  const view = numberView(value);
  if (!view) return found;
  for (const constant of constantComparisons(value, view)) {
    if (!own.every((d) => constant.holds(d.number!))) continue;
    found.push({
      values: [index],
      dereferences: reference ? [index] : [],
      nullCheck: false,
      signal: constant.signal,
      test: (d) => !d[index]!.isNull && constant.holds(d[index]!.number!),
      rank: constant.rank,
    });
  }
  return found;
}

/** Names of ints that count or index something: a length or size compares with them. */
const MEASURE_NAME =
  /(len|length|size|count|index|idx|pos|position|offset|start|end|limit|max|min|capacity|width|height|depth|^[ijkn]$)/i;

/**
 * Whether a number measures something a length or index compares with: a length or size, or an
 * int named so. Two unrelated numbers equal by chance (`name.length() == recordNumber`) read as
 * planted.
 */
function measures(value: ProbedValue, view: { sized: boolean }): boolean {
  return view.sized || MEASURE_NAME.test(value.name.replace(/^this\./, ''));
}

/** Predicates comparing two probed values with each other, true for all the failing calls. */
function pairPredicates(
  values: readonly ProbedValue[],
  failing: readonly (readonly Decoded[])[],
): Predicate[] {
  const found: Predicate[] = [];
  const present = (i: number) => failing.every((decoded) => !decoded[i]!.isNull);
  for (let i = 0; i < values.length; i++) {
    for (let j = i + 1; j < values.length; j++) {
      const [a, b] = [values[i]!, values[j]!];
      // Two values the bug's own lines read: their comparison is the bug's own condition again
      // (`i == n` beside a boundary moved on `i < n`).
      if (a.readByBug && b.readByBug) continue;
      if (!present(i) || !present(j)) continue;
      if (!a.related?.includes(b.name) && !b.related?.includes(a.name)) continue;
      const dereferences = [i, j].filter((k) => isReference(values[k]!));
      const viewA = numberView(a);
      const viewB = numberView(b);
      if (viewA && viewB && measures(a, viewA) && measures(b, viewB)) {
        for (const operator of Object.keys(COMPARE)) {
          const holds = (d: readonly Decoded[]) => COMPARE[operator]!(d[i]!.number!, d[j]!.number!);
          if (!failing.every(holds)) continue;
          found.push({
            values: [i, j],
            dereferences,
            nullCheck: false,
            signal: comparison(viewA.read, operator, viewB.read),
            test: (d) => !d[i]!.isNull && !d[j]!.isNull && holds(d),
            rank: 2,
          });
        }
      }
      if (a.kind === 'string' && b.kind === 'string') {
        // The probe keeps a prefix of each string: equal only when both are recorded whole.
        const same = (d: readonly Decoded[]) => {
          const [x, y] = [d[i]!, d[j]!];
          if (x.number !== y.number || x.text !== y.text) return false;
          return x.complete && y.complete ? true : undefined;
        };
        for (const equal of [true, false]) {
          if (!failing.every((d) => same(d) === equal)) continue;
          const text = `${a.name}.equals(${b.name})`;
          found.push({
            values: [i, j],
            dereferences: [i],
            nullCheck: false,
            signal: equal ? call(text) : { text: `!${text}`, negated: text },
            test: (d) => {
              if (d[i]!.isNull) return false;
              const result = d[j]!.isNull ? false : same(d);
              return result === undefined ? undefined : result === equal;
            },
            rank: 2,
          });
        }
      }
    }
  }
  return found;
}

/** A condition's text without spaces, as `decided` conditions are compared. */
export function compact(condition: string): string {
  return condition.replace(/\s+/g, '');
}

/** The most conditions a gate combines: beyond two it stops reading like a special case. */
const MAX_SIGNALS = 2;

/**
 * The gate for a profile: conjuncts true for every call of the failing methods kept (all of them
 * unless given), chosen one at a time to exclude the most remaining other calls (ties: one on
 * values the bug does not read, the more natural, then the earlier value). Each compares a value
 * with another in scope or with 0, 1, -1, null or empty, or reads a flag: a literal the witness's
 * inputs showed would both tell the reader the bug's input and read as planted.
 */
export function chooseGate(
  values: readonly ProbedValue[],
  observations: readonly Observation[],
  kept?: ReadonlySet<string>,
  decided: ReadonlySet<string> = new Set(),
): GateChoice {
  const keeps = (o: Observation) =>
    o.failingMethod !== null && (!kept || kept.has(o.failingMethod));
  const failing = observations.filter(keeps);
  const others = observations.filter((o) => !keeps(o));
  if (failing.length === 0) return { kind: 'NoGate', reason: 'no failing call reached the site' };
  const decode = (o: Observation) => values.map((v, i) => decodeToken(v.kind, o.values[i]!));
  const failingDecoded = failing.map(decode);
  // A condition the code around the site already tests is constant there: `hasUnderscores`
  // inside `if (hasUnderscores)` would gate nothing and read as planted.
  const isDecided = (predicate: Predicate) =>
    decided.has(compact(predicate.signal.text)) || decided.has(compact(predicate.signal.negated));
  const predicates = [
    ...values.flatMap((value, i) => predicatesOf(value, i, failingDecoded)),
    ...pairPredicates(values, failingDecoded),
  ].filter((predicate) => !isDecided(predicate));
  // A dereference is only asked of a value that is not null; a call the record cannot judge
  // counts as passing, so the gate is never rarer than it looks.
  const passes = (predicate: Predicate, decoded: readonly Decoded[]) =>
    predicate.dereferences.every((k) => !decoded[k]!.isNull) && predicate.test(decoded) !== false;
  const restates = (predicate: Predicate) =>
    predicate.values.some((k) => values[k]!.readByBug === true);
  const preferred = (a: Predicate, b: Predicate) =>
    restates(a) !== restates(b) ? !restates(a) : a.rank < b.rank;
  const remainingAll = others.map(decode);
  let remaining = others.map((o, i) => ({ decoded: remainingAll[i]!, count: o.count }));
  const chosen: Predicate[] = [];
  while (chosen.length < MAX_SIGNALS) {
    let best: { predicate: Predicate; excluded: number } | undefined;
    for (const predicate of predicates) {
      if (chosen.includes(predicate)) continue;
      const excluded = remaining
        .filter((entry) => !passes(predicate, entry.decoded))
        .reduce((sum, entry) => sum + entry.count, 0);
      if (
        excluded > 0 &&
        (!best ||
          excluded > best.excluded ||
          (excluded === best.excluded && preferred(predicate, best.predicate)))
      ) {
        best = { predicate, excluded };
      }
    }
    if (!best) break;
    chosen.push(best.predicate);
    remaining = remaining.filter((entry) => passes(best.predicate, entry.decoded));
  }
  if (chosen.length === 0) {
    // With other calls observed, a condition none of them fails would change nothing seen.
    if (others.length > 0) {
      return { kind: 'NoGate', reason: 'no condition true for the failing calls excludes another' };
    }
    // Nothing else reached the site: the most natural condition keeps the special case.
    const natural = [...predicates]
      .filter((p) => !p.nullCheck)
      .sort((a, b) => Number(restates(a)) - Number(restates(b)) || a.rank - b.rank);
    if (natural.length === 0) {
      return {
        kind: 'NoGate',
        reason: 'no condition on the profiled values holds for every failing call',
      };
    }
    chosen.push(natural[0]!);
  }
  // A value the bug's own lines dereference, never seen null, needs no check a reader would
  // find redundant: the code around the gate dereferences it anyway.
  // Nor does a value the code around the gate makes non-null (`new`, an enclosing check).
  const dereferencedAnyway = new Set(
    values.flatMap((value, k) =>
      (value.dereferencedByBug &&
        [...failingDecoded, ...remainingAll].every((d) => !d[k]!.isNull)) ||
      decided.has(compact(comparison(value.name, '!=', 'null').text))
        ? [k]
        : [],
    ),
  );
  return {
    kind: 'Gate',
    signals: spelled(values, chosen, dereferencedAnyway),
    calls: failing.reduce((sum, o) => sum + o.count, 0),
    others: others.reduce((sum, o) => sum + o.count, 0),
    othersOnBugPath: remaining.reduce((sum, entry) => sum + entry.count, 0),
  };
}

/** The chosen predicates in the values' order, each dereference after its value's null check. */
function spelled(
  values: readonly ProbedValue[],
  chosen: readonly Predicate[],
  dereferencedAnyway: ReadonlySet<number>,
): Signal[] {
  const ordered = [...chosen].sort(
    (a, b) => Math.max(...a.values) - Math.max(...b.values) || a.rank - b.rank,
  );
  const checked = new Set([
    ...dereferencedAnyway,
    ...chosen.filter((p) => p.nullCheck).flatMap((p) => p.values),
  ]);
  const signals: Signal[] = [];
  for (const predicate of ordered) {
    for (const k of predicate.dereferences) {
      if (checked.has(k)) continue;
      checked.add(k);
      signals.push(comparison(values[k]!.name, '!=', 'null'));
    }
    signals.push(predicate.signal);
  }
  return signals;
}

/** The gate's condition, and the condition under which the clean code runs instead. */
export function gateCondition(signals: readonly Signal[]): { taken: string; avoided: string } {
  return {
    taken: signals.map((s) => s.text).join(' && '),
    avoided: signals.map((s) => s.negated).join(' || '),
  };
}

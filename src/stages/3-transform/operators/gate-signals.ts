/*
 * The rare condition of Rare Input Path Conditioning, chosen from a profile of the values that
 * reached the bug site: comparisons against constants the witness's failing calls showed, each
 * true for every one of those calls, picked greedily to exclude the most other observed calls.
 * Pure and deterministic: the same profile gives the same condition.
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
  /** The probed value it reads; its null check comes with it when it dereferences. */
  value: number;
  dereferences: boolean;
  /** Whether it is the value's `== null` or `!= null`. */
  nullCheck: boolean;
  signal: Signal;
  test: (decoded: Decoded) => boolean;
  /** Lower reads more naturally; ties in exclusion go to the more natural one. */
  rank: number;
}

function javaString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

function charLiteral(code: number): string | undefined {
  if (code < 0x20 || code > 0x7e) return undefined;
  const char = String.fromCharCode(code);
  return `'${char === "'" || char === '\\' ? `\\${char}` : char}'`;
}

const NEGATED: Record<string, string> = {
  '==': '!=',
  '!=': '==',
  '>': '<=',
  '<=': '>',
  '<': '>=',
  '>=': '<',
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

/** What a value's number is read as in Java, and how a constant is spelled against it. */
function numberView(value: ProbedValue): { read: string; spell: (n: number) => string } | null {
  switch (value.kind) {
    case 'integral':
      return { read: value.name, spell: String };
    case 'char':
      return { read: value.name, spell: (n) => charLiteral(n) ?? String(n) };
    case 'string':
    case 'size':
    case 'length':
      return {
        read: `${value.name}.${value.kind === 'size' ? 'size' : 'length'}()`,
        spell: String,
      };
    case 'array':
      return { read: `${value.name}.length`, spell: String };
    case 'boolean':
    case 'reference':
      return null;
  }
}

/** Every predicate true for all the failing calls, for one probed value. */
function predicatesOf(
  value: ProbedValue,
  index: number,
  failing: readonly Decoded[],
  all: readonly Decoded[],
): Predicate[] {
  const found: Predicate[] = [];
  const reference = value.kind !== 'integral' && value.kind !== 'char' && value.kind !== 'boolean';
  const add = (predicate: Omit<Predicate, 'value' | 'nullCheck'>) =>
    found.push({ ...predicate, value: index, nullCheck: reference && !predicate.dereferences });
  if (reference && failing.every((d) => d.isNull)) {
    // Gating the bug's own dereference on the null that breaks it (`if (rows == null) {
    // rows.size() …`) restates the bug in a line no maintainer writes.
    if (value.readByBug) return found;
    add({
      dereferences: false,
      signal: comparison(value.name, '==', 'null'),
      test: (d) => d.isNull,
      rank: 2,
    });
    return found;
  }
  if (failing.some((d) => d.isNull)) return found;
  if (value.kind === 'boolean') {
    const flag = failing[0]!.flag!;
    if (failing.every((d) => d.flag === flag)) {
      add({
        dereferences: false,
        signal: flag
          ? { text: value.name, negated: `!${value.name}` }
          : { text: `!${value.name}`, negated: value.name },
        test: (d) => d.flag === flag,
        rank: 0,
      });
    }
    return found;
  }
  if (reference) {
    add({
      dereferences: false,
      signal: comparison(value.name, '!=', 'null'),
      test: (d) => !d.isNull,
      rank: 2,
    });
  }
  const view = numberView(value);
  if (!view) return found;
  const numbers = failing.map((d) => d.number!);
  const low = Math.min(...numbers);
  const high = Math.max(...numbers);
  const observed = all.filter((d) => !d.isNull).map((d) => d.number!);
  const sized = value.kind === 'string' || value.kind === 'size';
  if (low === high) {
    add({
      dereferences: reference,
      signal:
        low === 0 && sized
          ? call(`${value.name}.isEmpty()`)
          : comparison(view.read, '==', view.spell(low)),
      test: (d) => d.number === low,
      rank: 0,
    });
  }
  if (low > Math.min(...observed)) {
    add({
      dereferences: reference,
      signal:
        low === 1 && sized
          ? { text: `!${value.name}.isEmpty()`, negated: `${value.name}.isEmpty()` }
          : low === 1 && reference
            ? comparison(view.read, '>', '0')
            : comparison(view.read, '>=', view.spell(low)),
      test: (d) => d.number! >= low,
      rank: 1,
    });
  }
  if (high < Math.max(...observed)) {
    add({
      dereferences: reference,
      signal: comparison(view.read, '<=', view.spell(high)),
      test: (d) => d.number! <= high,
      rank: 1,
    });
  }
  if (value.kind === 'string') {
    const texts = failing.map((d) => d.text!);
    if (failing.every((d) => d.complete && d.text === texts[0])) {
      add({
        dereferences: true,
        signal: call(`${value.name}.equals(${javaString(texts[0]!)})`),
        test: (d) => d.complete === true && d.text === texts[0],
        rank: 4,
      });
    } else {
      let prefix = texts[0]!;
      for (const text of texts) while (!text.startsWith(prefix)) prefix = prefix.slice(0, -1);
      if (prefix.length > 0) {
        add({
          dereferences: true,
          signal: call(`${value.name}.startsWith(${javaString(prefix)})`),
          test: (d) => d.text!.startsWith(prefix),
          rank: 3,
        });
      }
    }
  }
  return found;
}

/** The most signals a gate combines: beyond three it stops reading like a special case. */
const MAX_SIGNALS = 3;

/**
 * The gate for a profile: conjuncts true for every call of the failing methods kept (all of them
 * unless given), chosen one at a time to exclude the most remaining other calls (ties: one on a
 * value the bug does not read, the more natural, then the earlier value).
 */
export function chooseGate(
  values: readonly ProbedValue[],
  observations: readonly Observation[],
  kept?: ReadonlySet<string>,
): GateChoice {
  const keeps = (o: Observation) =>
    o.failingMethod !== null && (!kept || kept.has(o.failingMethod));
  const failing = observations.filter(keeps);
  const others = observations.filter((o) => !keeps(o));
  if (failing.length === 0) return { kind: 'NoGate', reason: 'no failing call reached the site' };
  const decode = (o: Observation) => values.map((v, i) => decodeToken(v.kind, o.values[i]!));
  const failingDecoded = failing.map(decode);
  const othersDecoded = others.map(decode);
  const allDecoded = [...failingDecoded, ...othersDecoded];
  const predicates = values.flatMap((value, i) =>
    predicatesOf(
      value,
      i,
      failingDecoded.map((d) => d[i]!),
      allDecoded.map((d) => d[i]!),
    ),
  );
  // A dereference is only asked of a value that is not null: its null check comes first.
  const passes = (predicate: Predicate, decoded: Decoded[]) =>
    (!predicate.dereferences || !decoded[predicate.value]!.isNull) &&
    predicate.test(decoded[predicate.value]!);
  const restates = (predicate: Predicate) => values[predicate.value]!.readByBug === true;
  const preferred = (a: Predicate, b: Predicate) =>
    restates(a) !== restates(b) ? !restates(a) : a.rank < b.rank;
  let remaining = othersDecoded.map((decoded, i) => ({ decoded, count: others[i]!.count }));
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
    // Nothing else reached the site: the most specific condition still keeps the path rare.
    const specific = predicates
      .filter((p) => p.signal.text.includes(' == ') || p.signal.text.includes('.equals('))
      .sort((a, b) => Number(restates(a)) - Number(restates(b)));
    if (specific.length === 0) {
      return {
        kind: 'NoGate',
        reason: 'no condition on the profiled values holds for every failing call',
      };
    }
    chosen.push(specific[0]!);
  }
  const signals: Signal[] = [];
  for (const value of [...new Set(chosen.map((p) => p.value))].sort((a, b) => a - b)) {
    const own = chosen.filter((p) => p.value === value).sort((a, b) => a.rank - b.rank);
    const nullCheck = own.find((p) => p.nullCheck);
    if (own.some((p) => p.dereferences) && !nullCheck) {
      signals.push(comparison(values[value]!.name, '!=', 'null'));
    }
    if (nullCheck) signals.push(nullCheck.signal);
    for (const predicate of own) if (predicate !== nullCheck) signals.push(predicate.signal);
  }
  return {
    kind: 'Gate',
    signals,
    calls: failing.reduce((sum, o) => sum + o.count, 0),
    others: others.reduce((sum, o) => sum + o.count, 0),
    othersOnBugPath: remaining.reduce((sum, entry) => sum + entry.count, 0),
  };
}

/** The gate's condition, and the condition under which the clean code runs instead. */
export function gateCondition(signals: readonly Signal[]): { taken: string; avoided: string } {
  return {
    taken: signals.map((s) => s.text).join(' && '),
    avoided: signals.map((s) => s.negated).join(' || '),
  };
}

import { z } from 'zod';

/*
 * The lines jvm/probe/witnessgym/probe/Observe.java appends while a probe class runs on the gold
 * version, and which of them hold in every run: only a value the code gives every time can become
 * an assertion.
 */

const LITERAL_TYPES = ['boolean', 'char', 'integral', 'floating', 'string', 'enum'] as const;

/** One line of an observation file. */
export const ObservationLineSchema = z.union([
  z.strictObject({ key: z.string(), type: z.literal('null'), value: z.literal('null') }),
  z.strictObject({
    key: z.string(),
    type: z.enum(LITERAL_TYPES),
    class: z.string(),
    value: z.string(),
    /** Written when the observed expression was of primitive type, not boxed or a supertype. */
    primitive: z.literal(true).optional(),
  }),
  z.strictObject({ key: z.string(), type: z.literal('other'), class: z.string() }),
  z.strictObject({
    key: z.string(),
    thrown: z.string(),
    line: z.number().int().positive().optional(),
  }),
]);

/** A value as the probe recorded it: the text of a literal, or only the class of an object. */
export type ObservedValue =
  | { kind: 'null' }
  | {
      kind: (typeof LITERAL_TYPES)[number];
      className: string;
      text: string;
      /** Whether the expression's static type was primitive (else a boxed or wider type). */
      primitive: boolean;
    }
  | { kind: 'other'; className: string };

export type Observation =
  /** A value seen at an observation site, keyed `<probe method>:<n>`. */
  | { kind: 'Value'; key: string; value: ObservedValue }
  /** An exception that left a probe method: its class, and the probe's line it left from. */
  | { kind: 'Thrown'; method: string; exception: string; line: number | undefined };

export type ObservationParse =
  | { kind: 'Parsed'; observations: Observation[] }
  | { kind: 'Malformed'; line: number; reason: string };

/** The observations of one run, from the text of its observation file. */
export function parseObservations(text: string): ObservationParse {
  const observations: Observation[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    let json: unknown;
    try {
      json = JSON.parse(line);
    } catch (error) {
      return { kind: 'Malformed', line: index + 1, reason: (error as Error).message };
    }
    const parsed = ObservationLineSchema.safeParse(json);
    if (!parsed.success) {
      return { kind: 'Malformed', line: index + 1, reason: parsed.error.message };
    }
    const entry = parsed.data;
    if ('thrown' in entry) {
      observations.push({
        kind: 'Thrown',
        method: entry.key,
        exception: entry.thrown,
        line: entry.line,
      });
    } else if (entry.type === 'null') {
      observations.push({ kind: 'Value', key: entry.key, value: { kind: 'null' } });
    } else if (entry.type === 'other') {
      observations.push({
        kind: 'Value',
        key: entry.key,
        value: { kind: 'other', className: entry.class },
      });
    } else {
      observations.push({
        kind: 'Value',
        key: entry.key,
        value: {
          kind: entry.type,
          className: entry.class,
          text: entry.value,
          primitive: entry.primitive === true,
        },
      });
    }
  }
  return { kind: 'Parsed', observations };
}

export type SiteObservation =
  /** The same values, in the same order, in every run (several when the site is in a loop). */
  | { kind: 'Stable'; values: ObservedValue[] }
  /** Reached, but no assertion can hold on what it gave. */
  | { kind: 'Unstable'; reason: string };

export type MethodOutcome =
  | { kind: 'Threw'; exception: string; line: number | undefined }
  /** An exception in some runs and not in others, or not the same one. */
  | { kind: 'Varied' };

export interface StableObservations {
  /** Each site some run reached; a site no run reached is absent. */
  sites: ReadonlyMap<string, SiteObservation>;
  /** Each probe method some run saw an exception leave; a method absent completed every time. */
  outcomes: ReadonlyMap<string, MethodOutcome>;
}

/** A string with an object's identity hash in it (`Parser@1b6d3586`): new in every JVM. */
const IDENTITY_HASH = /\w+@[0-9a-f]{4,}/;

/** A string with a date or a time of day in it: true today, false tomorrow. */
const DATE_OR_TIME = new RegExp(
  [
    /\d{4}-\d{2}-\d{2}/,
    /\d{1,2}\/\d{1,2}\/\d{2,4}/,
    /\b\d{1,2}:\d{2}:\d{2}\b/,
    /\b(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? \d{4}\b/,
    /\b(Mon|Tue|Wed|Thu|Fri|Sat|Sun) (Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec) \d{1,2}\b/,
  ]
    .map((pattern) => pattern.source)
    .join('|'),
);

function sameValue(a: ObservedValue, b: ObservedValue): boolean {
  if (a.kind !== b.kind) return false;
  // Of an object only its being there is asserted: its class may be a lambda's, new every run.
  if (a.kind === 'null' || a.kind === 'other') return true;
  return (
    b.kind !== 'null' &&
    b.kind !== 'other' &&
    a.className === b.className &&
    a.text === b.text &&
    a.primitive === b.primitive
  );
}

/** Whether two runs gave a site the same values in the same order (of objects, only the kind). */
export function sameSequence(a: readonly ObservedValue[], b: readonly ObservedValue[]): boolean {
  return a.length === b.length && a.every((value, i) => sameValue(value, b[i]!));
}

function siteObservation(sequences: readonly ObservedValue[][]): SiteObservation {
  const [first = []] = sequences;
  if (!sequences.every((sequence) => sameSequence(sequence, first))) {
    return { kind: 'Unstable', reason: 'not the same in every run' };
  }
  const strings = first.flatMap((value) => (value.kind === 'string' ? [value.text] : []));
  if (strings.some((text) => IDENTITY_HASH.test(text))) {
    return { kind: 'Unstable', reason: 'holds an identity hash' };
  }
  if (strings.some((text) => DATE_OR_TIME.test(text))) {
    return { kind: 'Unstable', reason: 'holds a date or time' };
  }
  return { kind: 'Stable', values: first };
}

/** What held in every run of a probe class (each run's observations, as parsed). */
export function stableObservations(runs: readonly (readonly Observation[])[]): StableObservations {
  const valuesByRun = runs.map((run) => {
    const byKey = new Map<string, ObservedValue[]>();
    for (const observation of run) {
      if (observation.kind !== 'Value') continue;
      byKey.set(observation.key, [...(byKey.get(observation.key) ?? []), observation.value]);
    }
    return byKey;
  });
  const thrownByRun = runs.map(
    (run) =>
      new Map(
        run.flatMap((observation) =>
          observation.kind === 'Thrown' ? [[observation.method, observation] as const] : [],
        ),
      ),
  );
  const sites = new Map<string, SiteObservation>();
  for (const key of new Set(valuesByRun.flatMap((byKey) => [...byKey.keys()]))) {
    sites.set(key, siteObservation(valuesByRun.map((byKey) => byKey.get(key) ?? [])));
  }
  const outcomes = new Map<string, MethodOutcome>();
  for (const method of new Set(thrownByRun.flatMap((byMethod) => [...byMethod.keys()]))) {
    const [first, ...others] = thrownByRun.map((byMethod) => byMethod.get(method));
    const same = others.every(
      (other) => other?.exception === first?.exception && other?.line === first?.line,
    );
    outcomes.set(
      method,
      first && same
        ? { kind: 'Threw', exception: first.exception, line: first.line }
        : { kind: 'Varied' },
    );
  }
  return { sites, outcomes };
}

import {
  sameSequence,
  type MethodOutcome,
  type ObservedValue,
  type SiteObservation,
  type StableObservations,
} from './amplify/observations.js';

/*
 * Evidence that a mutant is not equivalent to gold: a call sequence (a probe method, i.e. one of
 * the instance's tests as it is, with one input changed or with one call added) whose observed result differs between
 * the two, each side the same in every one of its runs. Without it a surviving mutant is only
 * "unproven", never counted as a blind spot.
 */

export interface Evidence {
  /** The probe method: the call sequence. */
  probe: string;
  /** The observed site (`<probe>:<n>`), or null when what differs is how the method ended. */
  site: string | null;
  gold: string;
  mutant: string;
}

function valueText(value: ObservedValue): string {
  if (value.kind === 'null') return 'null';
  if (value.kind === 'other') return `a ${value.className}`;
  return value.kind === 'string' ? JSON.stringify(value.text) : value.text;
}

function sequenceText(values: readonly ObservedValue[]): string {
  if (values.length === 0) return 'not reached';
  return values.length === 1 ? valueText(values[0]!) : `[${values.map(valueText).join(', ')}]`;
}

function outcomeText(outcome: MethodOutcome | undefined): string {
  if (!outcome) return 'completes';
  return outcome.kind === 'Threw' ? `throws ${outcome.exception}` : 'varies';
}

function siteText(site: SiteObservation | undefined): string | undefined {
  if (!site) return 'not reached';
  return site.kind === 'Stable' ? sequenceText(site.values) : undefined;
}

function siteNumber(key: string): number {
  return Number(key.slice(key.lastIndexOf(':') + 1));
}

/** The first difference of each probe method between gold's runs and the mutant's, if any. */
export function differences(
  gold: StableObservations,
  mutant: StableObservations,
  probes: readonly string[],
): Evidence[] {
  const found: Evidence[] = [];
  for (const probe of probes) {
    const goldEnd = gold.outcomes.get(probe);
    const mutantEnd = mutant.outcomes.get(probe);
    const keys = [...new Set([...gold.sites.keys(), ...mutant.sites.keys()])]
      .filter((key) => key.startsWith(`${probe}:`))
      .sort((a, b) => siteNumber(a) - siteNumber(b));
    let evidence: Evidence | undefined;
    for (const key of keys) {
      const [g, m] = [gold.sites.get(key), mutant.sites.get(key)];
      // A site unstable on either side says nothing; one side not reaching it does.
      if (g?.kind === 'Unstable' || m?.kind === 'Unstable') continue;
      if (g && m && sameSequence(g.values, m.values)) continue;
      evidence = { probe, site: key, gold: siteText(g)!, mutant: siteText(m)! };
      break;
    }
    const endsAlike =
      goldEnd?.kind === 'Varied' ||
      mutantEnd?.kind === 'Varied' ||
      outcomeText(goldEnd) === outcomeText(mutantEnd);
    if (!evidence && !endsAlike) {
      evidence = { probe, site: null, gold: outcomeText(goldEnd), mutant: outcomeText(mutantEnd) };
    }
    if (evidence) found.push(evidence);
  }
  return found;
}

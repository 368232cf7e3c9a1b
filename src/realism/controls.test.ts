import { createTwoFilesPatch, parsePatch } from 'diff';
import { describe, expect, it } from 'vitest';
import { seededRandom } from '../core/random.js';
import { negativeControl, plantArtefacts, positiveControl } from './controls.js';
import { DEFAULT_DISCRIMINATOR, outOfFoldScores } from './discriminate.js';
import { FEATURE_FAMILIES, patchFeatures } from './features.js';
import { matchBySize } from './match.js';
import { runDiscriminator } from './study.js';
import { measuredPatch, type RealismPatch } from './patches.js';
import { auc, clusterBootstrapMeanAuc, tost } from './stats.js';

const NAMES = ['count', 'index', 'buffer', 'name', 'value', 'offset', 'limit', 'key', 'entry'];
const OPERATORS = ['<', '<=', '>', '>=', '==', '!='];

/** One to three statements of a method changed, drawn from `random`. */
/** A small real-looking patch, null when the draw changed nothing. */
function syntheticPatch(index: number, random: () => number, project: string): RealismPatch | null {
  const pick = <T>(items: readonly T[]) => items[Math.floor(random() * items.length)]!;
  const body = Array.from({ length: 12 }, () => {
    const [a, b] = [pick(NAMES), pick(NAMES)];
    return random() < 0.4
      ? `        if (${a} ${pick(OPERATORS)} ${b}) ${a} = ${b};`
      : `        ${a} = ${b} + ${Math.floor(random() * 9)};`;
  });
  const changed = [...body];
  const edits = 1 + Math.floor(random() * 3);
  for (let edit = 0; edit < edits; edit++) {
    const at = 2 + Math.floor(random() * 8);
    changed[at] = random() < 0.5 ? changed[at]!.replace(/[<>=!]=?|\+/, pick(OPERATORS)) : '';
  }
  const file = (lines: string[]) =>
    ['class C {', '    void m() {', ...lines.filter((line) => line !== ''), '    }', '}', ''].join(
      '\n',
    );
  const patch = measuredPatch(
    {
      key: `defects4j:${project}-${index}`,
      side: 'real',
      project,
      cluster: `bug:${project}-${index}`,
      depth: null,
      bugType: null,
    },
    createTwoFilesPatch('a/C.java', 'b/C.java', file(body), file(changed)),
  );
  return patch;
}

function syntheticCorpus(count: number, seed: number): RealismPatch[] {
  const random = seededRandom(seed);
  const patches: RealismPatch[] = [];
  for (let index = 0; patches.length < count; index++) {
    const patch = syntheticPatch(index, random, `P${index % 12}`);
    if (patch) patches.push(patch);
  }
  return patches;
}

describe('plantArtefacts', () => {
  it('plants a comment, a holder and a forwarding wrapper and keeps the diff well formed', () => {
    const [patch] = syntheticCorpus(1, 4);
    const planted = plantArtefacts(patch!, seededRandom(1));
    expect(planted.text).toMatch(/^\+\s+\/\/ /m);
    expect(planted.text).toMatch(/^\+\s+final \w+\[\] \w+Holder = new \w+\[1\];$/m);
    expect(planted.text).toMatch(
      /^\+\s+private \w+ compute\w+\(\w+ \w+\) \{\n\+\s+return \w+\(\w+\);\n\+\s+\}$/m,
    );
    // parsePatch checks each hunk's counts against its lines.
    expect(() => parsePatch(planted.text)).not.toThrow();
    expect(planted.size.added).toBe(patch!.size.added + 6);
    expect(planted.size.removed).toBe(patch!.size.removed);
  });
});

// Each control fits 5 to 50 models: seconds on an idle machine, more beside a build.
describe('the controls on a synthetic corpus', () => {
  const corpus = syntheticCorpus(600, 2);
  const features = new Map(corpus.map((patch) => [patch.key, patchFeatures(patch.hunks)]));
  const featuresOf = (patch: RealismPatch) => features.get(patch.key) ?? patchFeatures(patch.hunks);

  it('catches planted artefacts: AUC ≥ 0.8 and the interval above 0.5', () => {
    const items = positiveControl([], corpus, 1);
    const scores = outOfFoldScores(
      items.map((item) => ({
        features: featuresOf(item.patch),
        label: item.label,
        group: item.group,
      })),
      FEATURE_FAMILIES,
      DEFAULT_DISCRIMINATOR,
    );
    const scored = items.map((item, index) => ({
      score: scores[index]!,
      label: item.label,
      cluster: item.cluster,
    }));
    const ci = clusterBootstrapMeanAuc([scored], { resamples: 2000, seed: 1, level: 0.9 });
    expect(auc(scored)).toBeGreaterThanOrEqual(0.8);
    expect(ci.low).toBeGreaterThan(0.5);
  }, 120_000);

  it('stays inside (0.45, 0.55) under random labels', () => {
    const replicates = negativeControl(corpus, 1).map((items) => {
      const scores = outOfFoldScores(
        items.map((item) => ({
          features: featuresOf(item.patch),
          label: item.label,
          group: item.group,
        })),
        FEATURE_FAMILIES,
        DEFAULT_DISCRIMINATOR,
      );
      return items.map((item, index) => ({
        score: scores[index]!,
        label: item.label,
        cluster: item.cluster,
      }));
    });
    expect(replicates).toHaveLength(10);
    const ci = clusterBootstrapMeanAuc(replicates, { resamples: 2000, seed: 1, level: 0.9 });
    expect(tost(ci).kind).toBe('Equivalent');
  }, 120_000);
});

describe('matchBySize', () => {
  it('gives each injected patch the nearest real one, none twice, the same for the same seed', () => {
    const real = syntheticCorpus(50, 9);
    const injected = real
      .slice(0, 5)
      .map((patch) => ({ ...patch, key: `injected:${patch.key}`, side: 'injected' as const }));
    const matching = matchBySize(injected, real, 3);
    expect(matching.kind).toBe('Matched');
    if (matching.kind !== 'Matched') return;
    expect(new Set(matching.pairs.map((pair) => pair.real.key)).size).toBe(5);
    // Each injected patch is a copy of a real one: that one, or one of the same size, is nearest.
    for (const pair of matching.pairs) expect(pair.distance).toBe(0);
    expect(matchBySize(injected, real, 3)).toEqual(matching);
    expect(matchBySize(injected, real.slice(0, 4), 3).kind).toBe('TooFewReal');
  });
});

describe('runDiscriminator on pairs whose real side is one project', () => {
  it('groups the real patches by bug, since grouped by project one fold would train on one class', () => {
    const corpus = syntheticCorpus(80, 6);
    const random = seededRandom(5);
    const pairs = corpus.slice(0, 40).map((patch, index) => ({
      injected: {
        ...plantArtefacts(patch, random),
        key: `injected:${index}`,
        side: 'injected' as const,
        cluster: `injection:${index}`,
        depth: 1,
      },
      real: { ...corpus[40 + index]!, project: 'Lang' },
      distance: 0,
    }));
    const result = runDiscriminator(pairs, corpus.slice(40, 70), {
      discriminator: DEFAULT_DISCRIMINATOR,
      bootstrap: { resamples: 500, seed: 1, level: 0.9 },
    });
    expect(result.grouping.kind).toBe('ByBug');
    expect(result.overall.auc).toBeGreaterThanOrEqual(0.8);
    expect(result.byDepth.map((row) => row.depth)).toEqual([1]);
  }, 120_000);
});

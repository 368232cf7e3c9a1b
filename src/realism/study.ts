import { mean } from '../core/diff-stats.js';
import { DEFECTS4J_PROJECTS, type RealismPatch } from './patches.js';
import {
  NEGATIVE_CONTROL_LABELLINGS,
  negativeControl,
  positiveControl,
  type ControlItem,
} from './controls.js';
import {
  DEFAULT_DISCRIMINATOR,
  outOfFoldScores,
  topWeights,
  type DiscriminatorOptions,
  type Example,
  type Weight,
} from './discriminate.js';
import {
  FEATURE_FAMILIES,
  patchFeatures,
  type FeatureFamily,
  type PatchFeatures,
} from './features.js';
import type { MatchedPair } from './match.js';
import {
  clusterBootstrapMeanAuc,
  groupedFolds,
  meanAuc,
  tost,
  type BootstrapOptions,
  type Equivalence,
  type Interval,
  type Scored,
} from './stats.js';

/*
 * The discriminator's study: injected patches against their size-matched Defects4J patches,
 * scored out of fold, with the AUC overall, per depth and per feature family, each with its
 * cluster-bootstrap interval and TOST verdict, the weights that separate the sides most, and the
 * two controls.
 */

export interface AucResult {
  positives: number;
  negatives: number;
  clusters: number;
  /** Labellings averaged over (the negative control's); 1 otherwise. */
  replicates: number;
  auc: number;
  ci: Interval;
  equivalence: Equivalence;
}

export type ControlResult =
  | ({ kind: 'Passed'; criterion: string } & AucResult)
  | ({ kind: 'Failed'; criterion: string; reason: string } & AucResult);

export interface DiscriminatorResult {
  /** How the Defects4J patches were kept together in cross-validation. */
  grouping: RealGrouping;
  overall: AucResult;
  byDepth: ({ depth: number } & AucResult)[];
  byFamily: ({ family: FeatureFamily } & AucResult)[];
  topWeights: Weight[];
  controls: { positive: ControlResult; negative: ControlResult };
}

export interface StudySettings {
  discriminator: DiscriminatorOptions;
  bootstrap: BootstrapOptions;
}

export const DEFAULT_STUDY: StudySettings = {
  discriminator: DEFAULT_DISCRIMINATOR,
  bootstrap: { resamples: 10_000, seed: 1, level: 0.9 },
};

export const TOP_WEIGHTS = 15;

/** The AUC of items, or the mean AUC of replicates (the same clusters under other labels). */
function aucResult(
  items: readonly Scored[] | readonly (readonly Scored[])[],
  bootstrap: BootstrapOptions,
): AucResult {
  const replicates = (Array.isArray(items[0]) ? items : [items]) as readonly (readonly Scored[])[];
  const first = replicates[0] ?? [];
  const ci = clusterBootstrapMeanAuc(replicates, bootstrap);
  return {
    positives: first.filter((item) => item.label === 1).length,
    negatives: first.filter((item) => item.label === 0).length,
    clusters: new Set(first.map((item) => item.cluster)).size,
    replicates: replicates.length,
    auc: meanAuc(replicates),
    ci,
    equivalence: tost(ci),
  };
}

/** Features of each patch once: edit kinds tokenise every hunk, so they are not free. */
class FeatureCache {
  private readonly cache = new Map<string, PatchFeatures>();
  of(patch: RealismPatch): PatchFeatures {
    let found = this.cache.get(patch.key);
    if (!found) this.cache.set(patch.key, (found = patchFeatures(patch.hunks)));
    return found;
  }
}

/** Injected cases are grouped by injection; Defects4J bugs by project, as a project's style is one. */
export type RealGrouping =
  | { kind: 'ByProject' }
  /**
   * Too few Defects4J projects among the matched patches (matching prefers the case's own
   * project): grouped by project, some training fold would hold no real patch at all, and its
   * model's scores would mean nothing beside the other folds'.
   */
  | { kind: 'ByBug'; reason: string };

/**
 * Injected cases are grouped by injection; Defects4J bugs by project, as a project's style is
 * one, unless that leaves a training fold without one of the classes.
 */
function groupsFor(
  patches: readonly RealismPatch[],
  options: DiscriminatorOptions,
): { groups: string[]; grouping: RealGrouping } {
  const labels = patches.map((patch) => (patch.side === 'injected' ? 1 : 0) as 0 | 1);
  const byProject = patches.map((patch) =>
    patch.side === 'injected' ? patch.cluster : `project:${patch.project}`,
  );
  const foldOf = groupedFolds(byProject, labels, options.folds, options.seed);
  const lacking = [...new Set(foldOf)].filter((fold) => {
    const training = labels.filter((_, index) => foldOf[index] !== fold);
    return !training.includes(0) || !training.includes(1);
  });
  if (lacking.length === 0) return { groups: byProject, grouping: { kind: 'ByProject' } };
  const projects = new Set(patches.filter((patch) => patch.side === 'real').map((p) => p.project));
  return {
    groups: patches.map((patch) => patch.cluster),
    grouping: {
      kind: 'ByBug',
      reason: `grouped by project (${projects.size} Defects4J projects), ${lacking.length} training fold(s) would hold one class only`,
    },
  };
}

function controlResult(
  replicates: readonly (readonly ControlItem[])[],
  features: FeatureCache,
  settings: StudySettings,
  passes: (result: AucResult) => boolean,
  criterion: string,
): ControlResult {
  const scored = replicates.map((items) => {
    const examples: Example[] = items.map((item) => ({
      features: features.of(item.patch),
      label: item.label,
      group: item.group,
    }));
    const scores = outOfFoldScores(examples, FEATURE_FAMILIES, settings.discriminator);
    return items.map((item, index) => ({
      score: scores[index]!,
      label: item.label,
      cluster: item.cluster,
    }));
  });
  const result = aucResult(scored, settings.bootstrap);
  const summary = `AUC ${result.auc.toFixed(3)}, 90% CI ${result.ci.low.toFixed(3)}–${result.ci.high.toFixed(3)}`;
  return passes(result)
    ? { kind: 'Passed', criterion, ...result }
    : { kind: 'Failed', criterion, reason: summary, ...result };
}

export function runDiscriminator(
  pairs: readonly MatchedPair[],
  allReal: readonly RealismPatch[],
  settings: StudySettings = DEFAULT_STUDY,
): DiscriminatorResult {
  const features = new FeatureCache();
  const patches = pairs.flatMap((pair) => [pair.injected, pair.real]);
  const { groups, grouping } = groupsFor(patches, settings.discriminator);
  const examples: Example[] = patches.map((patch, index) => ({
    features: features.of(patch),
    label: patch.side === 'injected' ? 1 : 0,
    group: groups[index]!,
  }));
  const scoredBy = (scores: readonly number[]): Scored[] =>
    patches.map((patch, index) => ({
      score: scores[index]!,
      label: patch.side === 'injected' ? 1 : 0,
      cluster: patch.cluster,
    }));
  const allScores = outOfFoldScores(examples, FEATURE_FAMILIES, settings.discriminator);
  const scored = scoredBy(allScores);
  const depths = [...new Set(pairs.map((pair) => pair.injected.depth ?? 0))].sort((a, b) => a - b);
  // A depth's injected patches against their own matched real ones, scored by the whole model.
  const byDepth = depths.map((depth) => ({
    depth,
    ...aucResult(
      scored.filter((_, index) => pairs[Math.floor(index / 2)]!.injected.depth === depth),
      settings.bootstrap,
    ),
  }));
  const byFamily = FEATURE_FAMILIES.map((family) => ({
    family,
    ...aucResult(
      scoredBy(outOfFoldScores(examples, [family], settings.discriminator)),
      settings.bootstrap,
    ),
  }));
  const injected = pairs.map((pair) => pair.injected);
  return {
    grouping,
    overall: aucResult(scored, settings.bootstrap),
    byDepth,
    byFamily,
    topWeights: topWeights(examples, settings.discriminator, TOP_WEIGHTS),
    controls: {
      positive: controlResult(
        [positiveControl(injected, allReal, settings.discriminator.seed)],
        features,
        settings,
        (result) => result.auc >= 0.8 && result.ci.low > 0.5,
        'planted artefacts against the same patches: AUC ≥ 0.8 and 90% CI lower bound > 0.5',
      ),
      negative: controlResult(
        negativeControl(allReal, settings.discriminator.seed),
        features,
        settings,
        (result) => result.equivalence.kind === 'Equivalent',
        `Defects4J against Defects4J under random labels (mean of ${NEGATIVE_CONTROL_LABELLINGS} labellings): 90% CI inside (0.45, 0.55)`,
      ),
    },
  };
}

/** How close the matching came, for the report. */
export function matchSummary(pairs: readonly MatchedPair[]) {
  const sizes = (pick: (pair: MatchedPair) => number) => mean(pairs.map(pick));
  return {
    pairs: pairs.length,
    meanDistance: mean(pairs.map((pair) => pair.distance)),
    sameProject: pairs.filter(
      (pair) => DEFECTS4J_PROJECTS[pair.injected.project] === pair.real.project,
    ).length,
    meanChangedLines: {
      injected: sizes((pair) => pair.injected.size.changedLines),
      real: sizes((pair) => pair.real.size.changedLines),
    },
    meanHunks: {
      injected: sizes((pair) => pair.injected.size.hunks),
      real: sizes((pair) => pair.real.size.hunks),
    },
    meanFiles: {
      injected: sizes((pair) => pair.injected.size.files),
      real: sizes((pair) => pair.real.size.files),
    },
  };
}

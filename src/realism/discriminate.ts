import {
  DENSE_FEATURES,
  FEATURE_FAMILIES,
  type FeatureFamily,
  type PatchFeatures,
} from './features.js';
import { fitLogistic, score, type Row } from './logistic.js';
import { groupedFolds } from './stats.js';

/*
 * The discriminator: L2 logistic regression on a patch's features, scored out of fold. Dense
 * features are standardised on each training fold (its means and deviations, applied to the
 * held-out fold too); hashed n-grams are presence scaled to unit length per patch.
 */

export interface Example {
  features: PatchFeatures;
  label: 0 | 1;
  /** Items of one group are never split across folds. */
  group: string;
}

export interface DiscriminatorOptions {
  folds: number;
  seed: number;
  lambda: number;
}

export const DEFAULT_DISCRIMINATOR: DiscriminatorOptions = { folds: 5, seed: 1, lambda: 0.01 };

/**
 * How rows are made from examples, learnt on the training examples: the dense columns' means and
 * deviations, and the n-gram buckets seen in training numbered densely (a bucket never seen in
 * training gets no weight anyway, and the optimiser's vectors stay the size of what is used).
 */
interface RowMaker {
  rows(examples: readonly Example[]): Row[];
  /** N-gram bucket → its sparse column. */
  columns: ReadonlyMap<number, number>;
}

function rowMaker(families: readonly FeatureFamily[], fitOn: readonly Example[]): RowMaker {
  const use = DENSE_FEATURES.map((feature) => families.includes(feature.family));
  const count = Math.max(fitOn.length, 1);
  const means = DENSE_FEATURES.map(
    (_, column) => fitOn.reduce((sum, example) => sum + example.features.dense[column]!, 0) / count,
  );
  const deviations = DENSE_FEATURES.map((_, column) =>
    Math.sqrt(
      fitOn.reduce(
        (sum, example) => sum + (example.features.dense[column]! - means[column]!) ** 2,
        0,
      ) / count,
    ),
  );
  const columns = new Map<number, number>();
  if (families.includes('ngrams')) {
    for (const example of fitOn) {
      for (const bucket of example.features.ngrams.keys()) {
        if (!columns.has(bucket)) columns.set(bucket, columns.size);
      }
    }
  }
  return {
    columns,
    rows: (examples) =>
      examples.map((example) => {
        const present = [...example.features.ngrams].filter(([bucket]) => columns.has(bucket));
        return {
          dense: Float64Array.from(example.features.dense, (value, column) =>
            use[column] && deviations[column]! > 0
              ? (value - means[column]!) / deviations[column]!
              : 0,
          ),
          sparseIndices: Int32Array.from(present, ([bucket]) => columns.get(bucket)!),
          sparseValues: Float64Array.from(present, ([, value]) => value),
        };
      }),
  };
}

/** Each example's score from a model fitted on the folds that do not hold it. */
export function outOfFoldScores(
  examples: readonly Example[],
  families: readonly FeatureFamily[],
  options: DiscriminatorOptions,
): number[] {
  const foldOf = groupedFolds(
    examples.map((example) => example.group),
    examples.map((example) => example.label),
    options.folds,
    options.seed,
  );
  const scores = new Array<number>(examples.length).fill(0);
  const folds = new Set(foldOf);
  for (const fold of folds) {
    const train = examples.filter((_, index) => foldOf[index] !== fold);
    const testIndices = examples.flatMap((_, index) => (foldOf[index] === fold ? [index] : []));
    const maker = rowMaker(families, train);
    const model = fitLogistic(
      maker.rows(train),
      train.map((example) => example.label),
      { lambda: options.lambda, sparseDimensions: maker.columns.size },
    );
    const testRows = maker.rows(testIndices.map((index) => examples[index]!));
    testIndices.forEach((index, k) => (scores[index] = score(model, testRows[k]!)));
  }
  return scores;
}

export interface Weight {
  feature: string;
  family: FeatureFamily;
  /** Change in log-odds of "injected" per standard deviation of the feature. */
  perDeviation: number;
}

/**
 * The features that weigh most in a model fitted on every example: a positive weight pushes
 * towards the positive class.
 */
export function topWeights(
  examples: readonly Example[],
  options: DiscriminatorOptions,
  count: number,
): Weight[] {
  const maker = rowMaker(FEATURE_FAMILIES, examples);
  const model = fitLogistic(
    maker.rows(examples),
    examples.map((example) => example.label),
    { lambda: options.lambda, sparseDimensions: maker.columns.size },
  );
  const weights: Weight[] = DENSE_FEATURES.map((feature, column) => ({
    feature: feature.name,
    family: feature.family,
    perDeviation: model.dense[column]!,
  }));
  const names = new Map<number, string>();
  const sums = new Map<number, { sum: number; squares: number }>();
  for (const example of examples) {
    for (const [bucket, value] of example.features.ngrams) {
      if (!names.has(bucket))
        names.set(bucket, example.features.ngramText.get(bucket) ?? `#${bucket}`);
      const entry = sums.get(bucket) ?? { sum: 0, squares: 0 };
      entry.sum += value;
      entry.squares += value * value;
      sums.set(bucket, entry);
    }
  }
  for (const [bucket, { sum, squares }] of sums) {
    const mean = sum / examples.length;
    const deviation = Math.sqrt(Math.max(squares / examples.length - mean * mean, 0));
    weights.push({
      feature: `n-gram "${names.get(bucket)!}"`,
      family: 'ngrams',
      perDeviation: model.sparse[maker.columns.get(bucket)!]! * deviation,
    });
  }
  return weights
    .filter((weight) => weight.perDeviation !== 0)
    .sort((a, b) => Math.abs(b.perDeviation) - Math.abs(a.perDeviation))
    .slice(0, count);
}

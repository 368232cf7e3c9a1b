/*
 * L2-regularised logistic regression over rows with a few dense columns and many sparse ones,
 * fitted by L-BFGS: minimises mean log-loss + λ/2·|w|² (the intercept unpenalised). The loss is
 * strictly convex, so the fit is the same whatever the start; no ML dependency is needed.
 */

/** One row: dense values (standardised by the caller) and sparse column → value. */
export interface Row {
  dense: Float64Array;
  sparseIndices: Int32Array;
  sparseValues: Float64Array;
}

export interface LogisticModel {
  dense: Float64Array;
  sparse: Float64Array;
  intercept: number;
}

export interface FitOptions {
  lambda: number;
  sparseDimensions: number;
  maxIterations?: number;
  /** Stop when the gradient's largest component is below this. */
  tolerance?: number;
}

export function score(model: LogisticModel, row: Row): number {
  let z = model.intercept;
  for (let k = 0; k < row.dense.length; k++) z += row.dense[k]! * model.dense[k]!;
  for (let k = 0; k < row.sparseIndices.length; k++) {
    z += row.sparseValues[k]! * model.sparse[row.sparseIndices[k]!]!;
  }
  return z;
}

const sigmoid = (z: number) => (z >= 0 ? 1 / (1 + Math.exp(-z)) : Math.exp(z) / (1 + Math.exp(z)));
/** log(1 + e^z) without overflow. */
const softplus = (z: number) => (z > 0 ? z + Math.log1p(Math.exp(-z)) : Math.log1p(Math.exp(z)));

export function fitLogistic(
  rows: readonly Row[],
  labels: readonly number[],
  options: FitOptions,
): LogisticModel {
  const denseCount = rows[0]?.dense.length ?? 0;
  const size = denseCount + options.sparseDimensions + 1;
  const n = rows.length;
  const unpack = (theta: Float64Array): LogisticModel => ({
    dense: theta.subarray(0, denseCount),
    sparse: theta.subarray(denseCount, denseCount + options.sparseDimensions),
    intercept: theta[size - 1]!,
  });
  // Each class weighs half, whatever its count: otherwise a training fold with more of one class
  // shifts the intercept, and the held-out fold, with fewer of it, scores against its own labels.
  const positives = labels.filter((label) => label === 1).length;
  const classWeight = [n / (2 * Math.max(n - positives, 1)), n / (2 * Math.max(positives, 1))];
  const evaluate = (theta: Float64Array, gradient: Float64Array): number => {
    const model = unpack(theta);
    gradient.fill(0);
    let loss = 0;
    rows.forEach((row, i) => {
      const z = score(model, row);
      const y = labels[i]!;
      const weight = classWeight[y]!;
      loss += weight * (softplus(z) - y * z);
      const residual = (weight * (sigmoid(z) - y)) / n;
      for (let k = 0; k < row.dense.length; k++) gradient[k]! += residual * row.dense[k]!;
      for (let k = 0; k < row.sparseIndices.length; k++) {
        gradient[denseCount + row.sparseIndices[k]!]! += residual * row.sparseValues[k]!;
      }
      gradient[size - 1]! += residual;
    });
    let penalty = 0;
    for (let k = 0; k < size - 1; k++) {
      penalty += theta[k]! * theta[k]!;
      gradient[k]! += options.lambda * theta[k]!;
    }
    return loss / n + (options.lambda / 2) * penalty;
  };
  return unpack(minimise(evaluate, size, options.maxIterations ?? 100, options.tolerance ?? 1e-4));
}

const dot = (a: Float64Array, b: Float64Array) => {
  let sum = 0;
  for (let i = 0; i < a.length; i++) sum += a[i]! * b[i]!;
  return sum;
};

/** L-BFGS (10 pairs) with a backtracking Armijo line search, from zero. */
function minimise(
  evaluate: (theta: Float64Array, gradient: Float64Array) => number,
  size: number,
  maxIterations: number,
  tolerance: number,
): Float64Array {
  const memory = 10;
  let theta = new Float64Array(size);
  let gradient = new Float64Array(size);
  let value = evaluate(theta, gradient);
  const steps: Float64Array[] = [];
  const changes: Float64Array[] = [];
  for (let iteration = 0; iteration < maxIterations; iteration++) {
    if (gradient.reduce((max, g) => Math.max(max, Math.abs(g)), 0) < tolerance) break;
    // Two-loop recursion: the direction -H·g.
    const direction = Float64Array.from(gradient);
    const alphas: number[] = [];
    for (let k = steps.length - 1; k >= 0; k--) {
      const alpha = dot(steps[k]!, direction) / dot(changes[k]!, steps[k]!);
      alphas[k] = alpha;
      for (let i = 0; i < size; i++) direction[i]! -= alpha * changes[k]![i]!;
    }
    const last = steps.length - 1;
    const gamma =
      last >= 0 ? dot(steps[last]!, changes[last]!) / dot(changes[last]!, changes[last]!) : 1;
    for (let i = 0; i < size; i++) direction[i]! *= gamma;
    for (let k = 0; k < steps.length; k++) {
      const beta = dot(changes[k]!, direction) / dot(changes[k]!, steps[k]!);
      for (let i = 0; i < size; i++) direction[i]! += (alphas[k]! - beta) * steps[k]![i]!;
    }
    for (let i = 0; i < size; i++) direction[i] = -direction[i]!;
    let slope = dot(gradient, direction);
    if (slope >= 0) {
      // Not a descent direction (curvature went stale): steepest descent instead.
      for (let i = 0; i < size; i++) direction[i] = -gradient[i]!;
      slope = dot(gradient, direction);
      steps.length = 0;
      changes.length = 0;
    }
    let step = iteration === 0 && steps.length === 0 ? 1 / Math.sqrt(-slope) : 1;
    const next = new Float64Array(size);
    const nextGradient = new Float64Array(size);
    let nextValue = Infinity;
    for (let tries = 0; tries < 40; tries++) {
      for (let i = 0; i < size; i++) next[i] = theta[i]! + step * direction[i]!;
      nextValue = evaluate(next, nextGradient);
      if (nextValue <= value + 1e-4 * step * slope) break;
      step /= 2;
    }
    if (!(nextValue < value)) break;
    const s = new Float64Array(size);
    const y = new Float64Array(size);
    for (let i = 0; i < size; i++) {
      s[i] = next[i]! - theta[i]!;
      y[i] = nextGradient[i]! - gradient[i]!;
    }
    if (dot(s, y) > 1e-12) {
      steps.push(s);
      changes.push(y);
      if (steps.length > memory) {
        steps.shift();
        changes.shift();
      }
    }
    const converged = value - nextValue < 1e-10 * Math.max(1, Math.abs(value));
    theta = next;
    gradient = nextGradient;
    value = nextValue;
    if (converged) break;
  }
  return theta;
}

import { describe, expect, it } from 'vitest';
import { fitLogistic, score, type Row } from './logistic.js';

const row = (dense: number[], sparse: [number, number][] = []): Row => ({
  dense: Float64Array.from(dense),
  sparseIndices: Int32Array.from(sparse.map(([index]) => index)),
  sparseValues: Float64Array.from(sparse.map(([, value]) => value)),
});

describe('fitLogistic', () => {
  it('separates a separable toy set on a dense feature', () => {
    const rows = [-2, -1.5, -1, -0.5, 0.5, 1, 1.5, 2].map((x) => row([x, 0]));
    const labels = [0, 0, 0, 0, 1, 1, 1, 1];
    const model = fitLogistic(rows, labels, { lambda: 0.01, sparseDimensions: 4 });
    const scores = rows.map((one) => score(model, one));
    expect(Math.max(...scores.slice(0, 4))).toBeLessThan(Math.min(...scores.slice(4)));
    expect(model.dense[0]).toBeGreaterThan(1);
    // A feature that is always 0 carries no weight.
    expect(model.dense[1]).toBe(0);
  });

  it('separates on a sparse feature, and a larger penalty shrinks the weight', () => {
    const rows = Array.from({ length: 20 }, (_, index) =>
      row([0], index % 2 === 1 ? [[3, 1]] : [[2, 1]]),
    );
    const labels = rows.map((_, index) => index % 2);
    const weak = fitLogistic(rows, labels, { lambda: 0.001, sparseDimensions: 8 });
    const strong = fitLogistic(rows, labels, { lambda: 1, sparseDimensions: 8 });
    expect(weak.sparse[3]).toBeGreaterThan(0);
    expect(weak.sparse[2]).toBeLessThan(0);
    expect(Math.abs(strong.sparse[3]!)).toBeLessThan(Math.abs(weak.sparse[3]!));
  });

  it('weighs the classes equally: a feature-less fit stays at zero however unbalanced', () => {
    const rows = Array.from({ length: 10 }, () => row([0]));
    const model = fitLogistic(rows, [1, 1, 1, 1, 1, 1, 1, 0, 0, 0], {
      lambda: 0.01,
      sparseDimensions: 1,
    });
    expect(model.intercept).toBeCloseTo(0, 6);
  });
});

// The estimators' building blocks (analysis/bootstrap.ts): quantiles, the two-level bootstrap and
// relative half-widths, against hand-computed values. No process starts here.
import { describe, expect, it } from 'vitest';
import { hierarchicalBootstrap, median, quantileSorted, relativeHalfWidth } from '../src/index.js';

const boot = { resamples: 1000, seed: 7, confidence: 0.95 };

describe('quantile and median', () => {
  it('interpolate linearly between order statistics (type 7)', () => {
    const xs = [1, 2, 3, 4];
    // h = (n − 1)·q: q = 0.5 → h = 1.5 → 2 + 0.5·(3 − 2) = 2.5; q = 0.25 → h = 0.75 → 1 + 0.75·1 = 1.75
    expect(quantileSorted(xs, 0.5)).toBe(2.5);
    expect(quantileSorted(xs, 0.25)).toBe(1.75);
    expect(quantileSorted(xs, 0)).toBe(1);
    expect(quantileSorted(xs, 1)).toBe(4);
    // h = 9·0.9 = 8.1 → 90 + 0.1·(100 − 90) = 91
    expect(quantileSorted([10, 20, 30, 40, 50, 60, 70, 80, 90, 100], 0.9)).toBeCloseTo(91, 10);
    expect(quantileSorted([], 0.5)).toBeNaN();
  });

  it('median: the middle value, or the mean of the two middle ones; input left unsorted', () => {
    const xs = [5, 1, 3];
    expect(median(xs)).toBe(3);
    expect(xs).toEqual([5, 1, 3]);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([7])).toBe(7);
    expect(median([])).toBeNaN();
  });
});

describe('hierarchicalBootstrap', () => {
  const groups = [
    [1.0, 1.2, 0.9, 1.1, 1.05],
    [1.3, 1.25, 1.4, 1.2],
    [0.95, 1.0, 1.1, 1.02, 0.98, 1.01],
  ];

  it('is reproducible under a seed, and another seed gives another interval', () => {
    // The mean, not the median: a median of few values takes few distinct values, and two seeds
    // may well land on the same order statistics.
    const mean = (xs: number[]) => xs.reduce((x, y) => x + y, 0) / xs.length;
    const a = hierarchicalBootstrap(groups, mean, boot);
    const b = hierarchicalBootstrap(groups, mean, boot);
    const c = hierarchicalBootstrap(groups, mean, { ...boot, seed: 8 });
    expect(a).not.toBeNull();
    expect(a).toEqual(b);
    expect(c).not.toEqual(a);
  });

  it('gives an interval that contains the median of the pooled samples', () => {
    const [lo, hi] = hierarchicalBootstrap(groups, median, boot)!;
    const m = median(groups.flat());
    expect(lo).toBeLessThanOrEqual(m);
    expect(hi).toBeGreaterThanOrEqual(m);
    expect(hi).toBeGreaterThan(lo);
  });

  it('resamples blocks: two blocks of different constants give resamples made of one block only', () => {
    // Blocks drawn with replacement: AA (mean 0), BB (mean 10), AB (mean 5), each drawn 25/25/50% of
    // the time, so the 2.5% and 97.5% quantiles of the mean are exactly 0 and 10.
    const ci = hierarchicalBootstrap(
      [
        [0, 0, 0, 0],
        [10, 10, 10, 10],
      ],
      (xs) => xs.reduce((a, b) => a + b, 0) / xs.length,
      boot,
    );
    expect(ci).toEqual([0, 10]);
  });

  it('with a single block resamples rounds only, always as many as the block holds', () => {
    // The same eight values in one block: only rounds are drawn, and an all-zero or all-ten draw
    // (probability 2 × 1/256 = 0.8%) is too rare to reach the 2.5% tails.
    const one = [[0, 0, 0, 0, 10, 10, 10, 10]];
    const [lo, hi] = hierarchicalBootstrap(one, (xs) => xs.reduce((a, b) => a + b, 0) / xs.length, boot)!;
    expect(lo).toBeGreaterThan(0);
    expect(hi).toBeLessThan(10);
    expect(hierarchicalBootstrap(one, (xs) => xs.length, boot)).toEqual([8, 8]);
  });

  it('needs at least two samples in all', () => {
    expect(hierarchicalBootstrap([[1]], median, boot)).toBeNull();
    expect(hierarchicalBootstrap([[], [2]], median, boot)).toBeNull();
    expect(hierarchicalBootstrap([[], [2], [3]], median, boot)).not.toBeNull();
  });
});

describe('relativeHalfWidth', () => {
  it('is half the interval width over the point', () => {
    expect(relativeHalfWidth(1, [0.9, 1.1])).toBeCloseTo(0.1, 12);
    expect(relativeHalfWidth(200, [190, 230])).toBeCloseTo(0.1, 12);
    expect(relativeHalfWidth(-2, [-2.2, -1.8])).toBeCloseTo(0.1, 12);
    expect(relativeHalfWidth(0.5, [0.5, 0.5])).toBe(0);
  });
  it('is null without an interval or with a zero or non-finite point', () => {
    expect(relativeHalfWidth(1, null)).toBeNull();
    expect(relativeHalfWidth(0, [-1, 1])).toBeNull();
    expect(relativeHalfWidth(NaN, [0, 1])).toBeNull();
  });
});

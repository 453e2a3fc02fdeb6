import { describe, expect, it } from 'vitest';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import {
  RANKING_METHOD, ci95, cov, holm, mean, pairVerdict, rankWithTies, rankingMethod,
  sampleSd, sampleStats, suiteVerdict, verdictFromCov, welchTTest,
} from '../src/stats.js';

// Closed forms of Student's t used to hand-check the library-backed figures:
// - df = 1: quantile t(p) = tan(π (p − 1/2)).
// - df = 2: quantile t(p) = (2p − 1) / √(2p(1 − p)); two-sided p of t is 1 − |t| / √(2 + t²).
// - df = 4: with x = |t| / √(4 + t²), two-sided p = 1 − x (1 + (1 − x²) / 2).

describe('mean / sampleSd / cov', () => {
  it('computes mean 12, sd 2 and cov 1/6 for [10, 12, 14]', () => {
    // mean = 36 / 3 = 12; deviations −2, 0, 2 → squares 4 + 0 + 4 = 8; var = 8 / (3 − 1) = 4; sd = 2; cov = 2 / 12
    expect(mean([10, 12, 14])).toBe(12);
    expect(sampleSd([10, 12, 14])).toBe(2);
    expect(cov([10, 12, 14])).toBeCloseTo(0.1666666667, 10);
  });

  it('divides by n − 1, not n', () => {
    // [20, 22, 24, 26]: mean 23; squares 9 + 1 + 1 + 9 = 20; var = 20 / 3 = 6.6667; sd = √6.6667 = 2.5819889
    // (population sd would be √(20/4) = 2.2360680)
    expect(sampleSd([20, 22, 24, 26])).toBeCloseTo(2.5819889, 7);
  });

  it('has no mean of an empty list and no sd or cov below 2 values', () => {
    expect(mean([])).toBeNaN();
    expect(sampleSd([5])).toBeNull();
    expect(sampleSd([])).toBeNull();
    expect(cov([5])).toBeNull();
  });

  it('gives cov 0 for constant values and null for a zero mean', () => {
    expect(cov([4, 4, 4])).toBe(0);
    // [−1, 1]: mean 0 → sd / 0 undefined
    expect(cov([-1, 1])).toBeNull();
  });

  it('keeps cov non-negative for a negative mean', () => {
    // [−10, −12, −14]: sd 2, |mean| 12 → 1/6
    expect(cov([-10, -12, -14])).toBeCloseTo(0.1666666667, 10);
  });
});

describe('ci95', () => {
  it('uses t(0.975, 2) for n = 3', () => {
    // t(0.975, 2) = 0.95 / √(2 · 0.975 · 0.025) = 0.95 / √0.04875 = 4.302652730
    // half-width = 4.302652730 · 2 / √3 = 4.968275424 → 12 ∓ 4.968275424
    const ci = ci95([10, 12, 14]);
    expect(ci).not.toBeNull();
    expect(ci![0]).toBeCloseTo(7.031724576, 8);
    expect(ci![1]).toBeCloseTo(16.968275424, 8);
  });

  it('uses t(0.975, 1) for n = 2 (a wide interval, not the normal 1.96)', () => {
    // [1, 3]: mean 2, sd = √((1 + 1) / 1) = √2; t(0.975, 1) = tan(0.475 π) = 12.706204736
    // half-width = 12.706204736 · √2 / √2 = 12.706204736 → [−10.706204736, 14.706204736]
    const ci = ci95([1, 3]);
    expect(ci![0]).toBeCloseTo(-10.706204736, 8);
    expect(ci![1]).toBeCloseTo(14.706204736, 8);
  });

  it('collapses to the mean for constant values and is null below 2 values', () => {
    expect(ci95([4, 4, 4])).toEqual([4, 4]);
    expect(ci95([4])).toBeNull();
    expect(ci95([])).toBeNull();
  });
});

describe('sampleStats', () => {
  it('gathers n, mean, sd, cov, ci95 and a copy of the values', () => {
    const input = [10, 12, 14];
    const s = sampleStats(input);
    expect(s.n).toBe(3);
    expect(s.mean).toBe(12);
    expect(s.sd).toBe(2);
    expect(s.cov).toBeCloseTo(1 / 6, 12);
    expect(s.ci95![0]).toBeCloseTo(7.031724576, 8);
    expect(s.ci95![1]).toBeCloseTo(16.968275424, 8);
    expect(s.values).toEqual([10, 12, 14]);
    expect(s.values).not.toBe(input);
  });

  it('reports one value with nulls and no values with n 0 and a finite placeholder mean', () => {
    expect(sampleStats([7])).toEqual({ n: 1, mean: 7, sd: null, cov: null, ci95: null, values: [7] });
    expect(sampleStats([])).toEqual({ n: 0, mean: 0, sd: null, cov: null, ci95: null, values: [] });
  });
});

describe('verdictFromCov / pairVerdict', () => {
  it('puts each boundary in the documented bucket', () => {
    expect(verdictFromCov(0)).toBe('excellent');
    expect(verdictFromCov(0.0299)).toBe('excellent');
    expect(verdictFromCov(0.03)).toBe('acceptable');
    expect(verdictFromCov(0.05)).toBe('acceptable');
    expect(verdictFromCov(0.0501)).toBe('noisy');
    expect(verdictFromCov(0.10)).toBe('noisy');
    expect(verdictFromCov(0.1001)).toBe('unreliable');
    expect(verdictFromCov(null)).toBe('insufficient');
    expect(verdictFromCov(Number.NaN)).toBe('insufficient');
  });

  it('judges a pair by the worse of its RPS and p99 CoVs', () => {
    expect(pairVerdict(0.02, 0.06)).toBe('noisy');
    expect(pairVerdict(0.06, 0.02)).toBe('noisy');
    expect(pairVerdict(0.01, 0.02)).toBe('excellent');
    expect(pairVerdict(0.2, 0.01)).toBe('unreliable');
  });

  it('calls a pair insufficient when either CoV is unknown', () => {
    expect(pairVerdict(null, 0.01)).toBe('insufficient');
    expect(pairVerdict(0.01, null)).toBe('insufficient');
  });
});

describe('suiteVerdict', () => {
  const zero = { excellent: 0, acceptable: 0, noisy: 0, unreliable: 0, insufficient: 0 };

  it('maps all-excellent to clean', () => {
    expect(suiteVerdict(['excellent', 'excellent'])).toEqual({ overall: 'clean', counts: { ...zero, excellent: 2 } });
  });

  it('takes the worst measured verdict and ignores insufficient pairs', () => {
    expect(suiteVerdict(['excellent', 'noisy', 'insufficient', 'acceptable'])).toEqual({
      overall: 'noisy',
      counts: { ...zero, excellent: 1, acceptable: 1, noisy: 1, insufficient: 1 },
    });
    expect(suiteVerdict(['unreliable', 'acceptable']).overall).toBe('unreliable');
    expect(suiteVerdict(['excellent', 'acceptable', 'insufficient']).overall).toBe('acceptable');
  });

  it('is insufficient only when every pair is (or there are none)', () => {
    expect(suiteVerdict(['insufficient', 'insufficient'])).toEqual({ overall: 'insufficient', counts: { ...zero, insufficient: 2 } });
    expect(suiteVerdict([])).toEqual({ overall: 'insufficient', counts: zero });
  });
});

describe('welchTTest', () => {
  it('matches a hand-worked example with integer df (equal n and variances)', () => {
    // a = [10, 12, 14]: mean 12, s² 4; b = [16, 18, 20]: mean 18, s² 4
    // se² = 4/3 + 4/3 = 8/3; t = (12 − 18) / √(8/3) = −6 / 1.632993 = −3.674234614
    // df = (8/3)² / ((4/3)²/2 + (4/3)²/2) = (64/9) / (16/9) = 4
    // x² = t² / (4 + t²) = 13.5 / 17.5 = 27/35; p = 1 − √(27/35) · (1 + 4/35) = 1 − 0.978688 = 0.021311641
    // (R: t.test(c(10,12,14), c(16,18,20)) → t = −3.6742, df = 4, p-value = 0.02131)
    const r = welchTTest([10, 12, 14], [16, 18, 20]);
    expect(r.t).toBeCloseTo(-3.674234614, 8);
    expect(r.df).toBeCloseTo(4, 10);
    expect(r.p).toBeCloseTo(0.021311641, 8);
  });

  it('matches a hand-worked example with Welch–Satterthwaite df', () => {
    // a = [10, 12, 14]: mean 12, s² 4, n 3 → s²/n = 4/3
    // b = [20, 22, 24, 26]: mean 23, s² 20/3, n 4 → s²/n = 5/3
    // se² = 4/3 + 5/3 = 3; t = (12 − 23) / √3 = −6.350852961
    // df = 3² / ((4/3)²/2 + (5/3)²/3) = 9 / (8/9 + 25/27) = 9 / (49/27) = 243/49 = 4.959183673
    const r = welchTTest([10, 12, 14], [20, 22, 24, 26]);
    expect(r.t).toBeCloseTo(-6.350852961, 8);
    expect(r.df).toBeCloseTo(4.959183673, 8);
    // 4 < df < 5, so p lies between the closed forms for df 5 and df 4 at |t| = 6.350852961:
    // df 4: x = 6.3509 / √(4 + 40.3333) = 0.953821 → p = 1 − x (1 + 0.090226/2) = 0.0031495
    // df 5: θ = atan(t/√5); p = 1 − (2/π)(θ + sinθ cosθ (1 + ⅔ cos²θ)) = 0.0014295
    expect(r.p).toBeGreaterThan(0.0014295);
    expect(r.p).toBeLessThan(0.0031495);
    // and it is exactly the two-sided tail of t at that df
    expect(r.p).toBeCloseTo(2 * tCdf(-6.350852961, 243 / 49), 12);
  });

  it('is antisymmetric in t and symmetric in p', () => {
    const ab = welchTTest([10, 12, 14], [20, 22, 24, 26]);
    const ba = welchTTest([20, 22, 24, 26], [10, 12, 14]);
    expect(ba.t).toBeCloseTo(-ab.t!, 12);
    expect(ba.df).toBeCloseTo(ab.df!, 12);
    expect(ba.p).toBeCloseTo(ab.p!, 12);
  });

  it('handles zero variance on one side (df = n − 1 of the other)', () => {
    // a = [5, 5, 5]: s² 0; b = [6, 7, 8]: mean 7, s² 1 → se² = 0 + 1/3; t = −2 / √(1/3) = −2√3 = −3.464101615
    // df = (1/3)² / ((1/3)²/2) = 2; t² = 12 → p = 1 − √(12/14) = 1 − √(6/7) = 0.074179900
    const r = welchTTest([5, 5, 5], [6, 7, 8]);
    expect(r.t).toBeCloseTo(-3.464101615, 8);
    expect(r.df).toBeCloseTo(2, 10);
    expect(r.p).toBeCloseTo(0.0741799, 7);
  });

  it('handles zero variance on both sides', () => {
    expect(welchTTest([5, 5, 5], [5, 5])).toEqual({ t: 0, df: 3, p: 1 });
    expect(welchTTest([5, 5, 5], [6, 6, 6])).toEqual({ t: -Infinity, df: 4, p: 0 });
    expect(welchTTest([6, 6], [5, 5])).toEqual({ t: Infinity, df: 2, p: 0 });
  });

  it('is untestable (all null) when either side has fewer than 2 values', () => {
    expect(welchTTest([1], [2, 3])).toEqual({ t: null, df: null, p: null });
    expect(welchTTest([2, 3], [])).toEqual({ t: null, df: null, p: null });
  });
});

describe('holm', () => {
  it('adjusts step-down and keeps the input order', () => {
    // sorted: 0.01·3 = 0.03, 0.03·2 = 0.06, 0.04·1 = 0.04 → max(0.06, 0.04) = 0.06
    const r = holm([0.01, 0.04, 0.03]);
    expect(r[0]).toBeCloseTo(0.03, 12);
    expect(r[1]).toBeCloseTo(0.06, 12);
    expect(r[2]).toBeCloseTo(0.06, 12);
  });

  it('is less strict than Bonferroni past the smallest p', () => {
    // sorted: 0.01·2 = 0.02, 0.02·1 = 0.02 (Bonferroni would give 0.04 for the second)
    const r = holm([0.02, 0.01]);
    expect(r[0]).toBeCloseTo(0.02, 12);
    expect(r[1]).toBeCloseTo(0.02, 12);
  });

  it('never lets a larger p get a smaller adjusted value', () => {
    // sorted: 0.01·2 = 0.02, 0.4·1 = 0.4 → [0.4, 0.02]
    const r = holm([0.4, 0.01]);
    expect(r[0]).toBeCloseTo(0.4, 12);
    expect(r[1]).toBeCloseTo(0.02, 12);
  });

  it('caps at 1', () => {
    // sorted: 0.5·2 = 1.0, 0.6·1 = 0.6 → max(1.0, 0.6) = 1
    expect(holm([0.6, 0.5])).toEqual([1, 1]);
    // 0.9·3 = 2.7 → 1
    expect(holm([0.9, 0.95, 0.99])).toEqual([1, 1, 1]);
  });

  it('returns nothing for nothing and rejects values outside [0, 1]', () => {
    expect(holm([])).toEqual([]);
    expect(() => holm([0.1, 1.5])).toThrow(RangeError);
    expect(() => holm([Number.NaN])).toThrow(RangeError);
  });
});

describe('rankWithTies', () => {
  it('gives clearly separated targets their own places, best first', () => {
    // each s² = 1, n = 3, means 100 apart: t = 100 / √(2/3) = 122.5, df 4 → p ≈ 3e-8; ×3 (Holm) still ≪ 0.05
    const places = rankWithTies([
      { name: 'slow', values: [100, 101, 102] },
      { name: 'fast', values: [300, 301, 302] },
      { name: 'mid', values: [200, 201, 202] },
    ]);
    expect(places).toEqual([
      { place: 1, targets: ['fast'], meanRps: [301] },
      { place: 2, targets: ['mid'], meanRps: [201] },
      { place: 3, targets: ['slow'], meanRps: [101] },
    ]);
  });

  it('lets indistinguishable targets share a place, with dense numbering after it', () => {
    // a: [100, 102, 104] mean 102; b: [101, 103, 105] mean 103; both s² 4
    // b vs a: t = 1 / √(8/3) = 0.612, df 4 → x² = 0.375/4.375 = 0.0857, p = 1 − 0.2928·1.4571 = 0.573 → tie
    const places = rankWithTies([
      { name: 'top', values: [200, 202, 204] },
      { name: 'a', values: [100, 102, 104] },
      { name: 'b', values: [101, 103, 105] },
    ]);
    expect(places).toEqual([
      { place: 1, targets: ['top'], meanRps: [202] },
      { place: 2, targets: ['b', 'a'], meanRps: [103, 102] },
    ]);
  });

  it("compares with the place's top member, not the previous target (no chaining)", () => {
    // all s² 4, n 3; means 110 (A), 105 (B), 100 (C); se² = 8/3, df 4
    // A–B, B–C: t = 5 / 1.633 = 3.062, x² = 9.375/13.375 → p = 1 − 0.83722·1.14953 = 0.03759
    // A–C:      t = 10 / 1.633 = 6.124, x² = 37.5/41.5   → p = 1 − 0.95059·1.04819 = 0.00360
    // Holm (m = 3): 0.00360·3 = 0.0108 (significant); 0.03759·2 = 0.0752; 0.03759·1 → 0.0752 (not)
    // C is not different from B but is from A, the top of place 1 → C opens place 2
    const groups = [
      { name: 'C', values: [98, 100, 102] },
      { name: 'A', values: [108, 110, 112] },
      { name: 'B', values: [103, 105, 107] },
    ];
    expect(rankWithTies(groups)).toEqual([
      { place: 1, targets: ['A', 'B'], meanRps: [110, 105] },
      { place: 2, targets: ['C'], meanRps: [100] },
    ]);
    // with alpha 0.1 the adjusted 0.0752 is significant too: three places
    expect(rankWithTies(groups, 0.1)).toEqual([
      { place: 1, targets: ['A'], meanRps: [110] },
      { place: 2, targets: ['B'], meanRps: [105] },
      { place: 3, targets: ['C'], meanRps: [100] },
    ]);
  });

  it('ties targets with a single value, since no difference can be claimed', () => {
    expect(rankWithTies([
      { name: 'a', values: [100] },
      { name: 'c', values: [300] },
      { name: 'b', values: [200] },
    ])).toEqual([{ place: 1, targets: ['c', 'b', 'a'], meanRps: [300, 200, 100] }]);
  });

  it('lets an untestable target join the place above it without breaking other comparisons', () => {
    // x (n 1) cannot be told from fast → joins place 1; slow vs fast: p ≈ 1e-7 → place 2
    expect(rankWithTies([
      { name: 'slow', values: [100, 101, 102] },
      { name: 'x', values: [250] },
      { name: 'fast', values: [300, 301, 302] },
    ])).toEqual([
      { place: 1, targets: ['fast', 'x'], meanRps: [301, 250] },
      { place: 2, targets: ['slow'], meanRps: [101] },
    ]);
  });

  it('leaves out groups with no values and handles trivial inputs', () => {
    expect(rankWithTies([])).toEqual([]);
    expect(rankWithTies([{ name: 'only', values: [5, 6] }, { name: 'none', values: [] }])).toEqual([
      { place: 1, targets: ['only'], meanRps: [5.5] },
    ]);
  });

  it('describes its method with the alpha used', () => {
    expect(RANKING_METHOD).toBe("Welch's t-test, Holm-corrected over all pairs, alpha 0.05; dense places");
    expect(rankingMethod(0.1)).toContain('alpha 0.1');
  });
});

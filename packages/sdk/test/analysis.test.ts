// The run loop's pure parts — estimators, bootstrap, variance components, stopping rule, round
// order, steal replacement, warm-up rule, client-bound rule — against hand-computed values.
// No process starts here, so this file needs no load lock.
import { describe, expect, it } from 'vitest';
import {
  blocksForPrecision,
  changeEstimate,
  createHistogram,
  decideStop,
  encodeHistogram,
  hierarchicalBootstrap,
  isClientBound,
  median,
  okWindowSchema,
  overallOf,
  optimalRounds,
  pairSummarySchema,
  quantileSorted,
  rankScenario,
  relativeHalfWidth,
  scenarioBudget,
  separated,
  summarizePair,
  tQuantile,
  varianceComponents,
  type Estimate,
  type EstimatorOptions,
  type OkWindow,
  type WindowRecord,
} from '../src/index.js';
import { fitsWithShorterWarmups } from '../src/analysis/stopping.js';
import { roundOrder, shouldAddRound } from '../src/run/block.js';
import { isSteady, wakeUp, warmupWindows } from '../src/run/warmup.js';
import { zeroResources } from './_helpers.js';

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

describe('varianceComponents', () => {
  it('splits a hand-computed two-group example into between and within SDs', () => {
    // g1 = [1, 2, 3] (mean 2), g2 = [6, 8] (mean 7).
    // within: SS = (1 + 0 + 1) + (1 + 1) = 4 on df = 2 + 1 = 3 → σ²_w = 4/3, σ_w = √(4/3) ≈ 1.1547
    // group means 2 and 7, grand 4.5: var of means = (2.5² + 2.5²)/(2 − 1) = 12.5
    // harmonic mean of sizes n_H = 2 / (1/3 + 1/2) = 2.4; σ²_w / n_H = (4/3)/2.4 = 5/9
    // σ²_b = 12.5 − 5/9 = 107.5/9 ≈ 11.944, σ_b ≈ 3.4561
    const vc = varianceComponents([
      [1, 2, 3],
      [6, 8],
    ]);
    expect(vc.within).toBeCloseTo(Math.sqrt(4 / 3), 10);
    expect(vc.between).toBeCloseTo(Math.sqrt(107.5 / 9), 10);
    expect(vc.between).toBeCloseTo(3.4561, 4);
  });

  it('clamps the between component at zero when the means agree better than the rounds explain', () => {
    // Both means 5: var of means 0 − (within / n_H) < 0 → 0.
    expect(
      varianceComponents([
        [0, 10],
        [1, 9],
      ]).between,
    ).toBe(0);
  });

  it('has no between component for one group; no within component without degrees of freedom', () => {
    expect(varianceComponents([[1, 2, 3]])).toEqual({ between: null, within: 1 });
    expect(varianceComponents([[1, 2, 3], []])).toEqual({ between: null, within: 1 });
    expect(varianceComponents([[4], [6]]).within).toBeNull();
    // Two singletons: var of means 2, nothing subtracted → between √2.
    expect(varianceComponents([[4], [6]]).between).toBeCloseTo(Math.SQRT2, 12);
  });
});

describe('optimalRounds (Kalibera & Jones) and blocksForPrecision', () => {
  const limits = { min: 2, max: 20 };
  it('n* = sqrt(c_block/c_round · σ²_w/σ²_b), clamped to the limits', () => {
    // sqrt(8/2 · 0.1²/0.05²) = sqrt(4 · 4) = 4
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0.05, within: 0.1 }, limits)).toBe(4);
    // sqrt(10/1 · 0.1²/0.01²) = sqrt(1000) ≈ 31.6 → max 20
    expect(optimalRounds({ blockSec: 10, roundSec: 1 }, { between: 0.01, within: 0.1 }, limits)).toBe(20);
    // sqrt(1/1 · 0.01²/0.1²) = 0.1 → min 2
    expect(optimalRounds({ blockSec: 1, roundSec: 1 }, { between: 0.1, within: 0.01 }, limits)).toBe(2);
  });
  it('without a measurable between-block SD, more rounds are always cheaper; without a within SD, the minimum', () => {
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0, within: 0.1 }, limits)).toBe(20);
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: null, within: 0.1 }, limits)).toBe(20);
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0.1, within: null }, limits)).toBe(2);
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0.1, within: 0 }, limits)).toBe(2);
  });
  it('blocks so that t(0.975, B − 1) · sqrt(σ²_b/B + σ²_w/(B·n)) ≤ precision, as the intervals are computed', () => {
    // v = 0.02² + 0.1²/4 = 0.0029; v/p² = 7.25: B = 30 needs t(29)² = 4.182 · 7.25 = 30.3 > 30; B = 31: t(30)² = 4.171 · 7.25 = 30.2 ≤ 31
    expect(blocksForPrecision({ between: 0.02, within: 0.1 }, 4, 0.02)).toBe(31);
    // v = 0.1²/10 = 0.001: B = 4 gives 3.182 · sqrt(0.00025) = 0.0503 > 0.05; B = 5 gives 2.776 · sqrt(0.0002) = 0.0393
    expect(blocksForPrecision({ between: null, within: 0.1 }, 10, 0.05)).toBe(5);
    expect(blocksForPrecision({ between: 0, within: 0 }, 10, 0.02)).toBe(1);
  });
});

describe('the stopping rule (decideStop)', () => {
  const rule = { precision: 0.02, blocks: { min: 2, max: 5 } };
  const roomy = { budgetLeftSec: 1000, nextBlockSec: 10 };
  it('stops when every headline half-width is within the precision target', () => {
    expect(decideStop({ blocks: 2, halfWidths: [0.01, 0.02], ...roomy }, rule)).toBe('precision');
    expect(decideStop({ blocks: 2, halfWidths: [0.01, 0.021], ...roomy }, rule)).toBe('continue');
  });
  it('does not count a figure that cannot be estimated yet, nor an empty list, as precise', () => {
    expect(decideStop({ blocks: 2, halfWidths: [0.01, null], ...roomy }, rule)).toBe('continue');
    expect(decideStop({ blocks: 2, halfWidths: [], ...roomy }, rule)).toBe('continue');
  });
  it('stops at the budget when the next block would not fit', () => {
    expect(decideStop({ blocks: 3, halfWidths: [0.05], budgetLeftSec: 9, nextBlockSec: 10 }, rule)).toBe('budget');
    expect(decideStop({ blocks: 3, halfWidths: [0.05], budgetLeftSec: 10, nextBlockSec: 10 }, rule)).toBe('continue');
  });
  it('stops at the maximum of blocks', () => {
    expect(decideStop({ blocks: 5, halfWidths: [0.05], ...roomy }, rule)).toBe('max-blocks');
  });
  it('never stops on precision before the minimum of blocks; below it, only the budget stops it, and never before one block', () => {
    expect(decideStop({ blocks: 1, halfWidths: [0.001], ...roomy }, rule)).toBe('continue');
    expect(decideStop({ blocks: 1, halfWidths: [0.001], budgetLeftSec: 0, nextBlockSec: 100 }, rule)).toBe('budget');
    expect(decideStop({ blocks: 0, halfWidths: [], budgetLeftSec: -5, nextBlockSec: 100 }, rule)).toBe('continue');
  });
  it("below the minimum, a block that overruns the scenario's even share still runs while the run's budget, less the later scenarios' minimum, holds it", () => {
    expect(decideStop({ blocks: 1, halfWidths: [0.3], budgetLeftSec: 50, nextBlockSec: 60, minimumBudgetLeftSec: 200 }, rule)).toBe('continue');
    expect(decideStop({ blocks: 1, halfWidths: [0.3], budgetLeftSec: 50, nextBlockSec: 60, minimumBudgetLeftSec: 59 }, rule)).toBe('budget');
    // From the minimum on, the scenario's share decides…
    expect(decideStop({ blocks: 2, halfWidths: [0.3], budgetLeftSec: 50, nextBlockSec: 60, minimumBudgetLeftSec: 200 }, rule)).toBe('budget');
    // …and a block beyond the minimum never takes the later scenarios' minimum (a stepped scenario's
    // third block left the last three scenarios of the default suite with one block each).
    expect(decideStop({ blocks: 2, halfWidths: [0.3], budgetLeftSec: 150, nextBlockSec: 140, minimumBudgetLeftSec: 100 }, rule)).toBe('budget');
    expect(decideStop({ blocks: 2, halfWidths: [0.3], budgetLeftSec: 150, nextBlockSec: 140, minimumBudgetLeftSec: 145 }, rule)).toBe('continue');
  });
});

describe('scenarioBudget', () => {
  it('shares what remains by the weights of the scenarios still to run', () => {
    // weights 1, 2, 3: the first gets 1/6 of 600, the second 2/5 of what is left then, the last all of it.
    expect(scenarioBudget(600, [1, 2, 3], 0)).toBe(100);
    expect(scenarioBudget(600, [1, 2, 3], 1)).toBe(240);
    expect(scenarioBudget(600, [1, 2, 3], 2)).toBe(600);
    expect(scenarioBudget(600, [0, 0], 0)).toBe(0);
  });
});

// ---------------------------------------------------------------------------------------------
// Summaries and rankings from hand-built windows.

/** A histogram of `count` responses all at `us` microseconds. */
function histogramOf(count: number, us: number): string {
  const h = createHistogram();
  h.recordValueWithCount(us, count);
  return encodeHistogram(h);
}

let nextIndex = 0;
/** One ok window, checked against the result schema so a schema change shows up here by name. */
function win(target: string, block: number, round: number, rps: number, o: { cpuUs?: number; excluded?: 'steal' | null; steal?: number; latencyUs?: number; loaderBound?: boolean } = {}): OkWindow {
  const requests = Math.round(rps * 0.5);
  const latency = {
    p50: o.latencyUs ?? 100,
    p90: o.latencyUs ?? 100,
    p99: o.latencyUs ?? 100,
    p999: o.latencyUs ?? 100,
    min: o.latencyUs ?? 100,
    max: o.latencyUs ?? 100,
    mean: o.latencyUs ?? 100,
    stdev: 0,
    count: 10,
  };
  const histogram = histogramOf(10, o.latencyUs ?? 100);
  const resources = zeroResources({
    serverCpuSeconds: ((o.cpuUs ?? 10) * requests) / 1e6,
    serverPeakRssBytes: 50e6,
    serverProcesses: 1,
    cpuSteal: o.steal ?? 0,
  });
  const counters = { requests, statusCounts: { '200': requests }, errors: 0, timeouts: 0, non2xx: 0, unexpected: 0 };
  const flags = { clientBound: false, backendBound: false, serverNotSaturated: false, ...(o.loaderBound !== undefined && { loaderBound: o.loaderBound }) };
  const step = { connections: 10, durationSec: 0.5, rps, ...counters, latency, histogram, resources, ...flags, rpsPerCpuSecond: null };
  return okWindowSchema.parse({
    scenario: 's',
    target,
    block,
    round,
    position: 0,
    index: nextIndex++,
    startedAt: new Date(0).toISOString(),
    elapsedSec: 1,
    status: 'ok',
    durationSec: 0.5,
    rps,
    ...counters,
    latency,
    histogram,
    resources,
    ...flags,
    cpuPerRequestUs: o.cpuUs ?? 10,
    steps: [step],
    excluded: o.excluded ?? null,
  });
}

const est: EstimatorOptions = { reference: 'a', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 500, confidence: 0.95, seed: 11 };

/**
 * Two blocks × four rounds. The reference a drifts from round to round and block to block; b is
 * exactly half of a in every round with twice its CPU per request; c is 0.5025 × a (inside the 1%
 * band of b); d is 0.8 × a. One window of b is over the steal threshold, marked, and absurd.
 */
function handBuilt(): WindowRecord[] {
  const out: WindowRecord[] = [];
  for (const block of [1, 2]) {
    for (const round of [1, 2, 3, 4]) {
      const a = 1000 * (1 + 0.1 * round) * (block === 1 ? 1 : 1.3);
      out.push(win('a', block, round, a, { cpuUs: 10 }));
      const stolen = block === 1 && round === 3;
      out.push(win('b', block, round, stolen ? a * 0.1 : a * 0.5, { cpuUs: stolen ? 99 : 20, excluded: stolen ? 'steal' : null, steal: stolen ? 0.4 : 0, latencyUs: stolen ? 50_000 : 100 }));
      out.push(win('c', block, round, a * 0.5025, { cpuUs: 20 }));
      out.push(win('d', block, round, a * 0.8, { cpuUs: 12 }));
    }
  }
  return out;
}

describe('summarizePair', () => {
  const windows = handBuilt();
  const summary = (t: string) => pairSummarySchema.parse(summarizePair({ scenario: 's', target: t, windows, estimator: est, serverCpus: [0] }));

  it('a target at exactly half the reference in every round: relative req/s 0.5 with a degenerate interval', () => {
    const b = summary('b');
    expect(b.relativeRps!.point).toBe(0.5);
    expect(b.relativeRps!.ci95).toEqual([0.5, 0.5]);
    expect(b.relativeRps!.halfWidth).toBe(0);
    expect(b.precision).toEqual({ target: 0.02, reached: 0, met: true });
    expect(b.relativeCpu!.point).toBe(2);
    expect(b.relativeCpu!.ci95).toEqual([2, 2]);
    expect(b.blocks).toBe(2);
  });

  it('leaves the steal-excluded window out of every estimate, but counts it', () => {
    const b = summary('b');
    // 8 rounds, one lost to steal: 7 paired ratios; 7 windows of 10 responses in the merged histogram.
    expect(b.relativeRps!.n).toBe(7);
    expect(b.rps.n).toBe(7);
    expect(b.windows).toMatchObject({ ok: 8, failed: 0, excludedSteal: 1 });
    expect(b.latency.count).toBe(70);
    expect(b.latency.max).toBeLessThan(50_000);
    expect(b.cpuPerRequestUs!.point).toBe(20);
    expect(b.noise.label).toBe('disturbed');
    expect(b.noise.maxSteal).toBeCloseTo(0.4, 12);
  });

  it('the reference has absolute figures only', () => {
    const a = summary('a');
    expect(a.relativeRps).toBeNull();
    expect(a.relativeCpu).toBeNull();
    // a's eight windows: 1000·(1.1, 1.2, 1.3, 1.4) and 1300·(1.1, 1.2, 1.3, 1.4); sorted middle pair 1400 and 1430.
    expect(a.rps.point).toBeCloseTo(1415, 9);
    expect(a.rps.n).toBe(8);
    expect(a.precision.reached).toBe(a.rps.halfWidth);
    expect(a.noise.label).not.toBe('disturbed');
  });

  it('a pair whose every window failed still has a valid summary that counts the failures', () => {
    const failed: WindowRecord = {
      scenario: 's',
      target: 'e',
      block: 1,
      round: 1,
      position: 0,
      index: 999,
      startedAt: new Date(0).toISOString(),
      elapsedSec: 1,
      status: 'failed',
      failure: { phase: 'crash', message: 'server exited', exitCode: 3 },
    };
    const s = summarizePair({ scenario: 's', target: 'e', windows: [...windows, failed], estimator: est, serverCpus: [0] });
    expect(s.windows).toMatchObject({ ok: 0, failed: 1 });
    expect(s.relativeRps).toBeNull();
    expect(pairSummarySchema.safeParse(s).error?.issues ?? []).toEqual([]);
  });

  it('reports variance components of the log-ratio: none between blocks or rounds for an exact ratio', () => {
    const b = summary('b');
    expect(b.variance.betweenBlocks).toBe(0);
    expect(b.variance.withinBlocks).toBeCloseTo(0, 12);
  });
});

describe('rankScenario and separated', () => {
  const windows = handBuilt();
  const summaries = ['a', 'b', 'c', 'd'].map((t) => summarizePair({ scenario: 's', target: t, windows, estimator: est, serverCpus: [0] }));

  it('separates targets whose intervals are apart, and ties those within the practical band', () => {
    const r = rankScenario('s', summaries, 0.01);
    expect(r.places.map((p) => p.targets)).toEqual([['a'], ['d'], ['c', 'b']]);
    expect(r.places.map((p) => p.place)).toEqual([1, 2, 3]);
  });

  it('a zero practical band separates c (0.5025) from b (0.5): the band is what tied them', () => {
    const r = rankScenario('s', summaries, 0);
    expect(r.places.map((p) => p.targets)).toEqual([['a'], ['d'], ['c'], ['b']]);
  });

  it('overlapping intervals tie however far apart the points', () => {
    const e = (point: number, lo: number, hi: number): Estimate => ({ point, ci95: [lo, hi], halfWidth: (hi - lo) / 2 / point, n: 10, method: 'test' });
    expect(separated(e(1.1, 1.0, 1.2), e(1.0, 0.95, 1.05), 0.01)).toBe(false);
    expect(separated(e(1.1, 1.06, 1.2), e(1.0, 0.95, 1.05), 0.01)).toBe(true);
    expect(separated(e(1.0, 0.95, 1.05), e(1.1, 1.06, 1.2), 0.01)).toBe(true); // order does not matter
    expect(separated(e(1.005, 1.004, 1.006), e(1.0, 0.999, 1.001), 0.01)).toBe(false); // apart, but inside the band
  });
});

describe('changeEstimate (compare)', () => {
  const o = { resamples: 500, confidence: 0.95, seed: 3 };
  it('an exact 10% rise is 1.1 with a degenerate interval', () => {
    const c = changeEstimate(
      [
        [100, 100, 100],
        [100, 100],
      ],
      [
        [110, 110, 110],
        [110, 110],
      ],
      o,
    )!;
    expect(c.ratio).toBeCloseTo(1.1, 12);
    expect(c.ci95![0]).toBeCloseTo(1.1, 12);
    expect(c.ci95![1]).toBeCloseTo(1.1, 12);
    expect(c.halfWidth).toBeCloseTo(0, 12);
  });
  it('is the ratio of medians, reproducible under a seed, with an interval around it', () => {
    const base = [
      [90, 100, 110, 95],
      [105, 98, 102],
    ];
    const head = [
      [99, 110, 121, 104],
      [116, 108, 112],
    ];
    const c = changeEstimate(base, head, o)!;
    // medians: base 100 (of 90 95 98 100 102 105 110), head 110 (of 99 104 108 110 112 116 121)
    expect(c.ratio).toBeCloseTo(1.1, 12);
    expect(c.ci95![0]).toBeLessThanOrEqual(c.ratio);
    expect(c.ci95![1]).toBeGreaterThanOrEqual(c.ratio);
    expect(changeEstimate(base, head, o)).toEqual(c);
    // One block each: only the seeded bootstrap, so another seed gives another interval.
    expect(changeEstimate([base.flat()], [head.flat()], { ...o, seed: 4 })!.ci95).not.toEqual(changeEstimate([base.flat()], [head.flat()], o)!.ci95);
    // Two blocks each: the Welch t-interval on the per-block medians holds it. Log block medians:
    // base (ln 95 + ln 100)/2 and ln 102, head (ln 104 + ln 110)/2 and ln 112; each run's variance of
    // the mean is (difference)²/4; Welch df = (vb + vh)² / (vb² + vh²) with 1 df each.
    const d = (a: number, b: number) => a - b;
    const vb = d((Math.log(95) + Math.log(100)) / 2, Math.log(102)) ** 2 / 4;
    const vh = d((Math.log(104) + Math.log(110)) / 2, Math.log(112)) ** 2 / 4;
    const half = tQuantile(0.975, (vb + vh) ** 2 / (vb ** 2 + vh ** 2)) * Math.sqrt(vb + vh);
    expect(c.ci95![0]).toBeLessThanOrEqual(1.1 * Math.exp(-half) + 1e-12);
    expect(c.ci95![1]).toBeGreaterThanOrEqual(1.1 * Math.exp(half) - 1e-12);
  });
  it('needs samples on both sides, and four in all for an interval', () => {
    expect(changeEstimate([], [[1, 2]], o)).toBeNull();
    expect(changeEstimate([[1]], [[2]], o)).toMatchObject({ ratio: 2, ci95: null, halfWidth: null });
  });
});

describe('isClientBound', () => {
  const r = (over: Record<string, number>) => zeroResources(over);
  it('flags a loader whose one core is saturated although the mean over its cores is low', () => {
    // autocannon on one core of four: that core 97% busy, the four cores' mean 24%.
    expect(isClientBound(r({ loaderBusiestCore: 0.97, loaderCoreBusy: 0.24, loaderThreadBusy: 0.24 }))).toBe(true);
  });
  it('flags a loader process that uses its threads fully, whatever the cores say', () => {
    expect(isClientBound(r({ loaderBusiestCore: 0.5, loaderCoreBusy: 0.5, loaderThreadBusy: 0.95 }))).toBe(true);
  });
  it('does not flag headroom, and honours the threshold', () => {
    expect(isClientBound(r({ loaderBusiestCore: 0.85, loaderCoreBusy: 0.85, loaderThreadBusy: 0.85 }))).toBe(false);
    expect(isClientBound(r({ loaderBusiestCore: 0.85, loaderThreadBusy: 0.1 }), 0.8)).toBe(true);
  });
});

describe('roundOrder', () => {
  const targets = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
  const names = (xs: { name: string }[]) => xs.map((x) => x.name).join('');
  it('is reproducible from the seed and a permutation of the targets', () => {
    const one = roundOrder(targets, 42, 'baseline', 2, 3);
    expect(roundOrder(targets, 42, 'baseline', 2, 3)).toEqual(one);
    expect(names([...one].sort((x, y) => x.name.localeCompare(y.name)))).toBe('abcde');
    expect(targets.map((t) => t.name).join('')).toBe('abcde'); // input untouched
  });
  it('differs between rounds, blocks and seeds', () => {
    const orders = (seed: number, block: number) => Array.from({ length: 10 }, (_, i) => names(roundOrder(targets, seed, 'baseline', block, i + 1)));
    expect(new Set(orders(42, 1)).size).toBeGreaterThan(3);
    expect(orders(42, 2)).not.toEqual(orders(42, 1));
    expect(orders(43, 1)).not.toEqual(orders(42, 1));
  });
});

describe('shouldAddRound (steal replacement)', () => {
  it('adds a round when a window of the round was lost, while the budget lasts', () => {
    expect(shouldAddRound(true, 0, 5, true)).toBe(true);
    expect(shouldAddRound(true, 4, 5, true)).toBe(true);
  });
  it('not when nothing was lost, not past the planned count, not out of budget', () => {
    expect(shouldAddRound(false, 0, 5, true)).toBe(false);
    expect(shouldAddRound(true, 5, 5, true)).toBe(false);
    expect(shouldAddRound(true, 0, 5, false)).toBe(false);
  });
});

describe('warm-up rule', () => {
  it('isSteady: the last window within the tolerance of the one before, after the minimum', () => {
    expect(isSteady([100, 104], 2, 0.05)).toBe(true);
    expect(isSteady([100, 96], 2, 0.05)).toBe(true);
    expect(isSteady([100, 106], 2, 0.05)).toBe(false);
    expect(isSteady([100], 1, 0.05)).toBe(false); // never on one window
    expect(isSteady([100, 100], 3, 0.05)).toBe(false);
    expect(isSteady([50, 100, 101], 3, 0.05)).toBe(true);
    expect(isSteady([0, 0], 2, 0.05)).toBe(false);
  });
  it('warmupWindows: 1-s windows, shorter when the maximum is short, so that two fit (steadiness needs two)', () => {
    expect(warmupWindows({ minSec: 2, maxSec: 6, tolerance: 0.05 })).toEqual({ windowSec: 1, min: 2, max: 6 });
    expect(warmupWindows({ minSec: 1.5, maxSec: 3, tolerance: 0.05 })).toEqual({ windowSec: 1, min: 2, max: 3 });
    expect(warmupWindows({ minSec: 1, maxSec: 1, tolerance: 0.05 })).toEqual({ windowSec: 0.5, min: 2, max: 2 });
    expect(warmupWindows({ minSec: 0.2, maxSec: 0.4, tolerance: 0.05 })).toEqual({ windowSec: 0.2, min: 1, max: 2 });
    // No warm-up at all (min may come out as −0: compare by value).
    const none = warmupWindows({ minSec: 0, maxSec: 0, tolerance: 0.05 });
    expect([none.windowSec, none.min + 0, none.max + 0]).toEqual([0.1, 0, 0]);
  });
  it('wakeUp: one window per target in the given order; a failing target gets its error, the others go on', async () => {
    // A scripted driver (no sockets: this checks the schedule): each target's req/s per window.
    const series: Record<string, number[]> = { a: [200], b: [], c: [150] };
    const calls: Array<[string, number]> = [];
    const driver = {
      run: async ({ baseUrl, durationSec }: { baseUrl: string; durationSec: number }) => {
        calls.push([baseUrl, durationSec]);
        const next = series[baseUrl]!.shift();
        if (next === undefined) throw new Error(`${baseUrl}: connection refused`);
        return { requests: next * durationSec, durationSec };
      },
    };
    const ctx = { driver, pinning: { enabled: false, serverCpus: [], loaderCpus: [] }, signal: new AbortController().signal } as unknown as Parameters<typeof wakeUp>[0];
    const item = (name: string) => ({
      target: { baseUrl: name, exitInfo: () => undefined, tail: () => '' },
      spec: { scenario: { expect: { status: 200 }, load: { timeout: 10 } }, requests: [], steps: [10] },
    });
    const out = await wakeUp(ctx, ['c', 'b', 'a'].map(item) as unknown as Parameters<typeof wakeUp>[1], 0.8);
    expect(calls).toEqual([
      ['c', 0.8],
      ['b', 0.8],
      ['a', 0.8],
    ]);
    expect(out[0]).toBe(150);
    expect(String((out[1] as { error: Error }).error.message)).toMatch(/connection refused/);
    expect(out[2]).toBe(200);
  });
});

describe('summarizePair: loader-bound counts and CoV verdicts from fixed window records', () => {
  const windows = handBuilt().map((w) => (w.status === 'ok' && w.target === 'd' && w.round <= 2 ? win('d', w.block, w.round, w.rps, { cpuUs: 12, loaderBound: true }) : w));
  const sum = (t: string) => pairSummarySchema.parse(summarizePair({ scenario: 's', target: t, windows, estimator: est, serverCpus: [0] }));

  it('counts the loader-bound windows per pair and per step', () => {
    expect(sum('d').windows.loaderBound).toBe(4);
    expect(sum('d').steps[0]!.loaderBoundWindows).toBe(4);
    expect(sum('c').windows.loaderBound).toBe(0);
  });

  it('judges the reference on its per-block median req/s and a target on its per-block median ratio', () => {
    // a: block medians 1000·1.25 = 1250 and 1.3·1250 = 1625; mean 1437.5, SD 375/√2 = 265.165 → CoV 18.4%.
    const a = sum('a').verdict!;
    expect(a.basis).toBe('blocks');
    expect(a.blocks!.cov).toBeCloseTo(265.165 / 1437.5, 4);
    expect(a.band).toBe('unreliable');
    // d is 0.8 × a in every round: the ratio does not move from block to block.
    expect(sum('d').verdict!.blocks!.cov).toBeCloseTo(0, 10);
    expect(sum('d').verdict!.band).toBe('excellent');
  });

  it("the run's verdict over the pairs, with the share it was derived with", () => {
    const summaries = ['a', 'b', 'c', 'd'].map(sum);
    const o = overallOf(summaries, windows, null, { verdictShare: 0.5 });
    // a unreliable, b/c/d excellent: half of 4 = 2 pairs are Excellent or better.
    expect(o.verdict).toMatchObject({ band: 'excellent', share: 0.5, worst: 'unreliable' });
    expect(overallOf(summaries, windows, null)!.verdict!.band).toBe('unreliable');
  });
});

describe('shorter warm-ups during the run (fitsWithShorterWarmups)', () => {
  // The default suite at HEAD: the ramp's first block took 164 s (windows lengthened for slow
  // answers); at 642 s of 1,080 three scenarios' minimum (2 blocks × 46.6 s) was reserved, so its
  // second block did not fit (158 s left for 164 s) and the ramp stopped at one block.
  const ramp = { nextBlockSec: 164, targets: 6, leftSec: 1080 - 642, warmup: { minSec: 2, maxSec: 4 } };
  const reserve = (warmupSec: number) => 3 * 2 * (1.5 + 6 * warmupSec + 6 * 0.88 + 3 * 6 * 0.88);
  it('lets a scenario below its minimum reach it when warm-ups at their minimum free the time, here and in the later reserve', () => {
    expect(ramp.leftSec - reserve(4)).toBeLessThan(ramp.nextBlockSec);
    expect(fitsWithShorterWarmups({ ...ramp, shortReserveSec: reserve(2) })).toBe(true);
  });
  it('does not when even that is too little, or when warm-ups are already at their minimum', () => {
    expect(fitsWithShorterWarmups({ ...ramp, leftSec: 200, shortReserveSec: reserve(2) })).toBe(false);
    expect(fitsWithShorterWarmups({ ...ramp, warmup: { minSec: 2, maxSec: 2 }, shortReserveSec: reserve(2) })).toBe(false);
  });
});

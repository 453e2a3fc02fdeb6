// Summaries, rankings and comparisons from hand-built windows (analysis/summarize.ts). No process
// starts here.
import { describe, expect, it } from 'vitest';
import {
  changeEstimate,
  createHistogram,
  encodeHistogram,
  okWindowSchema,
  overallOf,
  pairSummarySchema,
  rankScenario,
  separated,
  summarizePair,
  tQuantile,
  type Estimate,
  type EstimatorOptions,
  type OkWindow,
  type WindowRecord,
} from '../src/index.js';
import { blockCosts, extraRoundRate, planRounds } from '../src/analysis/budget.js';
import type { BlockRecord, Design, PairSummary } from '../src/index.js';
import { zeroResources } from './_helpers.js';

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
  const flags = { clientBound: false, backendBound: false, serverNotSaturated: false, loaderBound: o.loaderBound ?? false };
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

  it('separates targets whose intervals are apart, and ties those within the practical band: both may take places 3 and 4', () => {
    const r = rankScenario('s', summaries, 0.01);
    expect(r.places.map((p) => p.targets)).toEqual([['a'], ['d'], ['c', 'b']]);
    expect(r.places.map((p) => [p.place, p.worst])).toEqual([
      [1, 1],
      [2, 2],
      [3, 4],
    ]);
  });

  it('a zero practical band separates c (0.5025) from b (0.5): the band is what tied them', () => {
    const r = rankScenario('s', summaries, 0);
    expect(r.places.map((p) => p.targets)).toEqual([['a'], ['d'], ['c'], ['b']]);
    expect(r.places.map((p) => [p.place, p.worst])).toEqual([
      [1, 1],
      [2, 2],
      [3, 3],
      [4, 4],
    ]);
  });

  it('ties do not chain: each target gets the range of ranks its own interval allows (param, 2026-12-03 22:43)', () => {
    // Each overlapped the one above it, so places as a partition put koa, at half the reference with
    // an interval excluding 1, in a tie for first with node-http.
    const pair = (target: string, rel: [number, number, number] | null) =>
      ({ scenario: 'param', target, windows: { ok: 10 }, relativeRps: rel && { point: rel[0], ci95: [rel[1], rel[2]], halfWidth: 0.1, n: 3, method: 'test' } }) as unknown as PairSummary;
    const r = rankScenario(
      'param',
      [
        pair('node-http', null),
        pair('fastify', [0.92, 0.68, 1.244]),
        pair('hono', [0.677, 0.567, 0.807]),
        pair('hono-lean', [0.63, 0.465, 0.854]),
        pair('koa', [0.498, 0.373, 0.638]),
        pair('express', [0.181, 0.144, 0.224]),
      ],
      0.01,
    );
    expect(r.places.map((p) => [p.targets.join(','), p.place, p.worst])).toEqual([
      ['node-http', 1, 2],
      ['fastify', 1, 4],
      ['hono,hono-lean', 2, 5],
      ['koa', 3, 5],
      ['express', 6, 6],
    ]);
  });

  it("a target whose req/s was the loader's ranks as a lower bound: its place is open upward, and no one is apart above it", () => {
    // conditional-get with autocannon on a fast host (2026-12-04 12:51): node-http and fastify both
    // loader-bound at 70–76k req/s, fastify read 0.960 [0.938, 0.984] and was placed second.
    const pair = (target: string, rel: [number, number, number] | null, loaderBound = 0) =>
      ({
        scenario: 'conditional-get',
        target,
        windows: { ok: 11, loaderBound },
        relativeRps: rel && { point: rel[0], ci95: [rel[1], rel[2]], halfWidth: 0.02, n: 11, method: 'test' },
      }) as unknown as PairSummary;
    const rows = (r: ReturnType<typeof rankScenario>) => r.places.map((p) => [p.targets.join(','), p.place, p.worst]);
    const others = [pair('hono', [0.729, 0.709, 0.756]), pair('koa', [0.607, 0.598, 0.62]), pair('express', [0.168, 0.16, 0.176])];
    expect(rows(rankScenario('conditional-get', [pair('node-http', null), pair('fastify', [0.96, 0.938, 0.984]), ...others], 0.01))).toEqual([
      ['node-http', 1, 1],
      ['fastify', 2, 2],
      ['hono', 3, 3],
      ['koa', 4, 4],
      ['express', 5, 5],
    ]);
    const bound = rankScenario('conditional-get', [pair('node-http', null, 9), pair('fastify', [0.96, 0.938, 0.984], 8), ...others], 0.01);
    expect(rows(bound)).toEqual([
      ['node-http,fastify', 1, 2],
      ['hono', 3, 3],
      ['koa', 4, 4],
      ['express', 5, 5],
    ]);
    expect(bound.method).toContain('loader-bound in at least 50% of its windows');
    // Bound below others: koa's req/s may be higher than it read, so it may rank anywhere above its
    // place, and hono and fastify above it are not apart from it for their worst rank; express,
    // under it and not bound, stays under it.
    expect(
      rows(
        rankScenario(
          'conditional-get',
          [pair('node-http', null), pair('fastify', [0.96, 0.938, 0.984]), pair('hono', [0.729, 0.709, 0.756]), pair('koa', [0.607, 0.598, 0.62], 6), pair('express', [0.168, 0.16, 0.176])],
          0.01,
        ),
      ),
    ).toEqual([
      ['node-http', 1, 2],
      ['fastify', 2, 3],
      ['hono', 3, 4],
      ['koa', 1, 4],
      ['express', 5, 5],
    ]);
    // Under half its windows bound: ranked as measured.
    expect(
      rows(rankScenario('conditional-get', [pair('node-http', null), pair('fastify', [0.96, 0.938, 0.984]), ...others.slice(0, 1), pair('koa', [0.607, 0.598, 0.62], 5), others[2]!], 0.01)),
    ).toEqual(rows(rankScenario('conditional-get', [pair('node-http', null), pair('fastify', [0.96, 0.938, 0.984]), ...others], 0.01)));
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

describe('planRounds: rounds for the next block from the windows and blocks so far', () => {
  // Two blocks of 3 rounds; b ÷ a is 0.5 and 0.7 alternating inside each block, with the same
  // median in both: the between-block SD comes out 0, so Kalibera & Jones's optimum is the maximum.
  const ws = [1, 2].flatMap((block) => [1, 2, 3].flatMap((round) => [win('a', block, round, 1000), win('b', block, round, round === 2 ? 700 : 500)]));
  // Each block: 20 s of wall, 15 s of it in its 3 rounds (5 s per round, 5 s fixed).
  const blocks = [1, 2].map((block) => ({ scenario: 's', block, rounds: 3, roundsWallSec: 15, wallSec: 20, complete: true }) as unknown as BlockRecord);
  const design = { rounds: { min: 3, max: 20 }, blocks: { min: 2, max: 12 } } as Design;
  const plan = (leftSec: number, evenSec?: number) => planRounds(design, 's', ['a', 'b'], 'a', ws, blocks, leftSec, evenSec);

  it('the minimum before any block, then the minimum while dimensioning', () => {
    expect(planRounds(design, 's', ['a', 'b'], 'a', ws, [], 1000).rounds).toBe(3);
    expect(planRounds(design, 's', ['a', 'b'], 'a', ws, blocks.slice(0, 1), 1000).rounds).toBe(3);
  });
  it("when more blocks fit, rounds come out of this block's part of the time left (blocks before rounds)", () => {
    // 100 s fit 5 minimum blocks of 20 s: this block's part is 20 s, room for 3 rounds, not the 19 that 100 s holds.
    expect(plan(100)).toEqual({ rounds: 3, blockSec: 20, partSec: 20 });
    // 60 s: 3 blocks of 20 s. 90 s: 4 blocks, a part of 22.5 s, still 3 rounds.
    expect(plan(60).rounds).toBe(3);
    expect(plan(90).rounds).toBe(3);
    // A scenario later in a shared block may have less than its even part left: the smaller holds.
    expect(plan(15, 100).rounds).toBe(3);
  });
  it('in the last block that fits, all the time the scenario may still use', () => {
    // 39 s: one minimum block fits; (39 − 5) ÷ 5 = 6 rounds.
    expect(plan(39)).toEqual({ rounds: 6, blockSec: 35, partSec: 39 });
    // Even share of 30 s: one block ahead, so the flowing share of 60 s decides: 11 rounds.
    expect(plan(60, 30).rounds).toBe(11);
  });
  it("prices the run's extra rounds for steal in every planned round, so fewer blocks fit and each part holds its extras", () => {
    // Block 1 planned 3 rounds and ran 4 (one replaced a window left out for steal): 4 rounds in 20 s,
    // 5 s each, 5 s fixed. Block 2 planned 3 and ran 3. The run's rate: 1 extra per 6 planned.
    const noisy = [
      { scenario: 's', block: 1, plannedRounds: 3, extraRounds: 1, rounds: 4, roundsWallSec: 20, wallSec: 25, complete: true },
      { scenario: 's', block: 2, plannedRounds: 3, extraRounds: 0, rounds: 3, roundsWallSec: 15, wallSec: 20, complete: true },
      // Another scenario's blocks count too: steal is the host's. 1 more extra per 6 planned.
      { scenario: 'o', block: 1, plannedRounds: 6, extraRounds: 1, rounds: 7, roundsWallSec: 70, wallSec: 80, complete: true },
    ] as unknown as BlockRecord[];
    expect(extraRoundRate(noisy)).toBeCloseTo(2 / 12, 12);
    expect(extraRoundRate([])).toBe(0);
    const c = blockCosts(noisy, 's')!;
    expect(c.roundSec).toBeCloseTo(5 * (1 + 2 / 12), 9);
    expect(c.fixedSec).toBe(5);
    // 100 s: a minimum block is 5 + 3 × 5.83 = 22.5 s, so 4 blocks fit (5 unpriced); the part is 25 s, 3 rounds.
    const p = planRounds(design, 's', ['a', 'b'], 'a', ws, noisy, 100);
    expect(p.partSec).toBe(25);
    expect(p.rounds).toBe(3);
    expect(p.blockSec).toBeCloseTo(5 + 3 * 5 * (1 + 2 / 12), 9);
  });
  it('with the maximum of blocks reached but one, every second left goes to rounds', () => {
    const full = { ...design, blocks: { min: 2, max: 3 } } as Design;
    expect(planRounds(full, 's', ['a', 'b'], 'a', ws, blocks, 100).rounds).toBe(19);
    // A long budget spreads over the blocks left under the maximum: 1000 s over 10 blocks, 19 rounds each.
    expect(plan(1000).rounds).toBe(19);
  });
});

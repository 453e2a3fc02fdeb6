// Thresholds and the capacity search's logic, on fixed inputs (no servers).
import { describe, expect, it } from 'vitest';
import { checkThresholds, errorShare, evaluateThresholds, parseThresholds } from '../src/analysis/thresholds.js';
import { judgeProbe, searchCapacity } from '../src/run/capacity.js';
import {
  createHistogram,
  encodeHistogram,
  latencyOf,
  okWindowSchema,
  pairSummarySchema,
  thresholdOutcomeSchema,
  summarizePair,
  type BlockRecord,
  type Latency,
  type OkWindow,
  type PairSummary,
  type WindowRecord,
} from '../src/index.js';
import { zeroResources } from './_helpers.js';

const lat = (p99: number, count = 1000): Latency => ({ p50: p99 / 4, p90: p99 / 2, p99, p999: p99 * 2, min: 1, max: p99 * 3, mean: p99 / 3, stdev: 1, count });

/** A pair summary with only what thresholds read filled in meaningfully. */
function pair(o: { p99: number; requests?: number; errors?: number; timeouts?: number; unexpected?: number; rps?: number; corrected?: number; dropped?: number }): PairSummary {
  const est = (point: number) => ({ point, ci95: null, halfWidth: null, method: 'test', n: 1 });
  return {
    scenario: 's',
    target: 't',
    reference: 't',
    requests: o.requests ?? 1000,
    errors: o.errors ?? 0,
    timeouts: o.timeouts ?? 0,
    unexpected: o.unexpected ?? 0,
    non2xx: 0,
    windows: { excludedSteal: 0 },
    latency: lat(o.p99),
    rps: est(o.rps ?? 5000),
    cpuPerRequestUs: est(30),
    steps: [],
    ...(o.corrected !== undefined ? { openLoop: { offeredRate: 100, corrected: lat(o.corrected), correctedHistogram: '', late: 0, dropped: o.dropped ?? 0 } } : {}),
  } as unknown as PairSummary;
}

describe('parseThresholds', () => {
  it('reads latency in ms by default (as k6 does), µs and s, k6 percentiles, shares and rates', () => {
    const t = parseThresholds('p99<50ms, p(99)<50, p50<=800us, max<2s, errors<0.1%, errors<=0.02, rps>20000, cpu<40');
    expect(t.map((x) => [x.metric, x.op, x.limit])).toEqual([
      ['p99', '<', 50_000],
      ['p99', '<', 50_000],
      ['p50', '<=', 800],
      ['max', '<', 2_000_000],
      ['errors', '<', 0.001],
      ['errors', '<=', 0.02],
      ['rps', '>', 20_000],
      ['cpu', '<', 40],
    ]);
  });
  it('reads any percentile 0 < N < 100, as k6 writes it or short', () => {
    const t = parseThresholds('p(95)<30ms, p95<30, p(99.95)<1s, p(0.5)>10us, p(75)<=2ms, p(99)<50, p999<80, p9999<90, p99.5<60, p(50)<1');
    expect(t.map((x) => [x.metric, x.percentile, x.limit])).toEqual([
      ['p(95)', 95, 30_000],
      ['p(95)', 95, 30_000],
      ['p(99.95)', 99.95, 1_000_000],
      ['p(0.5)', 0.5, 10],
      ['p(75)', 75, 2_000],
      ['p99', 99, 50_000],
      ['p999', 99.9, 80_000],
      ['p(99.99)', 99.99, 90_000],
      ['p(99.5)', 99.5, 60_000],
      ['p50', 50, 1_000],
    ]);
    expect(() => parseThresholds('p(100)<5ms')).toThrow(/"p\(100\)<5ms": a percentile is between 0 and 100/);
    expect(() => parseThresholds('p(0)<5ms')).toThrow(/between 0 and 100/);
    expect(() => parseThresholds('p100<5ms')).toThrow(/between 0 and 100/);
    expect(() => parseThresholds('p(95)<5%')).toThrow(/not a time/);
  });
  it('names the term that is wrong', () => {
    expect(() => parseThresholds('p99<50ms,pp98<5ms')).toThrow(/"pp98<5ms": unknown metric "pp98"/);
    expect(() => parseThresholds('p99<5kg')).toThrow(/unit "kg" is not a time/);
    expect(() => parseThresholds('errors<150%')).toThrow(/at most 1/);
    expect(() => parseThresholds('p99 50ms')).toThrow(/expected METRIC<VALUE/);
    expect(() => parseThresholds(' , ')).toThrow(/expected terms/);
  });
});

describe('checkThresholds', () => {
  it('passes and fails each term on the merged figures, with the measured value', () => {
    const out = checkThresholds(pair({ p99: 40_000, requests: 990, errors: 5, timeouts: 5 }), parseThresholds('p99<50ms,errors<0.1%,rps>20000'));
    expect(out.map((o) => [o.expression, o.pass, o.measured])).toEqual([
      ['p99<50ms', true, 40_000],
      ['errors<0.1%', false, 10 / 1000],
      ['rps>20000', false, 5000],
    ]);
  });
  it('reads open-loop latency from the intended send, and counts dropped sends as errors', () => {
    const s = pair({ p99: 2_000, corrected: 450_000, requests: 900, dropped: 100 });
    const [p99, errors] = checkThresholds(s, parseThresholds('p99<50ms,errors<5%'));
    expect(p99).toMatchObject({ pass: false, measured: 450_000 });
    expect(errors).toMatchObject({ pass: false, measured: 100 / 1000 });
    expect(errorShare({ requests: 0, errors: 0, timeouts: 0, unexpected: 0 })).toBe(0);
  });
});

/** A histogram of latencies 1..n µs, one each: its percentile N is N% of n. */
function uniform(n: number) {
  const h = createHistogram();
  for (let v = 1; v <= n; v++) h.recordValue(v);
  return h;
}

describe('checkThresholds: any percentile, per step', () => {
  it('reads a percentile Latency has no field for from the merged histogram', () => {
    const h = uniform(10_000);
    const s = { ...pair({ p99: 9_900 }), latency: latencyOf(h), histogram: encodeHistogram(h), steps: [] } as unknown as PairSummary;
    const [p95, p75] = checkThresholds(s, parseThresholds('p(95)<9.6ms,p(75)>7.6ms'));
    expect(p95!.measured).toBeGreaterThanOrEqual(9_490);
    expect(p95!.measured).toBeLessThanOrEqual(9_510);
    expect(p95!.pass).toBe(true);
    expect(p75!.pass).toBe(false);
  });

  it('checks a latency term at every step of a stepped load: one slow step fails it, and each step is reported', () => {
    const step = (connections: number, us: number) => {
      const h = createHistogram();
      h.recordValueWithCount(us, 1000);
      return { connections, latency: latencyOf(h), histogram: encodeHistogram(h) };
    };
    const steps = [step(10, 1_000), step(50, 2_000), step(500, 80_000)];
    // Pooled over the steps, p50 is 2 ms: only the step at 500 connections is over 50 ms.
    const pooled = createHistogram();
    for (const us of [1_000, 2_000, 80_000]) pooled.recordValueWithCount(us, 1000);
    const s = { ...pair({ p99: 0 }), latency: latencyOf(pooled), histogram: encodeHistogram(pooled), steps } as unknown as PairSummary;
    const [p50, p95, rps] = checkThresholds(s, parseThresholds('p50<50ms,p(95)>500us,rps>1'));
    expect(p50).toMatchObject({
      pass: false,
      steps: [
        { connections: 10, pass: true },
        { connections: 50, pass: true },
        { connections: 500, pass: false },
      ],
    });
    expect(p50!.measured).toBeGreaterThan(79_000); // the step that decides
    expect(latencyOf(pooled).p50).toBeLessThan(50_000); // the pooled histogram would have passed
    expect(p95).toMatchObject({ pass: true });
    expect(p95!.steps!.map((x) => x.pass)).toEqual([true, true, true]);
    expect(p95!.measured).toBeLessThan(1_100); // a lower limit: the lowest step decides
    expect(rps!.steps).toBeUndefined(); // throughput and errors stay on the pair's figures
  });
});

// ---------------------------------------------------------------------------------------------
// Failed windows count: a pair's summary says what it missed, and errors<… counts it.

const latencyUs = 500;
function okWin(target: string, block: number, round: number, rps: number): OkWindow {
  const requests = Math.round(rps * 0.5);
  const h = createHistogram();
  h.recordValueWithCount(latencyUs, requests);
  const latency = latencyOf(h);
  const histogram = encodeHistogram(h);
  const resources = zeroResources({ serverProcesses: 1 });
  const counters = { requests, statusCounts: { '200': requests }, errors: 0, timeouts: 0, non2xx: 0, unexpected: 0 };
  const flags = { clientBound: false, backendBound: false, serverNotSaturated: false, loaderBound: false };
  const stepRec = { connections: 10, durationSec: 0.5, rps, ...counters, latency, histogram, resources, ...flags, rpsPerCpuSecond: null };
  const base = { scenario: 's', target, block, round, position: 0, index: 0, startedAt: new Date(0).toISOString(), elapsedSec: 1 };
  return okWindowSchema.parse({ ...base, status: 'ok', durationSec: 0.5, rps, ...counters, latency, histogram, resources, ...flags, cpuPerRequestUs: null, steps: [stepRec], excluded: null });
}
const failedWin = (target: string, block: number, round: number): WindowRecord => ({
  scenario: 's',
  target,
  block,
  round,
  position: 1,
  index: 0,
  startedAt: new Date(0).toISOString(),
  elapsedSec: 1,
  status: 'failed',
  failure: { phase: 'load', message: 'no response in the measured window at 10 connections' },
});
const blockOf = (block: number, rounds: number, failed: Record<string, BlockRecord['targets'][number]['failure']>): BlockRecord => ({
  scenario: 's',
  block,
  startedAt: new Date(0).toISOString(),
  wallSec: 1,
  roundsWallSec: 1,
  plannedRounds: rounds,
  rounds,
  extraRounds: 0,
  complete: true,
  targets: ['ref', 'flaky'].map((t) => ({ target: t, status: failed[t] ? ('failed' as const) : ('ok' as const), warmupRps: [], steady: true, ...(failed[t] ? { failure: failed[t] } : {}) })),
});
const est = { reference: 'ref', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 200, confidence: 0.95, seed: 1 };

describe('failed windows count as failed sends', () => {
  it('a target that stops answering: the window that failed and the rounds it then missed count at its median req/s', () => {
    // Block 1: 'flaky' answers rounds 1 and 2 (1000 req/s, 500 per window), fails round 3 of 5.
    const windows: WindowRecord[] = [1, 2, 3, 4, 5].map((r) => okWin('ref', 1, r, 2000));
    windows.push(okWin('flaky', 1, 1, 1000), okWin('flaky', 1, 2, 1000), failedWin('flaky', 1, 3));
    const blocks = [blockOf(1, 5, { flaky: { phase: 'load', message: 'no response' } })];
    const s = pairSummarySchema.parse(summarizePair({ scenario: 's', target: 'flaky', windows, estimator: est, serverCpus: [0], blocks }));
    expect(s.requests).toBe(1000);
    expect(s.errors).toBe(0);
    expect(s.missed).toEqual({ windows: 3, requests: 1500 });
    const [errors] = checkThresholds(s, parseThresholds('errors<1%'));
    expect(errors).toMatchObject({ pass: false, measured: 1500 / 2500, missed: { windows: 3, requests: 1500 } });
    // The reference missed nothing and passes.
    const ref = summarizePair({ scenario: 's', target: 'ref', windows, estimator: est, serverCpus: [0], blocks });
    expect(ref.missed).toBeUndefined();
    expect(checkThresholds(ref, parseThresholds('errors<1%'))[0]).toMatchObject({ pass: true, measured: 0 });
  });

  it('a target that failed before any window of a block still counts that block, and one with no measured window at all has an error share of 1', () => {
    const windows: WindowRecord[] = [1, 2, 3].map((r) => okWin('ref', 1, r, 2000));
    const blocks = [blockOf(1, 3, { flaky: { phase: 'warmup', message: 'no response in the measured window' } })];
    const s = summarizePair({ scenario: 's', target: 'flaky', windows, estimator: est, serverCpus: [0], blocks, connectionSteps: [10] });
    expect(s.windows.ok).toBe(0);
    // No rate of its own: each missed window stands for one request per connection.
    expect(s.missed).toEqual({ windows: 3, requests: 30 });
    expect(checkThresholds(s, parseThresholds('errors<1%'))[0]).toMatchObject({ pass: false, measured: 1 });
    // An interrupted block is the user's stop, not the server's failure.
    const stopped = summarizePair({ scenario: 's', target: 'flaky', windows, estimator: est, serverCpus: [0], blocks: [blockOf(1, 3, { flaky: { phase: 'interrupted', message: 'interrupted' } })] });
    expect(stopped.missed).toBeUndefined();
  });

  it('without block records (a merged result), each failed window counts once', () => {
    const windows: WindowRecord[] = [okWin('flaky', 1, 1, 1000), failedWin('flaky', 1, 2)];
    const s = summarizePair({ scenario: 's', target: 'flaky', windows, estimator: est, serverCpus: [0] });
    expect(s.missed).toEqual({ windows: 1, requests: 500 });
    expect(errorShare({ requests: 500, errors: 0, timeouts: 0, unexpected: 0, missed: 500 })).toBe(0.5);
  });
});

describe('windows left out for steal keep their errors', () => {
  it('a window over the steal threshold leaves the estimates but its sends and errors stay in the error share, and the outcome says how many such windows', () => {
    const windows: WindowRecord[] = [1, 2, 3, 4].map((r) => okWin('ref', 1, r, 2000));
    // 'flaky' answers 500 requests per window; the window of round 4, stolen from, also had 100 errors.
    windows.push(okWin('flaky', 1, 1, 1000), okWin('flaky', 1, 2, 1000), okWin('flaky', 1, 3, 1000));
    const stolen = okWin('flaky', 1, 4, 1000);
    windows.push({ ...stolen, errors: 100, excluded: 'steal', steps: [{ ...stolen.steps[0]!, errors: 100 }] });
    const s = pairSummarySchema.parse(summarizePair({ scenario: 's', target: 'flaky', windows, estimator: est, serverCpus: [0] }));
    expect(s.windows.excludedSteal).toBe(1);
    // Out of the estimates: three rounds' ratios.
    expect(s.relativeRps?.n).toBe(3);
    // In the counters: 4 windows of 500 requests, 100 errors.
    expect(s.requests).toBe(2000);
    expect(s.errors).toBe(100);
    // The step's counters are the pair's (its status mix decides whether the level is clean).
    expect(s.steps[0]).toMatchObject({ requests: 2000, errors: 100, statusCounts: { '200': 2000 }, clean: false });
    expect(s.latency.count).toBe(1500);
    const [errors, p99] = checkThresholds(s, parseThresholds('errors<1%,p99<50ms'));
    expect(thresholdOutcomeSchema.parse(errors)).toMatchObject({ pass: false, measured: 100 / 2100, excludedSteal: 1 });
    // Only an errors term says so: latency comes from the estimates' windows.
    expect(p99?.excludedSteal).toBeUndefined();
  });
});

describe('a target that failed verify', () => {
  it("fails every threshold named on it, the run-wide and its scenario's own, with the reason, and nothing on the scenarios it passed", () => {
    const windows: WindowRecord[] = [1, 2].map((r) => okWin('ref', 1, r, 2000));
    const ref = summarizePair({ scenario: 's', target: 'ref', windows, estimator: est, serverCpus: [0] });
    const verify = [
      { scenario: 's', target: 'ref', ok: true },
      { scenario: 's', target: 'wrong', ok: false, reason: 'status 500, expected 200' },
      { scenario: 'other', target: 'ref', ok: false, reason: 'body differs' },
    ];
    const outcomes = evaluateThresholds([ref], parseThresholds('errors<1%,rps>10'), new Map([['s', parseThresholds('p99<50ms')]]), verify);
    for (const o of outcomes) thresholdOutcomeSchema.parse(o);
    expect(outcomes.filter((o) => o.target === 'ref' && o.scenario === 's').every((o) => o.pass)).toBe(true);
    const wrong = outcomes.filter((o) => o.target === 'wrong');
    expect(wrong.map((o) => o.expression)).toEqual(['errors<1%', 'rps>10', 'p99<50ms']);
    expect(wrong.every((o) => !o.pass && o.measured === null && o.failedVerify === 'status 500, expected 200')).toBe(true);
    // A scenario without terms of its own still has the run-wide ones.
    expect(outcomes.filter((o) => o.scenario === 'other').map((o) => [o.expression, o.pass, o.failedVerify])).toEqual([
      ['errors<1%', false, 'body differs'],
      ['rps>10', false, 'body differs'],
    ]);
  });
});

describe('searchCapacity', () => {
  const known = (capacity: number) => {
    const rates: number[] = [];
    return {
      rates,
      probe: async (r: number) => {
        rates.push(r);
        return { meets: r <= capacity, loaderBound: false };
      },
    };
  };
  it('brackets a known capacity to the resolution, from below and from above', async () => {
    for (const start of [100, 5000]) {
      const k = known(1234);
      const found = await searchCapacity(start, k.probe, { growth: 2, resolution: 0.05, maxProbes: 20 });
      expect(found.capacity).not.toBeNull();
      const [lo, hi] = found.bracket!;
      expect(lo).toBeLessThanOrEqual(1234);
      expect(hi).toBeGreaterThan(1234);
      expect((hi - lo) / lo).toBeLessThanOrEqual(0.05 + 2 / lo);
      expect(k.rates.length).toBeLessThanOrEqual(20);
    }
  });
  it('says so when no rate meets the SLO, within the probe limit', async () => {
    const k = known(0);
    expect(await searchCapacity(100, k.probe, { growth: 2, resolution: 0.05, maxProbes: 6 })).toMatchObject({ capacity: null, bracket: null, bound: 'server' });
    expect(k.rates.length).toBe(6);
  });
  it('fails a probe whose server did not keep up with the offered rate, even within the SLO', () => {
    const f = { rps: 800, requests: 1600, errors: 0, timeouts: 0, unexpected: 0, latency: lat(5_000), cpuPerRequestUs: null };
    expect(judgeProbe(1000, f, parseThresholds('p99<50ms'))).toMatchObject({ meets: false, failed: expect.stringMatching(/offered rate/) });
    expect(judgeProbe(820, f, parseThresholds('p99<50ms'))).toMatchObject({ meets: true, failed: null });
    expect(judgeProbe(820, f, parseThresholds('p99<1ms'))).toMatchObject({ meets: false, failed: 'p99<1ms' });
  });
});

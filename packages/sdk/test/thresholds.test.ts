// Thresholds and the capacity search's logic, on fixed inputs (no servers).
import { describe, expect, it } from 'vitest';
import { checkThresholds, errorShare, parseThresholds } from '../src/analysis/thresholds.js';
import { judgeProbe, searchCapacity } from '../src/run/capacity.js';
import type { Latency, PairSummary } from '../src/index.js';

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
    latency: lat(o.p99),
    rps: est(o.rps ?? 5000),
    cpuPerRequestUs: est(30),
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
  it('names the term that is wrong', () => {
    expect(() => parseThresholds('p99<50ms,p98<5ms')).toThrow(/"p98<5ms": unknown metric "p98"/);
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

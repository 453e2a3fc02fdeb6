// The open-loop drivers' figures from their engines' per-request output, on hand-made input (no
// servers): latency from the intended send, late sends and dropped sends, computed by hand.
import { describe, expect, it } from 'vitest';
import { parseOhaCsv, parseOhaJson } from '../src/drivers/oha.js';
import { parseVegetaCsv } from '../src/drivers/vegeta.js';
import { isLoaderError } from '../src/loader-errors.js';
import { latencyOf } from '../src/index.js';

describe('oha CSV', () => {
  // oha's CSV: request-start (s from the schedule's start), DNS, DNS+dialup, Response-delay,
  // request-duration (s, from the actual send), bytes, status; answered requests only, by send.
  const header = 'request-start,DNS,DNS+dialup,Response-delay,request-duration,bytes,status';
  it('times each answered request from its place in the schedule, counts late sends and the sends that never got an answer', () => {
    // 100 req/s for 1 s: 100 scheduled. 90 answered; sends 0–79 leave on time, 80–89 leave 30 ms late.
    const rows = Array.from({ length: 90 }, (_, k) => {
      const start = k / 100 + (k >= 80 ? 0.03 : 0.0001);
      return `${start},0,0,0.0009,0.001,11,${k === 5 ? 503 : 200}`;
    });
    const r = parseOhaCsv([header, ...rows, ''].join('\n'), { expectStatus: [200], rate: 100, openLoop: true, durationSec: 1 });
    expect(r.requests).toBe(90);
    expect(r.durationSec).toBe(1);
    expect(r.statusCounts).toEqual({ '200': 89, '503': 1 });
    expect([r.non2xx, r.unexpected]).toEqual([1, 1]);
    expect(r.openLoop!.late).toBe(10);
    expect(r.openLoop!.dropped).toBe(10);
    // From the actual send: 1 ms each. From the intended send: 1.1 ms on time, 31 ms late.
    expect(latencyOf(r.histogram).p50).toBeCloseTo(1000, -1);
    const c = latencyOf(r.openLoop!.corrected);
    expect(c.p50).toBeCloseTo(1100, -1);
    expect(c.max).toBeGreaterThan(30_900);
    expect(c.max).toBeLessThan(31_200);
  });
  it('closed loop has no schedule: no open-loop figures', () => {
    const r = parseOhaCsv(`${header}\n0.001,0,0,0.0009,0.002,11,200\n`, { expectStatus: [200], durationSec: 1 });
    expect(r.requests).toBe(1);
    expect(r.openLoop).toBeUndefined();
  });
});

describe('vegeta CSV', () => {
  // vegeta's CSV: timestamp (ns), code, latency (ns), bytes out, bytes in, error, body, attack, seq, …
  it('counts the sends the schedule asked for that vegeta never made as dropped', () => {
    // 1,000 req/s for 0.1 s: 100 scheduled; vegeta made 70 (its workers were all busy), one failed.
    const t0 = 1_700_000_000_000_000_000;
    const rows = Array.from({ length: 70 }, (_, seq) => {
      const ts = t0 + seq * 1_000_000 + (seq >= 60 ? 5_000_000 : 0);
      return `${ts},${seq === 3 ? 0 : 200},2000000,0,11,${seq === 3 ? 'connection refused' : ''},,,${seq},GET,http://x/,`;
    });
    const r = parseVegetaCsv(rows.join('\n'), { expectStatus: [200], rate: 1000, openLoop: true, timeoutSec: 5, durationSec: 0.1 });
    expect(r.requests).toBe(69);
    expect(r.errors).toBe(1);
    expect(r.openLoop!.dropped).toBe(30);
    expect(r.openLoop!.late).toBe(10);
    expect(latencyOf(r.openLoop!.corrected).max).toBeGreaterThan(6_900);
  });
});

describe('oha JSON (closed loop)', () => {
  // oha 1.x `--output-format json`: durations in seconds, failed sends by message in errorDistribution.
  const json = JSON.stringify({
    summary: { successRate: 0.97, total: 1, slowest: 0.08, fastest: 0.0004, average: 0.002, requestsPerSec: 1000 },
    latencyPercentiles: { p10: 0.0008, p25: 0.001, p50: 0.0015, p75: 0.002, p90: 0.003, p95: 0.004, p99: 0.01, 'p99.9': 0.05, 'p99.99': 0.07 },
    statusCodeDistribution: { '200': 950, '503': 50 },
    errorDistribution: { timeout: 7, 'connection closed before message completed': 12, 'Too many open files (os error 24)': 5, 'aborted due to deadline': 3 },
  });

  it('reads errors and timeouts from errorDistribution, the loader’s own failures apart, and the deadline’s cut sends not at all', () => {
    const r = parseOhaJson(json, { expectStatus: [200], durationSec: 1 });
    expect(r).toMatchObject({ requests: 1000, errors: 12, timeouts: 7, loaderErrors: 5, non2xx: 50, unexpected: 50, statusCounts: { '200': 950, '503': 50 } });
  });

  it('rebuilds the latency histogram from its quantiles (exact at them)', () => {
    const l = latencyOf(parseOhaJson(json, { expectStatus: [200], durationSec: 1 }).histogram);
    expect(l.count).toBe(1000);
    expect(l.p50).toBeGreaterThan(1_400);
    expect(l.p50).toBeLessThan(1_600);
    expect(l.p99).toBeGreaterThan(9_000);
    expect(l.p99).toBeLessThan(11_000);
    expect(l.max).toBeGreaterThan(75_000);
  });

  it('a run with no failed sends counts none, and none of the loader’s', () => {
    const r = parseOhaJson(JSON.stringify({ statusCodeDistribution: { '200': 10 }, errorDistribution: {}, latencyPercentiles: { p50: 0.001 }, summary: { fastest: 0.001, slowest: 0.001 } }), {
      expectStatus: [200],
      durationSec: 1,
    });
    expect(r).toMatchObject({ requests: 10, errors: 0, timeouts: 0 });
    expect(r.loaderErrors).toBeUndefined();
  });

  it("tells the loader's own failures (file descriptors, local ports, buffers) from the server's", () => {
    for (const m of ['Too many open files (os error 24)', 'connect EADDRNOTAVAIL 127.0.0.1:8080', 'Cannot assign requested address (os error 99)', 'ENOBUFS']) expect(isLoaderError(m), m).toBe(true);
    for (const m of ['connection refused', 'ECONNRESET', 'connection closed before message completed', 'timeout']) expect(isLoaderError(m), m).toBe(false);
  });
});

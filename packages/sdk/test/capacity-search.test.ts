// The capacity search's judgement on fixed inputs (no servers): a failure is confirmed before it
// bounds the search, a loader that cannot send the rate bounds it as the loader's, and a target's
// capacity says whether it is the server's figure or a lower bound, with its interval or why none.
import { describe, expect, it } from 'vitest';
import { parseThresholds } from '../src/analysis/thresholds.js';
import { capacityOfBlocks, judgeProbe, loaderLimited, searchCapacity, type ProbeVerdict } from '../src/run/capacity.js';
import type { CapacityBlock, Latency } from '../src/index.js';
import { mulberry32 } from '../src/random.js';
import { zeroResources } from './_helpers.js';

const o = { growth: 2, resolution: 0.05, maxProbes: 20 };
const lat = (p99: number): Latency => ({ p50: p99 / 4, p90: p99 / 2, p99, p999: p99 * 2, min: 1, max: p99 * 3, mean: p99 / 3, stdev: 1, count: 1000 });

/** A small seeded generator (the SDK's mulberry32), so every random case is the same on every run. */
const rng = mulberry32;

describe('searchCapacity with confirmed failures', () => {
  it('a probe that fails once at random moves the capacity by at most one bisection step', async () => {
    const random = rng(7);
    let cases = 0;
    for (let c = 0; c < 60; c++) {
      const capacity = 500 + random() * 40_000;
      const start = capacity * (0.2 + random() * 1.5);
      const clean = await searchCapacity(start, async (r) => ({ meets: r <= capacity, loaderBound: false }), o);
      // The same server, with one probe (at a random place in the search) failing whatever its rate.
      const probesInClean: number[] = [];
      await searchCapacity(
        start,
        async (r) => {
          probesInClean.push(r);
          return { meets: r <= capacity, loaderBound: false };
        },
        o,
      );
      const at = Math.floor(random() * probesInClean.length);
      let n = 0;
      const noisy = await searchCapacity(
        start,
        async (r) => {
          const fail = n++ === at;
          return { meets: !fail && r <= capacity, loaderBound: false };
        },
        o,
      );
      expect(clean.capacity).not.toBeNull();
      expect(noisy.capacity, `capacity ${capacity.toFixed(0)}, start ${start.toFixed(0)}, failure at probe ${at}`).not.toBeNull();
      expect(Math.abs(noisy.capacity! - clean.capacity!) / clean.capacity!, `capacity ${capacity.toFixed(0)}: ${noisy.capacity} vs ${clean.capacity}`).toBeLessThanOrEqual(o.resolution);
      expect(noisy.bound).toBe('server');
      cases++;
    }
    expect(cases).toBe(60);
  });

  it('probes a failing rate again, and lets it bound the search only when the second probe fails too', async () => {
    const calls: Array<[number, boolean]> = [];
    const found = await searchCapacity(
      1000,
      async (r, confirmation) => {
        calls.push([r, confirmation]);
        return { meets: r <= 3000, loaderBound: false };
      },
      o,
    );
    // 1000 meets, 2000 meets, 4000 fails and is confirmed, then bisection.
    expect(calls.slice(0, 4)).toEqual([
      [1000, false],
      [2000, false],
      [4000, false],
      [4000, true],
    ]);
    for (const [i, [r, again]] of calls.entries()) if (again) expect(calls[i - 1]).toEqual([r, false]);
    expect(found.capacity).toBeLessThanOrEqual(3000);
    expect(found.bracket![1]).toBeGreaterThan(3000);
  });

  it('a loader that cannot send above a rate bounds the search as the loader, with the rate where it gave out', async () => {
    // The server would meet the SLO at any rate; the loader cannot send more than 12,000 req/s.
    const loaderOnly = (r: number): ProbeVerdict => (r <= 12_000 ? { meets: true, loaderBound: false } : { meets: false, loaderBound: true });
    const found = await searchCapacity(3000, async (r) => loaderOnly(r), o);
    expect(found.bound).toBe('loader');
    expect(found.loaderBoundAt).toBeGreaterThan(12_000);
    expect(found.loaderBoundAt! / 12_000).toBeLessThan(1 + o.resolution + 0.001);
    // A server that fails first (at 8,000) is the server's capacity, whatever the loader could do.
    const serverFirst = await searchCapacity(3000, async (r) => (r <= 8000 ? { meets: true, loaderBound: false } : loaderOnly(r).meets ? { meets: false, loaderBound: false } : loaderOnly(r)), o);
    expect(serverFirst.bound).toBe('server');
    expect(serverFirst.capacity).toBeLessThanOrEqual(8000);
    expect(serverFirst.loaderBoundAt).toBeNull();
  });

  it('a rate whose two failures were one at the server and one at the loader failed at the server', async () => {
    let n = 0;
    // Every failing rate fails first at a full server core, then loader-bound.
    const found = await searchCapacity(3000, async (r) => (r <= 5000 ? { meets: true, loaderBound: false } : { meets: false, loaderBound: n++ % 2 === 1 }), o);
    expect(found.bound).toBe('server');
    expect(found.loaderBoundAt).toBeNull();
  });
});

describe('judgeProbe and loaderLimited', () => {
  const terms = parseThresholds('p99<50ms,errors<1%');
  const figures = (o: { rps: number; busy: number; server: number; late?: number; dropped?: number; p99?: number }) => ({
    rps: o.rps,
    requests: o.rps * 2,
    errors: 0,
    timeouts: 0,
    unexpected: 0,
    latency: lat(1000),
    openLoop: { corrected: lat(o.p99 ?? 1000), late: o.late ?? 0, dropped: o.dropped ?? 0 },
    cpuPerRequestUs: 20,
    resources: zeroResources({ loaderBusiestCore: o.busy, loaderThreadBusy: o.busy, serverCoreShare: o.server, serverProcesses: 1 }),
  });

  it('marks a failed probe loader-bound when the loader core was busy, sends fell behind and the server had room', () => {
    // Offered 40k, achieved 31k, loader at 99%, server at 80%: the loader's limit.
    expect(judgeProbe(40_000, figures({ rps: 31_000, busy: 0.99, server: 0.8, late: 20_000 }), terms)).toMatchObject({ meets: false, loaderBound: true });
    // The same shortfall with the server's core full: the server's.
    expect(judgeProbe(40_000, figures({ rps: 31_000, busy: 0.99, server: 0.99, late: 20_000 }), terms)).toMatchObject({ meets: false, loaderBound: false });
    // A slow server with an idle loader: the server's, late sends or not.
    expect(judgeProbe(10_000, figures({ rps: 6_000, busy: 0.3, server: 0.5, late: 8000, p99: 400_000 }), terms)).toMatchObject({ meets: false, loaderBound: false });
    // A probe that meets is never loader-bound.
    expect(judgeProbe(10_000, figures({ rps: 10_000, busy: 0.95, server: 0.4 }), terms)).toMatchObject({ meets: true, loaderBound: false });
  });

  it("judges by the loader process's own CPU: a core kept busy by other work is not a busy loader", () => {
    const f = figures({ rps: 6_000, busy: 0.3, server: 0.7, late: 3000, p99: 900_000 });
    expect(loaderLimited(10_000, { ...f, resources: { ...f.resources, loaderBusiestCore: 0.99 } })).toBe(false);
    expect(loaderLimited(10_000, { ...f, resources: { ...f.resources, loaderThreadBusy: 0.95 } })).toBe(true);
  });

  it('needs the schedule missed, not only a busy loader core', () => {
    const busyOnTime = figures({ rps: 10_000, busy: 0.95, server: 0.5, p99: 80_000 });
    expect(loaderLimited(10_000, busyOnTime)).toBe(false);
    expect(loaderLimited(10_000, { ...busyOnTime, openLoop: { ...busyOnTime.openLoop, dropped: 3 } })).toBe(true);
    expect(loaderLimited(10_000, { ...busyOnTime, openLoop: { ...busyOnTime.openLoop, late: 500 } })).toBe(true);
    expect(loaderLimited(10_000, { ...busyOnTime, openLoop: { ...busyOnTime.openLoop, late: 100 } })).toBe(false);
  });
});

describe('capacityOfBlocks', () => {
  const meta = { scenario: 'baseline', target: 'node-http', slo: 'p99<50ms', driver: 'oha' };
  const block = (n: number, capacity: number | null, o: Partial<CapacityBlock> = {}): CapacityBlock => ({
    block: n,
    capacity,
    bracket: capacity === null ? null : [capacity, Math.round(capacity * 1.04)],
    probes: [],
    bound: 'server',
    ...o,
  });

  it('three server-bound blocks: the median, and a 95% interval that holds every block and its bracket', () => {
    const c = capacityOfBlocks([block(1, 30_000), block(2, 32_000), block(3, 31_000)], meta);
    expect(c).toMatchObject({ capacity: 31_000, bound: 'server', interval: [30_000, 32_000] });
    expect(c.ci95![0]).toBeLessThanOrEqual(30_000);
    expect(c.ci95![1]).toBeGreaterThanOrEqual(Math.round(32_000 * 1.04));
    expect(c.ci95Missing).toBeUndefined();
  });

  it('a loader-bound block makes the capacity a lower bound, with the rate where the loader gave out and no interval', () => {
    const c = capacityOfBlocks([block(1, 30_000), block(2, 28_000, { bound: 'loader', loaderBoundAt: 29_400 }), block(3, 31_000)], meta);
    expect(c).toMatchObject({ capacity: 30_000, bound: 'loader', loaderBoundAt: 29_400, ci95: null, ci95Missing: 'lower-bound' });
  });

  it('says why there is no interval: one block, or an interruption', () => {
    expect(capacityOfBlocks([block(1, 30_000)], meta)).toMatchObject({ ci95: null, ci95Missing: 'blocks' });
    expect(capacityOfBlocks([block(1, 30_000), block(2, null, { interrupted: true, bound: undefined })], meta)).toMatchObject({ ci95: null, ci95Missing: 'interrupted' });
    expect(capacityOfBlocks([block(1, null), block(2, null), block(3, null)], meta)).toMatchObject({ capacity: null, ci95Missing: 'no-capacity' });
  });
});

// The h2load driver against real servers on port 0: exact request counts, a sane µs latency
// histogram from its per-request log, status counts, errors and timeouts; `auto` choosing it for
// --requests and low connection counts; and the loader's round-trip floor with each pair's share
// of it, flagged on a server whose round trip is mostly the loader's and not on one that adds a
// fixed delay. Starts servers: run under the shared lock. Needs h2load (Debian's nghttp2-client,
// installed by scripts/test-prereqs.sh); skipped with that reason without it.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findH2load, h2loadDriver } from '../src/drivers/h2load.js';
import { allowedCpus } from '../src/environment.js';
import { DEFAULTS, latencyOf, resolveDriver, resultSchema, runSuite, startProcess, type RunningProcess } from '../src/index.js';
import { hasWrk, tiny, tinyServer } from './_helpers.js';

const h2load = findH2load();
const skipReason = h2load ? '' : 'h2load not found (benchsuite setup h2load, or scripts/test-prereqs.sh, installs nghttp2-client)';
const named = (title: string) => (skipReason ? `${title} (skipped: ${skipReason})` : title);

const cpus = allowedCpus();
const serverPin = cpus.length >= 2 ? ['taskset', '-c', String(cpus[0])] : [];
const loaderPin = cpus.length >= 2 ? ['taskset', '-c', cpus.slice(1).join(',')] : [];

const servers: RunningProcess[] = [];
afterAll(async () => {
  await Promise.all(servers.map((s) => s.stop()));
});
async function tinyUrl(env: Record<string, string> = {}): Promise<string> {
  const s = await startProcess({ command: [process.execPath, tinyServer], env, pin: serverPin, unsetEnv: ['NODE_EXTRA_CA_CERTS'] });
  servers.push(s);
  return s.url;
}

const base = { warmupSec: 0, durationSec: 0.5, timeoutSec: 5, expectStatus: [200], pin: loaderPin };
const get = (path = '/') => [{ method: 'GET' as const, path, headers: {} }];

describe.skipIf(!h2load)('h2load driver', () => {
  // A server in the test process that counts what it is sent, by path and method, with the body it got.
  let counter: Server;
  let url = '';
  const seen: Array<{ method: string; path: string; body: string; header: string | undefined }> = [];
  beforeAll(async () => {
    counter = createServer((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += c.toString()));
      req.on('end', () => {
        seen.push({ method: req.method!, path: req.url!, body, header: req.headers['x-bench'] as string | undefined });
        res.writeHead(req.url === '/teapot' ? 418 : req.method === 'POST' ? 201 : 200, { 'content-type': 'text/plain' });
        res.end('ok');
      });
    });
    await new Promise<void>((resolve) => counter.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(counter.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => counter.close(() => resolve())));

  it(named('a fixed count sends exactly N requests, over each connection in turn through the paths; every response is in the histogram and the status counts'), { timeout: 30_000 }, async () => {
    seen.length = 0;
    const requests = [...get('/a'), ...get('/b')];
    for (const [connections, n] of [
      [1, 40],
      [3, 100],
    ] as const) {
      seen.length = 0;
      const r = await h2loadDriver.run({ ...base, baseUrl: url, requests, connections, requestCount: n });
      expect(seen).toHaveLength(n);
      expect(r.requests).toBe(n);
      expect(r.statusCounts).toEqual({ '200': n });
      expect(r.histogram.totalCount).toBe(n);
      expect([r.errors, r.timeouts, r.non2xx, r.unexpected]).toEqual([0, 0, 0, 0]);
      expect(r.durationSec).toBeGreaterThan(0);
      // Paths are sent in turn: half each (a connection's share starts again at the first path).
      const a = seen.filter((x) => x.path === '/a').length;
      expect(Math.abs(a - n / 2)).toBeLessThanOrEqual(connections);
    }
  });

  it(named("sends the scenario's method, headers and body; counts statuses it does not expect"), { timeout: 30_000 }, async () => {
    seen.length = 0;
    const post = [{ method: 'POST' as const, path: '/users', headers: { 'content-type': 'application/json', 'x-bench': 'yes' }, body: '{"name":"Jane"}' }];
    const r = await h2loadDriver.run({ ...base, baseUrl: url, requests: post, connections: 2, requestCount: 10, expectStatus: [201] });
    expect(r.statusCounts).toEqual({ '201': 10 });
    expect(seen.every((x) => x.method === 'POST' && x.body === '{"name":"Jane"}' && x.header === 'yes')).toBe(true);
    seen.length = 0;
    const put = await h2loadDriver.run({ ...base, baseUrl: url, requests: [{ ...post[0]!, method: 'PUT' as const }], connections: 1, requestCount: 4, expectStatus: [200] });
    expect(put.statusCounts).toEqual({ '200': 4 });
    expect(seen.map((x) => x.method)).toEqual(['PUT', 'PUT', 'PUT', 'PUT']);
    const tea = await h2loadDriver.run({ ...base, baseUrl: url, requests: get('/teapot'), connections: 1, requestCount: 5 });
    expect(tea.statusCounts).toEqual({ '418': 5 });
    expect([tea.non2xx, tea.unexpected, tea.errors]).toEqual([5, 5, 0]);
  });

  it(named('refuses requests that differ in method, headers or body, naming why'), async () => {
    await expect(h2loadDriver.run({ ...base, baseUrl: url, requests: [...get('/a'), { method: 'POST', path: '/b', headers: {}, body: '{}' }], connections: 1, requestCount: 2 })).rejects.toThrowError(
      /h2load cannot send this scenario: its requests differ in method, headers or body/,
    );
  });

  it(named('latency comes from each response at µs resolution: a server that waits 20 ms reads 20–40 ms at p50'), { timeout: 30_000 }, async () => {
    const slow = await tinyUrl({ DELAY_MS: '20' });
    const r = await h2loadDriver.run({ ...base, baseUrl: slow, requests: get(), connections: 2, requestCount: 40 });
    const l = latencyOf(r.histogram);
    expect(l.count).toBe(40);
    expect(l.p50).toBeGreaterThanOrEqual(20_000);
    expect(l.p50).toBeLessThan(40_000);
    expect(l.min).toBeGreaterThanOrEqual(19_000);
    // Not whole milliseconds: µs values that are not multiples of 1000.
    expect([l.p50, l.p90, l.min, l.max].some((v) => v % 1000 !== 0)).toBe(true);
  });

  it(named('a timed window measures its own length after a settle in the same process, reporting its edges for the CPU sampling'), { timeout: 30_000 }, async () => {
    const fast = await tinyUrl();
    const edges: string[] = [];
    const t0 = performance.now();
    const r = await h2loadDriver.run({
      ...base,
      baseUrl: fast,
      requests: get(),
      connections: 4,
      warmupSec: 0.4,
      durationSec: 0.6,
      onMeasureStart: () => edges.push(`start ${Math.round(performance.now() - t0)}`),
      onMeasureEnd: () => edges.push(`end ${Math.round(performance.now() - t0)}`),
    });
    expect(r.durationSec).toBeGreaterThan(0.55);
    expect(r.durationSec).toBeLessThan(0.8);
    expect(r.requests).toBeGreaterThan(100);
    expect(r.histogram.totalCount).toBe(r.requests);
    expect(r.statusCounts).toEqual({ '200': r.requests });
    expect(edges).toHaveLength(2);
    const [start, end] = edges.map((e) => Number(e.split(' ')[1]));
    // The measured part starts after the settle and lasts about the window.
    expect(start).toBeGreaterThanOrEqual(350);
    expect(end! - start!).toBeGreaterThanOrEqual(500);
  });

  it(named('a server that never answers gives timeouts, one that refuses gives errors, never responses'), { timeout: 30_000 }, async () => {
    const hang = createServer(() => {});
    await new Promise<void>((resolve) => hang.listen(0, '127.0.0.1', resolve));
    try {
      const r = await h2loadDriver.run({ ...base, baseUrl: `http://127.0.0.1:${(hang.address() as AddressInfo).port}`, requests: get(), connections: 2, requestCount: 4, timeoutSec: 1 });
      expect(r.requests).toBe(0);
      expect(r.timeouts).toBeGreaterThan(0);
    } finally {
      hang.closeAllConnections();
      hang.close();
    }
    const gone = await new Promise<number>((resolve) => {
      const s = createServer().listen(0, '127.0.0.1', () => {
        const port = (s.address() as AddressInfo).port;
        s.close(() => resolve(port));
      });
    });
    const refused = await h2loadDriver.run({ ...base, baseUrl: `http://127.0.0.1:${gone}`, requests: get(), connections: 1, requestCount: 3 });
    expect(refused.requests).toBe(0);
    expect(refused.errors + refused.timeouts).toBeGreaterThan(0);
  });
});

describe('auto picks h2load for fixed counts and low connection counts', () => {
  it(named('--requests or a load at the low count picks h2load; 50 connections keep the highest ceiling'), async () => {
    const fixed = await resolveDriver('auto', { fixedRequests: true });
    expect(fixed.driver.name).toBe('h2load');
    expect(fixed.reason).toMatch(/h2load has the lowest time per request of the drivers available, which fixed request counts need/);
    const low = await resolveDriver('auto', { lowConnections: true });
    expect(low.driver.name).toBe('h2load');
    expect(low.reason).toMatch(new RegExp(`loads at ${DEFAULTS.lowConnections} connections or fewer`));
    const high = await resolveDriver('auto', {});
    expect(high.driver.name).not.toBe('h2load');
    // A scenario whose requests differ in method or body: h2load cannot, the next driver does.
    const mixed = await resolveDriver('auto', { fixedRequests: true, mixedRequests: true });
    expect(mixed.driver.name).toBe('autocannon');
    expect(mixed.reason).toMatch(/^h2load sends one method, header set and body per run.*: using autocannon/);
  });

  it('without h2load, --requests falls back to autocannon and says how to install h2load', async () => {
    const was = process.env.BENCHSUITE_H2LOAD;
    process.env.BENCHSUITE_H2LOAD = '/nonexistent/h2load';
    try {
      const c = await resolveDriver('auto', { fixedRequests: true });
      expect(c.driver.name).toBe('autocannon');
      expect(c.reason).toMatch(/h2load not available \(h2load not found on PATH.*: using autocannon.*`benchsuite setup h2load` for a lower time per request/);
      await expect(resolveDriver('h2load', { fixedRequests: true })).rejects.toThrowError(/driver h2load is not available: h2load not found/);
    } finally {
      if (was === undefined) delete process.env.BENCHSUITE_H2LOAD;
      else process.env.BENCHSUITE_H2LOAD = was;
    }
  });

  it('wrk, which cannot send fixed counts, is refused with the drivers that can', async () => {
    await expect(resolveDriver('wrk', { fixedRequests: true })).rejects.toThrowError(/wrk cannot send a fixed number of requests per window \(--requests\).*\(h2load or autocannon can\)/);
  });
});

describe.skipIf(!h2load)("the loader's round-trip floor", () => {
  it(named("at one connection each run measures the loader's floor; the share is flagged on a server that answers at once, not on one that adds 3 ms"), { timeout: 120_000 }, async () => {
    const scenario = { name: 'ping', request: { path: '/ping' }, expect: { status: 200 } };
    const r = await runSuite({
      scenarios: [scenario],
      targets: [tiny('fast'), tiny('delayed', { DELAY_MS: '3' })],
      // No window left out for steal (`stealThreshold: 1`): on a shared VM a burst would leave a pair without the rounds its share is taken from.
      design: { windowSec: 0.3, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0.3, maxSec: 0.3 }, reference: 'fast', stealThreshold: 1 },
      overrides: { requests: 200, connections: 1 },
      seed: 3,
    });
    expect(resultSchema.safeParse(r).success).toBe(true);
    // --requests with h2load present: h2load, and the reason says why.
    expect(r.environment.driver.name).toBe('h2load');
    expect(r.environment.driver.reason).toMatch(/lowest time per request/);
    expect(r.design.loaderShareFlag).toBe(DEFAULTS.loaderFloor.flagShare);
    // h2load cannot hold its sends for a slot: the default sliced method falls back to one window after another.
    expect(r.design.method).toBe('sequential');
    // The floor: measured after the scenario's part of its one block, at its one connection, with the run's driver.
    expect(r.loaderFloors).toHaveLength(1);
    const floor = r.loaderFloors![0]!;
    expect(floor).toMatchObject({ scenario: 'ping', driver: 'h2load' });
    expect(floor.steps.map((s) => s.connections)).toEqual([1]);
    const f = floor.steps[0]!;
    expect(f.rps.n).toBe(DEFAULTS.loaderFloor.windowsPerBlock);
    expect(f.latency.count).toBe(200 * DEFAULTS.loaderFloor.windowsPerBlock);
    expect(floor.windows.map((w) => [w.block, w.connections, w.requests])).toEqual(Array.from({ length: DEFAULTS.loaderFloor.windowsPerBlock }, () => [1, 1, 200]));
    const fast = r.summaries.find((s) => s.target === 'fast')!;
    const delayed = r.summaries.find((s) => s.target === 'delayed')!;
    for (const s of [fast, delayed]) {
      // The share is the pair's median req/s ÷ the floor's, at that connection count.
      expect(s.loaderShare).toBeDefined();
      expect(s.loaderShare!.connections).toBe(1);
      expect(s.loaderShare!.share).toBeCloseTo(s.rps.point / f.rps.point, 9);
      expect(s.steps[0]!.loaderShare).toBeCloseTo(s.loaderShare!.share, 9);
      expect(s.loaderShare!.share).toBeGreaterThan(0);
      // A share above 1 is the host's seconds, not the code: the floor's 200-request windows and the
      // pair's are taken at different moments (CI, 2026-12-03: 1.48). The identity above is the code's.
      expect(s.loaderShare!.share).toBeLessThan(2);
    }
    // 3 ms per request leaves the loader a small share; a server that answers at once a large one.
    expect(delayed.loaderShare!.share).toBeLessThan(DEFAULTS.loaderFloor.flagShare);
    expect(delayed.loaderShare!.flagged).toBe(false);
    expect(fast.loaderShare!.share).toBeGreaterThan(DEFAULTS.loaderFloor.flagShare);
    expect(fast.loaderShare!.flagged).toBe(true);
  });

  it.skipIf(!hasWrk())(
    `in a time-sliced run (wrk) at one connection the floor is measured after the block as well${hasWrk() ? '' : ' (skipped: wrk not on PATH; apt-get install wrk)'}`,
    { timeout: 120_000 },
    async () => {
      const r = await runSuite({
        scenarios: [{ name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 1 } }],
        targets: [tiny('one'), tiny('two')],
        // No window left out for steal, as in the test above: a burst left a pair with no share (CI, 2026-12-02 13:30).
        design: { windowSec: 0.4, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0.3, maxSec: 0.3 }, method: 'sliced', stealThreshold: 1 },
        driver: 'wrk',
        seed: 5,
      });
      expect(r.design.method).toBe('sliced');
      expect(r.loaderFloors).toHaveLength(1);
      expect(r.loaderFloors![0]).toMatchObject({ scenario: 'ping', driver: 'wrk' });
      expect(r.loaderFloors![0]!.windows.map((w) => [w.block, w.connections])).toEqual(Array.from({ length: DEFAULTS.loaderFloor.windowsPerBlock }, () => [1, 1]));
      for (const s of r.summaries) expect(s.loaderShare?.connections).toBe(1);
    },
  );

  it('a load above the low count measures no floor and reports no share', async () => {
    const r = await runSuite({
      scenarios: [{ name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: DEFAULTS.lowConnections + 1 } }],
      targets: [tiny('only')],
      design: { windowSec: 0.2, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 }, warmup: { minSec: 0.2, maxSec: 0.2 } },
      driver: 'autocannon',
      seed: 1,
    });
    expect(r.loaderFloors).toBeUndefined();
    expect(r.summaries[0]!.loaderShare).toBeUndefined();
  }, 60_000);
});

import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { decodeHistogram, runSuite, seededShuffle, type OkTrial, type Trial } from '../src/index.js';
import { hasWrk, quickLoad, tiny } from './_helpers.js';

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200, json: { ok: true } }, load: quickLoad };
const okTrials = (ts: Trial[]) => ts.filter((t): t is OkTrial => t.status === 'ok');
const wrkHere = hasWrk();

describe.each([
  ['autocannon', true],
  ['wrk', wrkHere || process.env.CI === 'true'],
] as const)('runSuite end to end with the %s driver', (driver, runnable) => {
  it.runIf(runnable)('measures a real server on a real socket and summarizes every trial', async () => {
    const r = await runSuite({ scenarios: [ping], targets: [tiny('tiny')], trials: 2, driver, seed: 7 });
    expect(r.environment.driver.name).toBe(driver);
    expect(r.trials).toHaveLength(2);
    for (const t of okTrials(r.trials)) {
      expect(t.requests).toBeGreaterThan(100);
      expect(t.statusCounts).toEqual({ '200': t.requests });
      expect(t.errors + t.timeouts + t.unexpected).toBe(0);
      expect(t.latency.count).toBe(t.requests);
      expect(t.resources.serverCpuSeconds).toBeGreaterThan(0);
      expect(t.resources.serverPeakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
      expect(t.resources.loaderCpuSeconds).toBeGreaterThan(0);
    }
    expect(okTrials(r.trials)).toHaveLength(2);
    const s = r.summaries[0]!;
    expect(s.rps.n).toBe(2);
    expect(s.rps.mean).toBeCloseTo((s.rps.values[0]! + s.rps.values[1]!) / 2, 6);
    expect(s.latency.count).toBe(okTrials(r.trials).reduce((a, t) => a + t.requests, 0)); // merged histogram, not averaged percentiles
    expect(r.verify).toEqual([{ scenario: 'ping', target: 'tiny', ok: true }]);
  });
  if (!runnable) it.skip('needs wrk on PATH (apt-get install wrk; .ci/run installs it)', () => undefined);
});

describe('latency resolution', () => {
  it('records microseconds: p50 within 10% of a server-side fixed 20 ms delay, values not whole ms', async () => {
    const r = await runSuite({
      scenarios: [{ ...ping, load: { connections: 5, warmup: 0.3, duration: 1.5 } }],
      targets: [tiny('delayed', { DELAY_MS: '20' })],
      trials: 1,
      driver: 'autocannon',
    });
    const t = okTrials(r.trials)[0]!;
    expect(t.latency.p50).toBeGreaterThan(20_000 * 0.9);
    expect(t.latency.p50).toBeLessThan(20_000 * 1.1);
    const h = decodeHistogram(t.histogram);
    const values = new Set<number>();
    for (let v = t.latency.min; v <= t.latency.max; v += 1) if (h.getCountAtValue(v) > 0) values.add(h.lowestEquivalentValue(v));
    expect([...values].some((v) => v % 1000 !== 0)).toBe(true);
  });
});

describe('warm-up', () => {
  // The server answers in 100 ms during its first 1.2 s of life, then at once.
  const slowStart = { SLOW_UNTIL_MS: '1200', SLOW_DELAY_MS: '100' };
  it('is excluded from every statistic', async () => {
    const r = await runSuite({ scenarios: [{ ...ping, load: { connections: 5, warmup: 1.6, duration: 0.6 } }], targets: [tiny('slow-start', slowStart)], trials: 1, driver: 'autocannon' });
    const t = okTrials(r.trials)[0]!;
    expect(t.latency.p99).toBeLessThan(50_000);
  });
  it('without it, the slow start shows up (the check above can fail)', async () => {
    const r = await runSuite({ scenarios: [{ ...ping, load: { connections: 5, warmup: 0, duration: 0.6 } }], targets: [tiny('slow-start', slowStart)], trials: 1, driver: 'autocannon' });
    expect(okTrials(r.trials)[0]!.latency.p99).toBeGreaterThan(95_000);
  });
});

describe('interleaving', () => {
  const scenarios = [ping, { ...ping, name: 'ping-b' }];
  const targets = [tiny('a'), tiny('b')];
  const fast = { duration: 0.2, warmup: 0 };
  it('runs trials of all pairs in a seeded random order, reproducible from the seed', async () => {
    const r1 = await runSuite({ scenarios, targets, trials: 2, driver: 'autocannon', seed: 42, overrides: fast, verify: false });
    const r2 = await runSuite({ scenarios, targets, trials: 2, driver: 'autocannon', seed: 42, overrides: fast, verify: false });
    const order = (r: typeof r1) => r.trials.map((t) => `${t.scenario}/${t.target}`);
    expect(order(r1)).toEqual(order(r2));
    expect(r1.trials.map((t) => t.order)).toEqual([0, 1, 2, 3, 4, 5, 6, 7]);
    const pairs = ['ping/a', 'ping/b', 'ping-b/a', 'ping-b/b'];
    expect(order(r1)).toEqual(seededShuffle(pairs.flatMap((p) => [p, p]), 42));
    // Not grouped by pair: some pair's trials are not adjacent.
    expect(pairs.some((p) => Math.abs(order(r1).indexOf(p) - order(r1).lastIndexOf(p)) > 1)).toBe(true);
    // Trial numbers follow the order in which each pair's trials ran.
    for (const p of pairs) expect(r1.trials.filter((t) => `${t.scenario}/${t.target}` === p).map((t) => t.trial)).toEqual([1, 2]);
  });
  it('another seed gives another order', () => {
    const items = Array.from({ length: 12 }, (_, i) => i);
    expect(seededShuffle(items, 1)).not.toEqual(seededShuffle(items, 2));
    expect([...seededShuffle(items, 1)].sort((a, b) => a - b)).toEqual(items);
  });
});

describe('client-bound flag', () => {
  /** Burn the loader's core (cpu 1) so the load generator cannot keep up. */
  function burnCore(cpu: number) {
    return spawn('taskset', ['-c', String(cpu), process.execPath, '-e', 'const end = Date.now() + 30000; while (Date.now() < end) {}'], { stdio: 'ignore' });
  }
  it('is set when the loader core is saturated', async () => {
    const burner = burnCore(1);
    try {
      const r = await runSuite({ scenarios: [{ ...ping, load: { connections: 10, warmup: 0.2, duration: 1 } }], targets: [tiny('t')], trials: 1, driver: 'autocannon', pinning: { server: [0], loader: [1] } });
      const t = okTrials(r.trials)[0]!;
      expect(t.resources.loaderCoreBusy).toBeGreaterThan(0.9);
      expect(t.clientBound).toBe(true);
      expect(r.summaries[0]!.clientBoundTrials).toBe(1);
    } finally {
      burner.kill('SIGKILL');
    }
  });
  it('is not set when the loader has headroom (a capped rate)', async () => {
    const r = await runSuite({ scenarios: [{ ...ping, load: { connections: 2, warmup: 0.2, duration: 1, rate: 200 } }], targets: [tiny('t')], trials: 1, driver: 'autocannon', pinning: { server: [0], loader: [1] } });
    const t = okTrials(r.trials)[0]!;
    expect(t.resources.loaderCoreBusy).toBeLessThan(0.9);
    expect(t.clientBound).toBe(false);
  });
});

describe('failures are recorded, and the suite goes on', () => {
  it('a server that crashes mid-trial is a failed trial with its output tail', async () => {
    const r = await runSuite({
      scenarios: [{ ...ping, load: { connections: 5, warmup: 0.2, duration: 2 } }],
      targets: [tiny('crashy', { CRASH_AFTER_MS: '700' }), tiny('fine')],
      trials: 1,
      driver: 'autocannon',
      seed: 3,
    });
    const crashed = r.trials.find((t) => t.target === 'crashy')!;
    expect(crashed.status).toBe('failed');
    if (crashed.status !== 'failed') return;
    expect(crashed.failure.phase).toBe('crash');
    expect(crashed.failure.exitCode).toBe(3);
    expect(crashed.failure.stderrTail).toContain('listening on');
    expect(r.trials.find((t) => t.target === 'fine')!.status).toBe('ok');
  });
  it('a server that never becomes ready fails verify with the reason and is not loaded', async () => {
    const r = await runSuite({ scenarios: [ping], targets: [tiny('mute', { NEVER_READY: '1' }, { readyTimeoutMs: 800 })], trials: 1, driver: 'autocannon' });
    expect(r.verify[0]).toMatchObject({ ok: false, reason: expect.stringMatching(/not ready after 800 ms/) });
    expect(r.trials).toHaveLength(0);
  });
  it('a server that never becomes ready (verify off) is a failed trial in phase ready', async () => {
    const r = await runSuite({ scenarios: [ping], targets: [tiny('mute', { NEVER_READY: '1' }, { readyTimeoutMs: 800 })], trials: 1, driver: 'autocannon', verify: false });
    expect(r.trials[0]).toMatchObject({ status: 'failed', failure: { phase: 'ready' } });
  });
  it('a window without a single response is a failed trial, not a zero figure', async () => {
    const r = await runSuite({ scenarios: [ping], targets: [{ kind: 'url', name: 'gone', url: 'http://127.0.0.1:1' }], trials: 1, driver: 'autocannon', verify: false });
    expect(r.trials[0]).toMatchObject({ status: 'failed', failure: { phase: 'load', message: expect.stringMatching(/no response in the measured window/) } });
  });
    it('a command that does not exist is a failed start, not an exception', async () => {
    const r = await runSuite({ scenarios: [ping], targets: [{ kind: 'process', name: 'nope', command: ['/nonexistent/server'] }], trials: 1, driver: 'autocannon', verify: false });
    expect(r.trials[0]).toMatchObject({ status: 'failed', failure: { phase: 'start' } });
  });
});

describe('verify step', () => {
  it('keeps a target that answers differently out of the load, with a readable diff', async () => {
    const r = await runSuite({
      scenarios: [{ ...ping, expect: { status: 200, json: { ok: false } } }],
      targets: [tiny('liar')],
      trials: 1,
      driver: 'autocannon',
    });
    expect(r.trials).toHaveLength(0);
    expect(r.verify[0]!.ok).toBe(false);
    expect(r.verify[0]!.diff).toContain('- expected {"ok":false}');
    expect(r.verify[0]!.diff).toContain('+ received {"ok":true}');
  });
  it('checks the status', async () => {
    const r = await runSuite({ scenarios: [{ ...ping, request: { path: '/missing' } }], targets: [tiny('t')], trials: 1, driver: 'autocannon' });
    expect(r.verify[0]!.reason).toMatch(/status: expected 200, got 404/);
  });
});

// runSuite end to end against real servers on real sockets. Loads the machine: run this file
// under the shared lock (`flock /tmp/bs-load.lock npx vitest run packages/sdk/test/suite.test.ts`).
// Every run is tiny (windows of 0.25–1 s, two rounds, one block); nothing here asserts a duration.
import { describe, expect, it } from 'vitest';
import { autocannonDriver, decodeHistogram, DEFAULTS, nodeRuntimeFlags, resultSchema, runSuite, type BenchResult, type Driver, type OkWindow, type WindowRecord } from '../src/index.js';
import { hasWrk, tiny, tinyDesign, tinyServer } from './_helpers.js';

const ping = { name: 'ping', request: { path: '/ping' }, expect: { status: 200, json: { ok: true } }, load: { connections: 10 } };
const okWindows = (ws: readonly WindowRecord[]) => ws.filter((w): w is OkWindow => w.status === 'ok');
const wrkHere = hasWrk();

/** The shape every result must have, whatever was measured: blocks, rounds and windows line up. */
function expectConsistentShape(r: BenchResult): void {
  expect(resultSchema.safeParse(r).success).toBe(true);
  expect(r.windows.map((w) => w.index)).toEqual(r.windows.map((_, i) => i));
  for (const b of r.blocks) {
    const mine = r.windows.filter((w) => w.scenario === b.scenario && w.block === b.block);
    expect(b.rounds).toBe(b.plannedRounds + b.extraRounds);
    // Every round measures every target of the block once, in positions 0..n-1, in index order.
    for (let round = 1; round <= b.rounds; round++) {
      const ws = mine.filter((w) => w.round === round);
      expect(ws.map((w) => w.target).sort()).toEqual(
        b.targets
          .filter((t) => t.status === 'ok')
          .map((t) => t.target)
          .sort(),
      );
      expect(ws.map((w) => w.position)).toEqual(ws.map((_, i) => i));
    }
    // Steal replacement: one extra round per round that lost a window to steal, at most as many
    // as planned (these runs are far inside their budget, so the budget never stops it).
    const lost = new Set(
      okWindows(mine)
        .filter((w) => w.excluded === 'steal')
        .map((w) => w.round),
    ).size;
    expect(b.extraRounds).toBe(Math.min(lost, b.plannedRounds));
  }
  for (const w of okWindows(r.windows)) expect(w.excluded === 'steal').toBe((w.resources.cpuSteal ?? 0) > r.design.stealThreshold);
  expect(r.overall.windows).toBe(r.windows.length);
}

describe.each([
  ['autocannon', true],
  ['wrk', wrkHere],
] as const)('runSuite end to end with the %s driver', (driver, runnable) => {
  // Every window kept whatever the hypervisor took (tinyDesign's stealThreshold 1): with the
  // design's threshold a steal storm left every window of the reference out (CI, 2026-12-03 16:17:
  // its rps point 0), so the outcome followed the host. Leaving windows out for steal and the
  // extra rounds that replace them are tested deterministically (block.test.ts, thresholds.test.ts);
  // the checks below still hold for any window that a run leaves out.
  it.skipIf(!runnable)(
    `measures two real servers in rounds of paired windows and summarizes them against the reference${runnable ? '' : ' (skipped: wrk not on PATH; apt-get install wrk)'}`,
    async () => {
      const r = await runSuite({ scenarios: [ping], targets: [tiny('ref'), tiny('other')], design: { ...tinyDesign, reference: 'ref' }, driver, seed: 7 });
      expect(r.schemaVersion).toBe(3);
      expect(r.environment.driver.name).toBe(driver);
      expect(r.environment.driver.reason).toMatch(/--driver/);
      expect(r.seed).toBe(7);
      expect(r.resumed).toBe(false);
      expect(r.interrupted).toBe(false);
      expect(r.design).toMatchObject({ reference: 'ref', windowSec: 0.25, rounds: { min: 2, max: 2 }, blocks: { min: 1, max: 1 } });
      expect(r.verify).toEqual([
        { scenario: 'ping', target: 'ref', ok: true },
        { scenario: 'ping', target: 'other', ok: true },
      ]);
      // Every Node target started, and recorded, with the design's runtime flags right after the binary.
      expect(r.design).toMatchObject({ youngGenerationMb: DEFAULTS.youngGenerationMb, memoryReducer: DEFAULTS.memoryReducer });
      for (const t of r.targets) expect(t.command).toEqual([process.execPath, ...nodeRuntimeFlags(DEFAULTS), tinyServer]);
      expectConsistentShape(r);

      expect(r.blocks).toHaveLength(1);
      const block = r.blocks[0]!;
      expect(block).toMatchObject({ scenario: 'ping', block: 1, plannedRounds: 2, complete: true });
      for (const t of block.targets) {
        expect(t.status).toBe('ok');
        expect(t.warmupRps.length).toBeGreaterThanOrEqual(1);
        expect(t.startupMs).toBeGreaterThan(0);
      }
      expect(r.windows).toHaveLength(2 * block.rounds);
      for (const w of r.windows) {
        expect(w.status).toBe('ok');
        if (w.status !== 'ok') continue;
        expect(w.requests).toBeGreaterThan(0);
        expect(w.statusCounts).toEqual({ '200': w.requests });
        expect(w.errors + w.timeouts + w.unexpected).toBe(0);
        expect(w.latency.count).toBe(w.requests);
        if (w.steps[0]!.slice) {
          // Time-sliced (wrk): the in-slot rate; the requests also count those answered after their slot closed.
          expect(w.rps).toBeCloseTo(w.steps[0]!.rps, 6);
          expect(w.rps).toBeLessThanOrEqual(w.requests / w.durationSec);
        } else expect(w.rps).toBeCloseTo(w.requests / w.durationSec, 6);
        expect(w.resources.serverCpuSeconds).toBeGreaterThan(0);
        expect(w.resources.serverPeakRssBytes).toBeGreaterThan(10 * 1024 * 1024);
        expect(w.cpuPerRequestUs).toBeGreaterThan(0);
        expect(w.cpuPerRequestUs).toBeCloseTo((w.resources.serverCpuSeconds / w.requests) * 1e6, 6);
        expect(w.steps).toHaveLength(1);
        // The window says which clock its CPU time came from, as its step does (the report counts these).
        expect(typeof w.resources.serverCpuExact).toBe('boolean');
        expect(w.resources.serverCpuExact).toBe(w.steps[0]!.resources.serverCpuExact);
        if (r.environment.cpuClock === 'schedstat') expect(w.resources.serverCpuExact).toBe(true);
      }

      expect(r.summaries.map((s) => s.target)).toEqual(['ref', 'other']);
      const [ref, other] = r.summaries as [BenchResult['summaries'][number], BenchResult['summaries'][number]];
      const usable = (t: string) => okWindows(r.windows).filter((w) => w.target === t && w.excluded === null);
      expect(ref.relativeRps).toBeNull();
      expect(ref.rps.point).toBeGreaterThan(0);
      expect(ref.rps.n).toBe(usable('ref').length);
      expect(other.relativeRps).not.toBeNull();
      expect(other.relativeRps!.point).toBeGreaterThan(0);
      expect(other.relativeRps!.n).toBe(usable('other').filter((w) => usable('ref').some((x) => x.block === w.block && x.round === w.round)).length);
      expect(other.relativeCpu!.point).toBeGreaterThan(0);
      expect(other.precision.target).toBe(r.design.precision);
      expect(other.precision.reached).toBe(other.relativeRps!.halfWidth);
      for (const s of r.summaries) {
        expect(s.reference).toBe('ref');
        expect(s.cpuPerRequestUs!.point).toBeGreaterThan(0);
        // Latency comes from the histograms merged over windows, never from averaged percentiles.
        expect(s.latency.count).toBe(usable(s.target).reduce((a, w) => a + w.requests, 0));
        // Counters are over every window that ran, a window left out of the estimates (steal, an
        // unsteady round 1) included (CI, 2026-12-03: one of two windows left out, 33,198 against
        // 16,918), and a step's are the pair's.
        const ran = okWindows(r.windows).filter((w) => w.target === s.target);
        expect(s.requests).toBe(ran.reduce((a, w) => a + w.requests, 0));
        expect(s.steps[0]!.requests).toBe(s.requests);
        expect(s.latency.count).toBeLessThanOrEqual(s.requests);
      }
      expect(r.rankings).toHaveLength(1);
      expect(r.rankings[0]!.places.flatMap((p) => p.targets).sort()).toEqual(['other', 'ref']);
      expect(r.stops).toEqual([expect.objectContaining({ scenario: 'ping', blocks: 1, rounds: block.rounds })]);
      expect(['precision', 'max-blocks']).toContain(r.stops[0]!.reason);
    },
  );
});

describe('latency resolution', () => {
  it('records microseconds: p50 at or above a server-side fixed 20 ms delay and far below a unit mistake, values not whole ms', async () => {
    const r = await runSuite({
      scenarios: [{ ...ping, load: { connections: 5 } }],
      targets: [tiny('delayed', { DELAY_MS: '20' })],
      design: { ...tinyDesign, windowSec: 1, rounds: { min: 1, max: 1 } },
      driver: 'autocannon',
      verify: false,
    });
    const w = okWindows(r.windows)[0]!;
    // The floor is the delay (a timer fires up to about a millisecond early). The ceiling only has
    // to catch a unit mistake (1,000× off): a steal burst on the shared VM has put p50 10% above
    // the delay (CI, 2026-12-02 13:30), so a tight ceiling would test the host, not the code.
    expect(w.latency.p50).toBeGreaterThan(20_000 * 0.95);
    expect(w.latency.p50).toBeLessThan(20_000 * 1.5);
    // The JS implementation has these; the package's Histogram interface does not declare them.
    const h = decodeHistogram(w.histogram) as unknown as { getCountAtValue(v: number): number; lowestEquivalentValue(v: number): number };
    const values = new Set<number>();
    for (let v = w.latency.min; v <= w.latency.max; v += 1) if (h.getCountAtValue(v) > 0) values.add(h.lowestEquivalentValue(v));
    expect([...values].some((v) => v % 1000 !== 0)).toBe(true);
  });
});

describe('warm-up', () => {
  // The server answers in 100 ms during its first 1.2 s of life, then at once.
  const slowStart = { SLOW_UNTIL_MS: '1200', SLOW_DELAY_MS: '100' };
  const scenario = { ...ping, load: { connections: 5 } };
  const design = { ...tinyDesign, windowSec: 0.5, rounds: { min: 1, max: 1 } };
  it('is kept out of every statistic, and recorded per block as its per-second req/s', async () => {
    const r = await runSuite({
      scenarios: [scenario],
      targets: [tiny('slow-start', slowStart)],
      design: { ...design, warmup: { minSec: 2, maxSec: 2, tolerance: 0.05, windowSec: 1 } },
      driver: 'autocannon',
      verify: false,
    });
    expect(okWindows(r.windows)[0]!.latency.p99).toBeLessThan(50_000);
    expect(r.blocks[0]!.targets[0]!.warmupRps).toHaveLength(2);
  });
  it('without it, the slow start shows up (the check above can fail)', async () => {
    const r = await runSuite({ scenarios: [scenario], targets: [tiny('slow-start', slowStart)], design: { ...design, warmup: { minSec: 0, maxSec: 0 } }, driver: 'autocannon', verify: false });
    expect(okWindows(r.windows)[0]!.latency.p99).toBeGreaterThan(95_000);
    expect(r.blocks[0]!.targets[0]!.warmupRps).toEqual([]);
  });
});

describe('shared processes', () => {
  it("warms a block's fresh processes in rotation rounds: every target once per round, no wake-up round", async () => {
    // Warm-up windows of 0.2 s (the tiny design's warm-up, 2 windows per target), rotation windows of 0.15 s.
    const carriedWarmupWindowSec = 0.15;
    const calls: Array<{ url: string; sec: number }> = [];
    const recording: Driver = {
      ...autocannonDriver,
      run: (o) => {
        calls.push({ url: o.baseUrl, sec: o.durationSec });
        return autocannonDriver.run(o);
      },
    };
    const r = await runSuite({
      scenarios: [ping],
      targets: [tiny('ref'), tiny('b')],
      design: { ...tinyDesign, reference: 'ref', processes: 'shared', carriedWarmupWindowSec },
      driver: recording,
      seed: 5,
      verify: false,
    });
    expect(r.design.freshWarmup).toBe('rotation');
    for (const t of r.blocks[0]!.targets) expect(t.warmupRps).toHaveLength(2);
    const warm = calls.filter((c) => c.sec === 0.2).map((c) => c.url);
    expect(warm).toHaveLength(4);
    expect(new Set(warm.slice(0, 2)).size).toBe(2);
    expect(new Set(warm.slice(2)).size).toBe(2);
    expect(calls.filter((c) => c.sec === carriedWarmupWindowSec)).toHaveLength(0);
  });
  it("warms a shared block's fresh processes on every scenario's requests at once (the default), and no later scenario by a rotation round", async () => {
    const other = { ...ping, name: 'other', request: { path: '/other' } };
    const calls: Array<{ sec: number; paths: string[] }> = [];
    const recording: Driver = {
      ...autocannonDriver,
      run: (o) => {
        calls.push({ sec: o.durationSec, paths: o.requests.map((q) => q.path) });
        return autocannonDriver.run(o);
      },
    };
    const r = await runSuite({
      scenarios: [ping, other],
      targets: [tiny('ref'), tiny('b')],
      design: { ...tinyDesign, reference: 'ref', processes: 'shared', carriedWarmupWindowSec: 0.15 },
      driver: recording,
      seed: 11,
      verify: false,
    });
    expectConsistentShape(r);
    expect(r.design.warmupRequests).toBe('all-scenarios');
    const warm = calls.filter((c) => c.sec === 0.2);
    expect(warm.length).toBeGreaterThanOrEqual(2);
    for (const w of warm) expect([...w.paths].sort()).toEqual(['/other', '/ping']);
    // The measured windows send their scenario's request only, and no rotation window ran.
    for (const c of calls.filter((x) => x.sec !== 0.2)) expect(c.paths).toHaveLength(1);
    expect(calls.filter((c) => c.sec === 0.15)).toHaveLength(0);
    for (const later of r.blocks.filter((b) => b.position === 2)) expect(later.targets.every((t) => t.carried === true && t.warmupRps.length === 0)).toBe(true);
  });
  it('starts one set of processes per block, serves every scenario on it in a seeded order, and warms later scenarios by the rotation rounds its design asks (with fresh processes warmed in rotation, no wake-up round)', async () => {
    const other = { ...ping, name: 'other', request: { path: '/other' } };
    // Not the default number of rotation rounds: the design's is the one used and recorded.
    const carriedWarmupRounds = DEFAULTS.carriedWarmupRounds + 1;
    // Nor the default rotation window: no other window of this design lasts 0.15 s.
    const carriedWarmupWindowSec = 0.15;
    const durations: number[] = [];
    const recording: Driver = {
      ...autocannonDriver,
      run: (o) => {
        durations.push(o.durationSec);
        return autocannonDriver.run(o);
      },
    };
    const r = await runSuite({
      scenarios: [ping, other],
      targets: [tiny('ref'), tiny('b')],
      design: { ...tinyDesign, reference: 'ref', blocks: { min: 2, max: 2 }, processes: 'shared', warmupRequests: 'first-scenario', carriedWarmupRounds, carriedWarmupWindowSec },
      driver: recording,
      seed: 11,
      verify: false,
    });
    expectConsistentShape(r);
    expect(r.design).toMatchObject({ processes: 'shared', freshWarmup: 'rotation', warmupRequests: 'first-scenario', carriedWarmupRounds, carriedWarmupWindowSec });
    // 2 blocks × 2 targets × the rotation rounds before the later scenario, each window of the
    // design's rotation length (and no wake-up round before the first: the default warms in rotation).
    expect(durations.filter((d) => d === carriedWarmupWindowSec)).toHaveLength(2 * 2 * carriedWarmupRounds);
    expect(r.stops.map((s) => [s.scenario, s.blocks])).toEqual([
      ['ping', 2],
      ['other', 2],
    ]);
    const startups = new Map<string, number>();
    for (const block of [1, 2]) {
      const records = r.blocks.filter((b) => b.block === block).sort((x, y) => x.position! - y.position!);
      expect(records.map((b) => b.position)).toEqual([1, 2]);
      const [first, later] = records as [BenchResult['blocks'][number], BenchResult['blocks'][number]];
      for (const name of ['ref', 'b']) {
        const a = first.targets.find((t) => t.target === name)!;
        const c = later.targets.find((t) => t.target === name)!;
        // One process served both scenarios of the block: the same start, fresh in each block.
        expect(c.startupMs).toBe(a.startupMs);
        expect(startups.has(`${name}:${a.startupMs}`)).toBe(false);
        startups.set(`${name}:${a.startupMs}`, block);
        expect(a).toMatchObject({ status: 'ok', carried: false });
        expect(a.warmupRps.length).toBeGreaterThanOrEqual(1);
        expect(c).toMatchObject({ status: 'ok', carried: true });
        expect(c.warmupRps).toHaveLength(carriedWarmupRounds);
      }
    }
    // Each scenario meets the cold processes in some block (seed 11 draws both orders).
    expect(new Set(r.blocks.filter((b) => b.position === 1).map((b) => b.scenario))).toEqual(new Set(['ping', 'other']));
    for (const s of r.summaries.filter((x) => x.target === 'b')) expect(s.relativeRps!.point).toBeGreaterThan(0);
  });

  it('warms a carried process that serves slowly with more rotation windows until they have served the design’s requests (within the warm-up’s maximum), a fast one by its rotation round alone', async () => {
    const other = { ...ping, name: 'other', request: { path: '/other' } };
    const carriedWarmupWindowSec = 0.15;
    const carriedWarmupServed = 300;
    const r = await runSuite({
      scenarios: [ping, other],
      // 20 ms a response: about 75 requests per 0.15-s window at ping's connections; the reference answers at once.
      targets: [tiny('ref'), tiny('slow', { DELAY_MS: '20' })],
      design: { ...tinyDesign, reference: 'ref', warmup: { minSec: 0.2, maxSec: 1.2 }, processes: 'shared', warmupRequests: 'first-scenario', carriedWarmupWindowSec, carriedWarmupServed },
      driver: 'autocannon',
      seed: 11,
      verify: false,
    });
    expect(r.design).toMatchObject({ carriedWarmupServed });
    const later = r.blocks.find((b) => b.position === 2)!;
    const fast = later.targets.find((t) => t.target === 'ref')!;
    const slow = later.targets.find((t) => t.target === 'slow')!;
    expect(fast.warmupRps).toHaveLength(DEFAULTS.carriedWarmupRounds);
    expect(fast.warmupRequests!).toBeGreaterThanOrEqual(carriedWarmupServed);
    // More windows than the rotation round, each serving under the goal, until their sum reaches it (at most 1.2 s ÷ 0.15 s = 8).
    expect(slow.warmupRps.length).toBeGreaterThan(DEFAULTS.carriedWarmupRounds);
    expect(slow.warmupRps.length).toBeLessThanOrEqual(8);
    expect(slow.warmupRps[0]! * carriedWarmupWindowSec).toBeLessThan(carriedWarmupServed);
    if (slow.warmupRps.length < 8) expect(slow.warmupRequests!).toBeGreaterThanOrEqual(carriedWarmupServed);
    expect(slow.steady).toBe(slow.warmupRequests! >= carriedWarmupServed);
  });

  it("leaves a scenario past its minimum of blocks out of a block when an earlier scenario's part overran the budget", async () => {
    const other = { ...ping, name: 'other', request: { path: '/other' } };
    const windowSec = 0.25;
    // Block 2 is planned to fit; then its first scenario's measured windows come back 5 s late each
    // (as when a window fit lengthens every window), so the block's second part would end after the
    // budget.
    let current = { scenario: '', block: 0 };
    let firstOfBlock2: string | undefined;
    const late: Driver = {
      ...autocannonDriver,
      run: async (o) => {
        if (current.block === 2 && current.scenario === firstOfBlock2 && o.durationSec === windowSec) await new Promise((r) => setTimeout(r, 5000));
        return autocannonDriver.run(o);
      },
    };
    const r = await runSuite({
      scenarios: [ping, other],
      targets: [tiny('ref'), tiny('b')],
      design: { ...tinyDesign, windowSec, precision: 1e-4, budgetSec: 20, reference: 'ref', blocks: { min: 1, max: 4 }, processes: 'shared', carriedWarmupWindowSec: 0.15 },
      driver: late,
      seed: 11,
      verify: false,
      onEvent: (e) => {
        if (e.type !== 'block-start') return;
        current = { scenario: e.scenario, block: e.block };
        if (e.block === 2) firstOfBlock2 ??= e.scenario;
      },
    });
    expectConsistentShape(r);
    expect(firstOfBlock2).toBeDefined();
    const second = firstOfBlock2 === 'ping' ? 'other' : 'ping';
    // The overrunning part is kept; the other scenario has no part in block 2 and stops for the budget.
    expect(r.blocks.filter((b) => b.block === 2).map((b) => b.scenario)).toEqual([firstOfBlock2]);
    expect(r.stops.find((x) => x.scenario === second)).toMatchObject({ blocks: 1, reason: 'budget' });
    expect(r.stops.find((x) => x.scenario === firstOfBlock2)).toMatchObject({ blocks: 2, reason: 'budget' });
    expect(r.blocks.some((b) => b.block > 2)).toBe(false);
  });
});

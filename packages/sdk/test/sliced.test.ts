// Time-sliced rounds (run/sliced.ts, the wrk driver's slots): the slot plan is pure and tested on
// its own; the real-server tests (wrk, tiny servers on port 0) load the machine for a few seconds:
// run them under the shared lock.
import { afterAll, describe, expect, it } from 'vitest';
import { DEFAULTS } from '../src/defaults.js';
import { h2loadDriver } from '../src/drivers/h2load.js';
import { slotRates, wrkDriver } from '../src/drivers/wrk.js';
import { monotonicMs } from '../src/driver.js';
import { runtimeOf, type StartedTarget } from '../src/run/server-process.js';
import { fallbackMethod, methodFor, methods, roundMethod, runMethod } from '../src/run/methods/index.js';
import { measureSlicedRound, scheduleSec, sliceSchedule, sliceTiming } from '../src/run/methods/sliced.js';
import { measureWindow, type WindowSpec } from '../src/run/window.js';
import { defineScenario, validateSuite } from '../src/index.js';
import { hasWrk, tinyServer } from './_helpers.js';

describe('slot plan', () => {
  it('sliceTiming: a slot holds `latencies` mean latencies of the slowest target, at least minSec, cycles that divide the window; a gap of `gapLatencies` own latencies after each slot', () => {
    const o = DEFAULTS.slice;
    // Fast targets: the minimum slot; 0.8 s in 2 slots of 0.4 s.
    expect(o.minSec).toBe(0.4);
    const fast = sliceTiming([0.001, 0.002], 0.8);
    expect(fast.sliceSec).toBeCloseTo(0.4, 9);
    expect(fast.cycles).toBe(2);
    expect(fast.gapsSec[0]).toBeCloseTo(Math.max(o.minGapSec, o.gapLatencies * 0.001), 9);
    expect(fast.gapsSec[1]).toBeCloseTo(Math.max(o.minGapSec, o.gapLatencies * 0.002), 9);
    // A slow target (80 ms) sets the slot for all: 10 latencies = 0.8 s, 2 cycles of 1.6 s.
    const slow = sliceTiming([0.001, 0.08], 1.6);
    expect(slow.sliceSec).toBeCloseTo(0.8, 9);
    expect(slow.cycles).toBe(2);
    expect(slow.gapsSec[1]).toBeCloseTo(0.16, 9);
    // Slower than the window allows: one slot, the whole window.
    const slowest = sliceTiming([0.5], 0.8);
    expect(slowest.cycles).toBe(1);
    expect(slowest.sliceSec).toBeCloseTo(0.8, 9);
    // Unknown latency: the default's.
    expect(sliceTiming([undefined], 0.8).gapsSec[0]).toBeCloseTo(Math.max(o.minGapSec, o.gapLatencies * o.unknownLatencySec), 9);
    // The measured time is the window, whatever the slot.
    for (const t of [fast, slowest]) expect(t.cycles * t.sliceSec).toBeCloseTo(0.8, 9);
    expect(slow.cycles * slow.sliceSec).toBeCloseTo(1.6, 9);
  });

  it("slotRates: each slot's rate is its threads' own rates summed (responses ÷ that thread's measured ms), a slot no thread answered in reads 0", () => {
    // Two threads, three slots: 400 responses in 200 ms and 300 in 150 ms (2,000 req/s each), then 100
    // in 100 ms and none; a third slot neither answered in.
    expect(
      slotRates([
        [
          [400, 200],
          [100, 100],
          [0, 0],
        ],
        [
          [300, 150],
          [0, 0],
          [0, 0],
        ],
      ]),
    ).toEqual([4000, 1000, 0]);
    // A thread that stopped before the last slot says fewer slots: the others still count.
    expect(
      slotRates([
        [[10, 10]],
        [
          [10, 10],
          [20, 10],
        ],
      ]),
    ).toEqual([2000, 2000]);
  });

  it('sliceSchedule: every target gets its cycles of slots, no two targets overlap, each slot is followed by its target gap, and the order changes between cycles', () => {
    const timing = { sliceSec: 0.05, gapsSec: [0.002, 0.004, 0.01], cycles: 20 };
    const plan = sliceSchedule(timing, 1000, 7);
    expect(plan).toHaveLength(3);
    const all = plan.flatMap((slots, k) => slots.map(([a, b]) => ({ k, a, b })));
    all.sort((x, y) => x.a - y.a);
    for (const slots of plan) {
      expect(slots).toHaveLength(20);
      for (const [a, b] of slots) expect(b - a).toBeCloseTo(50, 9);
    }
    for (let i = 1; i < all.length; i++) {
      const prev = all[i - 1]!;
      // The next slot starts exactly the previous target's gap after its end.
      expect(all[i]!.a - prev.b).toBeCloseTo(timing.gapsSec[prev.k]! * 1000, 6);
    }
    expect(all[0]!.a).toBe(1000);
    expect(all.at(-1)!.b + timing.gapsSec[all.at(-1)!.k]! * 1000 - 1000).toBeCloseTo(scheduleSec(timing) * 1000, 6);
    // Who goes first changes from cycle to cycle (seeded), and the same seed gives the same plan.
    const firsts = new Set(Array.from({ length: 20 }, (_, c) => all[c * 3]!.k));
    expect(firsts.size).toBeGreaterThan(1);
    expect(sliceSchedule(timing, 1000, 7)).toEqual(plan);
    expect(sliceSchedule(timing, 1000, 8)).not.toEqual(plan);
  });

  it('the sliced method measures with a driver that can, for closed-loop loads of a duration only', () => {
    const wrk = { slots: true } as Parameters<typeof runMethod>[1];
    const ac = {} as Parameters<typeof runMethod>[1];
    const load = (x: object) => ({ load: { connections: 50, timeout: 10, ...x } }) as Parameters<typeof methodFor>[1];
    const slices = (method: 'sliced' | 'sequential', caps: Parameters<typeof runMethod>[1], scenario: Parameters<typeof methodFor>[1]) =>
      methodFor(runMethod(method, caps), scenario) === methods.sliced;
    expect(slices('sliced', wrk, load({}))).toBe(true);
    expect(slices('sequential', wrk, load({}))).toBe(false);
    expect(slices('sliced', ac, load({}))).toBe(false);
    expect(slices('sliced', wrk, load({ rate: 100 }))).toBe(false);
    expect(slices('sliced', wrk, load({ requests: 100 }))).toBe(false);
    // A round of one target has nothing to interleave.
    expect(roundMethod('sliced', load({}), 1)).toBe(fallbackMethod);
    expect(roundMethod('sliced', load({}), 2)).toBe(methods.sliced);
  });

  it('runMethod: a sliced design runs sliced on wrk, and one window after another on h2load (it cannot hold its sends for a slot)', () => {
    expect(runMethod('sliced', wrkDriver.capabilities)).toBe('sliced');
    expect(runMethod('sliced', h2loadDriver.capabilities)).toBe('sequential');
    expect(runMethod('sequential', wrkDriver.capabilities)).toBe('sequential');
  });
});

const wrkHere = hasWrk();
describe.skipIf(!wrkHere)(`sliced rounds against real servers${wrkHere ? '' : ' (skipped: wrk not on PATH; apt-get install wrk)'}`, () => {
  const started: StartedTarget[] = [];
  const pinning = { enabled: false, serverCpus: [], loaderCpus: [] } as unknown as Parameters<typeof measureSlicedRound>[0]['pinning'];
  const ctx = { driver: wrkDriver, pinning, signal: new AbortController().signal, clientBoundBusy: 0.95 };
  const start = async (name: string, env: Record<string, string>) => {
    const { targets } = validateSuite({ scenarios: [scenario], targets: [{ kind: 'process', name, command: [process.execPath, tinyServer], env }] });
    const t = await runtimeOf(targets[0]!).start({ pinning, signal: ctx.signal });
    started.push(t);
    return t;
  };
  afterAll(async () => {
    await Promise.all(started.map((t) => t.stop()));
  });
  const scenario = defineScenario({ name: 'ping', request: { path: '/ping' }, expect: { status: 200 }, load: { connections: 10 } });
  const parsed = validateSuite({ scenarios: [scenario], targets: [{ kind: 'url', name: 'x', url: 'http://127.0.0.1:1' }] }).scenarios[0]!;
  const spec = (windowSec: number): WindowSpec => ({ scenario: parsed, requests: [{ method: 'GET', path: '/ping', headers: {} }], steps: [10], windowSec, settleSec: 0, laterSettleSec: 0 });

  it('a server that waits 50 ms per response: its throughput is what a window of its own reads, not off by a latency per slot', async () => {
    const slow = await start('slow', { DELAY_MS: '50' });
    const fast = await start('fast', {});
    const [s, f] = await measureSlicedRound(
      ctx,
      [
        { target: slow, spec: spec(1), rps: 10 / 0.05 },
        { target: fast, spec: spec(1), rps: 5000 },
      ],
      3,
    );
    if (!s || 'error' in s || !f || 'error' in f) throw new Error(`a window failed: ${JSON.stringify([s, f])}`);
    const slice = s.steps[0]!.slice!;
    // 10 latencies of 50 ms: slots of 0.5 s (over the least slot), 2 of them in 1 s.
    expect(slice.sliceSec).toBeCloseTo(0.5, 6);
    expect(slice.slots).toBe(2);
    // Each slot's measured time runs from its first send to its last response inside it: a whole
    // number of latencies, so from 0.5 s less up to one latency.
    expect(slice.activeSec).toBeGreaterThan(2 * 0.375);
    expect(slice.activeSec).toBeLessThanOrEqual(2 * 0.5);
    // The same server in windows of its own: its answers come in bursts a latency apart, so
    // counting to each slot's end would read ~10% high, counting from its first response ~10% low.
    // Three of each, interleaved, compared by their medians: one of each once differed by 5.6% in
    // CI (a 20-ms timer server on a loaded host), inside the noise of single windows.
    const sliced = [s.rps];
    const alone = [(await measureWindow(ctx, slow, spec(1))).rps];
    for (let i = 0; i < 2; i++) {
      const [again] = await measureSlicedRound(
        ctx,
        [
          { target: slow, spec: spec(1), rps: 10 / 0.05 },
          { target: fast, spec: spec(1), rps: 5000 },
        ],
        3,
      );
      if (!again || 'error' in again) throw new Error(`a window failed: ${JSON.stringify(again)}`);
      sliced.push(again.rps);
      alone.push((await measureWindow(ctx, slow, spec(1))).rps);
    }
    const mid = (a: number[]) => [...a].sort((x, y) => x - y)[1]!;
    expect(Math.abs(mid(sliced) / mid(alone) - 1), `sliced ${sliced.join(', ')} vs alone ${alone.join(', ')}`).toBeLessThan(0.05);
    // The requests still in flight when a slot closed were answered after it: at most one per
    // connection per slot. A send that left before its slot opened (wrk's timers fire up to 1 ms
    // early) would be drained too, and a connection could drain twice at a slot's edge.
    expect(slice.drained).toBeGreaterThan(0);
    expect(slice.drained).toBeLessThanOrEqual(10 * 2);
    expect(s.requests).toBe(s.steps[0]!.requests);
    expect(f.rps).toBeGreaterThan(s.rps);
    // Each slot's responses by the eighth of it they came in: every response inside a slot is in
    // one, with the drained ones they are every response, and the halves are the first four and
    // the last four. The fast server answers all through its slots: none of its eighths is empty.
    for (const x of [s, f]) {
      const sl = x.steps[0]!.slice!;
      const e = sl.eighths!;
      expect(e).toHaveLength(8);
      const sum = (xs: number[]) => xs.reduce((a, v) => a + v, 0);
      expect(sum(e) + sl.drained).toBe(x.requests);
      expect(sl.halves).toEqual([sum(e.slice(0, 4)), sum(e.slice(4))]);
    }
    for (const v of f.steps[0]!.slice!.eighths!) expect(v).toBeGreaterThan(0);
    // Each slot on its own: its start from the round's first slot, in the plan's order, the two
    // targets' slots interleaved (one cycle visits each once), and its rate. The slow server's 10
    // connections answer a latency after each send: each slot reads near 10 ÷ 50 ms (a thread's
    // count ÷ its own measured time in that slot, the window's rule), and the fast one's are above it.
    const slotsOf = (x: typeof s) => x.steps[0]!.slice!.perSlot!;
    expect(slotsOf(s)).toHaveLength(2);
    expect(slotsOf(f)).toHaveLength(2);
    const starts = [...slotsOf(s), ...slotsOf(f)].map(([at]) => at).sort((a, b) => a - b);
    expect(starts[0]).toBe(0);
    for (let i = 1; i < 4; i++) expect(starts[i]! - starts[i - 1]!).toBeGreaterThanOrEqual(0.5);
    for (const [, rps] of slotsOf(s)) {
      expect(rps).toBeGreaterThan(150);
      expect(rps).toBeLessThan(260);
    }
    for (const [, rps] of slotsOf(f)) expect(rps).toBeGreaterThan(slotsOf(s)[0]![1]);
    // Each loader's CPU is its own (it says it from inside): the slow target's wrk, with a tenth
    // of the responses, used less than the fast one's, not the round's loaders together.
    const loaderCpu = (x: typeof s) => x.steps[0]!.resources.loaderCpuSeconds;
    expect(loaderCpu(s)).toBeGreaterThan(0);
    expect(loaderCpu(s)).toBeLessThan(loaderCpu(f));
  }, 30_000);

  it("a loader stops once its last slot's requests are answered, not at the drain's limit", async () => {
    const t = await start('quick', {});
    const t0 = monotonicMs();
    const slots: Array<[number, number]> = [
      [t0 + 150, t0 + 350],
      [t0 + 550, t0 + 750],
    ];
    const res = await wrkDriver.run({
      baseUrl: t.baseUrl,
      requests: [{ method: 'GET', path: '/ping', headers: {} }],
      connections: 10,
      warmupSec: 0,
      durationSec: 0.4,
      slots,
      // The limit for a request that never returns: 5 s past the last slot.
      drainSec: 5,
      timeoutSec: 2,
      expectStatus: [200],
      pin: [],
      signal: ctx.signal,
    });
    const tookMs = monotonicMs() - t0;
    expect(res.sliced?.slots).toBe(2);
    expect(res.requests).toBeGreaterThan(0);
    expect(res.statusCounts['200']).toBe(res.requests);
    // Every thread said it had drained, so it stopped long before the drain's limit (5.75 s).
    expect(tookMs, `the loader took ${tookMs.toFixed(0)} ms`).toBeLessThan(750 + 2500);
  }, 30_000);

  it('agrees with a window of its own on a CPU-bound server (the same process, sliced against a second one)', async () => {
    const a = await start('a', { BUSY_ITERS: '100000' });
    const b = await start('b', { BUSY_ITERS: '100000' });
    const rpsSliced: number[] = [];
    const rpsAlone: number[] = [];
    for (let i = 0; i < 3; i++) {
      const [x] = await measureSlicedRound(
        ctx,
        [
          { target: a, spec: spec(0.6), rps: 5000 },
          { target: b, spec: spec(0.6), rps: 5000 },
        ],
        i,
      );
      if (!x || 'error' in x) throw new Error('sliced window failed');
      rpsSliced.push(x.rps);
      rpsAlone.push((await measureWindow(ctx, a, spec(0.6))).rps);
    }
    const med = (xs: number[]) => [...xs].sort((p, q) => p - q)[1]!;
    // Same process, same work per request: the sliced figure is the server's own, within the host's noise.
    expect(Math.abs(med(rpsSliced) / med(rpsAlone) - 1), `sliced ${rpsSliced} vs alone ${rpsAlone}`).toBeLessThan(0.25);
  }, 60_000);
});

// End to end against two servers of known, different CPU cost per request: the tiny server burns
// a fixed loop per request (BUSY_ITERS), K iterations for `light` and 2K for `heavy`. Loads the
// machine for ~15 s: run under the shared lock.
//
// What is known, and so what is asserted. The loop is a count, not a time, so heavy's loop costs
// exactly twice light's whatever the machine's speed or steal. Each request also carries a fixed
// overhead o (HTTP parsing, the event loop) that is not knowable in advance, so the true CPU ratio
// is (o + 2K)/(o + K), a little under 2, and the throughput ratio of a CPU-bound server the inverse,
// a little over 0.5. K ≈ 250 µs of loop here keeps o (30–50 µs once warm) small beside it: the true
// ratios sit within ~10% of 2 and 0.5. So the test asserts the CPU point within ±15% of 2 (CPU time
// per request does not count what the hypervisor stole) and the throughput point within ±30% of 0.5
// (not that the interval contains exactly 2, which a narrow, honest interval may miss by the
// overhead), and that the CPU interval is reported and contains its own point.
// Windows are 1 s, not the 0.25 s of the other tests: CPU time comes in 10 ms ticks, and a window
// must hold enough of them (and little of the loader's start) for a per-window ratio to mean much.
import { describe, expect, it } from 'vitest';
import { resultSchema, runSuite } from '../src/index.js';
import { tiny } from './_helpers.js';

const K = 200_000;

describe('two servers of known CPU cost per request', () => {
  it('come out near twice the CPU per request and half the throughput, with intervals', async () => {
    const r = await runSuite({
      scenarios: [{ name: 'burn', request: { path: '/burn' }, expect: { status: 200, json: { ok: true } }, load: { connections: 10 } }],
      targets: [tiny('light', { BUSY_ITERS: String(K) }), tiny('heavy', { BUSY_ITERS: String(2 * K) })],
      // Every window kept whatever the hypervisor took (`stealThreshold: 1`): with 2 rounds a block
      // and none to spare, a run in a steal storm (2026-12-03, 9% on average, bursts to 40%) kept 1
      // of its 4 rounds and had no interval (the message now names the windows left out and why).
      // Leaving windows out for steal is tested on its own (thresholds.test.ts); here the rounds are
      // sliced, so a burst falls on both targets' slots of a round alike.
      design: { reference: 'light', windowSec: 1, rounds: { min: 2, max: 2 }, blocks: { min: 2, max: 2 }, warmup: { minSec: 1, maxSec: 1 }, stealThreshold: 1 },
      seed: 9,
    });
    expect(resultSchema.safeParse(r).success).toBe(true);
    const heavy = r.summaries.find((s) => s.target === 'heavy')!;
    const light = r.summaries.find((s) => s.target === 'light')!;
    const context = `driver ${r.environment.driver.name}; windows left out: ${JSON.stringify(r.windows.filter((w) => w.status === 'ok' && w.excluded !== null).map((w) => `${w.target} b${w.block} r${w.round} ${w.excluded}`))}; relativeCpu ${JSON.stringify(heavy.relativeCpu)}; relativeRps ${JSON.stringify(heavy.relativeRps)}`;

    const cpu = heavy.relativeCpu!;
    expect(cpu.point, context).toBeGreaterThan(2 * 0.85);
    expect(cpu.point, context).toBeLessThan(2 * 1.15);
    expect(cpu.ci95, context).not.toBeNull();
    expect(cpu.ci95![0]).toBeLessThanOrEqual(cpu.point);
    expect(cpu.ci95![1]).toBeGreaterThanOrEqual(cpu.point);
    expect(cpu.halfWidth).toBeGreaterThanOrEqual(0);
    expect(cpu.n).toBe(heavy.relativeRps!.n);

    // ±30%, not ±15%: steal slows throughput, and a window kept in the estimates has up to 10% (the
    // cores' mean; up to 20% on the server's core), so steal in one target's windows alone can move
    // the ratio past the 5–9% that ±15% leaves above the true 0.53–0.55. Still far from a ratio taken
    // the wrong way round (2) or of a target against itself (1).
    const rps = heavy.relativeRps!;
    expect(rps.point, context).toBeGreaterThan(0.5 * 0.7);
    expect(rps.point, context).toBeLessThan(0.5 * 1.3);

    // The absolute figures agree with the relative ones' direction.
    expect(heavy.cpuPerRequestUs!.point).toBeGreaterThan(light.cpuPerRequestUs!.point);
    expect(light.relativeCpu).toBeNull();
  }, 120_000);
});

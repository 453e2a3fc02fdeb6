// The client-bound rule (window-resources.ts) on fixed readings. No process starts here.
import { describe, expect, it } from 'vitest';
import { isClientBound } from '../src/index.js';
import { activeShares } from '../src/run/methods/sliced.js';
import { availableSec, busyShare, TreeSampler } from '../src/window-resources.js';
import { zeroResources } from './_helpers.js';

describe('isClientBound', () => {
  const r = (over: Record<string, number>) => zeroResources(over);
  it('flags a loader whose one core is saturated although the mean over its cores is low', () => {
    // autocannon on one core of four: that core 97% busy, the four cores' mean 24%.
    expect(isClientBound(r({ loaderBusiestCore: 0.97, loaderCoreBusy: 0.24, loaderThreadBusy: 0.24 }))).toBe(true);
  });
  it('flags a loader process that uses its threads fully, whatever the cores say', () => {
    expect(isClientBound(r({ loaderBusiestCore: 0.5, loaderCoreBusy: 0.5, loaderThreadBusy: 0.95 }))).toBe(true);
  });
  it('does not flag headroom, and honours the threshold', () => {
    expect(isClientBound(r({ loaderBusiestCore: 0.85, loaderCoreBusy: 0.85, loaderThreadBusy: 0.85 }))).toBe(false);
    expect(isClientBound(r({ loaderBusiestCore: 0.85, loaderThreadBusy: 0.1 }), 0.8)).toBe(true);
  });
});

describe('busy shares of the time the hypervisor left', () => {
  it('busyShare: /proc/stat counts steal as busy; a core 60% busy with 30% of its time stolen read 0.9 (client-bound), and is 0.6 ÷ 0.7', () => {
    // Jiffies: 100 in all, 30 stolen, 60 busy besides (busy as /proc/stat sums it: 90).
    expect(busyShare({ busy: 90, steal: 30, total: 100 })).toBeCloseTo(60 / 70, 10);
    expect(busyShare({ busy: 60, steal: 0, total: 100 })).toBeCloseTo(0.6, 10);
    expect(busyShare({ busy: 100, steal: 100, total: 100 })).toBe(0);
    expect(busyShare({ busy: 0, steal: 0, total: 0 })).toBe(0);
  });
  it('availableSec: the seconds not stolen, floored at a tenth', () => {
    expect(availableSec(2, 0.3)).toBeCloseTo(1.4, 10);
    expect(availableSec(2, undefined)).toBe(2);
    expect(availableSec(2, 0.99)).toBeCloseTo(0.2, 10);
  });
  it("a sliced step's shares: a saturated server and loader under 30% steal read saturated (0.7 of the wall time was all they had)", () => {
    // 1 s active; the server's core lost 30%, the loader's 10%; each used all it was left.
    const r = zeroResources({ serverCpuSeconds: 0.7, loaderCpuSeconds: 0.9, serverCoreSteal: 0.3, loaderCoreSteal: 0.1, cpuSteal: 0.2 });
    const s = activeShares(r, 1, 1, { serverCores: 1, loaderCores: 1, loaderThreads: 1 });
    expect(s.serverCoreShare).toBeCloseTo(1, 10);
    expect(s.loaderThreadBusy).toBeCloseTo(1, 10);
    expect(s.loaderCoreBusy).toBeCloseTo(1, 10);
    // Results from before (no per-side steal): shares of the wall time, as they were.
    const old = activeShares(zeroResources({ serverCpuSeconds: 0.7, loaderCpuSeconds: 0.9 }), 1, 1, { serverCores: 1, loaderCores: 1, loaderThreads: 1 });
    expect(old.serverCoreShare).toBeCloseTo(0.7, 10);
    expect(old.loaderThreadBusy).toBeCloseTo(0.9, 10);
  });
  it("a sampler's window records each side's steal, which its shares are taken net of", () => {
    // The runner's own process as the "server", unpinned (every core's steal on both sides).
    const sampler = new TreeSampler(process.pid, [], [], 1, []);
    sampler.windowStart(process.pid);
    const r = sampler.windowEnd();
    sampler.stop();
    expect(r.serverCoreSteal).toBeGreaterThanOrEqual(0);
    expect(r.loaderCoreSteal).toBeGreaterThanOrEqual(0);
    expect(r.serverCoreSteal).toBeLessThanOrEqual(1);
  });
});

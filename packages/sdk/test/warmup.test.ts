// The warm-up rule and the wake-up round (run/warmup.ts). No process starts here.
import { describe, expect, it } from 'vitest';
import { unrecordedWindows } from '../src/run/unrecorded.js';
import { isSteady } from '../src/run/warmup.js';
import { warmupWindows } from '../src/warmup-windows.js';

describe('warm-up rule', () => {
  it('isSteady: the last window within the tolerance of the one before, after the minimum', () => {
    expect(isSteady([100, 104], 2, 0.05)).toBe(true);
    expect(isSteady([100, 96], 2, 0.05)).toBe(true);
    expect(isSteady([100, 106], 2, 0.05)).toBe(false);
    expect(isSteady([100], 1, 0.05)).toBe(false); // never on one window
    expect(isSteady([100, 100], 3, 0.05)).toBe(false);
    expect(isSteady([50, 100, 101], 3, 0.05)).toBe(true);
    expect(isSteady([0, 0], 2, 0.05)).toBe(false);
  });
  it('warmupWindows: 1-s windows, shorter when the maximum is short, so that two fit (steadiness needs two)', () => {
    expect(warmupWindows({ minSec: 2, maxSec: 6, tolerance: 0.05 })).toEqual({ windowSec: 1, min: 2, max: 6 });
    expect(warmupWindows({ minSec: 1.5, maxSec: 3, tolerance: 0.05 })).toEqual({ windowSec: 1, min: 2, max: 3 });
    expect(warmupWindows({ minSec: 1, maxSec: 1, tolerance: 0.05 })).toEqual({ windowSec: 0.5, min: 2, max: 2 });
    expect(warmupWindows({ minSec: 0.2, maxSec: 0.4, tolerance: 0.05 })).toEqual({ windowSec: 0.2, min: 1, max: 2 });
    // No warm-up at all (min may come out as −0: compare by value).
    const none = warmupWindows({ minSec: 0, maxSec: 0, tolerance: 0.05 });
    expect([none.windowSec, none.min + 0, none.max + 0]).toEqual([0.1, 0, 0]);
  });
  it("warmupWindows: the design's window length where it has one (the default's 0.5 s), still two within a short maximum", () => {
    expect(warmupWindows({ minSec: 0.5, maxSec: 3, windowSec: 0.5 })).toEqual({ windowSec: 0.5, min: 1, max: 6 });
    expect(warmupWindows({ minSec: 1, maxSec: 3, windowSec: 0.5 })).toEqual({ windowSec: 0.5, min: 2, max: 6 });
    // QUICK's 0.4-s warm-up keeps its two 0.2-s windows.
    expect(warmupWindows({ minSec: 0.4, maxSec: 0.4, windowSec: 0.5 })).toEqual({ windowSec: 0.2, min: 2, max: 2 });
    expect(warmupWindows({ minSec: 1, maxSec: 3, windowSec: 1 })).toEqual(warmupWindows({ minSec: 1, maxSec: 3 }));
  });
  it('unrecordedWindows: one window per target in the given order; a failing target gets its error, the others go on', async () => {
    // A scripted driver (no sockets: this checks the schedule): each target's req/s per window.
    const series: Record<string, number[]> = { a: [200], b: [], c: [150] };
    const calls: Array<[string, number]> = [];
    const driver = {
      run: async ({ baseUrl, durationSec }: { baseUrl: string; durationSec: number }) => {
        calls.push([baseUrl, durationSec]);
        const next = series[baseUrl]!.shift();
        if (next === undefined) throw new Error(`${baseUrl}: connection refused`);
        return { requests: next * durationSec, durationSec };
      },
    };
    const ctx = { driver, pinning: { enabled: false, serverCpus: [], loaderCpus: [] }, signal: new AbortController().signal } as unknown as Parameters<typeof unrecordedWindows>[0];
    const item = (name: string) => ({
      target: { baseUrl: name, exitInfo: () => undefined, tail: () => '' },
      spec: { scenario: { expect: { status: 200 }, load: { timeout: 10 } }, requests: [], steps: [10] },
    });
    const out = await unrecordedWindows(ctx, ['c', 'b', 'a'].map(item) as unknown as Parameters<typeof unrecordedWindows>[1], 0.8);
    expect(calls).toEqual([
      ['c', 0.8],
      ['b', 0.8],
      ['a', 0.8],
    ]);
    expect(out[0]).toBe(150);
    expect(String((out[1] as { error: Error }).error.message)).toMatch(/connection refused/);
    expect(out[2]).toBe(200);
  });
});

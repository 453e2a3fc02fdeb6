// The warm-up rule and the wake-up round (run/warmup.ts). No process starts here.
import { describe, expect, it } from 'vitest';
import { unrecordedWindows } from '../src/run/unrecorded.js';
import { dueInRound, expectedWarmupWindows, isSteady } from '../src/run/warmup.js';
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

describe('fresh warm-ups end together', () => {
  const t = (name: string, o: { windows?: number; expected?: number; steady?: boolean; carried?: boolean } = {}) => ({
    name,
    carried: o.carried ?? false,
    steady: o.steady ?? false,
    warmupRps: Array.from({ length: o.windows ?? 0 }, () => 1000),
    expectedWindows: o.expected,
  });
  const names = (xs: ReadonlyArray<{ name: string }>) => xs.map((x) => x.name).sort();

  it('dueInRound: a target expected to take fewer windows starts later, so its last window falls in the longest one’s last round', () => {
    // express took 6 windows last time, node-http 2, fastify 3: they start in rounds 1, 5 and 4.
    const express = t('express', { expected: 6 });
    const node = t('node-http', { expected: 2 });
    const fastify = t('fastify', { expected: 3 });
    const all = [express, node, fastify];
    expect(names(dueInRound(1, all, 6))).toEqual(['express']);
    expect(names(dueInRound(3, all, 6))).toEqual(['express']);
    expect(names(dueInRound(4, all, 6))).toEqual(['express', 'fastify']);
    expect(names(dueInRound(5, all, 6))).toEqual(['express', 'fastify', 'node-http']);
    // Once started, a target takes every round until steady, even past its expected end.
    const late = [t('express', { expected: 6, windows: 5 }), t('node-http', { expected: 2, windows: 2 }), t('fastify', { expected: 3, windows: 3 })];
    expect(names(dueInRound(7, late, 8))).toEqual(['express', 'fastify', 'node-http']);
  });

  it('dueInRound: no expectation (a scenario’s first block) means every round from the first; steady, carried or at the maximum means none', () => {
    const all = [t('a'), t('b', { expected: 1 }), t('c', { expected: 4, steady: true }), t('d', { carried: true }), t('e', { windows: 6 })];
    // c expected 4: b starts in round 4; a has no expectation; c is steady; e has had its 6 windows.
    expect(
      names(
        dueInRound(
          1,
          all.filter((x) => !x.carried),
          6,
        ),
      ),
    ).toEqual(['a']);
    expect(
      names(
        dueInRound(
          4,
          all.filter((x) => !x.carried),
          6,
        ),
      ),
    ).toEqual(['a', 'b']);
  });

  it('dueInRound: when none is due yet but some still warm (the longest ended sooner than expected), they start at once', () => {
    const all = [t('slow', { expected: 6, steady: true, windows: 2 }), t('fast', { expected: 1 })];
    expect(names(dueInRound(3, all, 6))).toEqual(['fast']);
    expect(dueInRound(3, [t('x', { steady: true })], 6)).toEqual([]);
  });

  it('expectedWarmupWindows: the latest block of the scenario (or of any scenario, warmed on every scenario’s requests), fresh processes only', () => {
    const rec = (scenario: string, targets: Array<[string, number, boolean?]>) => ({
      scenario,
      targets: targets.map(([target, n, carried]) => ({ target, status: 'ok' as const, warmupRps: Array.from({ length: n }, () => 1), steady: true, ...(carried ? { carried } : {}) })),
    });
    const blocks = [
      rec('a', [
        ['x', 5],
        ['y', 2],
      ]),
      rec('b', [
        ['x', 3],
        ['y', 1, true],
      ]),
      rec('a', [['x', 4]]),
    ];
    expect(Object.fromEntries(expectedWarmupWindows(blocks, 'a', false))).toEqual({ x: 4, y: 2 });
    expect(Object.fromEntries(expectedWarmupWindows(blocks, 'b', false))).toEqual({ x: 3 });
    expect(Object.fromEntries(expectedWarmupWindows(blocks, 'c', true))).toEqual({ x: 4, y: 2 });
  });
});

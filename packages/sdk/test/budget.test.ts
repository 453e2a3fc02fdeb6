// The budget planner and the window fit, on fixed costs and figures (no servers).
import { describe, expect, it } from 'vitest';
import { carriedBlockSec, measuredStartSec, minimumSec, planBudget } from '../src/analysis/budget.js';
import type { PlannedScenario } from '../src/analysis/round-cost.js';
import { fittedWindowSec } from '../src/run/window.js';

const costs = { blockStartSec: 1.5, loaderStartSec: 0.1, beforeSec: 10 };
const suite = (n: number, targets = 6): PlannedScenario[] => Array.from({ length: n }, (_, i) => ({ name: `s${i}`, targets, steps: 1, windowSec: 0.8, settleSec: 0 }));
const design = (budgetSec: number) => ({
  rounds: { min: 5, max: 20 },
  blocks: { min: 2, max: 12 },
  warmup: { minSec: 2, maxSec: 4, tolerance: 0.05 },
  carriedWarmupWindowSec: 0.8,
  budgetSec,
});

describe('planBudget', () => {
  it('leaves a design that fits alone, and estimates it from the fixed costs', () => {
    const p = planBudget(suite(2), design(600), costs);
    expect(p.changes).toEqual([]);
    // 10 + 2 scenarios × 2 blocks × (1.5 + 6 × 4 + 5 × 6 × 0.9) = 10 + 4 × 52.5
    expect(p.minimumSec).toBeCloseTo(220, 6);
    expect(p.design).toEqual({ rounds: { min: 5, max: 20 }, blocks: { min: 2, max: 12 }, warmup: { minSec: 2, maxSec: 4, tolerance: 0.05 } });
  });
  it('fits the minimum to any budget it can hold, never more than 5% over, rounds first, then warm-up, then blocks', () => {
    for (const budget of [60, 120, 300, 600, 900, 1080, 1500]) {
      const p = planBudget(suite(9), design(budget), costs);
      if (p.overBySec === 0) expect(p.minimumSec).toBeLessThanOrEqual(budget * 1.05);
      else expect(p.design).toMatchObject({ rounds: { min: 2 }, blocks: { min: 1 }, warmup: { maxSec: 2 } });
      expect(p.minimumSec).toBeCloseTo(minimumSec(suite(9), { ...design(budget), ...p.design }, costs), 9);
    }
    const mid = planBudget(suite(9), design(900), costs);
    expect(mid.changes[0]).toMatchObject({ what: 'rounds', from: 5 });
    expect(mid.changes[0]!.to).toBeLessThan(5);
    expect(mid.design.blocks.min).toBe(2);
  });
  it("plans shared processes as one cold start and warm-up per block, and (warmed on the first scenario's requests) rotation rounds for every later scenario", () => {
    const shared = { ...design(600), processes: 'shared' as const, warmupRequests: 'first-scenario' as const, carriedWarmupRounds: 2, carriedWarmupWindowSec: 1 };
    // A later scenario of a shared block: 6 targets × 2 rotation rounds × (1-s window + 0.1 s) + 5 × 6 × 0.9 = 40.2 s;
    // the first carries the start and the full warm-up instead (1.5 + 6 × 4 + 27 = 52.5 s: 12.3 s more).
    expect(carriedBlockSec(suite(1)[0]!, 5, { windowSec: 1, rounds: 2 }, costs)).toBeCloseTo(40.2, 6);
    // One rotation round instead of two: 6 × 1.1 s less.
    expect(carriedBlockSec(suite(1)[0]!, 5, { windowSec: 1, rounds: 1 }, costs)).toBeCloseTo(33.6, 6);
    expect(minimumSec(suite(2), { ...shared, carriedWarmupRounds: 1 }, costs)).toBeCloseTo(10 + 2 * (2 * 33.6 + 18.9), 6);
    expect(minimumSec(suite(2), shared, costs)).toBeCloseTo(10 + 2 * (2 * 40.2 + 12.3), 6);
    expect(planBudget(suite(2), shared, costs).minimumSec).toBeCloseTo(195.4, 6);
    // Rotation windows of the design's length: 0.5 s instead of 1 s is 6 × 2 × 0.5 s less for each
    // later scenario of a block (52.5 − 34.2 = 18.3 s for the first).
    expect(minimumSec(suite(2), { ...shared, carriedWarmupWindowSec: 0.5 }, costs)).toBeCloseTo(10 + 2 * (2 * 34.2 + 18.3), 6);
    expect(planBudget(suite(2), { ...shared, carriedWarmupWindowSec: 0.5 }, costs).minimumSec).toBeCloseTo(183.4, 6);
    // Per-scenario processes have no rotation rounds: their windows' length changes nothing.
    expect(minimumSec(suite(1), { ...design(600), carriedWarmupWindowSec: 1 }, costs)).toBeCloseTo(minimumSec(suite(1), { ...design(600), carriedWarmupWindowSec: 0.5 }, costs), 9);
    // Nine scenarios: 10 + 18 × 52.5 = 955 s with fresh processes per scenario, 10 + 2 × (9 × 40.2 + 12.3) = 758.2 s shared (of 1 s).
    expect(
      minimumSec(suite(9), design(1080), costs) -
        minimumSec(suite(9), { ...design(1080), processes: 'shared', warmupRequests: 'first-scenario', carriedWarmupRounds: 2, carriedWarmupWindowSec: 1 }, costs),
    ).toBeCloseTo(196.8, 6);
    expect(planBudget(suite(9), { ...design(1080), processes: 'shared', warmupRequests: 'first-scenario', carriedWarmupRounds: 2 }, costs).changes).toEqual([]);
    // Warmed on every scenario's requests (the default), a later scenario takes no rotation round: 5 × 6 × 0.9 = 27 s.
    expect(minimumSec(suite(2), { ...shared, warmupRequests: 'all-scenarios' }, costs)).toBeCloseTo(10 + 2 * (2 * 27 + 25.5), 6);
    expect(minimumSec(suite(2), { ...design(600), processes: 'shared' }, costs)).toBeCloseTo(10 + 2 * (2 * 27 + 25.5), 6);
  });
  it('records each change from the given value to the fitted one when even the smallest design cannot fit, and by how much', () => {
    const p = planBudget(suite(9), design(60), costs);
    expect(p.overBySec).toBeGreaterThan(0);
    expect(p.changes).toEqual([
      { what: 'rounds', from: 5, to: 2 },
      { what: 'warmup', from: 4, to: 2 },
      { what: 'blocks', from: 2, to: 1 },
    ]);
  });
});

describe('fittedWindowSec', () => {
  it('gives a 200-ms backend at 50 connections a window that holds many responses per connection', () => {
    // 50 connections, each response ~200 ms: ~250 req/s in the warm-up.
    const w = fittedWindowSec(
      0.2,
      [50],
      [
        [240, 250],
        [230, 245],
      ],
      5,
      2,
    );
    expect(w).toBeCloseTo((5 * 50) / 245, 6);
    expect((w * 250) / 50).toBeGreaterThanOrEqual(4.9); // ≥ 5 responses per connection at the faster target's rate
  });
  it('never stretches windows past the cap for a target whose latency is seconds (an overloaded pool)', () => {
    expect(fittedWindowSec(0.2, [50], [[5], [2000]], 5, 2)).toBe(2);
  });
  it('keeps the design window when it already holds enough, and ignores a target without warm-up figures', () => {
    expect(fittedWindowSec(0.8, [50], [[30_000]], 5)).toBe(0.8);
    expect(fittedWindowSec(0.8, [10, 500], [[]], 5)).toBe(0.8);
  });
  it("reads each target's best warm-up window: one slow window (a steal burst, a window after idle) does not lengthen the block's windows", () => {
    // The ramp: steps up to 500 connections, 0.5-s windows. At 6,000 req/s 5 responses per connection take 0.42 s; at 2,000, 1.25 s.
    expect(
      fittedWindowSec(
        0.5,
        [10, 500],
        [
          [6000, 2000],
          [7000, 7100],
        ],
        5,
        2,
      ),
    ).toBe(0.5);
    expect(
      fittedWindowSec(
        0.5,
        [10, 500],
        [
          [1500, 2000],
          [7000, 7100],
        ],
        5,
        2,
      ),
    ).toBeCloseTo(1.25, 9);
  });
  it('takes the longest window when a warm-up second saw no response at all (the latency is longer than it)', () => {
    expect(fittedWindowSec(0.2, [50], [[0, 0], [3000]], 5, 2)).toBe(2);
  });
});

describe('measuredStartSec', () => {
  // The 6-minute run of 2026-11-28 18:06: a block's first part spent 12.8 s (json-post first) or
  // 8.6 s (auth first) outside its rounds, its later parts 2.8–2.9 s (the rotation round).
  const part = (block: number, position: number, fixedSec: number, rounds = 2) => ({ block, position, rounds, wallSec: fixedSec + 8.7, roundsWallSec: 8.7 });
  it("prices a shared block's start as the slowest so far: its first part's seconds outside rounds less its later parts' median", () => {
    const blocks = [part(1, 1, 12.8), part(1, 2, 2.8), part(1, 3, 2.8), part(2, 1, 8.6), part(2, 2, 2.9), part(2, 3, 2.8)];
    expect(measuredStartSec(blocks)).toBeCloseTo(10.0, 9);
    expect(measuredStartSec(blocks.filter((b) => b.block === 2))).toBeCloseTo(5.75, 9);
  });
  it('says nothing before a block has a first part and a later one, and counts no part without rounds', () => {
    expect(measuredStartSec([])).toBeUndefined();
    expect(measuredStartSec([part(1, 1, 12.8)])).toBeUndefined();
    expect(measuredStartSec([part(1, 1, 12.8), part(1, 2, 2.8, 0)])).toBeUndefined();
  });
});

// The stopping rule, the budget shares and the warm-up cut during the run (analysis/stopping.ts).
// No process starts here.
import { describe, expect, it } from 'vitest';
import { decideStop, scenarioShares } from '../src/index.js';
import { fitsWithShorterWarmups } from '../src/analysis/stopping.js';

describe('the stopping rule (decideStop)', () => {
  const rule = { precision: 0.02, blocks: { min: 2, max: 5 } };
  const roomy = { budgetLeftSec: 1000, nextBlockSec: 10 };
  it('stops when every headline half-width is within the precision target', () => {
    expect(decideStop({ blocks: 2, halfWidths: [0.01, 0.02], ...roomy }, rule)).toBe('precision');
    expect(decideStop({ blocks: 2, halfWidths: [0.01, 0.021], ...roomy }, rule)).toBe('continue');
  });
  it('does not count a figure that cannot be estimated yet, nor an empty list, as precise', () => {
    expect(decideStop({ blocks: 2, halfWidths: [0.01, null], ...roomy }, rule)).toBe('continue');
    expect(decideStop({ blocks: 2, halfWidths: [], ...roomy }, rule)).toBe('continue');
  });
  it('stops at the budget when the next block would not fit', () => {
    expect(decideStop({ blocks: 3, halfWidths: [0.05], budgetLeftSec: 9, nextBlockSec: 10 }, rule)).toBe('budget');
    expect(decideStop({ blocks: 3, halfWidths: [0.05], budgetLeftSec: 10, nextBlockSec: 10 }, rule)).toBe('continue');
  });
  it('stops at the maximum of blocks', () => {
    expect(decideStop({ blocks: 5, halfWidths: [0.05], ...roomy }, rule)).toBe('max-blocks');
  });
  it('never stops on precision before the minimum of blocks; below it, only the budget stops it, and never before one block', () => {
    expect(decideStop({ blocks: 1, halfWidths: [0.001], ...roomy }, rule)).toBe('continue');
    expect(decideStop({ blocks: 1, halfWidths: [0.001], budgetLeftSec: 0, nextBlockSec: 100 }, rule)).toBe('budget');
    expect(decideStop({ blocks: 0, halfWidths: [], budgetLeftSec: -5, nextBlockSec: 100 }, rule)).toBe('continue');
  });
  it("below the minimum, a block that overruns the scenario's even share still runs while the run's budget, less the later scenarios' minimum, holds it", () => {
    expect(decideStop({ blocks: 1, halfWidths: [0.3], budgetLeftSec: 50, nextBlockSec: 60, minimumBudgetLeftSec: 200 }, rule)).toBe('continue');
    expect(decideStop({ blocks: 1, halfWidths: [0.3], budgetLeftSec: 50, nextBlockSec: 60, minimumBudgetLeftSec: 59 }, rule)).toBe('budget');
    // From the minimum on, the scenario's share decides…
    expect(decideStop({ blocks: 2, halfWidths: [0.3], budgetLeftSec: 50, nextBlockSec: 60, minimumBudgetLeftSec: 200 }, rule)).toBe('budget');
    // …and a block beyond the minimum never takes the later scenarios' minimum (a stepped scenario's
    // third block left the last three scenarios of the default suite with one block each).
    expect(decideStop({ blocks: 2, halfWidths: [0.3], budgetLeftSec: 150, nextBlockSec: 140, minimumBudgetLeftSec: 100 }, rule)).toBe('budget');
    expect(decideStop({ blocks: 2, halfWidths: [0.3], budgetLeftSec: 150, nextBlockSec: 140, minimumBudgetLeftSec: 145 }, rule)).toBe('continue');
  });
});

describe('scenarioShares: blocks before rounds across the scenarios still to measure', () => {
  /** Scenarios of these block costs, none begun unless `done` says. */
  const ahead = (secs: number[], done: number[] = []) => secs.map((blockSec, i) => ({ blockSec, done: done[i] ?? 0 }));
  it('brings every scenario to the common number of blocks the time left buys, then one more each, the cheapest first, and shares the rest by block cost', () => {
    // Blocks of 10, 30 and 10 s: a level costs 50; 160 s buy 3 levels (150), and the 10 s left one more block for the first of the cheapest.
    const s = scenarioShares(160, ahead([10, 30, 10]), 12);
    expect(s.level).toBe(3);
    expect(s.blocks).toEqual([4, 3, 3]);
    expect(s.shareSec).toEqual([40, 90, 30]);
    // 25 s more: the other cheap one gets its block too, and the 15 s left are shared by block cost, 1 : 3 : 1.
    const t = scenarioShares(185, ahead([10, 30, 10]), 12);
    expect(t.blocks).toEqual([4, 3, 4]);
    expect(t.shareSec.map((x) => Number(x.toFixed(6)))).toEqual([43, 99, 43]);
    expect(t.shareSec.reduce((a, x) => a + x, 0)).toBeCloseTo(185, 9);
  });
  it("counts the blocks the scenario now measuring has done, and never gives it a block more than the others' level allows", () => {
    // It has 3 blocks of 20 s; the two to come cost 20 s each. 100 s bring them to 2 each (80 s): the level is 2,
    // it is above it already, so the 20 s left give the first of the others a 3rd, and it gets nothing more.
    const s = scenarioShares(100, ahead([20, 20, 20], [3]), 12);
    expect(s.level).toBe(2);
    expect(s.blocks).toEqual([3, 3, 2]);
    expect(s.shareSec[0]).toBe(0);
  });
  it('stops at the maximum of blocks and hands what is left out as rounds; with no time, no blocks', () => {
    const s = scenarioShares(1000, ahead([10, 10]), 4);
    expect(s.blocks).toEqual([4, 4]);
    expect(s.shareSec).toEqual([500, 500]);
    expect(scenarioShares(5, ahead([10]), 12)).toEqual({ level: 0, blocks: [0], shareSec: [5] });
  });
});

describe('shorter warm-ups during the run (fitsWithShorterWarmups)', () => {
  // The default suite at HEAD: the ramp's first block took 164 s (windows lengthened for slow
  // answers); at 642 s of 1,080 three scenarios' minimum (2 blocks × 46.6 s) was reserved, so its
  // second block did not fit (158 s left for 164 s) and the ramp stopped at one block.
  const ramp = { nextBlockSec: 164, targets: 6, leftSec: 1080 - 642, warmup: { minSec: 2, maxSec: 4 } };
  const reserve = (warmupSec: number) => 3 * 2 * (1.5 + 6 * warmupSec + 6 * 0.88 + 3 * 6 * 0.88);
  it('lets a scenario below its minimum reach it when warm-ups at their minimum free the time, here and in the later reserve', () => {
    expect(ramp.leftSec - reserve(4)).toBeLessThan(ramp.nextBlockSec);
    expect(fitsWithShorterWarmups({ ...ramp, shortReserveSec: reserve(2) })).toBe(true);
  });
  it('does not when even that is too little, or when warm-ups are already at their minimum', () => {
    expect(fitsWithShorterWarmups({ ...ramp, leftSec: 200, shortReserveSec: reserve(2) })).toBe(false);
    expect(fitsWithShorterWarmups({ ...ramp, warmup: { minSec: 2, maxSec: 2 }, shortReserveSec: reserve(2) })).toBe(false);
  });
});

// Shared processes: the scenarios' order per block (run/scheduler.ts) and which scenarios the next block can hold (analysis/budget.ts, analysis/stopping.ts). No servers.
import { describe, expect, it } from 'vitest';
import { sharedBlocksAhead } from '../src/analysis/budget.js';
import { fitNextBlock } from '../src/analysis/stopping.js';
import { scenarioOrder } from '../src/run/scheduler.js';

const entries = ['baseline', 'param', 'auth', 'json-post', 'full-pipeline', 'conditional-get'].map((name) => ({ scenario: { name } }));
const names = (xs: ReadonlyArray<{ scenario: { name: string } }>) => xs.map((x) => x.scenario.name).join(',');

describe('scenarioOrder', () => {
  it('is the same for the same seed and block, and drawn afresh for each block', () => {
    expect(names(scenarioOrder(entries, 9, 1))).toBe(names(scenarioOrder(entries, 9, 1)));
    const orders = new Set(Array.from({ length: 8 }, (_, b) => names(scenarioOrder(entries, 9, b + 1))));
    expect(orders.size).toBeGreaterThan(4);
    // Every scenario is first in some block: none always meets the processes cold.
    const firsts = new Set(Array.from({ length: 40 }, (_, b) => scenarioOrder(entries, 9, b + 1)[0]!.scenario.name));
    expect(firsts.size).toBe(entries.length);
  });
});

describe('fitNextBlock', () => {
  const c = [
    { name: 'a', blocks: 1, nextSec: 30, worst: 0.01 },
    { name: 'b', blocks: 2, nextSec: 40, worst: 0.05 },
    { name: 'c', blocks: 3, nextSec: 50, worst: 0.2 },
  ];
  const fit = (leftSec: number, minBlocks = 2) => [...fitNextBlock(c, { leftSec, startSec: 1.5, minBlocks })].sort();
  it('keeps every scenario that continues when their blocks and the start fit what is left', () => {
    expect(fit(121.5)).toEqual(['a', 'b', 'c']);
  });
  it('fills what is left with those below the minimum of blocks first, then the least precise', () => {
    // a (below the minimum) first, then c (±20%) before b (±5%); b no longer fits.
    expect(fit(100)).toEqual(['a', 'c']);
    expect(fit(75)).toEqual(['a', 'b']);
    // With a minimum of 1, c (the widest) comes first.
    expect(fit(60, 1)).toEqual(['c']);
    expect(fit(100, 1)).toEqual(['b', 'c']);
  });
  it('stops them all when none fits', () => {
    expect(fit(20)).toEqual([]);
    expect(fitNextBlock([], { leftSec: 100, startSec: 1.5, minBlocks: 2 }).size).toBe(0);
  });
});

describe('sharedBlocksAhead: blocks before rounds with shared processes', () => {
  // The default suite's costs in a run on this VM: eight scenarios at 3.1 s outside their rounds
  // (the rotation round) and 5 s per round, the ramp at 3.2 s and 23 s per round; a start of
  // 1.5 s + 6 targets × 3 s of warm-up. A minimum block: 19.5 + 28 + 3 × 63 = 236.5 s.
  const costs = [...Array.from({ length: 8 }, () => ({ leastFixedSec: 3.1, roundSec: 5 })), { leastFixedSec: 3.2, roundSec: 23 }];
  const o = { startSec: 19.5, minRounds: 3, blocksLeft: 10 };
  it('counts the blocks that fit at the minimum of rounds, and what their starts leave to share', () => {
    // 591 s left after 2 blocks (a run's third block started at 8 min 09 s of 18 min): 2 more fit.
    expect(sharedBlocksAhead(costs, { ...o, leftSec: 591 })).toEqual({ blocks: 2, leftSec: 591 - 2 * 19.5 });
    expect(sharedBlocksAhead(costs, { ...o, leftSec: 473 })).toEqual({ blocks: 2, leftSec: 473 - 39 });
    expect(sharedBlocksAhead(costs, { ...o, leftSec: 472 })?.blocks).toBe(1);
  });
  it('one at least, at most the blocks left under the maximum; none before every scenario has a block', () => {
    expect(sharedBlocksAhead(costs, { ...o, leftSec: 100 })?.blocks).toBe(1);
    expect(sharedBlocksAhead(costs, { ...o, leftSec: 10_000, blocksLeft: 3 })?.blocks).toBe(3);
    expect(sharedBlocksAhead([...costs, undefined], { ...o, leftSec: 591 })).toBeUndefined();
    expect(sharedBlocksAhead([], { ...o, leftSec: 591 })).toBeUndefined();
  });
});

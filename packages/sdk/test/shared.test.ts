// Shared processes: the scenarios' order per block and which scenarios the next block can hold (no servers).
import { describe, expect, it } from 'vitest';
import { fitNextBlock, scenarioOrder } from '../src/run/shared.js';

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

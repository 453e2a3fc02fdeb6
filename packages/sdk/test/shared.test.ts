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
    { name: 'a', blocks: 1, nextSec: 30 },
    { name: 'b', blocks: 2, nextSec: 40 },
    { name: 'c', blocks: 3, nextSec: 50 },
  ];
  it('keeps every scenario that continues when their blocks and the start fit what is left', () => {
    expect([...fitNextBlock(c, { leftSec: 121.5, startSec: 1.5, minBlocks: 2 })].sort()).toEqual(['a', 'b', 'c']);
  });
  it('keeps only those below the minimum of blocks when all would not fit, if they fit alone', () => {
    expect([...fitNextBlock(c, { leftSec: 100, startSec: 1.5, minBlocks: 2 })]).toEqual(['a']);
  });
  it('stops them all when not even those below the minimum fit', () => {
    expect(fitNextBlock(c, { leftSec: 20, startSec: 1.5, minBlocks: 2 }).size).toBe(0);
    expect(fitNextBlock(c, { leftSec: 100, startSec: 1.5, minBlocks: 1 }).size).toBe(0);
    expect(fitNextBlock([], { leftSec: 100, startSec: 1.5, minBlocks: 2 }).size).toBe(0);
  });
});

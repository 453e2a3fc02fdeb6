// The round order and the steal replacement of a block (run/block.ts). No process starts here.
import { describe, expect, it } from 'vitest';
import { roundOrder, shouldAddRound } from '../src/run/block.js';

describe('roundOrder', () => {
  const targets = ['a', 'b', 'c', 'd', 'e'].map((name) => ({ name }));
  const names = (xs: { name: string }[]) => xs.map((x) => x.name).join('');
  it('is reproducible from the seed and a permutation of the targets', () => {
    const one = roundOrder(targets, 42, 'baseline', 2, 3);
    expect(roundOrder(targets, 42, 'baseline', 2, 3)).toEqual(one);
    expect(names([...one].sort((x, y) => x.name.localeCompare(y.name)))).toBe('abcde');
    expect(targets.map((t) => t.name).join('')).toBe('abcde'); // input untouched
  });
  it('differs between rounds, blocks and seeds', () => {
    const orders = (seed: number, block: number) => Array.from({ length: 10 }, (_, i) => names(roundOrder(targets, seed, 'baseline', block, i + 1)));
    expect(new Set(orders(42, 1)).size).toBeGreaterThan(3);
    expect(orders(42, 2)).not.toEqual(orders(42, 1));
    expect(orders(43, 1)).not.toEqual(orders(42, 1));
  });
});

describe('shouldAddRound (steal replacement)', () => {
  const room = (o: Partial<{ inPart: boolean; inShare: boolean; cleanRoundSoFar: boolean }> = {}) => ({ inPart: true, inShare: true, cleanRoundSoFar: true, ...o });
  it("adds a round when a window of the round was lost, while it ends within the block's part", () => {
    expect(shouldAddRound(true, 0, 5, room())).toBe(true);
    expect(shouldAddRound(true, 4, 5, room())).toBe(true);
  });
  it('not when nothing was lost, not past the planned count, not past the part once a round was clean', () => {
    expect(shouldAddRound(false, 0, 5, room())).toBe(false);
    expect(shouldAddRound(true, 5, 5, room())).toBe(false);
    expect(shouldAddRound(true, 0, 5, room({ inPart: false }))).toBe(false);
  });
  it('a block with no clean round and no extra one yet: one round beyond its part, within the share, and no second', () => {
    expect(shouldAddRound(true, 0, 2, room({ inPart: false, cleanRoundSoFar: false }))).toBe(true);
    expect(shouldAddRound(true, 1, 2, room({ inPart: false, cleanRoundSoFar: false }))).toBe(false);
    expect(shouldAddRound(true, 0, 2, room({ inPart: false, inShare: false, cleanRoundSoFar: false }))).toBe(false);
  });
});

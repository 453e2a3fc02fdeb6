// Variance components and Kalibera & Jones's rounds and blocks (analysis/components.ts), against
// hand-computed values. No process starts here.
import { describe, expect, it } from 'vitest';
import { blocksAhead, blocksForPrecision, optimalRounds, varianceComponents } from '../src/index.js';

describe('varianceComponents', () => {
  it('splits a hand-computed two-group example into between and within SDs', () => {
    // g1 = [1, 2, 3] (mean 2), g2 = [6, 8] (mean 7).
    // within: SS = (1 + 0 + 1) + (1 + 1) = 4 on df = 2 + 1 = 3 → σ²_w = 4/3, σ_w = √(4/3) ≈ 1.1547
    // group means 2 and 7, grand 4.5: var of means = (2.5² + 2.5²)/(2 − 1) = 12.5
    // harmonic mean of sizes n_H = 2 / (1/3 + 1/2) = 2.4; σ²_w / n_H = (4/3)/2.4 = 5/9
    // σ²_b = 12.5 − 5/9 = 107.5/9 ≈ 11.944, σ_b ≈ 3.4561
    const vc = varianceComponents([
      [1, 2, 3],
      [6, 8],
    ]);
    expect(vc.within).toBeCloseTo(Math.sqrt(4 / 3), 10);
    expect(vc.between).toBeCloseTo(Math.sqrt(107.5 / 9), 10);
    expect(vc.between).toBeCloseTo(3.4561, 4);
  });

  it('clamps the between component at zero when the means agree better than the rounds explain', () => {
    // Both means 5: var of means 0 − (within / n_H) < 0 → 0.
    expect(
      varianceComponents([
        [0, 10],
        [1, 9],
      ]).between,
    ).toBe(0);
  });

  it('has no between component for one group; no within component without degrees of freedom', () => {
    expect(varianceComponents([[1, 2, 3]])).toEqual({ between: null, within: 1 });
    expect(varianceComponents([[1, 2, 3], []])).toEqual({ between: null, within: 1 });
    expect(varianceComponents([[4], [6]]).within).toBeNull();
    // Two singletons: var of means 2, nothing subtracted → between √2.
    expect(varianceComponents([[4], [6]]).between).toBeCloseTo(Math.SQRT2, 12);
  });
});

describe('optimalRounds (Kalibera & Jones) and blocksForPrecision', () => {
  const limits = { min: 2, max: 20 };
  it('n* = sqrt(c_block/c_round · σ²_w/σ²_b), clamped to the limits', () => {
    // sqrt(8/2 · 0.1²/0.05²) = sqrt(4 · 4) = 4
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0.05, within: 0.1 }, limits)).toBe(4);
    // sqrt(10/1 · 0.1²/0.01²) = sqrt(1000) ≈ 31.6 → max 20
    expect(optimalRounds({ blockSec: 10, roundSec: 1 }, { between: 0.01, within: 0.1 }, limits)).toBe(20);
    // sqrt(1/1 · 0.01²/0.1²) = 0.1 → min 2
    expect(optimalRounds({ blockSec: 1, roundSec: 1 }, { between: 0.1, within: 0.01 }, limits)).toBe(2);
  });
  it('without a measurable between-block SD, more rounds are always cheaper; without a within SD, the minimum', () => {
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0, within: 0.1 }, limits)).toBe(20);
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: null, within: 0.1 }, limits)).toBe(20);
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0.1, within: null }, limits)).toBe(2);
    expect(optimalRounds({ blockSec: 8, roundSec: 2 }, { between: 0.1, within: 0 }, limits)).toBe(2);
  });
  it('blocks so that t(0.975, B − 1) · sqrt(σ²_b/B + σ²_w/(B·n)) ≤ precision, as the intervals are computed', () => {
    // v = 0.02² + 0.1²/4 = 0.0029; v/p² = 7.25: B = 30 needs t(29)² = 4.182 · 7.25 = 30.3 > 30; B = 31: t(30)² = 4.171 · 7.25 = 30.2 ≤ 31
    expect(blocksForPrecision({ between: 0.02, within: 0.1 }, 4, 0.02)).toBe(31);
    // v = 0.1²/10 = 0.001: B = 4 gives 3.182 · sqrt(0.00025) = 0.0503 > 0.05; B = 5 gives 2.776 · sqrt(0.0002) = 0.0393
    expect(blocksForPrecision({ between: null, within: 0.1 }, 10, 0.05)).toBe(5);
    expect(blocksForPrecision({ between: 0, within: 0 }, 10, 0.02)).toBe(1);
  });
});

describe('blocksAhead: blocks before rounds', () => {
  const c = { blockSec: 5, roundSec: 5 };
  it('plans as many blocks as fit the time left at the minimum of rounds', () => {
    // A minimum block: 5 + 3 · 5 = 20 s. 100 s → 5 blocks; 59 s → 2; 20 s → 1.
    expect(blocksAhead(c, { leftSec: 100, minRounds: 3, blocksLeft: 10 })).toBe(5);
    expect(blocksAhead(c, { leftSec: 59, minRounds: 3, blocksLeft: 10 })).toBe(2);
    expect(blocksAhead(c, { leftSec: 20, minRounds: 3, blocksLeft: 10 })).toBe(1);
  });
  it('at least one, at most the blocks left under the maximum', () => {
    expect(blocksAhead(c, { leftSec: 5, minRounds: 3, blocksLeft: 10 })).toBe(1);
    expect(blocksAhead(c, { leftSec: 1000, minRounds: 3, blocksLeft: 4 })).toBe(4);
    expect(blocksAhead({ blockSec: 0, roundSec: 0 }, { leftSec: 10, minRounds: 3, blocksLeft: 7 })).toBe(7);
  });
});

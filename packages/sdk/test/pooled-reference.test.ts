// A ratio to the reference in a run with the A/A control divides by the geometric mean of the
// reference's two processes in each round (`WindowIndex.referenceSide`, `POOLED_REFERENCE`): by hand,
// and its intervals by simulation against the reference alone.
import { describe, expect, it } from 'vitest';
import { estimate, twinOf, WindowIndex, type EstimatorOptions, type WindowRecord } from '../src/index.js';
import { ratioGroups } from '../src/analysis/summarize.js';
import { mulberry32, normalDraw } from '../src/random.js';
import { okWindow } from './_helpers.js';

const twin = twinOf('r');
const w = (target: string, rps: number, round = 1): WindowRecord => okWindow({ scenario: 's', target, block: 1, round, rps });
const ratio = (t: { rps: number }, r: { rps: number }) => t.rps / r.rps;

describe('the reference’s side of a ratio', () => {
  it('is the geometric mean of the reference and its twin for a target, by hand', () => {
    const index = new WindowIndex([w('a', 300), w('r', 200), w(twin, 450)]);
    // 300 ÷ √(200 · 450) = 300 ÷ 300 = 1.
    expect(index.pairedRound('s', 1, 1, 'a', 'r', ratio)).toBeCloseTo(1, 12);
  });

  it('is the reference alone for the twin’s own ratio, the A/A figure', () => {
    const index = new WindowIndex([w('a', 300), w('r', 200), w(twin, 450)]);
    expect(index.pairedRound('s', 1, 1, twin, 'r', ratio)).toBe(450 / 200);
    expect(ratioGroups([w('r', 200), w(twin, 450)], 's', twin, 'r')).toEqual([[450 / 200]]);
  });

  it('is the reference alone without a twin, bit for bit, and the twin alone in a round the reference has no usable window', () => {
    expect(new WindowIndex([w('a', 123.456), w('r', 789.123)]).pairedRound('s', 1, 1, 'a', 'r', ratio)).toBe(123.456 / 789.123);
    const index = new WindowIndex([w('a', 300, 1), w('r', 200, 1), w(twin, 450, 1), w('a', 300, 2), w(twin, 600, 2)]);
    expect(index.pairedRound('s', 1, 2, 'a', 'r', ratio)).toBeCloseTo(0.5, 12);
  });

  it('takes every process of both sides with replicas: the target’s geometric mean ÷ that of the reference’s and the twin’s', () => {
    const index = new WindowIndex([w('a', 100), w('a~2', 400), w('r', 100), w('r~2', 400), w(twin, 1600)]);
    // √(100 · 400) = 200; (100 · 400 · 1600)^(1/3) = 400 → 0.5.
    expect(index.pairedRound('s', 1, 1, 'a', 'r', ratio)).toBeCloseTo(0.5, 12);
  });
});

/**
 * One simulated pair with the A/A control: per block a fresh process of the target, the reference
 * and the twin, each its own level (SD `proc`), every window its own noise (SD `within`); the
 * target's true ratio is `truth`.
 */
function simulate(rnd: () => number, blocks: number, rounds: number, proc: number, within: number, truth: number): WindowRecord[] {
  const normal = () => normalDraw(rnd);
  const windows: WindowRecord[] = [];
  for (let b = 1; b <= blocks; b++) {
    for (const [name, base] of [
      ['t', 1000 * truth],
      ['r', 1000],
      [twin, 1000],
    ] as const) {
      const level = proc * normal();
      for (let r = 1; r <= rounds; r++) windows.push(okWindow({ scenario: 's', target: name, block: b, round: r, rps: base * Math.exp(level + within * normal()) }));
    }
  }
  return windows;
}

const est = (seed: number): EstimatorOptions => ({ reference: 'r', precision: 0.02, practicalBand: 0.01, bootstrapResamples: 200, confidence: 0.95, seed });

describe('ratios to the reference and its twin, by simulation (process SD 0.06 per process, window SD 0.07, 2 rounds)', () => {
  for (const blocks of [3, 5]) {
    it(`hold the true ratio in at least 95% of 1000 runs at ${blocks} blocks, and are narrower than to the reference alone`, { timeout: 120_000 }, () => {
      const rnd = mulberry32(7300 + blocks);
      let hits = 0;
      let pooledWidth = 0;
      let aloneWidth = 0;
      for (let run = 0; run < 1000; run++) {
        const windows = simulate(rnd, blocks, 2, 0.06, 0.07, 0.8);
        const pooled = estimate(ratioGroups(windows, 's', 't', 'r'), est(run), ['pooled', blocks], 'sim');
        const alone = estimate(
          ratioGroups(
            windows.filter((x) => x.target !== twin),
            's',
            't',
            'r',
          ),
          est(run),
          ['alone', blocks],
          'sim',
        );
        if (pooled.ci95 && pooled.ci95[0] <= 0.8 && 0.8 <= pooled.ci95[1]) hits++;
        pooledWidth += pooled.halfWidth!;
        aloneWidth += alone.halfWidth!;
      }
      expect(hits / 1000).toBeGreaterThanOrEqual(0.95);
      // Variance 1.5 units against 2 (the target's one process, half of each reference process): √0.75 = 0.87.
      expect(pooledWidth / aloneWidth).toBeLessThan(0.92);
      expect(pooledWidth / aloneWidth).toBeGreaterThan(0.8);
    });
  }
});

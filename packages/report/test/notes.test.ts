// The sentences about verdicts (notes.ts), on fixed verdicts from the SDK's estimators.
import { DEFAULTS, pairVerdict, runVerdict, type VerdictBand } from '@benchsuite/sdk';
import { describe, expect, it } from 'vitest';
import { budgetTexts, noteText, pairVerdictText } from '../src/notes.js';

describe('verdict sentences', () => {
  it("a pair's verdict: its word, then the blocks' and the windows' CoV", () => {
    const v = pairVerdict(
      [
        [0.9, 0.98, 1.5],
        [1.02, 0.5, 1.1],
      ],
      0.06,
      DEFAULTS.covBands,
    )!;
    expect(pairVerdictText(v)).toBe('Excellent (blocks 2.8%, windows 6.0%)');
    expect(pairVerdictText(null)).toBe('—');
  });

  it("the run's verdict says the share of pairs in each band, and what to do from the worst band present", () => {
    const run = (bands: VerdictBand[]) => noteText({ kind: 'run-verdict', verdict: runVerdict(bands, 0.9)!, bands: DEFAULTS.covBands });
    const n = (k: number, b: VerdictBand) => Array<VerdictBand>(k).fill(b);
    expect(run([...n(9, 'excellent'), 'noisy'])).toBe(
      'Excellent — of 10 pairs, 9 Excellent (90%), 1 Noisy (10%); that pair varied by 5%–10% between blocks: read its figures with their intervals; a larger --budget narrows them',
    );
    expect(run([...n(3, 'excellent'), 'acceptable'])).toBe(
      'Acceptable — of 4 pairs, 3 Excellent (75%), 1 Acceptable (25%); every pair varied by under 5% between blocks: the figures compare as they are',
    );
    expect(run([...n(40, 'excellent'), ...n(10, 'noisy'), ...n(4, 'unreliable')])).toBe(
      'Noisy — of 54 pairs, 40 Excellent (74%), 10 Noisy (19%), 4 Unreliable (7%); those 4 varied by more than 10% between blocks: trust their places only where the ranking gives a single rank, and rerun their scenarios with a larger --budget (more blocks), on a quieter host, before publishing them',
    );
    expect(noteText({ kind: 'run-verdict', verdict: null, bands: DEFAULTS.covBands })).toBe('no pair had a figure to judge');
  });
});

describe('resume sentence', () => {
  it('says what was replayed and the plan the run continues with', () => {
    const text = noteText({
      kind: 'resume',
      dir: '/tmp/run',
      replayed: { windows: 11, blocks: 1, checks: 0, costs: 2 },
      seed: 7,
      driver: 'wrk',
      overrides: { connections: 10 },
      verify: false,
      pinning: true,
      costs: true,
    });
    expect(text).toBe(
      'resume: replaying 11 windows, 1 block, 0 checks and 2 cost figures from /tmp/run; continuing with seed 7, driver wrk, overrides {"connections":10}, verify off, pinning on, costs on',
    );
  });
});

describe('budget plan sentences', () => {
  it('words each recorded change with its cost, and the overrun with the budget to give', () => {
    const texts = budgetTexts(
      {
        minimumSec: 1000,
        givenMinimumSec: 1900,
        changes: [
          { what: 'rounds', from: 5, to: 3 },
          { what: 'warmup', from: 4, to: 2 },
          { what: 'blocks', from: 2, to: 1 },
        ],
        overBySec: 400,
      },
      600,
    );
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(
      /^the minimum design \(about 31 min 40 s\) does not fit the 10 min 00 s budget: rounds per block start at 3 instead of 5 .*; warm-up stops at 2 s instead of 4 s .*; 1 block of fresh processes at least instead of 2 /,
    );
    expect(texts[1]).toBe('even the smallest design needs about 16 min 40 s, 6 min 40 s over the 10 min 00 s budget: the run will overrun it; give --budget 17m or fewer scenarios or targets');
  });
  it('says nothing when the design fit, and keeps the sentence an older result recorded', () => {
    expect(budgetTexts({ minimumSec: 100, givenMinimumSec: 100, changes: [], overBySec: 0 }, 600)).toEqual([]);
    expect(budgetTexts({ minimumSec: 100, givenMinimumSec: 700, changes: ['rounds per block start at 3 instead of 5'], overBySec: 0 }, 600)[0]).toMatch(
      /budget: rounds per block start at 3 instead of 5$/,
    );
  });
});

describe('a change made during the run', () => {
  it('is said apart from the changes made before it, with when and for which scenario', () => {
    const texts = budgetTexts(
      {
        minimumSec: 1000,
        givenMinimumSec: 1240,
        changes: [
          { what: 'rounds', from: 5, to: 3 },
          { what: 'warmup', from: 4, to: 2, atSec: 642, scenario: 'concurrency-ramp' },
        ],
        overBySec: 0,
      },
      1080,
    );
    expect(texts).toHaveLength(2);
    expect(texts[0]).toMatch(/does not fit the 18 min 00 s budget: rounds per block start at 3 instead of 5 \([^)]*\)$/);
    expect(texts[1]).toBe(
      "from 10 min 42 s on, warm-up stops at 2 s instead of 4 s (a server still speeding up then is measured as it is): concurrency-ramp's blocks took longer than planned, and without it that scenario would have stopped below its minimum of blocks",
    );
  });
});

describe('step failures', () => {
  it('names where the step failed, what it was and that the run goes on', () => {
    expect(noteText({ kind: 'step-failed', step: 'capacity', scenario: 'baseline', target: 'koa', block: 2, message: 'server exited' })).toBe(
      'baseline × koa block 2: the capacity search failed, the run goes on without it: server exited',
    );
    expect(noteText({ kind: 'step-failed', step: 'costs', target: 'express', message: 'timeout' })).toBe('express: the cost figures (startup, memory) failed, the run goes on without it: timeout');
  });
});

describe('a share beside its threshold', () => {
  it('reads apart from the threshold it was judged against: as many decimals as that takes (a run said "97% (under 97%)")', () => {
    const text = noteText({ kind: 'loader-bound', windows: 1, of: 8, share: 0.9671, busiest: 0.8004, cores: 1, serverShare: 0.97, loaderBusy: 0.8 });
    expect(text).toContain('its process tree used 96.7% of its 1 core (under 97.0%)');
    expect(text).toContain('the busiest loader core was at 80.04% (over 80.00%)');
    expect(noteText({ kind: 'client-bound', windows: 2, of: 8, busiest: 0.95, threshold: 0.9 })).toContain('busiest loader core 95%, over 90%');
  });
});

describe('design-bias sentence', () => {
  const bias = (pairs: Array<{ onRatio: number; ci95?: [number, number] | null; n?: number; flagged: boolean }>) =>
    noteText({
      kind: 'design-bias',
      bias: {
        flag: 0.01,
        roundOne: { overall: { point: 0.996, ci95: [0.981, 1.011], n: 12 }, overallOver: 'blocks', pairs: [] },
        slotHalves: {
          targets: [
            { scenario: 'baseline', target: 'node-http', firstHalf: { point: 0.94, ci95: [0.92, 0.96], n: 6 }, flagged: true },
            { scenario: 'baseline', target: 'koa', firstHalf: { point: 0.9, ci95: [0.88, 0.92], n: 6 }, flagged: true },
          ],
          pairs: pairs.map((p) => ({ scenario: 'baseline', target: 'koa', ...p })),
        },
      },
    });

  it('says a flagged pair’s switch cost with its interval, and a result from before the interval without one', () => {
    expect(bias([{ onRatio: 0.979, ci95: [0.968, 0.99], n: 6, flagged: true }])).toBe(
      "round 1 ÷ the block's later rounds 0.996 [0.981, 1.011] (the pairs' ratios to the reference, mean over 12 blocks); a slot's first half ÷ its second 0.900–0.940 by target, a factor of 0.979 on the ratios; flagged (beyond ±1%, the interval excluding 1): koa/baseline slots ×0.979 [0.968, 0.990]",
    );
    expect(bias([{ onRatio: 0.979, flagged: true }])).toMatch(/koa\/baseline slots ×0\.979$/);
    expect(bias([{ onRatio: 0.995, ci95: [0.97, 1.02], flagged: false }])).toMatch(/; no pair beyond ±1%$/);
  });

  it('says more than three flagged switch costs in one clause, with their range and every pair named', () => {
    const four = [0.979, 1.081, 0.939, 1.032].map((onRatio) => ({ onRatio, ci95: [onRatio - 0.01, onRatio + 0.01] as [number, number], n: 6, flagged: true }));
    const text = bias([...four, { onRatio: 0.995, ci95: [0.97, 1.02], flagged: false }]);
    expect(text).toMatch(
      /flagged \(beyond ±1%, the interval excluding 1\): slots of 4 pairs, ×0\.939–×1\.081 \(koa\/baseline, koa\/baseline, koa\/baseline, koa\/baseline; each with its interval in results\.json, designBias\.slotHalves\)$/,
    );
    expect(bias(four.slice(0, 3))).toMatch(/koa\/baseline slots ×0\.979 \[0\.969, 0\.989\], koa\/baseline slots ×1\.081 \[1\.071, 1\.091\], koa\/baseline slots ×0\.939 \[0\.929, 0\.949\]$/);
  });
});

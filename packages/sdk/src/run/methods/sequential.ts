import { oneAfterAnotherSec } from '../../analysis/round-cost.js';
import { unrecordedWindows } from '../unrecorded.js';
import { measureWindow } from '../window.js';
import type { RoundMethod, WindowOutcome } from './method.js';

/**
 * One window after another: each target of a round loaded alone for its window (`measureWindow`),
 * in the round's seeded order. It measures any load with any driver, so it is also the run's
 * fallback (`fallbackMethod`): for a driver that cannot run the design's method, a load that method
 * does not measure, and a round of one target.
 */
export const sequential: RoundMethod = {
  runsOn: () => true,
  measures: () => true,
  plannedSettleSec: (windowSettleSec) => windowSettleSec,
  roundSec: oneAfterAnotherSec,
  /**
   * Within 0.10–0.35 in the default runs of 2026-11-26 on the project's 2-vCPU VM (0.24 the
   * newcomer's run) and 0.53 in the noisy hour of `npm run bench:slices` (docs/measurements.md);
   * between blocks the design's (`priorBetween`, analysis/forecast.ts).
   */
  prior: { within: 0.24 },
  sentences: {
    help: 'one window per target after another',
    design: 'every target once per round in a seeded random order',
    forecast: 'sequential',
    sideBySide: 'every round measures each target once for a short window, in a seeded random order',
    rounds: () => 'one window per target after another, in a seeded order per round',
  },
  async warmRound(ctx, items, windowSec) {
    const out = await unrecordedWindows(ctx, items, windowSec);
    for (const [i, x] of out.entries()) if (typeof x === 'number') ctx.saw(items[i]!.target, x);
    return out;
  },
  async measureRound(ctx, items, onWindow) {
    for (const [i, item] of items.entries()) {
      if (ctx.signal.aborted) return;
      const startedAt = ctx.date().toISOString();
      let outcome: WindowOutcome;
      try {
        const figures = await measureWindow(ctx, item.target, item.spec);
        ctx.saw(item.target, figures.steps[0]!.rps);
        outcome = { startedAt, figures };
      } catch (error) {
        outcome = { startedAt, error };
      }
      onWindow(i, outcome);
    }
  },
};

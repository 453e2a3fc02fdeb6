/** Why a scenario stops adding blocks, decided after each block from the figures so far. */
export type StopDecision = 'continue' | 'precision' | 'budget' | 'max-blocks';

export interface StopState {
  /** Blocks finished for this scenario. */
  blocks: number;
  /** Relative half-widths of every headline figure of the scenario (null: not estimable yet). */
  halfWidths: readonly (number | null)[];
  /** Seconds of budget left for this scenario (its share of what remains of the run's budget). */
  budgetLeftSec: number;
  /** Predicted seconds of one more block. */
  nextBlockSec: number;
  /**
   * Seconds of the whole run's budget left once the minimum of the scenarios still to come is set
   * aside. Below the minimum of blocks it replaces `budgetLeftSec` (the planner fitted every
   * scenario's minimum to the budget; a scenario's even share is for blocks beyond it); beyond the
   * minimum a block must fit both, so no scenario takes a later one's minimum. Absent: no limit.
   */
  minimumBudgetLeftSec?: number;
}

export interface StopRule {
  precision: number;
  blocks: { min: number; max: number };
}

/**
 * The stopping rule, fixed in advance: after at least one block, stop when the next block would not
 * fit the budget (a budget is kept even below the minimum of blocks: the planner fitted the minimum
 * to it, and a slower host than planned must not overrun it); from the minimum of blocks on, stop
 * when every headline figure's interval is within the precision target or the maximum of blocks is
 * reached. It never looks at significance.
 */
export function decideStop(s: StopState, rule: StopRule): StopDecision {
  if (s.blocks < 1) return 'continue';
  if (s.blocks < rule.blocks.min) return s.nextBlockSec > (s.minimumBudgetLeftSec ?? s.budgetLeftSec) ? 'budget' : 'continue';
  const ready = s.halfWidths.length > 0 && s.halfWidths.every((h) => h !== null && h <= rule.precision);
  if (ready) return 'precision';
  if (s.blocks >= rule.blocks.max) return 'max-blocks';
  // A block beyond the minimum fits the scenario's share and leaves the later scenarios' minimum.
  if (s.nextBlockSec > Math.min(s.budgetLeftSec, s.minimumBudgetLeftSec ?? Number.POSITIVE_INFINITY)) return 'budget';
  return 'continue';
}

/**
 * The share of the remaining budget a scenario may use: remaining ÷ scenarios left, weighted by
 * the scenario's cost per round (a stepped load measures several windows per round). Time a
 * scenario leaves unused flows to the next.
 */
export function scenarioBudget(remainingSec: number, weights: readonly number[], index: number): number {
  const rest = weights.slice(index).reduce((a, b) => a + b, 0);
  return rest > 0 ? (remainingSec * weights[index]!) / rest : 0;
}

/**
 * The planner's third lever, pulled during the run: a scenario below its minimum of blocks whose
 * next block does not fit (measured blocks took longer than planned, e.g. windows lengthened for
 * slow answers) may still reach its minimum when every target's warm-up stops at its minimum from
 * now on, here and in the later scenarios' reserved minimum. True when the block then fits.
 */
export function fitsWithShorterWarmups(s: {
  /** Predicted seconds of the next block, from this scenario's blocks so far (their warm-ups included). */
  nextBlockSec: number;
  /** Targets warmed in a block. */
  targets: number;
  /** Seconds of the run's budget left. */
  leftSec: number;
  /** The later scenarios' minimum with warm-ups at their minimum. */
  shortReserveSec: number;
  warmup: { minSec: number; maxSec: number };
}): boolean {
  if (s.warmup.maxSec <= s.warmup.minSec) return false;
  const saved = s.targets * (s.warmup.maxSec - s.warmup.minSec);
  return s.nextBlockSec - saved <= s.leftSec - s.shortReserveSec;
}

import type { BlockRecord, WindowRecord } from '../result-schema.js';
import { estimate, RATIO_METHOD, ratioGroups, WindowIndex, type EstimatorOptions } from './summarize.js';
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
  if (!blockBeyondMinimumFits(s)) return 'budget';
  return 'continue';
}

/** A block beyond the minimum fits the scenario's share and leaves the other scenarios' minimum. Pure. */
export function blockBeyondMinimumFits(s: Pick<StopState, 'nextBlockSec' | 'budgetLeftSec' | 'minimumBudgetLeftSec'>): boolean {
  return s.nextBlockSec <= Math.min(s.budgetLeftSec, s.minimumBudgetLeftSec ?? Number.POSITIVE_INFINITY);
}

/** A scenario still to measure, as `scenarioShares` reads it: its blocks done and what one more costs. */
export interface ScenarioAhead {
  /** Seconds of one more block at the minimum of rounds (measured for a scenario begun, priced for one to come). */
  blockSec: number;
  /** Complete blocks it has. */
  done: number;
}

/**
 * Processes per scenario: the blocks each scenario still measuring gets from here, and the part of
 * the time left that is its to spend (the first is the scenario whose block comes next, the others
 * the rest still measuring). Blocks before rounds across scenarios, as within one: every scenario is brought
 * to the highest common number of blocks the time left buys (`level`, at most `maxBlocks`); what
 * is left then buys one more block each, the cheapest first, while it lasts; and what still remains
 * is shared by block cost, for rounds. A scenario's blocks decide its interval's degrees of freedom (t is 12.7
 * at 2 blocks, 4.3 at 3), so a block more for a scenario at the common level buys more than one
 * for a scenario above it. Shared by cost per round, fixed when a scenario began (until 2026-11-29),
 * a slow host's default run stopped six single-step scenarios at 2 blocks (their shares bought 2.6)
 * and gave what they left to the scenarios after them: the concurrency ramp took 3 (a third of the
 * run), and t on 1 degree of freedom set two thirds of the pairs' intervals:
 * ±55.4% over the 45 ratios. Pure.
 */
export function scenarioShares(leftSec: number, ahead: readonly ScenarioAhead[], maxBlocks: number): { level: number; blocks: number[]; shareSec: number[] } {
  const costTo = (level: number) => ahead.reduce((a, x) => a + Math.max(0, level - x.done) * x.blockSec, 0);
  let level = 0;
  while (level < maxBlocks && ahead.length && costTo(level + 1) <= leftSec) level++;
  const blocks = ahead.map((x) => Math.max(level, x.done));
  let spent = costTo(level);
  // The cheapest first: what is left gives as many scenarios as it can their block more.
  const byCost = [...ahead.keys()].sort((i, j) => ahead[i]!.blockSec - ahead[j]!.blockSec || i - j);
  for (const i of byCost) {
    const x = ahead[i]!;
    if (blocks[i] === level && level < maxBlocks && spent + x.blockSec <= leftSec) {
      blocks[i]!++;
      spent += x.blockSec;
    }
  }
  const rest = Math.max(0, leftSec - spent);
  const weight = ahead.reduce((a, x) => a + x.blockSec, 0);
  const shareSec = ahead.map((x, i) => (blocks[i]! - x.done) * x.blockSec + (weight > 0 ? (rest * x.blockSec) / weight : 0));
  return { level, blocks, shareSec };
}

/**
 * What a scenario to come is taken to cost, as a multiple of the planner's price of its block: the
 * largest measured ÷ priced of the scenarios begun (1 before any). Cautious: a scenario to come may
 * be priced as far below what it takes as the worst begun was (on a slow host the concurrency
 * ramp's blocks ran 2.0–2.5× their price, the single-step scenarios' 1.5–2.0×). Pure.
 */
export function paceOfBegun(measuredOverPriced: readonly number[]): number {
  return measuredOverPriced.length ? Math.max(...measuredOverPriced) : 1;
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

/** A scenario's complete blocks: one cut short by an interruption counts towards neither the minimum nor the maximum. */
export const completeBlocks = (blocks: readonly BlockRecord[], scenario: string): number => blocks.filter((x) => x.scenario === scenario && x.complete).length;

/** Each measured target's headline half-width now: relative to the reference, or its own req/s's when there is no reference to be relative to. */
export function headlineByTarget(scenario: string, names: readonly string[], windows: readonly WindowRecord[], o: EstimatorOptions): Map<string, number | null> {
  const index = new WindowIndex(windows);
  const measured = names.filter((n) => windows.some((w) => w.scenario === scenario && w.target === n && w.status === 'ok'));
  const hasRef = measured.includes(o.reference);
  const out = new Map<string, number | null>();
  for (const name of measured) {
    if (hasRef && name === o.reference) continue;
    if (hasRef) {
      out.set(name, estimate(ratioGroups(windows, scenario, name, o.reference, index), o, [scenario, name, 'ratio'], RATIO_METHOD).halfWidth);
    } else {
      const mine = windows.filter((w) => w.scenario === scenario && w.target === name && w.status === 'ok' && w.excluded === null);
      const blocks = [...new Set(mine.map((w) => w.block))];
      out.set(
        name,
        estimate(
          blocks.map((b) => mine.filter((w) => w.block === b).map((w) => (w.status === 'ok' ? w.rps : 0))),
          o,
          [scenario, name, 'rps'],
          RATIO_METHOD,
        ).halfWidth,
      );
    }
  }
  return out;
}

/**
 * Which scenarios go on to the next shared block, among those whose stopping rule said `continue`:
 * as many as fit the budget left with the block's start, those below the minimum of blocks first,
 * then the least precise (widest worst half-width; none yet counts as widest). Pure, so the rule is
 * tested on its own.
 */
export function fitNextBlock(c: ReadonlyArray<{ name: string; blocks: number; nextSec: number; worst: number | null }>, o: { leftSec: number; startSec: number; minBlocks: number }): Set<string> {
  const rank = (x: (typeof c)[number]) => [x.blocks < o.minBlocks ? 0 : 1, -(x.worst ?? Number.POSITIVE_INFINITY)] as const;
  const sorted = [...c].sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1]);
  const out = new Set<string>();
  let total = o.startSec;
  for (const x of sorted) {
    if (total + x.nextSec > o.leftSec) continue;
    out.add(x.name);
    total += x.nextSec;
  }
  return out;
}

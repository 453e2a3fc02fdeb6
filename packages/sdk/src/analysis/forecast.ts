import type { WindowRecord } from '../result-schema.js';
import { median } from './bootstrap.js';
import { normalQuantile, tQuantile } from './student-t.js';
import type { Grouped } from './bootstrap.js';
import { ratioGroups, WindowIndex } from './summarize.js';

/**
 * The noise of a pair's per-round log-ratio, split the way the interval sees it: `between`, the SD
 * of a block's true level around the pair's (processes differ); `within`, the robust SD of one
 * round around its block's level (the host, window by window). Both on the log scale (0.05 ≈ 5%).
 */
export interface NoiseComponents {
  between: number;
  within: number;
}

/** Median absolute deviation scaled to an SD under normal noise (1.4826): robust to the host's dips. */
const MAD_TO_SD = 1.4826;

/**
 * Components from a pair's grouped log-ratios (`groups[b]`: block b's rounds). `within` is the
 * pooled MAD of each round around its block's median (robust: one dip does not inflate it, and the
 * estimator is a median); `between` is what the spread of the block medians leaves once the
 * within-block part of a median of that many rounds is taken out (method of moments, never below 0;
 * 0 with one block). Pure.
 */
export function noiseComponents(groups: Grouped): NoiseComponents | undefined {
  const gs = groups.filter((g) => g.length > 0);
  const devs = gs.flatMap((g) => {
    const m = median(g);
    return g.length > 1 ? g.map((x) => Math.abs(x - m)) : [];
  });
  if (!devs.length) return undefined;
  const within = MAD_TO_SD * median(devs);
  if (gs.length < 2) return { between: 0, within };
  const meds = gs.map((g) => median(g));
  const mean = meds.reduce((a, b) => a + b, 0) / meds.length;
  const spread = meds.reduce((a, m) => a + (m - mean) ** 2, 0) / (meds.length - 1);
  const nH = gs.length / gs.reduce((a, g) => a + 1 / g.length, 0);
  return { between: Math.sqrt(Math.max(0, spread - medianVariance(within, nH))), within };
}

/** The variance of the median of n rounds of within-block SD `within` (π/2 · σ²/n, the median's large-sample efficiency). */
export const medianVariance = (within: number, rounds: number): number => ((Math.PI / 2) * within ** 2) / Math.max(1, rounds);

/**
 * The typical (median) relative half-width of a pair's 95% interval after `blocks` blocks of
 * `rounds` rounds: the estimator's t-interval on block medians (log scale, t with blocks − 1
 * degrees of freedom), whose SD of block medians comes out at its median, √(χ²(B−1) median ÷ (B−1))
 * of the true SD. One block: the bootstrap over rounds (normal quantile, no between-block part).
 */
export function expectedHalfWidth(c: NoiseComponents, blocks: number, rounds: number, confidence = 0.95): number {
  const q = 1 - (1 - confidence) / 2;
  if (blocks < 2) return Math.sinh(normalQuantile(q) * Math.sqrt(medianVariance(c.within, rounds)));
  const df = blocks - 1;
  const sdFactor = Math.sqrt(chiSquareMedian(df) / df);
  const se = (sdFactor * Math.sqrt(c.between ** 2 + medianVariance(c.within, rounds))) / Math.sqrt(blocks);
  return Math.sinh(tQuantile(q, df) * se);
}

/** Wilson–Hilferty's median of χ² with k degrees of freedom. */
const chiSquareMedian = (k: number): number => k * (1 - 2 / (9 * k)) ** 3;

/**
 * The SD between blocks a forecast uses after `blocks` blocks: the prior's and the measured one
 * pooled as variances, the prior counting as `priorDf` degrees of freedom and the run's as blocks − 1
 * (an SD read from 2 blocks is often near 0, and a forecast from it promised ±4.7% to a 6-minute
 * run that reached ±14.9%). Pure.
 */
export function pooledBetween(prior: number, measured: number, blocks: number, priorDf: number): number {
  const df = Math.max(0, blocks - 1);
  return Math.sqrt((priorDf * prior ** 2 + df * measured ** 2) / (priorDf + df));
}

/** What a design costs and allows: its wall seconds at a number of blocks and rounds per block, and the limits. */
export interface ForecastPlan {
  /** Wall seconds of the whole run with this many blocks of this many rounds (the budget planner's estimate). */
  costSec: (blocks: number, rounds: number) => number;
  blocks: { min: number; max: number };
  rounds: { min: number; max: number };
}

/** What a budget buys: the blocks and rounds the run's own rule picks (blocks before rounds), and the typical half-width then. */
export interface BudgetForecast {
  blocks: number;
  rounds: number;
  halfWidth: number;
}

/**
 * The blocks and rounds a budget buys, by the run's rule: as many blocks as fit at the minimum of
 * rounds (at least the minimum of blocks, at most the maximum), then as many rounds per block as
 * still fit; and the typical half-width then. Pure.
 */
export function forecastBudget(c: NoiseComponents, budgetSec: number, p: ForecastPlan): BudgetForecast {
  let blocks = p.blocks.min;
  while (blocks < p.blocks.max && p.costSec(blocks + 1, p.rounds.min) <= budgetSec) blocks++;
  let rounds = p.rounds.min;
  while (rounds < p.rounds.max && p.costSec(blocks, rounds + 1) <= budgetSec) rounds++;
  return { blocks, rounds, halfWidth: expectedHalfWidth(c, blocks, rounds) };
}

/**
 * The least budget whose forecast (by the run's own rule, `forecastBudget`) reaches `precision`, or
 * null when even the maximum of blocks and rounds does not. The candidates are the costs of every
 * design in the limits. Pure.
 */
export function budgetFor(c: NoiseComponents, precision: number, p: ForecastPlan): number | null {
  const candidates: number[] = [];
  for (let blocks = p.blocks.min; blocks <= p.blocks.max; blocks++) for (let rounds = p.rounds.min; rounds <= p.rounds.max; rounds++) candidates.push(p.costSec(blocks, rounds));
  candidates.sort((x, y) => x - y);
  return candidates.find((sec) => forecastBudget(c, sec, p).halfWidth <= precision) ?? null;
}

/** A typical pair's components: the median, over pairs, of each component. */
export function typicalComponents(all: readonly NoiseComponents[]): NoiseComponents | undefined {
  if (!all.length) return undefined;
  return { between: median(all.map((c) => c.between)), within: median(all.map((c) => c.within)) };
}

/** A pair's noise as measured: its components, and the blocks and rounds per block (median) it had. */
export interface PairNoise {
  scenario: string;
  target: string;
  components: NoiseComponents;
  blocks: number;
  rounds: number;
}

/**
 * Every relative pair's noise from a run's windows (those of blocks up to `maxBlock` when given):
 * the per-round log-ratios to the reference, grouped by block. Pure.
 */
export function pairNoise(windows: readonly WindowRecord[], pairs: ReadonlyArray<{ scenario: string; target: string }>, reference: string, maxBlock = Number.POSITIVE_INFINITY): PairNoise[] {
  const ws = Number.isFinite(maxBlock) ? windows.filter((w) => w.block <= maxBlock) : windows;
  const index = new WindowIndex(ws);
  return pairs.flatMap((p) => {
    if (p.target === reference) return [];
    const groups = ratioGroups(ws, p.scenario, p.target, reference, index)
      .map((g) => g.filter((x) => x > 0).map(Math.log))
      .filter((g) => g.length > 0);
    const components = noiseComponents(groups);
    return components ? [{ ...p, components, blocks: groups.length, rounds: median(groups.map((g) => g.length)) }] : [];
  });
}

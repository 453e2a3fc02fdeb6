import { tQuantile } from './student-t.js';
import type { Grouped } from './bootstrap.js';

/**
 * Variance components of grouped samples (one-way random effects, method of moments): the SD
 * between group means beyond what the within-group spread explains, and the pooled SD within
 * groups. Used on log-ratios: SDs are then relative (0.05 ≈ 5%).
 */
export function varianceComponents(groups: Grouped): { between: number | null; within: number | null } {
  const gs = groups.filter((g) => g.length > 0);
  let ss = 0;
  let df = 0;
  for (const g of gs) {
    const m = g.reduce((a, b) => a + b, 0) / g.length;
    for (const x of g) ss += (x - m) ** 2;
    df += g.length - 1;
  }
  const withinVar = df > 0 ? ss / df : null;
  const varMeans = meansVariance(gs);
  if (varMeans === null) return { between: null, within: withinVar === null ? null : Math.sqrt(withinVar) };
  // Harmonic mean of group sizes: the within-variance a block mean carries.
  const nH = gs.length / gs.reduce((a, g) => a + 1 / g.length, 0);
  const between = Math.max(0, varMeans - (withinVar ?? 0) / nH);
  return { between: Math.sqrt(between), within: withinVar === null ? null : Math.sqrt(withinVar) };
}

/** The sample variance of the means of grouped samples' non-empty groups; null below two such groups. */
export function meansVariance(groups: Grouped): number | null {
  const means = groups.filter((g) => g.length > 0).map((g) => g.reduce((a, b) => a + b, 0) / g.length);
  if (means.length < 2) return null;
  const grand = means.reduce((a, b) => a + b, 0) / means.length;
  return means.reduce((a, m) => a + (m - grand) ** 2, 0) / (means.length - 1);
}

/**
 * Rounds per block that minimise the cost of a given precision (Kalibera & Jones, ISMM 2013):
 * n* = sqrt((c_block / c_round) · (σ²_within / σ²_between)), clamped to [min, max]. Without a
 * measurable between-block variance, more rounds per block are always cheaper: the maximum.
 */
export function optimalRounds(c: { blockSec: number; roundSec: number }, sd: { between: number | null; within: number | null }, limits: { min: number; max: number }): number {
  if (sd.within === null || sd.within === 0) return limits.min;
  if (sd.between === null || sd.between === 0) return limits.max;
  const n = Math.sqrt((c.blockSec / Math.max(1e-9, c.roundSec)) * (sd.within ** 2 / sd.between ** 2));
  return Math.min(limits.max, Math.max(limits.min, Math.round(n)));
}

/**
 * How many more blocks to plan for: as many as fit the time left at the minimum of rounds (at least
 * 1, at most those left under the maximum of blocks). Rounds beyond the minimum come out of each
 * planned block's equal part of the time left, never out of a later block. With few blocks the
 * interval's t-quantile falls fast (4.30 at 3 blocks, 3.18 at 4, 2.78 at 5), so one more block
 * narrows it more than extra rounds in the last one, even where windows are noisier than
 * processes; and the optimum above reads σ_between from 2–3 blocks (1–2 degrees of freedom), often
 * as 0, which asks for the maximum of rounds. In a default run on a noisy host (SD of the
 * log-ratio 0.057 between blocks and 0.206 within, medians over 45 pairs) the expected median
 * half-width was ±36.5 % with 3 blocks of 3 rounds, ±28.5 % with 3 of 6, and ±23.4 % with 4 of 3,
 * which costs less than 3 of 6; that run had given its third block 12 and 20 rounds on two
 * scenarios, and no fourth block fitted.
 */
export function blocksAhead(c: { blockSec: number; roundSec: number }, o: { leftSec: number; minRounds: number; blocksLeft: number }): number {
  const minimumSec = c.blockSec + o.minRounds * c.roundSec;
  const fit = minimumSec > 0 ? Math.floor(o.leftSec / minimumSec) : o.blocksLeft;
  return Math.max(1, Math.min(o.blocksLeft, fit));
}

/**
 * Blocks needed so that the 95% interval of a grouped figure has relative half-width ≤ `precision`,
 * with the block-level t-interval the estimator uses (log-ratios): the smallest B ≥ 2 with
 * t(0.975, B − 1) · sqrt(σ²_b/B + σ²_w/(B·n)) ≤ precision; 1 without any variance.
 */
export function blocksForPrecision(sd: { between: number | null; within: number | null }, roundsPerBlock: number, precision: number, confidence = 0.95): number {
  const v = (sd.between ?? 0) ** 2 + (sd.within ?? 0) ** 2 / Math.max(1, roundsPerBlock);
  if (v === 0) return 1;
  const q = 1 - (1 - confidence) / 2;
  let b = 2;
  while (b < 100_000 && tQuantile(q, b - 1) * Math.sqrt(v / b) > precision) b++;
  return b;
}

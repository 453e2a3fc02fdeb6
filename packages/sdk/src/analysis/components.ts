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
  if (gs.length < 2) return { between: null, within: withinVar === null ? null : Math.sqrt(withinVar) };
  const means = gs.map((g) => g.reduce((a, b) => a + b, 0) / g.length);
  const grand = means.reduce((a, b) => a + b, 0) / means.length;
  const varMeans = means.reduce((a, m) => a + (m - grand) ** 2, 0) / (means.length - 1);
  // Harmonic mean of group sizes: the within-variance a block mean carries.
  const nH = gs.length / gs.reduce((a, g) => a + 1 / g.length, 0);
  const between = Math.max(0, varMeans - (withinVar ?? 0) / nH);
  return { between: Math.sqrt(between), within: withinVar === null ? null : Math.sqrt(withinVar) };
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

import { mulberry32 } from '../random.js';
import { tQuantile } from './student-t.js';

/** Samples grouped by block: `groups[b]` holds block b's per-round values. */
export type Grouped = readonly (readonly number[])[];

/** The q-quantile (0..1) of sorted values, linear interpolation between order statistics (type 7). */
export function quantileSorted(sorted: readonly number[], q: number): number {
  if (!sorted.length) return NaN;
  const h = (sorted.length - 1) * q;
  const lo = Math.floor(h);
  const hi = Math.ceil(h);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** Median (mean of the two middle values for an even count); NaN for no values. */
export function median(xs: readonly number[]): number {
  return quantileSorted(
    [...xs].sort((a, b) => a - b),
    0.5,
  );
}

export interface BootstrapOptions {
  resamples: number;
  seed: number;
  confidence: number;
}

/**
 * Two-level (hierarchical) percentile bootstrap of a statistic of pooled samples, after Kalibera &
 * Jones: each resample draws blocks with replacement, then rounds with replacement within every
 * drawn block, so variation between processes (blocks) and between windows (rounds) both reach the
 * interval. With a single block only rounds are resampled, and the interval then says nothing about
 * process-to-process variation (the summary reports the block count beside it).
 * Returns null when there are fewer than 2 samples in all.
 */
export function hierarchicalBootstrap(groups: Grouped, statistic: (xs: number[]) => number, o: BootstrapOptions): [number, number] | null {
  const gs = groups.filter((g) => g.length > 0);
  const total = gs.reduce((a, g) => a + g.length, 0);
  if (total < 2) return null;
  const rnd = mulberry32(o.seed);
  const pick = (n: number) => Math.floor(rnd() * n);
  const stats = new Float64Array(o.resamples);
  const buf: number[] = new Array(total);
  for (let r = 0; r < o.resamples; r++) {
    let k = 0;
    buf.length = 0;
    for (let b = 0; b < gs.length; b++) {
      const g = gs.length > 1 ? gs[pick(gs.length)]! : gs[b]!;
      for (let i = 0; i < g.length; i++) buf[k++] = g[pick(g.length)]!;
    }
    stats[r] = statistic(buf);
  }
  const sorted = Array.from(stats).sort((a, b) => a - b);
  const alpha = (1 - o.confidence) / 2;
  return [quantileSorted(sorted, alpha), quantileSorted(sorted, 1 - alpha)];
}

/**
 * Random-effects interval on the block level, for a figure estimated from 2 or more blocks: on the
 * log scale (linear when a value is not positive), the standard error of the point is the SD of the
 * per-block medians ÷ √blocks, and its quantile is Student's t with blocks − 1 degrees of freedom.
 * A percentile bootstrap over 2–3 blocks treats their spread as known and under-covers; the
 * t-quantile pays for estimating it from so few (12.7 for 2 blocks, 4.3 for 3, 2.8 for 5).
 * Returns null with fewer than 2 non-empty blocks.
 */
export function blockInterval(groups: Grouped, point: number, confidence: number): [number, number] | null {
  const gs = groups.filter((g) => g.length > 0);
  if (gs.length < 2 || !Number.isFinite(point)) return null;
  const positive = point > 0 && gs.every((g) => g.every((x) => x > 0));
  const f = positive ? Math.log : (x: number) => x;
  const meds = gs.map((g) => median(g.map(f)));
  const mean = meds.reduce((a, b) => a + b, 0) / meds.length;
  const variance = meds.reduce((a, m) => a + (m - mean) ** 2, 0) / (meds.length - 1);
  const se = Math.sqrt(variance / gs.length);
  const t = tQuantile(1 - (1 - confidence) / 2, gs.length - 1);
  const c = f(point);
  return positive ? [Math.exp(c - t * se), Math.exp(c + t * se)] : [c - t * se, c + t * se];
}

/** Relative half-width of an interval around its point: (hi − lo) / 2 / |point|. */
export function relativeHalfWidth(point: number, ci: readonly [number, number] | null): number | null {
  if (!ci || !Number.isFinite(point) || point === 0) return null;
  return (ci[1] - ci[0]) / 2 / Math.abs(point);
}

/** A stable 32-bit seed from a run seed and names (FNV-1a), so each figure's bootstrap is reproducible on its own. */
export function subSeed(seed: number, ...parts: Array<string | number>): number {
  let h = 0x811c9dc5 ^ (seed >>> 0);
  for (const ch of parts.join('\0')) {
    h ^= ch.charCodeAt(0);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

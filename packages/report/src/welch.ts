import tQuantile from '@stdlib/stats-base-dists-t-quantile';

/** A difference of means (head − base) with its Welch confidence interval. */
export interface WelchDifference {
  /** mean(head) − mean(base). */
  diff: number;
  /** Confidence interval of the difference; null when either side has fewer than 2 values. */
  ci: [number, number] | null;
  /** Welch–Satterthwaite degrees of freedom (null when untestable). */
  df: number | null;
  /** The interval excludes 0. */
  significant: boolean;
}

function meanVar(xs: readonly number[]): { n: number; mean: number; variance: number | null } {
  const n = xs.length;
  const mean = n ? xs.reduce((a, b) => a + b, 0) / n : Number.NaN;
  if (n < 2) return { n, mean, variance: null };
  let ss = 0;
  for (const x of xs) ss += (x - mean) ** 2;
  return { n, mean, variance: ss / (n - 1) };
}

/**
 * Two-sample difference of means with a Welch (unequal variances) confidence interval:
 * diff ± t(1 − α/2, df) · √(s²b/nb + s²h/nh), df by Welch–Satterthwaite.
 * - Fewer than 2 values on either side: no interval, never significant.
 * - Both variances zero: the interval collapses to the difference, significant when it is not 0.
 * @example welchDifference([100, 102, 98], [90, 91, 89]).significant // true
 */
export function welchDifference(base: readonly number[], head: readonly number[], confidence = 0.95): WelchDifference {
  const b = meanVar(base);
  const h = meanVar(head);
  const diff = h.mean - b.mean;
  if (b.variance === null || h.variance === null) return { diff, ci: null, df: null, significant: false };
  const qb = b.variance / b.n;
  const qh = h.variance / h.n;
  const se2 = qb + qh;
  if (se2 === 0) return { diff, ci: [diff, diff], df: b.n + h.n - 2, significant: diff !== 0 };
  const df = se2 ** 2 / (qb ** 2 / (b.n - 1) + qh ** 2 / (h.n - 1));
  const half = tQuantile(1 - (1 - confidence) / 2, df) * Math.sqrt(se2);
  const ci: [number, number] = [diff - half, diff + half];
  return { diff, ci, df, significant: ci[0] > 0 || ci[1] < 0 };
}

import tQuantile from '@stdlib/stats-base-dists-t-quantile';
import tCdf from '@stdlib/stats-base-dists-t-cdf';
import type { Ranking, SampleStats, Verdict } from './result-schema.js';

/**
 * Arithmetic mean; `NaN` for an empty list (there is no mean of nothing).
 * @example mean([10, 12, 14]) // 12
 */
export function mean(xs: readonly number[]): number {
  if (xs.length === 0) return Number.NaN;
  let sum = 0;
  for (const x of xs) sum += x;
  return sum / xs.length;
}

/** Sum of squared deviations from the mean. Two-pass: no catastrophic cancellation on large RPS values. */
function sumSquaredDeviations(xs: readonly number[], m: number): number {
  let ss = 0;
  for (const x of xs) ss += (x - m) ** 2;
  return ss;
}

/** Unbiased sample variance (n − 1); `null` for n < 2. */
function sampleVariance(xs: readonly number[]): number | null {
  if (xs.length < 2) return null;
  return sumSquaredDeviations(xs, mean(xs)) / (xs.length - 1);
}

/**
 * Sample standard deviation (divisor n − 1); `null` for fewer than 2 values.
 * @example sampleSd([10, 12, 14]) // 2
 */
export function sampleSd(xs: readonly number[]): number | null {
  const v = sampleVariance(xs);
  return v === null ? null : Math.sqrt(v);
}

/**
 * Coefficient of variation, sd / |mean|, as a fraction (0.031 = 3.1%).
 * `null` for fewer than 2 values or a zero mean. Divides by |mean| so it is never negative.
 * @example cov([10, 12, 14]) // 0.1666… (2 / 12)
 */
export function cov(xs: readonly number[]): number | null {
  const sd = sampleSd(xs);
  if (sd === null) return null;
  const m = mean(xs);
  return m === 0 ? null : sd / Math.abs(m);
}

/**
 * 95% confidence interval of the mean: mean ± t(0.975, n − 1) · sd / √n (Student t).
 * `null` for fewer than 2 values.
 * @example ci95([10, 12, 14]) // [7.0317…, 16.9683…]
 */
export function ci95(xs: readonly number[]): [number, number] | null {
  const sd = sampleSd(xs);
  if (sd === null) return null;
  const m = mean(xs);
  const half = tQuantile(0.975, xs.length - 1) * sd / Math.sqrt(xs.length);
  return [m - half, m + half];
}

/**
 * Mean, sd, CoV and 95% CI of one figure across trials, with the values kept.
 * With no values, `n` is 0 and `mean` is reported as 0 (the schema has no NaN); read `n` first.
 * @example sampleStats([10, 12, 14]) // { n: 3, mean: 12, sd: 2, cov: 0.1666…, ci95: [7.03…, 16.97…], values: [10, 12, 14] }
 */
export function sampleStats(xs: readonly number[]): SampleStats {
  return {
    n: xs.length,
    mean: xs.length === 0 ? 0 : mean(xs),
    sd: sampleSd(xs),
    cov: cov(xs),
    ci95: ci95(xs),
    values: [...xs],
  };
}

/**
 * Verdict on one CoV (a fraction). Each bound belongs to the bucket named with it:
 * - `excellent`: cov < 0.03
 * - `acceptable`: 0.03 ≤ cov ≤ 0.05
 * - `noisy`: 0.05 < cov ≤ 0.10
 * - `unreliable`: cov > 0.10
 * - `insufficient`: null (fewer than 2 values, or zero mean) or not a finite number.
 * @example verdictFromCov(0.03) // 'acceptable'
 */
export function verdictFromCov(c: number | null): Verdict {
  if (c === null || !Number.isFinite(c)) return 'insufficient';
  if (c < 0.03) return 'excellent';
  if (c <= 0.05) return 'acceptable';
  if (c <= 0.10) return 'noisy';
  return 'unreliable';
}

/**
 * Verdict on a (scenario, target) pair: the worse of its RPS and p99 CoVs.
 * `insufficient` when either is null, since a pair is only as trustworthy as its least-known figure.
 * @example pairVerdict(0.02, 0.06) // 'noisy'
 */
export function pairVerdict(covRps: number | null, covP99: number | null): Verdict {
  if (covRps === null || covP99 === null) return 'insufficient';
  return verdictFromCov(Math.max(covRps, covP99));
}

/** Overall verdict of a run. */
export type SuiteVerdict = 'clean' | 'acceptable' | 'noisy' | 'unreliable' | 'insufficient';

export interface SuiteVerdictResult {
  overall: SuiteVerdict;
  /** How many pairs got each verdict (every verdict is a key, 0 when absent). */
  counts: Record<Verdict, number>;
}

const verdictOrder = ['excellent', 'acceptable', 'noisy', 'unreliable'] as const;

/**
 * Overall verdict: the worst pair verdict, with `excellent` reported as `clean`.
 * `insufficient` pairs are ignored unless every pair is insufficient (or there are none):
 * they are counted in `counts`, where a reader sees them, but they do not make measured pairs less trustworthy.
 * @example suiteVerdict(['excellent', 'noisy', 'insufficient']).overall // 'noisy'
 */
export function suiteVerdict(verdicts: readonly Verdict[]): SuiteVerdictResult {
  const counts: Record<Verdict, number> = { excellent: 0, acceptable: 0, noisy: 0, unreliable: 0, insufficient: 0 };
  let worst = -1;
  for (const v of verdicts) {
    counts[v] += 1;
    if (v !== 'insufficient') worst = Math.max(worst, verdictOrder.indexOf(v));
  }
  const w = verdictOrder[worst];
  const overall: SuiteVerdict = w === undefined ? 'insufficient' : w === 'excellent' ? 'clean' : w;
  return { overall, counts };
}

/** Welch's t-test result; all null when either sample has fewer than 2 values (untestable). */
export type WelchTTestResult =
  | { t: number; df: number; p: number }
  | { t: null; df: null; p: null };

/**
 * Welch's two-sample t-test (unequal variances), two-sided.
 * t = (mean(a) − mean(b)) / √(s²a/na + s²b/nb); df by Welch–Satterthwaite; p = 2 · F(−|t|, df).
 * - Fewer than 2 values in either sample: nothing can be claimed, so t, df and p are null;
 *   callers treat that as "not significantly different".
 * - Both variances zero: Welch's df is 0/0, so df is reported as na + nb − 2; equal means give
 *   t = 0, p = 1, different means t = ±Infinity, p = 0 (exactly repeatable values that differ).
 * @example welchTTest([10, 12, 14], [16, 18, 20]) // { t: -3.674…, df: 4, p: 0.0213… }
 */
export function welchTTest(a: readonly number[], b: readonly number[]): WelchTTestResult {
  const va = sampleVariance(a);
  const vb = sampleVariance(b);
  if (va === null || vb === null) return { t: null, df: null, p: null };
  const diff = mean(a) - mean(b);
  const qa = va / a.length;
  const qb = vb / b.length;
  const se2 = qa + qb;
  if (se2 === 0) {
    const df = a.length + b.length - 2;
    return diff === 0 ? { t: 0, df, p: 1 } : { t: diff > 0 ? Infinity : -Infinity, df, p: 0 };
  }
  const t = diff / Math.sqrt(se2);
  const df = se2 ** 2 / (qa ** 2 / (a.length - 1) + qb ** 2 / (b.length - 1));
  // 2·F(−|t|) rather than 2·(1 − F(|t|)): keeps precision for tiny p.
  const p = Math.min(1, 2 * tCdf(-Math.abs(t), df));
  return { t, df, p };
}

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

/**
 * Two-sample difference of means with a Welch (unequal variances) confidence interval:
 * diff ± t(1 − α/2, df) · √(s²b/nb + s²h/nh), df by Welch–Satterthwaite.
 * - Fewer than 2 values on either side: no interval, never significant.
 * - Both variances zero: the interval collapses to the difference, significant when it is not 0.
 * @example welchDifference([100, 102, 98], [90, 91, 89]).significant // true
 */
export function welchDifference(base: readonly number[], head: readonly number[], confidence = 0.95): WelchDifference {
  const vb = sampleVariance(base);
  const vh = sampleVariance(head);
  const diff = mean(head) - mean(base);
  if (vb === null || vh === null) return { diff, ci: null, df: null, significant: false };
  const qb = vb / base.length;
  const qh = vh / head.length;
  const se2 = qb + qh;
  if (se2 === 0) return { diff, ci: [diff, diff], df: base.length + head.length - 2, significant: diff !== 0 };
  const df = se2 ** 2 / (qb ** 2 / (base.length - 1) + qh ** 2 / (head.length - 1));
  const half = tQuantile(1 - (1 - confidence) / 2, df) * Math.sqrt(se2);
  const ci: [number, number] = [diff - half, diff + half];
  return { diff, ci, df, significant: ci[0] > 0 || ci[1] < 0 };
}

/**
 * Holm–Bonferroni step-down adjustment, returned in the input order.
 * Sorted ascending, the k-th smallest (0-based) becomes (m − k) · p, made non-decreasing
 * along that order and capped at 1. Throws a RangeError on a value outside [0, 1].
 * @example holm([0.01, 0.04, 0.03]) // [0.03, 0.06, 0.06]
 */
export function holm(pValues: readonly number[]): number[] {
  for (const p of pValues) {
    if (!(p >= 0 && p <= 1)) throw new RangeError(`holm: p-value out of [0, 1]: ${p}`);
  }
  const m = pValues.length;
  const order = pValues.map((p, i) => ({ p, i })).sort((x, y) => x.p - y.p);
  const out = new Array<number>(m);
  let running = 0;
  order.forEach(({ p, i }, k) => {
    running = Math.max(running, Math.min(1, (m - k) * p));
    out[i] = running;
  });
  return out;
}

/** The text stored in `Ranking.method` for a given alpha. */
export function rankingMethod(alpha = 0.05): string {
  return `Welch's t-test, Holm-corrected over all pairs, alpha ${alpha}; dense places`;
}

/** `Ranking.method` for the default alpha: "Welch's t-test, Holm-corrected over all pairs, alpha 0.05; dense places". */
export const RANKING_METHOD = rankingMethod(0.05);

/** One target's per-trial values (RPS) to rank. */
export interface RankGroup {
  name: string;
  values: readonly number[];
}

/**
 * Places by mean RPS, where targets that are not significantly different share a place.
 * 1. Sort by mean, descending (equal means keep input order). Groups with no values have no mean and are left out.
 * 2. Welch's t-test on every pair; Holm-correct over all testable pairs. A pair where either side has
 *    fewer than 2 values is untestable: it is not in the Holm family and counts as not different,
 *    because with one value you cannot claim a difference (so n = 1 targets tie).
 * 3. Walk the sorted list: a target joins the current place unless it differs significantly
 *    (adjusted p < alpha) from that place's top member, in which case it opens the next place.
 * Places are dense: 1, 1, 2 (not competition-style 1, 1, 3).
 * @example rankWithTies([{ name: 'a', values: [1, 2, 3] }, { name: 'b', values: [9, 10, 11] }]) // [{ place: 1, targets: ['b'], meanRps: [10] }, { place: 2, targets: ['a'], meanRps: [2] }]
 */
export function rankWithTies(groups: readonly RankGroup[], alpha = 0.05): Ranking['places'] {
  const sorted = groups
    .filter((g) => g.values.length > 0)
    .map((g) => ({ name: g.name, values: g.values, mean: mean(g.values) }))
    .sort((x, y) => y.mean - x.mean);

  const n = sorted.length;
  const tested: { i: number; j: number; p: number }[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = i + 1; j < n; j++) {
      const { p } = welchTTest(sorted[i]!.values, sorted[j]!.values);
      if (p !== null) tested.push({ i, j, p });
    }
  }
  const adjusted = holm(tested.map((x) => x.p));
  const significant = new Set<string>();
  tested.forEach(({ i, j }, k) => {
    if (adjusted[k]! < alpha) significant.add(`${i},${j}`);
  });

  const places: Ranking['places'] = [];
  let top = -1;
  sorted.forEach((g, k) => {
    const current = places.at(-1);
    if (current === undefined || significant.has(`${top},${k}`)) {
      places.push({ place: places.length + 1, targets: [g.name], meanRps: [g.mean] });
      top = k;
    } else {
      current.targets.push(g.name);
      current.meanRps.push(g.mean);
    }
  });
  return places;
}

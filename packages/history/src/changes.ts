import { mulberry32, normalQuantile } from '@benchsuite/sdk';
import { eDivisive, segmentsOf } from './e-divisive.js';

/** Which way is better for a figure: more throughput, less CPU time or fewer instructions. */
export type Better = 'higher' | 'lower';

/** The change-point rule: E-Divisive's permutation test at `alpha`, then a minimum relative size. */
export interface ChangeRule {
  alpha: number;
  permutations: number;
  /** A change smaller than this (relative, 0.03 = 3%) is merged away, smallest first. */
  minMagnitude: number;
  /** …and so is a change with fewer runs than this on either side: one odd run is not a lasting level. */
  minSegment: number;
  /** Seed of the permutation test's shuffles (the same series gives the same answer). */
  seed: number;
}

/** A lasting shift between two neighbouring segments of a series. */
export interface SeriesChange {
  /** Index of the first point after the change. */
  index: number;
  /** First point of the segment before it, and one past the last of the segment after it. */
  before: [number, number];
  after: [number, number];
  /** Relative size: the Hodges–Lehmann shift of the logs as exp(shift) − 1 (0.05 = 5% higher), with its 95% interval (`stepSize`). */
  size: number;
  ci95: [number, number] | null;
  pValue: number;
  /** `worse` when the figure moved against `better`. */
  direction: 'better' | 'worse';
}

const median = (a: readonly number[]) => {
  const s = [...a].sort((x, y) => x - y);
  const mid = s.length >> 1;
  return s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
};

/**
 * Size of the step between two segments of log values: the Hodges–Lehmann shift (the median of
 * every difference after − before), as a relative change exp(shift) − 1, with its distribution-free
 * 95% interval from the Mann–Whitney order statistics (Hollander & Wolfe; normal approximation of
 * the critical count). Robust where a mean is not: one run whose JIT tier-up fell inside its count
 * moves a mean of few runs by a third of its own jump, and the median of differences hardly at all.
 * Null interval when the segments are too short for one at 95%.
 */
export function stepSize(before: readonly number[], after: readonly number[]): { size: number; ci95: [number, number] | null } {
  const n = before.length;
  const m = after.length;
  const diffs = new Float64Array(n * m);
  let k = 0;
  for (const b of before) for (const a of after) diffs[k++] = a - b;
  diffs.sort();
  const at = (i: number) => diffs[Math.min(diffs.length - 1, Math.max(0, i))]!;
  const mid = diffs.length / 2;
  const shift = diffs.length % 2 ? at(Math.floor(mid)) : (at(mid - 1) + at(mid)) / 2;
  // The interval's ends are the C-th smallest and largest differences.
  const c = Math.floor((n * m) / 2 - normalQuantile(0.975) * Math.sqrt((n * m * (n + m + 1)) / 12));
  const ci95: [number, number] | null = c >= 1 ? [Math.expm1(at(c - 1)), Math.expm1(at(n * m - c))] : null;
  return { size: Math.expm1(shift), ci95 };
}

function describe(logs: readonly number[], indices: readonly number[], pValues: ReadonlyMap<number, number>, better: Better): SeriesChange[] {
  const segs = segmentsOf(logs.length, indices);
  const out: SeriesChange[] = [];
  for (let i = 0; i + 1 < segs.length; i++) {
    const b = segs[i]!;
    const a = segs[i + 1]!;
    const { size, ci95 } = stepSize(logs.slice(b[0], b[1]), logs.slice(a[0], a[1]));
    out.push({ index: a[0], before: b, after: a, size, ci95, pValue: pValues.get(a[0]) ?? Number.NaN, direction: size > 0 === (better === 'higher') ? 'better' : 'worse' });
  }
  return out;
}

/**
 * Lasting shifts of a series of positive figures (one per run, in run order): E-Divisive means on
 * their logs (a ratio's noise is multiplicative), then changes smaller than `minMagnitude`, or with
 * fewer than `minSegment` runs on a side, merged away one at a time, smallest first, their
 * neighbours' sizes recomputed on the merged segments (as Otava's merge step does with its
 * magnitude floor).
 */
export function findChanges(values: readonly number[], better: Better, rule: ChangeRule): SeriesChange[] {
  const logs = values.map((v) => Math.log(v));
  if (logs.some((v) => !Number.isFinite(v))) throw new RangeError('findChanges: every value must be a positive finite number');
  const found = eDivisive(logs, { alpha: rule.alpha, permutations: rule.permutations, random: mulberry32(rule.seed), earlyStop: true });
  const pValues = new Map(found.map((c) => [c.index, c.pValue]));
  let indices = found.map((c) => c.index);
  for (;;) {
    const changes = describe(logs, indices, pValues, better);
    const weak = (c: SeriesChange) => Math.abs(c.size) < rule.minMagnitude || c.before[1] - c.before[0] < rule.minSegment || c.after[1] - c.after[0] < rule.minSegment;
    const smallest = changes.reduce<SeriesChange | null>((s, c) => (weak(c) && (!s || Math.abs(c.size) < Math.abs(s.size)) ? c : s), null);
    if (!smallest) return changes;
    indices = indices.filter((i) => i !== smallest.index);
  }
}

/** What the gate concluded about the newest point of a series. */
export type GateVerdict = { status: 'too-short'; have: number; need: number } | { status: 'pass'; changes: SeriesChange[] } | { status: 'regression'; change: SeriesChange; changes: SeriesChange[] };

/**
 * The gate: the same rule as `findChanges` on the recent runs followed by the new one (the last
 * value). A regression is the series' last change, in the worse direction, with the new run on its
 * worse side (nearer the later segment's median than the earlier one's): a lone noisy run cannot be
 * a lasting change by itself, and a step is flagged once enough runs after it make it significant.
 */
export function judgeNewest(values: readonly number[], better: Better, rule: ChangeRule & { minRuns: number }): GateVerdict {
  if (values.length < rule.minRuns) return { status: 'too-short', have: values.length, need: rule.minRuns };
  const changes = findChanges(values, better, rule);
  const last = changes.at(-1);
  if (last?.direction !== 'worse') return { status: 'pass', changes };
  const logs = values.map((v) => Math.log(v));
  const levelBefore = median(logs.slice(last.before[0], last.before[1]));
  const levelAfter = median(logs.slice(last.after[0], last.after[1]));
  const newest = logs.at(-1)!;
  const nearerAfter = Math.abs(newest - levelAfter) < Math.abs(newest - levelBefore);
  return nearerAfter ? { status: 'regression', change: last, changes } : { status: 'pass', changes };
}

import { mulberry32, tQuantile } from '@benchsuite/sdk';
import { eDivisive, segmentsOf } from './e-divisive.js';

/** Which way is better for a figure: more throughput, less CPU time or fewer instructions. */
export type Better = 'higher' | 'lower';

/** The change-point rule: E-Divisive's permutation test at `alpha`, then a minimum relative size. */
export interface ChangeRule {
  alpha: number;
  permutations: number;
  /** A change smaller than this (relative, 0.03 = 3%) is merged away, smallest first. */
  minMagnitude: number;
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
  /** Relative size: geometric mean after ÷ before − 1 (0.05 = 5% higher), with a 95% Welch interval on the logs. */
  size: number;
  ci95: [number, number] | null;
  pValue: number;
  /** `worse` when the figure moved against `better`. */
  direction: 'better' | 'worse';
}

const mean = (a: readonly number[]) => a.reduce((s, v) => s + v, 0) / a.length;
const variance = (a: readonly number[]) => {
  if (a.length < 2) return null;
  const m = mean(a);
  return a.reduce((s, v) => s + (v - m) ** 2, 0) / (a.length - 1);
};

/**
 * Size of the step between two segments of log values: exp(mean after − mean before) − 1, and a 95%
 * Welch t-interval (a segment of one point borrows the other's variance; null when neither has two).
 */
export function stepSize(before: readonly number[], after: readonly number[]): { size: number; ci95: [number, number] | null } {
  const d = mean(after) - mean(before);
  let va = variance(before);
  let vb = variance(after);
  va ??= vb;
  vb ??= va;
  if (va === null || vb === null) return { size: Math.expm1(d), ci95: null };
  const sa = va / before.length;
  const sb = vb / after.length;
  const se = Math.sqrt(sa + sb);
  if (!(se > 0)) return { size: Math.expm1(d), ci95: [Math.expm1(d), Math.expm1(d)] };
  const dfDen = (before.length > 1 ? sa ** 2 / (before.length - 1) : 0) + (after.length > 1 ? sb ** 2 / (after.length - 1) : 0);
  const df = dfDen > 0 ? (sa + sb) ** 2 / dfDen : Math.max(1, before.length + after.length - 2);
  const t = tQuantile(0.975, df);
  return { size: Math.expm1(d), ci95: [Math.expm1(d - t * se), Math.expm1(d + t * se)] };
}

function describe(logs: readonly number[], indices: readonly number[], pValues: ReadonlyMap<number, number>, better: Better): SeriesChange[] {
  const segs = segmentsOf(logs.length, indices);
  const out: SeriesChange[] = [];
  for (let i = 0; i + 1 < segs.length; i++) {
    const b = segs[i]!;
    const a = segs[i + 1]!;
    const { size, ci95 } = stepSize(logs.slice(b[0], b[1]), logs.slice(a[0], a[1]));
    out.push({ index: a[0], before: b, after: a, size, ci95, pValue: pValues.get(a[0]) ?? Number.NaN, direction: (size > 0) === (better === 'higher') ? 'better' : 'worse' });
  }
  return out;
}

/**
 * Lasting shifts of a series of positive figures (one per run, in run order): E-Divisive means on
 * their logs (a ratio's noise is multiplicative), then changes smaller than `minMagnitude` merged
 * away one at a time, smallest first, their neighbours' sizes recomputed on the merged segments
 * (as Otava's merge step does with its magnitude floor).
 */
export function findChanges(values: readonly number[], better: Better, rule: ChangeRule): SeriesChange[] {
  const logs = values.map((v) => Math.log(v));
  if (logs.some((v) => !Number.isFinite(v))) throw new RangeError('findChanges: every value must be a positive finite number');
  const found = eDivisive(logs, { alpha: rule.alpha, permutations: rule.permutations, random: mulberry32(rule.seed), earlyStop: true });
  const pValues = new Map(found.map((c) => [c.index, c.pValue]));
  let indices = found.map((c) => c.index);
  for (;;) {
    const changes = describe(logs, indices, pValues, better);
    const smallest = changes.reduce<SeriesChange | null>((s, c) => (Math.abs(c.size) < rule.minMagnitude && (!s || Math.abs(c.size) < Math.abs(s.size)) ? c : s), null);
    if (!smallest) return changes;
    indices = indices.filter((i) => i !== smallest.index);
  }
}

/** What the gate concluded about the newest point of a series. */
export type GateVerdict =
  | { status: 'too-short'; have: number; need: number }
  | { status: 'pass'; changes: SeriesChange[] }
  | { status: 'regression'; change: SeriesChange; changes: SeriesChange[] };

/**
 * The gate: the same rule as `findChanges` on the recent runs followed by the new one (the last
 * value). A regression is the series' last change, in the worse direction, with the new run on its
 * worse side (nearer the later segment's level than the earlier one's): a lone noisy run cannot be
 * a lasting change by itself, and a step is flagged once enough runs after it make it significant.
 */
export function judgeNewest(values: readonly number[], better: Better, rule: ChangeRule & { minRuns: number }): GateVerdict {
  if (values.length < rule.minRuns) return { status: 'too-short', have: values.length, need: rule.minRuns };
  const changes = findChanges(values, better, rule);
  const last = changes.at(-1);
  if (!last || last.direction !== 'worse') return { status: 'pass', changes };
  const logs = values.map((v) => Math.log(v));
  const levelBefore = mean(logs.slice(last.before[0], last.before[1]));
  const levelAfter = mean(logs.slice(last.after[0], last.after[1]));
  const newest = logs.at(-1)!;
  const nearerAfter = Math.abs(newest - levelAfter) < Math.abs(newest - levelBefore);
  return nearerAfter ? { status: 'regression', change: last, changes } : { status: 'pass', changes };
}

/**
 * E-Divisive means (Matteson & James, "A nonparametric approach for multiple change point analysis
 * of multivariate data", JASA 2014), as MongoDB's signal-processing-algorithms and Apache Otava's
 * `compute_change_points_orig` run it: the divergence statistic Q̂ (energy distance, α = 1) over
 * every split τ and right end κ of a segment, recursive bisection (the strongest candidate over all
 * current segments first), and a permutation test that shuffles within each current segment and
 * asks how often a shuffled series gives as large a Q̂. Pure functions, no I/O.
 */

/** A split the divergence statistic proposes: `index` is the first point of the later segment. */
export interface Candidate {
  index: number;
  qhat: number;
}

/** A change point the permutation test accepted. */
export interface DetectedChange extends Candidate {
  /** Permutation p-value: (1 + shuffles with Q̂ at least as large) ÷ (1 + shuffles). */
  pValue: number;
  /** Shuffles actually run (fewer when the test stopped early: the point could no longer pass). */
  permutations: number;
}

export interface EDivisiveOptions {
  /** Significance level of the permutation test. */
  alpha: number;
  /** Shuffles per test. */
  permutations: number;
  /** Seeded generator in [0, 1). */
  random: () => number;
  /**
   * Stop a test as soon as enough shuffles beat the candidate that it cannot pass (same decision,
   * inexact p-value for points that fail). Off when p-values are compared with another tool.
   */
  earlyStop?: boolean;
}

/** Segments [start, end) between sorted change points. */
export function segmentsOf(length: number, changes: readonly number[]): [number, number][] {
  const cuts = [0, ...changes, length];
  const out: [number, number][] = [];
  for (let i = 0; i + 1 < cuts.length; i++) if (cuts[i]! < cuts[i + 1]!) out.push([cuts[i]!, cuts[i + 1]!]);
  return out;
}

/**
 * The best split of `x[start, end)`: τ and κ with start < τ < κ ≤ end maximising
 * Q̂(X, Y) = 2/(m+n) Σ|X−Y| − 2m/((m+n)(n−1)) Σ_{i<k}|Xi−Xk| − 2n/((m+n)(m−1)) Σ_{j<k}|Yj−Yk|,
 * X = x[start, τ) (n points), Y = x[τ, κ) (m points); a within-sum term is 0 for a single point.
 * O(len²) from column prefix sums of the distance matrix. Null for a segment of fewer than 2 points.
 */
export function bestSplit(x: ArrayLike<number>, start: number, end: number): Candidate | null {
  const len = end - start;
  if (len < 2) return null;
  // P[i * len + j] = Σ_{i' < i} |x[start+i'] − x[start+j]|, for i in [0, len], j in [0, len).
  const P = new Float64Array((len + 1) * len);
  for (let i = 0; i < len; i++) {
    const xi = x[start + i]!;
    const row = i * len;
    const next = row + len;
    for (let j = 0; j < len; j++) P[next + j] = P[row + j]! + Math.abs(xi - x[start + j]!);
  }
  let best: Candidate | null = null;
  // Within-sum of X = [0, t): grows by the distances of point t−1 to the earlier ones.
  let withinX = 0;
  for (let t = 1; t < len; t++) {
    withinX += P[(t - 1) * len + (t - 1)]!; // Σ_{i < t−1} |x_i − x_{t−1}|
    const n = t;
    let cross = 0;
    let withinY = 0;
    for (let k = t + 1; k <= len; k++) {
      const j = k - 1; // the point that joins Y
      cross += P[t * len + j]!; // Σ_{i < t} |x_i − x_j|
      withinY += P[j * len + j]! - P[t * len + j]!; // Σ_{t ≤ i < j} |x_i − x_j|
      const m = k - t;
      const q = (2 / (m + n)) * cross - (n > 1 ? ((2 * m) / ((m + n) * (n - 1))) * withinX : 0) - (m > 1 ? ((2 * n) / ((m + n) * (m - 1))) * withinY : 0);
      if (best === null || q > best.qhat) best = { index: start + t, qhat: q };
    }
  }
  return best;
}

/** The strongest split over all current segments (as the recursion picks its next candidate). */
export function nextCandidate(x: ArrayLike<number>, changes: readonly number[]): Candidate | null {
  let best: Candidate | null = null;
  for (const [s, e] of segmentsOf(x.length, changes)) {
    const c = bestSplit(x, s, e);
    if (c && (best === null || c.qhat > best.qhat)) best = c;
  }
  return best;
}

/** Permutation test of `candidate`: shuffle within each current segment, keep the strongest split's Q̂. */
function permutationTest(x: readonly number[], changes: readonly number[], candidate: Candidate, o: EDivisiveOptions): { pValue: number; permutations: number } {
  const segments = segmentsOf(x.length, changes);
  const work = Float64Array.from(x);
  // With `limit` shuffles at or above Q̂ the p-value is over alpha whatever the rest give.
  const limit = Math.floor(o.alpha * (o.permutations + 1));
  let over = 0;
  let run = 0;
  for (; run < o.permutations; run++) {
    for (const [s, e] of segments) {
      for (let i = e - 1; i > s; i--) {
        const j = s + Math.floor(o.random() * (i - s + 1));
        const tmp = work[i]!;
        work[i] = work[j]!;
        work[j] = tmp;
      }
    }
    const c = nextCandidate(work, changes);
    if (c && c.qhat >= candidate.qhat) over++;
    if (o.earlyStop && over >= limit) {
      run++;
      break;
    }
  }
  return { pValue: (1 + over) / (1 + run), permutations: run };
}

/**
 * Change points of a series, strongest first, by recursive bisection until the permutation test
 * fails. Returns them sorted by index. Each index is the first point after the change.
 * @example eDivisive([1, 1.1, 0.9, 1, 2, 2.1, 1.9, 2], { alpha: 0.05, permutations: 199, random: mulberry32(1) })
 */
export function eDivisive(x: readonly number[], o: EDivisiveOptions): DetectedChange[] {
  const found: DetectedChange[] = [];
  for (;;) {
    const changes = found.map((c) => c.index).sort((a, b) => a - b);
    const candidate = nextCandidate(x, changes);
    if (!candidate) break;
    const test = permutationTest(x, changes, candidate, o);
    if (test.pValue > o.alpha) break;
    found.push({ ...candidate, ...test });
  }
  return found.sort((a, b) => a.index - b.index);
}

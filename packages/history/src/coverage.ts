import { DEFAULTS, fellAgainst, median, normalQuantile, tQuantile } from '@benchsuite/sdk';
import type { ControlFacts, ForecastFacts, MachineFacts, RoundOneFacts } from './record.js';
import type { StoredControl } from './store.js';

/** The coverage check's rule: the level the A/A intervals claim, and the test's level (`DEFAULTS.history.coverage`). */
export interface CoverageRule {
  nominal: number;
  alpha: number;
}

export const coverageRule = (o: Partial<CoverageRule> = {}): CoverageRule => ({
  nominal: o.nominal ?? DEFAULTS.history.coverage.nominal,
  alpha: o.alpha ?? DEFAULTS.history.coverage.alpha,
});

/**
 * P(X ≤ k) for X ~ Binomial(n, p), summed from the top term down in logs so that long histories
 * (thousands of intervals at p = 0.95) neither underflow nor lose the tail.
 */
export function binomialLowerTail(k: number, n: number, p: number): number {
  if (k < 0) return 0;
  if (k >= n) return 1;
  if (p <= 0) return 1;
  if (p >= 1) return 0;
  // log P(X = i) from i = n down: P(i − 1) = P(i) · i ÷ (n − i + 1) · (1 − p) ÷ p.
  const down = (i: number) => Math.log(i / (n - i + 1)) + Math.log((1 - p) / p);
  let log = n * Math.log(p);
  for (let i = n; i > k; i--) log += down(i);
  const logs = [log];
  for (let i = k; i > 0; i--) {
    log += down(i);
    logs.push(log);
  }
  const top = Math.max(...logs);
  return Math.min(1, Math.exp(top) * logs.reduce((s, l) => s + Math.exp(l - top), 0));
}

/** What the A/A intervals of a set of runs say about the tool's own intervals. */
export interface Coverage {
  /** Runs kept, and how many of them had an A/A control. */
  runs: number;
  controlled: number;
  /** A/A intervals (one per scenario of a run, where the run had one) and how many held 1. */
  intervals: number;
  held: number;
  /** held ÷ intervals; null without intervals. */
  share: number | null;
  nominal: number;
  alpha: number;
  /** One-sided binomial test: P(this few or fewer held | the true coverage is `nominal`); null without intervals. */
  pValue: number | null;
  /** `pValue` under `alpha`: fewer intervals hold 1 than their level claims, so the tool's intervals are too narrow. */
  tooNarrow: boolean;
  /** One process's own level (SD of its log, `result.control.processSd`) over the runs that had one. */
  processSd: { runs: number; median: number; min: number; max: number } | null;
  /** The design's round 1 ÷ its blocks' later rounds, pooled over the runs of one design (`pooledRoundOne`); null when none had the check. */
  roundOne: PooledRoundOne | null;
  /** How often the runs' forecasts came true (`forecastCoverageOf`); null when none had a range to judge. */
  forecast: ForecastCoverage | null;
}

/** A run's own checks with the design it measured: what `pooledRoundOne` and `forecastCoverageOf` count. */
export interface RunChecks {
  designKey: string;
  roundOne: RoundOneFacts | null;
  forecast?: ForecastFacts | null;
}

/**
 * How often the half-width a run reached fell inside the 80% range its forecast said (after its
 * first blocks, else before the run): over runs, the tool's check of its own forecast, as the A/A
 * intervals are of its intervals. Judged by a two-sided binomial test against the share the ranges
 * claim (their mean `coverage`): fewer inside says the ranges are too narrow, more that they are
 * wider than they need be.
 */
export interface ForecastCoverage {
  runs: number;
  inside: number;
  /** Outside: runs that reached a narrower half-width than the range's low end, and a wider one than its high end. */
  narrower: number;
  wider: number;
  share: number;
  nominal: number;
  alpha: number;
  /** Two-sided: twice the smaller tail, at most 1. */
  pValue: number;
  verdict: 'too-narrow' | 'too-wide' | null;
}

/** The forecast check over runs (those without a range to judge are not counted); null when none had one. */
export function forecastCoverageOf(forecasts: readonly (ForecastFacts | null | undefined)[], alpha: number = DEFAULTS.history.coverage.alpha): ForecastCoverage | null {
  const kept = forecasts.filter((f): f is ForecastFacts => f != null);
  if (!kept.length) return null;
  const n = kept.length;
  const fell = kept.map((f) => fellAgainst(f.reached, f));
  const inside = fell.filter((x) => x === 'inside').length;
  const narrower = fell.filter((x) => x === 'narrower').length;
  const nominal = kept.reduce((a, f) => a + f.coverage, 0) / n;
  const lower = binomialLowerTail(inside, n, nominal);
  const upper = 1 - binomialLowerTail(inside - 1, n, nominal);
  const pValue = Math.min(1, 2 * Math.min(lower, upper));
  return {
    runs: n,
    inside,
    narrower,
    wider: n - inside - narrower,
    share: inside / n,
    nominal,
    alpha,
    pValue,
    verdict: pValue < alpha ? (lower < upper ? 'too-narrow' : 'too-wide') : null,
  };
}

/**
 * Round 1 ÷ the block's later rounds over many runs of one design on one machine: what a single run
 * reads to ±3–5% (`result.designBias.roundOne`), pooled to the resolution of the design-bias flag.
 */
export interface PooledRoundOne {
  designKey: string;
  /** Runs of this design with the check, and the blocks behind them. */
  runs: number;
  blocks: number;
  /** Runs with the check under other designs: not pooled (a design's warm-up sets its own trend). */
  otherDesigns: number;
  /** exp(mean log) over all blocks, and its 95% interval: the wider of a t-interval over the blocks and one over the runs' own figures. */
  point: number;
  ci95: [number, number] | null;
  /** Which of the two set the interval: `runs` when the one over the runs' own figures is the wider (few runs, or runs that disagree beyond their blocks' spread). */
  widthFrom: 'blocks' | 'runs' | null;
  /** The flag (`DEFAULTS.designBias.flag`) and the verdict against it: `within` (the interval inside ±flag), `beyond` (excluding 1, the point beyond ±flag), else `unresolved`. */
  flag: number;
  verdict: 'within' | 'beyond' | 'unresolved';
  /** When unresolved: about how many more runs like these (their blocks each, their blocks' spread) would resolve it, the interval inside ±flag or excluding 1 beyond it; null otherwise. */
  runsToResolve: number | null;
}

/** SD of a run's block effects (log scale) from its t-interval: half-width × √n ÷ t(n − 1); null without one. */
function blockSdOf(f: RoundOneFacts, confidence: number): number | null {
  if (f.n < 2 || f.lo === null || f.hi === null || !(f.lo > 0) || !(f.hi > 0)) return null;
  return ((Math.log(f.hi) - Math.log(f.lo)) / 2) * (Math.sqrt(f.n) / tQuantile(1 - (1 - confidence) / 2, f.n - 1));
}

/**
 * Pool the round-1 checks of runs of one design (by default the design of the newest run with the
 * check). Every block of every run is a set of fresh processes in its own seconds, so the blocks are
 * pooled as one sample: mean and SD over all of them, rebuilt from each run's mean, interval and
 * count (the sums of squares within runs plus those between their means), with a t-interval on N − 1
 * degrees of freedom, exactly what `npm run bench:round-one` computes from the windows. Runs at
 * different hours may carry different trends; with two or more runs the interval is also taken over
 * the runs' own figures (t on runs − 1), and the wider one stands.
 */
export function pooledRoundOne(items: readonly RunChecks[], o: { designKey?: string; flag?: number; confidence?: number } = {}): PooledRoundOne | null {
  const withCheck = items.filter((i): i is { designKey: string; roundOne: RoundOneFacts } => i.roundOne !== null && i.roundOne.n > 0 && i.roundOne.point > 0);
  const designKey = o.designKey ?? withCheck.at(-1)?.designKey;
  if (designKey === undefined) return null;
  const mine = withCheck.filter((i) => i.designKey === designKey).map((i) => i.roundOne);
  if (!mine.length) return null;
  const flag = o.flag ?? DEFAULTS.designBias.flag;
  const confidence = o.confidence ?? DEFAULTS.confidence;
  const q = (df: number) => tQuantile(1 - (1 - confidence) / 2, df);
  const N = mine.reduce((a, f) => a + f.n, 0);
  const means = mine.map((f) => Math.log(f.point));
  const M = mine.reduce((a, f, i) => a + f.n * means[i]!, 0) / N;
  const sds = mine.map((f) => blockSdOf(f, confidence));
  const ss = mine.reduce((a, f, i) => a + (f.n - 1) * (sds[i] ?? 0) ** 2 + f.n * (means[i]! - M) ** 2, 0);
  // A run of n ≥ 2 blocks without an interval cannot give its spread: the pooled SD is then not known.
  const sdKnown = mine.every((f, i) => f.n < 2 || sds[i] !== null);
  const sd = N > 1 && sdKnown ? Math.sqrt(ss / (N - 1)) : null;
  const hBlocks = sd !== null ? (q(N - 1) * sd) / Math.sqrt(N) : null;
  const R = mine.length;
  const runMean = means.reduce((a, x) => a + x, 0) / R;
  const hRuns = R > 1 ? (q(R - 1) * Math.sqrt(means.reduce((a, x) => a + (x - runMean) ** 2, 0) / (R - 1))) / Math.sqrt(R) : null;
  const h = hBlocks === null ? null : Math.max(hBlocks, hRuns ?? 0);
  const ci95: [number, number] | null = h === null ? null : [Math.exp(M - h), Math.exp(M + h)];
  const point = Math.exp(M);
  const verdict: PooledRoundOne['verdict'] =
    ci95 === null ? 'unresolved' : ci95[0] >= 1 - flag && ci95[1] <= 1 + flag ? 'within' : (ci95[0] > 1 || ci95[1] < 1) && Math.abs(point - 1) > flag ? 'beyond' : 'unresolved';
  // The blocks that would resolve it at this point and SD (a normal-quantile interval): inside ±flag
  // for a point within it, excluding 1 for one beyond it; the runs those take at these runs' mean
  // size, less those kept. A guide, not a promise: the point moves as runs come.
  let runsToResolve: number | null = null;
  if (verdict === 'unresolved' && sd !== null && sd > 0) {
    const edge = Math.log(1 + flag);
    const room = Math.abs(M) < edge ? edge - Math.abs(M) : Math.abs(M);
    const need = ((normalQuantile(1 - (1 - confidence) / 2) * sd) / room) ** 2;
    runsToResolve = Math.max(1, Math.ceil(need / (N / R)) - R);
  }
  return {
    designKey,
    runs: R,
    blocks: N,
    otherDesigns: withCheck.length - R,
    point,
    ci95,
    widthFrom: h === null ? null : hRuns !== null && hRuns > (hBlocks ?? 0) ? 'runs' : 'blocks',
    flag,
    verdict,
    runsToResolve,
  };
}

/** The coverage of one machine's runs. */
export interface MachineCoverage extends Coverage {
  fingerprint: string;
  machine: MachineFacts;
}

/** The check over every run kept, and per machine (the machines in the order of their first run). */
export interface CoverageReport {
  overall: Coverage;
  machines: MachineCoverage[];
}

/**
 * The coverage check over runs (null: a run without an A/A control), with, from `runs`, the round-1
 * check pooled over one design (`designKey`, else the newest run's) and the forecasts' share held
 * (`pooledRoundOne`, `forecastCoverageOf`). Intervals are counted as
 * independent, though a run's scenarios share its processes, so their intervals miss together more
 * often than independent ones would; the test then says "too narrow" somewhat more readily.
 */
export function coverageOf(controls: readonly (ControlFacts | null)[], rule: CoverageRule = coverageRule(), runs: readonly RunChecks[] = [], designKey?: string): Coverage {
  const kept = controls.filter((c): c is ControlFacts => c !== null);
  const judged = kept.flatMap((c) => c.scenarios.filter((s) => s.containsOne !== null));
  const held = judged.filter((s) => s.containsOne).length;
  const sds = kept.flatMap((c) => (c.processSd ? [c.processSd.point] : []));
  const pValue = judged.length ? binomialLowerTail(held, judged.length, rule.nominal) : null;
  return {
    runs: controls.length,
    controlled: kept.length,
    intervals: judged.length,
    held,
    share: judged.length ? held / judged.length : null,
    nominal: rule.nominal,
    alpha: rule.alpha,
    pValue,
    tooNarrow: pValue !== null && pValue < rule.alpha,
    processSd: sds.length ? { runs: sds.length, median: median(sds), min: Math.min(...sds), max: Math.max(...sds) } : null,
    roundOne: pooledRoundOne(runs, designKey !== undefined ? { designKey } : {}),
    forecast: forecastCoverageOf(
      runs.map((r) => r.forecast),
      rule.alpha,
    ),
  };
}

/** The coverage check of the runs kept, over all of them and per machine fingerprint. */
export function coverageByMachine(stored: readonly StoredControl[], rule: CoverageRule = coverageRule()): CoverageReport {
  const machines = new Map<string, { machine: MachineFacts; runs: StoredControl[] }>();
  for (const s of stored) {
    const m = machines.get(s.fingerprint) ?? { machine: s.machine, runs: [] };
    m.runs.push(s);
    machines.set(s.fingerprint, m);
  }
  return {
    // Round 1 is a machine's and a design's: over all machines it is not pooled (the A/A and forecast checks are counted over all).
    overall: {
      ...coverageOf(
        stored.map((s) => s.control),
        rule,
        stored,
      ),
      roundOne: null,
    },
    machines: [...machines.entries()].map(([fingerprint, m]) => ({
      fingerprint,
      machine: m.machine,
      ...coverageOf(
        m.runs.map((s) => s.control),
        rule,
        m.runs,
      ),
    })),
  };
}

import { DEFAULTS, median } from '@benchsuite/sdk';
import type { ControlFacts, MachineFacts } from './record.js';
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
 * The coverage check over runs (null: a run without an A/A control). Intervals are counted as
 * independent, though a run's scenarios share its processes, so their intervals miss together more
 * often than independent ones would; the test then says "too narrow" somewhat more readily.
 */
export function coverageOf(controls: readonly (ControlFacts | null)[], rule: CoverageRule = coverageRule()): Coverage {
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
  };
}

/** The coverage check of the runs kept, over all of them and per machine fingerprint. */
export function coverageByMachine(stored: readonly StoredControl[], rule: CoverageRule = coverageRule()): CoverageReport {
  const machines = new Map<string, { machine: MachineFacts; controls: (ControlFacts | null)[] }>();
  for (const s of stored) {
    const m = machines.get(s.fingerprint) ?? { machine: s.machine, controls: [] };
    m.controls.push(s.control);
    machines.set(s.fingerprint, m);
  }
  return {
    overall: coverageOf(
      stored.map((s) => s.control),
      rule,
    ),
    machines: [...machines.entries()].map(([fingerprint, m]) => ({ fingerprint, machine: m.machine, ...coverageOf(m.controls, rule) })),
  };
}

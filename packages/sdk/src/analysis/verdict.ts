import type { CovVerdict, PairVerdict, RunVerdict, VerdictBand } from '../result-schema.js';
import type { DesignThresholds } from '../design-thresholds.js';
import { median } from './bootstrap.js';

/** The bands from best to worst; the order the run verdict counts in. */
export const VERDICT_BANDS: readonly VerdictBand[] = ['excellent', 'acceptable', 'noisy', 'unreliable'];

/** The band of a coefficient of variation: < 3% excellent, < 5% acceptable, ≤ 10% noisy, else unreliable (the recorded bands). */
export function covBand(cov: number, bands: DesignThresholds['covBands']): VerdictBand {
  if (cov < bands.excellent) return 'excellent';
  if (cov < bands.acceptable) return 'acceptable';
  if (cov <= bands.noisy) return 'noisy';
  return 'unreliable';
}

const judged = (cov: number | null, bands: DesignThresholds['covBands']): CovVerdict | null => (cov === null || !Number.isFinite(cov) ? null : { cov, band: covBand(cov, bands) });

/** Sample CoV (SD with n − 1 ÷ mean) of per-block figures; null with fewer than 2 blocks or a mean of 0. */
export function blockCov(blockFigures: readonly number[]): number | null {
  if (blockFigures.length < 2) return null;
  const mean = blockFigures.reduce((a, b) => a + b, 0) / blockFigures.length;
  if (mean === 0) return null;
  const v = blockFigures.reduce((a, x) => a + (x - mean) ** 2, 0) / (blockFigures.length - 1);
  return Math.sqrt(v) / Math.abs(mean);
}

/**
 * A pair's CoV verdict. `blocks`: the CoV of the per-block medians of its headline figure (the ratio
 * to the reference; the reference's own req/s), the consistency from one set of fresh processes to
 * the next — what the nine-scenario suite computed over its trials. `windows`: the CoV of its
 * windows' req/s within blocks. The headline `band` is the blocks' band, or the windows' when a
 * single block ran (`basis` says which).
 */
export function pairVerdict(headlineGroups: readonly (readonly number[])[], windowCov: number | null, bands: DesignThresholds['covBands']): PairVerdict | null {
  const blocks = judged(blockCov(headlineGroups.filter((g) => g.length > 0).map((g) => median(g))), bands);
  const windows = judged(windowCov, bands);
  const head = blocks ?? windows;
  if (!head) return null;
  return { band: head.band, basis: blocks ? 'blocks' : 'windows', blocks, windows };
}

/**
 * The run's verdict from its pairs' bands: the band that at least `share` of the pairs reach or beat
 * (with 0.9 and fewer than 10 pairs, the worst), with the count per band and the worst band.
 */
export function runVerdict(pairBands: readonly VerdictBand[], share: number): RunVerdict | null {
  if (!pairBands.length) return null;
  const counts = { excellent: 0, acceptable: 0, noisy: 0, unreliable: 0 };
  for (const b of pairBands) counts[b]++;
  const need = Math.ceil(share * pairBands.length - 1e-9);
  let seen = 0;
  let band: VerdictBand = 'unreliable';
  for (const b of VERDICT_BANDS) {
    seen += counts[b];
    if (seen >= need) {
      band = b;
      break;
    }
  }
  const worst = [...VERDICT_BANDS].reverse().find((b) => counts[b] > 0)!;
  return { band, share, pairs: counts, worst };
}

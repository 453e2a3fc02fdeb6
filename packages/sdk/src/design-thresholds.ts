import { DEFAULTS } from './defaults.js';
import type { DesignRecord } from './result-schema.js';

/**
 * Every threshold behind a sentence about a result. A run records them in `result.design`, and the
 * reports read them from there, so a result is judged by the values it was measured with (a
 * version-2 result that lacks one gets it from `upgradeResult`).
 */
export interface DesignThresholds {
  stealThreshold: number;
  practicalBand: number;
  clientBoundBusy: number;
  backendBoundBusy: number;
  serverSaturatedShare: number;
  loaderBound: { serverShare: number; loaderBusy: number };
  noisyWindowCov: number;
  disturbedSteal: number;
  hostDisturbance: { otherShare: number; loaderSlowdown: number };
  covBands: { excellent: number; acceptable: number; noisy: number };
  verdictShare: number;
}

/** The thresholds a new run records in its design (today's `DEFAULTS`). */
export function recordedThresholds(): Omit<DesignThresholds, 'stealThreshold' | 'practicalBand'> {
  return {
    clientBoundBusy: DEFAULTS.clientBoundBusy,
    backendBoundBusy: DEFAULTS.backendBoundBusy,
    serverSaturatedShare: DEFAULTS.serverSaturatedShare,
    loaderBound: { ...DEFAULTS.loaderBound },
    noisyWindowCov: DEFAULTS.noisyWindowCov,
    disturbedSteal: DEFAULTS.disturbedSteal,
    hostDisturbance: { ...DEFAULTS.hostDisturbance },
    covBands: { ...DEFAULTS.covBands },
    verdictShare: DEFAULTS.verdictShare,
  };
}

/** The thresholds of a design as the run is given it: its values, `DEFAULTS` for the fields it does not set. */
export function thresholdsOf(design?: Partial<DesignRecord>): DesignThresholds {
  const d = design ?? {};
  return {
    stealThreshold: d.stealThreshold ?? DEFAULTS.stealThreshold,
    practicalBand: d.practicalBand ?? DEFAULTS.practicalBand,
    ...recordedThresholds(),
    ...(d.clientBoundBusy !== undefined && { clientBoundBusy: d.clientBoundBusy }),
    ...(d.backendBoundBusy !== undefined && { backendBoundBusy: d.backendBoundBusy }),
    ...(d.serverSaturatedShare !== undefined && { serverSaturatedShare: d.serverSaturatedShare }),
    ...(d.loaderBound !== undefined && { loaderBound: d.loaderBound }),
    ...(d.noisyWindowCov !== undefined && { noisyWindowCov: d.noisyWindowCov }),
    ...(d.disturbedSteal !== undefined && { disturbedSteal: d.disturbedSteal }),
    ...(d.hostDisturbance !== undefined && { hostDisturbance: d.hostDisturbance }),
    ...(d.covBands !== undefined && { covBands: d.covBands }),
    ...(d.verdictShare !== undefined && { verdictShare: d.verdictShare }),
  };
}

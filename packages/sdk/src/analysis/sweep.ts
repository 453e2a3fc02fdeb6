import { DEFAULTS } from '../defaults.js';
import type { Estimate, Sweep } from '../result-schema.js';

/** One level of a concurrency sweep as the analysis needs it: the step summary's figures. */
export interface SweepLevel {
  connections: number;
  rps: Estimate;
  relativeRps: Estimate | null;
  latency: { p50: number; p99: number };
  requests?: number | undefined;
  errors?: number | undefined;
  timeouts?: number | undefined;
  unexpected?: number | undefined;
}

/** A level is clean when it answered, and every answer had an expected status with no error or timeout. */
export function isCleanLevel(l: Pick<SweepLevel, 'requests' | 'errors' | 'timeouts' | 'unexpected'>): boolean {
  return (l.requests ?? 0) > 0 && !l.errors && !l.timeouts && !l.unexpected;
}

const point = (l: SweepLevel) => ({ connections: l.connections, rps: l.rps, relativeRps: l.relativeRps, p50: l.latency.p50, p99: l.latency.p99 });
const byConnections = (levels: readonly SweepLevel[]) => [...levels].sort((a, b) => a.connections - b.connections);

/**
 * The best clean point: the highest median req/s at a clean level (ties go to fewer connections);
 * null when no level was clean.
 */
export function bestCleanPoint(levels: readonly SweepLevel[]): Sweep['bestClean'] {
  let best: SweepLevel | undefined;
  for (const l of byConnections(levels)) if (isCleanLevel(l) && (!best || l.rps.point > best.rps.point)) best = l;
  return best ? point(best) : null;
}

/**
 * The knee: the first level (by connections) past which req/s gains less than `gain` at the next
 * level while p99 still grows there. Null when every step up gained enough, or latency stopped growing.
 */
export function kneeOf(levels: readonly SweepLevel[], gain: number = DEFAULTS.sweep.kneeGain): Sweep['knee'] {
  const sorted = byConnections(levels);
  for (let i = 0; i + 1 < sorted.length; i++) {
    const a = sorted[i]!;
    const b = sorted[i + 1]!;
    if (!(a.rps.point > 0)) continue;
    const g = b.rps.point / a.rps.point - 1;
    if (g < gain && b.latency.p99 > a.latency.p99) return { ...point(a), nextConnections: b.connections, nextGain: g };
  }
  return null;
}

/** Best clean point and knee of a sweep (two or more levels); undefined for a single level. */
export function sweepOf(levels: readonly SweepLevel[], gain: number = DEFAULTS.sweep.kneeGain): Sweep | undefined {
  if (levels.length < 2) return undefined;
  return {
    bestClean: bestCleanPoint(levels),
    knee: kneeOf(levels, gain),
    kneeGain: gain,
    uncleanLevels: byConnections(levels)
      .filter((l) => !isCleanLevel(l))
      .map((l) => l.connections),
  };
}

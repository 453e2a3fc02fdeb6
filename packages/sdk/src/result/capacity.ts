import { z } from 'zod';
import { nonneg, num } from './common.js';

/** One open-loop probe of the capacity search: an offered rate and what it gave. */
export const capacityProbeSchema = z.strictObject({
  rate: nonneg,
  achievedRps: nonneg,
  p50: nonneg,
  p99: nonneg,
  /** Share of sends that failed, timed out, got an unexpected status or were dropped. */
  errorShare: nonneg,
  meets: z.boolean(),
  /** The SLO term that failed first, e.g. `p99<50ms`. */
  failed: z.string().nullable(),
});
/** `--slo`: the highest offered rate that met the SLO, per (scenario, target). */
export const capacitySchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  slo: z.string(),
  /** Highest rate that met the SLO (median over blocks); null when even the first rate failed. */
  capacity: num.nullable(),
  /** Lowest and highest capacity over blocks (fresh processes), or the bisection bracket with one block. */
  interval: z.tuple([nonneg, nonneg]).nullable(),
  blocks: z.array(z.strictObject({ block: z.number().int().positive(), capacity: num.nullable(), bracket: z.tuple([nonneg, nonneg]).nullable(), probes: z.array(capacityProbeSchema) })),
  driver: z.string(),
});
export type Capacity = z.infer<typeof capacitySchema>;
export type CapacityProbe = z.infer<typeof capacityProbeSchema>;

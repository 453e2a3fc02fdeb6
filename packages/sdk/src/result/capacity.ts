import { z } from 'zod';
import { nonneg, num } from './common.js';
import { windowSchema } from './window.js';

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
  /**
   * It failed with the loader as the limit, the server having room per thread (absent in results
   * before it was judged); `loaderEvidence` says how it was told.
   */
  loaderBound: z.boolean().optional(),
  /**
   * What showed the loader was the limit: `busy`, its own CPU over `loaderBound.loaderBusy` of its
   * thread with its sends behind the schedule (`loaderLimited`); `late`, its late (or its own failed)
   * sends alone made the SLO fail: judged from the actual send it was met (`loaderLate`); `failed`,
   * the loader's process failed the window (`LoaderFailure`).
   */
  loaderEvidence: z.enum(['busy', 'late', 'failed']).optional(),
  /**
   * CPU steal over `stealThreshold` in its window: `repeated`, not judged, probed again at the same
   * rate; `judged`, still over after `capacity.stealRepeats` repeats, judged as it was.
   */
  steal: z.enum(['repeated', 'judged']).optional(),
  /** A second probe at a rate whose first probe failed: the rate bounds the search only when both fail. */
  confirmation: z.boolean().optional(),
  /** The probe's open-loop window with its resources (absent in results before probes kept them). */
  window: windowSchema.optional(),
});
/**
 * What stopped a capacity search going higher: `server`, a rate that failed at the server (the
 * capacity is the server's); `loader`, a rate that failed with the loader as the limit (the
 * capacity is a lower bound, ≥); `probes`, no rate failed within the probes allowed (a lower bound too).
 */
const capacityBoundSchema = z.enum(['server', 'loader', 'probes']);
/** One block of a capacity search: a fresh process and the probes of its search. */
export const capacityBlockSchema = z.strictObject({
  block: z.number().int().positive(),
  /** Highest rate that met the SLO in this block; null when none did. */
  capacity: num.nullable(),
  /** The last bisection bracket (met, failed). */
  bracket: z.tuple([nonneg, nonneg]).nullable(),
  probes: z.array(capacityProbeSchema),
  bound: capacityBoundSchema.optional(),
  /** With `bound: 'loader'`: the lowest offered rate whose probes failed loader-bound. */
  loaderBoundAt: nonneg.optional(),
  /** Cut short by an interruption: not counted (a resumed run measures this block again). */
  interrupted: z.boolean().optional(),
  /** The block could not finish (its server crashed, it could not start): why. The report says so, and the run exits 1. */
  failure: z.string().optional(),
});
/** `--slo`: the highest offered rate that met the SLO, per (scenario, target). */
export const capacitySchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  slo: z.string(),
  /** Highest rate that met the SLO (median over blocks); null when even the first rate failed. A lower bound unless `bound` is `server`. */
  capacity: num.nullable(),
  /** Lowest and highest capacity over blocks (fresh processes), or the bisection bracket with one block. */
  interval: z.tuple([nonneg, nonneg]).nullable(),
  blocks: z.array(capacityBlockSchema),
  /** The driver that sent the probes. */
  driver: z.string(),
  /**
   * `server`: the capacity is the server's; `loader`: in some block the loader could not send a rate
   * the server might have met, so the capacity is a lower bound (≥ capacity, loader-bound at
   * `loaderBoundAt`); `probes`: no rate failed within the probes allowed (a lower bound). Absent in
   * older results (read as `server`, which they claimed).
   */
  bound: capacityBoundSchema.optional(),
  /** With `bound: 'loader'`: the lowest offered rate at which the loader was the limit, over blocks. */
  loaderBoundAt: nonneg.optional(),
  /** 95% interval of the capacity over blocks (t-interval, widened to the blocks' brackets); null with `ci95Missing` saying why. */
  ci95: z.tuple([nonneg, nonneg]).nullable().optional(),
  /** Why there is no `ci95`: the capacity is a lower bound, fewer than 2 blocks gave one, the run was interrupted, or none met the SLO. */
  ci95Missing: z.enum(['lower-bound', 'blocks', 'interrupted', 'no-capacity']).optional(),
});
export type Capacity = z.infer<typeof capacitySchema>;
export type CapacityBlock = z.infer<typeof capacityBlockSchema>;
export type CapacityProbe = z.infer<typeof capacityProbeSchema>;

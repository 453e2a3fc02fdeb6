import { z } from 'zod';
import { profileSummarySchema } from '../profile/schema.js';
import { nonneg, num } from './common.js';

/**
 * One profiled window per (scenario, target) under `--profile`: a fresh server, warmed up, then an
 * unprofiled, a profiled and an unprofiled window; the profiled one is never in `windows`.
 */
export const profileRecordSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  status: z.enum(['ok', 'unavailable', 'failed']),
  reason: z.string().optional(),
  profiler: z.string(),
  /** req/s of the profiled window and the median of the two unprofiled ones around it (same process). */
  rps: z.strictObject({ profiled: nonneg, unprofiled: nonneg }).optional(),
  /** Profiled ÷ unprofiled req/s: what the profiler cost (1 = nothing). */
  costRatio: num.nullable().optional(),
  summary: profileSummarySchema.optional(),
});
export type ProfileRecord = z.infer<typeof profileRecordSchema>;

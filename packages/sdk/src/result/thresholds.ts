import { z } from 'zod';
import { num } from './common.js';

/** One `--threshold` (or a scenario's `thresholds`) checked against one pair's merged figures. */
export const thresholdOutcomeSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  /** As written, e.g. `p99<50ms`. */
  expression: z.string(),
  metric: z.string(),
  op: z.enum(['<', '<=', '>', '>=']),
  /** The limit in the metric's unit (µs for latency, a share for errors, req/s for rps). */
  limit: num,
  /** The measured value in the same unit; null when the pair has no such figure. */
  measured: num.nullable(),
  pass: z.boolean(),
});
export type ThresholdOutcome = z.infer<typeof thresholdOutcomeSchema>;

import { z } from 'zod';
import { int, num } from './common.js';

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
  /** The measured value in the same unit (a stepped load's latency: the step that decides, the worst); null when the pair has no such figure. */
  measured: num.nullable(),
  pass: z.boolean(),
  /** A latency term on a stepped load: checked at every step; it passes only when every step does. */
  steps: z.array(z.strictObject({ connections: z.number().int().positive(), measured: num.nullable(), pass: z.boolean() })).optional(),
  /** An errors term: the windows the pair missed and the sends they would have carried, counted as failed (`summaries[].missed`). */
  missed: z.strictObject({ windows: int, requests: int }).optional(),
  /** An errors term: the windows left out of the estimates for steal, whose sends and errors still count in the share (`summaries[].windows.excludedSteal`). */
  excludedSteal: int.optional(),
  /** The target failed verify on this scenario and has no figures: the term fails; the verify's reason (empty when it gave none). */
  failedVerify: z.string().optional(),
});
export type ThresholdOutcome = z.infer<typeof thresholdOutcomeSchema>;

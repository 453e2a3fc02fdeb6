import { z } from 'zod';

// What every record of the result shares: number kinds, latency, status counters, estimates, failures.

export const num = z.number();
export const nonneg = z.number().nonnegative();
export const int = z.number().int().nonnegative();

/** Latency percentiles in microseconds, from an HDR histogram (µs resolution). */
export const latencySchema = z.strictObject({
  p50: nonneg,
  p90: nonneg,
  p99: nonneg,
  p999: nonneg,
  min: nonneg,
  max: nonneg,
  mean: nonneg,
  stdev: nonneg,
  count: int,
});
export type Latency = z.infer<typeof latencySchema>;

/** Counts of responses by status code, e.g. `{ "200": 1234 }`. */
export const statusCountsSchema = z.record(z.string(), int);

/** Correctness counters kept beside every latency figure. */
export const countersShape = {
  requests: int,
  statusCounts: statusCountsSchema,
  /** Socket or protocol errors (no response). */
  errors: int,
  /**
   * The loader's own failed sends, not in `errors`: it ran out of file descriptors, local ports or
   * buffers (`isLoaderError`). Never the server's failure: left out of the error share. Absent
   * when there were none, and where the driver cannot tell (oha's open-loop CSV, k6).
   */
  loaderErrors: int.optional(),
  timeouts: int,
  /** Responses whose status is not 2xx (304 counts as non-2xx here too). */
  non2xx: int,
  /** Responses whose status is not among the scenario's expected statuses. */
  unexpected: int,
};

/** Open-loop figures of a window, step or pair (`load.openLoop`): the schedule and what it cost. */
export const openLoopSchema = z.strictObject({
  /** Offered requests per second (the schedule). */
  offeredRate: nonneg,
  /** Latency from each request's intended send time, µs: what a user arriving on schedule waited. */
  corrected: latencySchema,
  /** HDR histogram of `corrected`, compressed base64 (mergeable). */
  correctedHistogram: z.string(),
  /** Sends that left later than their schedule. */
  late: int,
  /** Scheduled sends that never left (no free connection). */
  dropped: int,
  /**
   * Sends the schedule asked for (offered rate × its duration), when known from the schedule itself
   * (a merged k6 run: the exported scripts' rate); the shortfall is this minus the sends made.
   */
  scheduled: int.optional(),
});
export type OpenLoop = z.infer<typeof openLoopSchema>;

export const failureSchema = z.strictObject({
  phase: z.enum(['setup', 'start', 'ready', 'prepare', 'warmup', 'load', 'crash', 'interrupted']),
  message: z.string(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  /** Last lines the server wrote on stderr/stdout. */
  stderrTail: z.string().optional(),
});

/** A figure with its 95% interval. `halfWidth` is relative to the point ((hi − lo) / 2 / point). */
export const estimateSchema = z.strictObject({
  point: num,
  ci95: z.tuple([num, num]).nullable(),
  halfWidth: num.nullable(),
  /** Samples behind it: paired rounds for a ratio, windows for an absolute figure. */
  n: int,
  method: z.string(),
});
export type Estimate = z.infer<typeof estimateSchema>;

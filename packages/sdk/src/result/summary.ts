import { z } from 'zod';
import { estimateSchema, int, latencySchema, nonneg, num, openLoopSchema, statusCountsSchema } from './common.js';

// What the analysis made of the windows: per pair, per step, rankings, backend ceilings, the run overall.

export const noiseLabelSchema = z.enum(['quiet', 'noisy', 'disturbed']);
export type NoiseLabel = z.infer<typeof noiseLabelSchema>;

/** Variance components of the log of the per-round ratio (Kalibera & Jones): between blocks and within. */
export const varianceComponentsSchema = z.strictObject({
  /** SD of the log-ratio between blocks (fresh processes), beyond what rounds explain; null with < 2 blocks. */
  betweenBlocks: num.nullable(),
  /** SD of the log-ratio between rounds within a block (window to window). */
  withinBlocks: num.nullable(),
});

export const stepSummarySchema = z.strictObject({
  connections: z.number().int().positive(),
  rps: estimateSchema,
  relativeRps: estimateSchema.nullable(),
  /** Percentiles of the histogram merged over windows (never averages of percentiles). */
  latency: latencySchema,
  clientBoundWindows: int,
  backendBoundWindows: int,
  serverNotSaturatedWindows: int,
  /** The status mix at this step over every window that ran, as the pair's counters (those left out of the estimates included; before 2026-12-03, over the usable windows): answers by status code, then the counters. */
  requests: int.optional(),
  statusCounts: statusCountsSchema.optional(),
  errors: int.optional(),
  timeouts: int.optional(),
  unexpected: int.optional(),
  /** Every answer had an expected status and there was no error or timeout at this step. */
  clean: z.boolean().optional(),
  loaderBoundWindows: int,
  /** Median req/s at this step ÷ the loader floor's at the same connections (`loaderFloors`); absent where no floor was measured (a step above `design.lowConnections`, or a result from before floors). */
  loaderShare: nonneg.optional(),
  /** A stepped load: this step's histogram merged over windows (µs, compressed base64), for any percentile a threshold asks. */
  histogram: z.string().optional(),
  /** A stepped open-loop load: this step's open-loop figures merged over windows. */
  openLoop: openLoopSchema.optional(),
});

/** A point of a concurrency sweep: a level (connection count) with its median req/s and latency. */
const sweepPointSchema = z.strictObject({
  connections: z.number().int().positive(),
  /** Median req/s at this level, with its interval (the level's `steps[].rps`). */
  rps: estimateSchema,
  /** Median per-round ratio to the reference at this level; null for the reference. */
  relativeRps: estimateSchema.nullable(),
  /** µs, from the level's merged histogram. */
  p50: nonneg,
  p99: nonneg,
});

/**
 * A concurrency sweep (a stepped load): the curve is `steps` (one per level, with its status mix);
 * these are the two points read off it.
 */
export const sweepSchema = z.strictObject({
  /** The highest median req/s at a level where every answer had an expected status and there was no error or timeout; null when no level was clean. */
  bestClean: sweepPointSchema.nullable(),
  /** The first level past which req/s gains less than `kneeGain` while p99 still grows; null when the curve has no such bend within the levels swept. */
  knee: sweepPointSchema.extend({ nextConnections: z.number().int().positive(), nextGain: num }).nullable(),
  /** The gain threshold of the knee (`DEFAULTS.sweep.kneeGain`). */
  kneeGain: nonneg,
  /** Levels left out of the best clean point: errors, timeouts or unexpected statuses. */
  uncleanLevels: z.array(z.number().int().positive()),
});
export type Sweep = z.infer<typeof sweepSchema>;

/**
 * Throughput per server process and per server core used. "Processes" are the tree's workers
 * (those that used at least `DEFAULTS.workerCpuShare` of its CPU); "cores used" is the tree's CPU
 * seconds ÷ window seconds; req/s per core is therefore responses per server CPU-second.
 */
export const perProcessSchema = z.strictObject({
  /** Median worker processes per window. */
  processes: nonneg,
  /** Most processes seen in the tree (supervisors and helpers included). */
  treeProcesses: int,
  coresUsed: estimateSchema,
  rpsPerProcess: estimateSchema,
  rpsPerCore: estimateSchema,
});
export type PerProcess = z.infer<typeof perProcessSchema>;

/** A CoV verdict band (`DEFAULTS.covBands`): < 3% excellent, 3–5% acceptable, 5–10% noisy, > 10% unreliable. */
export const verdictBandSchema = z.enum(['excellent', 'acceptable', 'noisy', 'unreliable']);
export type VerdictBand = z.infer<typeof verdictBandSchema>;

export const covVerdictSchema = z.strictObject({ cov: nonneg, band: verdictBandSchema });
export type CovVerdict = z.infer<typeof covVerdictSchema>;

/** A pair's CoV verdict: between blocks (its headline figure's per-block medians) and within blocks (its windows' req/s). */
export const pairVerdictSchema = z.strictObject({
  /** The headline word: the blocks' band, or the windows' with a single block. */
  band: verdictBandSchema,
  basis: z.enum(['blocks', 'windows']),
  /** CoV of the per-block medians of the headline figure (run-to-run consistency); null with one block. */
  blocks: covVerdictSchema.nullable(),
  /** CoV of the windows' req/s within blocks (window-to-window). */
  windows: covVerdictSchema.nullable(),
});
export type PairVerdict = z.infer<typeof pairVerdictSchema>;

/** The run's verdict: the band that at least `share` of its pairs reach or beat, with the count per band. */
export const runVerdictSchema = z.strictObject({
  band: verdictBandSchema,
  share: nonneg,
  pairs: z.strictObject({ excellent: int, acceptable: int, noisy: int, unreliable: int }),
  worst: verdictBandSchema,
});
export type RunVerdict = z.infer<typeof runVerdictSchema>;

export const pairSummarySchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  /** The reference target of the relative figures. */
  reference: z.string(),
  blocks: int,
  windows: z.strictObject({
    ok: int,
    failed: int,
    excludedSteal: int,
    clientBound: int,
    backendBound: int,
    serverNotSaturated: int,
    loaderBound: int,
    /** Windows whose loader CPU was not measured, so whether they were client-bound is unknown (a merged k6 run). */
    clientBoundUnknown: int.optional(),
  }),
  /** Median req/s over windows with a bootstrap interval (blocks, then rounds, resampled). */
  rps: estimateSchema,
  /** Median of the per-round ratio rps / reference rps; null for the reference itself. */
  relativeRps: estimateSchema.nullable(),
  /** Server CPU time per response, µs. */
  cpuPerRequestUs: estimateSchema.nullable(),
  /** Median req/s ÷ the backend's own ceiling (scenarios that declare a backend). */
  backendShare: num.nullable(),
  /** Median of the per-round ratio of CPU per request to the reference's. */
  relativeCpu: estimateSchema.nullable(),
  variance: varianceComponentsSchema,
  precision: z.strictObject({
    /** The precision target (relative half-width). */
    target: num,
    /** Half-width reached by the headline figure (relativeRps, or rps for the reference). */
    reached: num.nullable(),
    met: z.boolean(),
  }),
  noise: z.strictObject({
    label: noiseLabelSchema,
    /** CoV of window req/s within blocks (window-to-window variation of this target alone). */
    windowCov: num.nullable(),
    meanSteal: nonneg,
    maxSteal: nonneg,
  }),
  /** The CoV verdict (null without a figure to judge); absent when the benchsuite that wrote the result judged none, as before verdicts were kept. */
  verdict: pairVerdictSchema.nullable().optional(),
  latency: latencySchema,
  histogram: z.string(),
  /** Counters (`errors` … `requests`) are over every window that ran, those left out of the estimates for steal included (before issue 40, over the estimates' windows). */
  errors: int,
  timeouts: int,
  non2xx: int,
  unexpected: int,
  requests: int,
  peakRssBytes: int,
  /** Cores the server was pinned to (its process tree shares them). */
  serverCpus: z.array(z.number().int().nonnegative()),
  steps: z.array(stepSummarySchema),
  /** A stepped load (more than one connection level): best clean point and knee of the curve in `steps`. */
  sweep: sweepSchema.optional(),
  /** Throughput per server process and per core used; absent without a sampled server process tree. */
  perProcess: perProcessSchema.optional(),
  /** Open-loop figures merged over windows (`load.openLoop`). */
  openLoop: openLoopSchema.optional(),
  /**
   * The loader's share of the round trip at a low connection count (the step where it is highest):
   * the pair's median req/s ÷ the loader floor's at the same connections. At one connection that
   * is the floor's round trip ÷ the pair's: a difference between targets shows at (1 − share) of its
   * size. Flagged above `design.loaderShareFlag`. Absent without a floor (no step at or below
   * `design.lowConnections`, or a result from before floors).
   */
  loaderShare: z
    .strictObject({
      connections: z.number().int().positive(),
      share: nonneg,
      /** The pair's median req/s at that step. */
      rps: nonneg,
      /** The floor's median req/s at that step. */
      floorRps: nonneg,
      flagged: z.boolean(),
    })
    .optional(),
  /**
   * Load this pair should have carried but did not: windows that failed (no response, a crash, a
   * loader error) and the rounds its target then missed in the block, or all of a block's rounds
   * when it failed before them. `requests` is what they would have sent: the pair's median req/s
   * over its measured windows × the block's window length (a fixed-count window: its count), and
   * at least one request per connection per step (the requests left unanswered) when no window
   * of the pair was measured. Thresholds count them as failed sends. Absent when nothing was missed.
   */
  missed: z.strictObject({ windows: int, requests: int }).optional(),
});
export type PairSummary = z.infer<typeof pairSummarySchema>;

export const rankingSchema = z.strictObject({
  scenario: z.string(),
  /**
   * Places in descending relative throughput. `place` to `worst` is the range of ranks a place's
   * targets' intervals allow (`rankScenario`); a range of one rank is a place of its own. Results
   * without `worst` (before 2026-12-04) partitioned the targets instead, a target joining the place
   * above when its interval overlapped any of it, or differed by less than the practical band.
   */
  places: z.array(z.strictObject({ place: z.number().int().positive(), worst: z.number().int().positive().optional(), targets: z.array(z.string()), relativeRps: z.array(num) })),
  method: z.string(),
});
export type Ranking = z.infer<typeof rankingSchema>;

/** A backend's own ceiling: the helper service loaded directly with the work one scenario request causes. */
export const ceilingSchema = z.strictObject({
  scenario: z.string(),
  service: z.string(),
  /** The target whose service definition was started. */
  from: z.string(),
  connections: z.number().int().positive(),
  rps: estimateSchema,
  /** The loader was saturated while measuring it: the ceiling is at least this. */
  clientBound: z.boolean(),
});
export type Ceiling = z.infer<typeof ceilingSchema>;

/** The run at a glance: precision reached, windows, steal, overhead, and the run's verdict. */
/**
 * What set a run's intervals, from its typical pair (medians over pairs): the SDs of a round's
 * log-ratio between blocks and within one, the blocks and rounds, each part's share of a block
 * median's variance, the t-quantile's premium for few blocks, which of them set the width, and the
 * changes considered with the typical half-width each is expected to give (twice the budget;
 * time-sliced rounds for a run measured one window after another), the narrowest named `best`.
 */
export const limitsSchema = z.strictObject({
  components: z.strictObject({ between: nonneg, within: nonneg }),
  blocks: int,
  rounds: int,
  withinShare: nonneg,
  betweenShare: nonneg,
  /** null with one block (its interval is the bootstrap's alone). */
  blocksFactor: nonneg.nullable(),
  setBy: z.enum(['host', 'processes', 'blocks']),
  options: z.array(z.strictObject({ change: z.enum(['budget', 'sliced']), halfWidth: nonneg })),
  best: z.enum(['budget', 'sliced']).nullable(),
});

export type IntervalLimitsRecord = z.infer<typeof limitsSchema>;

export const overallSchema = z.strictObject({
  pairs: int,
  /** Pairs whose headline figure reached the precision target. */
  precisionMet: int,
  medianHalfWidth: num.nullable(),
  worstHalfWidth: num.nullable(),
  windows: int,
  excludedSteal: int,
  meanSteal: nonneg,
  maxSteal: nonneg,
  /** Wall time of the run ÷ the time under load. */
  overhead: num.nullable(),
  /**
   * Windows the host disturbed beyond steal (`design.hostDisturbance`, `disturbedWindows`): another
   * process on the measured cores, or the loader running slow. They stay in the estimates. Absent
   * in results before it was counted.
   */
  disturbed: z.strictObject({ windows: int, other: int, slowLoader: int }).optional(),
  /** The run's CoV verdict over its pairs; absent when the benchsuite that wrote the result judged none, as before verdicts were kept. */
  verdict: runVerdictSchema.nullable().optional(),
  /** What set the intervals and what would narrow them most (`analysis/limits.ts`); absent without relative figures, and in older results. */
  limits: limitsSchema.optional(),
});

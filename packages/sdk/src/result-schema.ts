import { z } from 'zod';
import { profileSummarySchema } from './profile/schema.js';

/**
 * The result document: the single source of truth for what a run produced.
 * `schema/result.schema.json` is generated from it at build time for other tools.
 * Bump `RESULT_SCHEMA_VERSION` on any incompatible change.
 */
export const RESULT_SCHEMA_VERSION = 2 as const;

const num = z.number();
const nonneg = z.number().nonnegative();
const int = z.number().int().nonnegative();

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
const countersShape = {
  requests: int,
  statusCounts: statusCountsSchema,
  /** Socket or protocol errors (no response). */
  errors: int,
  timeouts: int,
  /** Responses whose status is not 2xx (304 counts as non-2xx here too). */
  non2xx: int,
  /** Responses whose status is not among the scenario's expected statuses. */
  unexpected: int,
};

export const resourceSchema = z.strictObject({
  /** CPU seconds (user+system) of the server's whole process tree during the measured window. */
  serverCpuSeconds: nonneg,
  /** Peak RSS summed over the server's process tree, bytes, from ~100 ms samples. */
  serverPeakRssBytes: int,
  serverProcesses: int,
  /**
   * Processes of the server's tree that did the work: each used at least `DEFAULTS.workerCpuShare`
   * of the tree's CPU time in the window (a supervisor or resource tracker idles). 0 when the tree
   * used no measurable CPU.
   */
  serverWorkers: int.optional(),
  /** CPU seconds of the load generator process during the measured window. */
  loaderCpuSeconds: nonneg,
  /** Busy fraction (0..1) of the loader's cores during the window, from /proc/stat (mean over them). */
  loaderCoreBusy: nonneg,
  /** Busy fraction (0..1) of the busiest loader core: a single-threaded loader saturates one core of several. */
  loaderBusiestCore: nonneg,
  /** The loader process's CPU seconds ÷ window seconds, per thread it can use (0..1). */
  loaderThreadBusy: nonneg,
  /** Share (0..1) of the server's and loader's cores' time taken by the hypervisor (steal) in the window. */
  cpuSteal: nonneg.optional(),
  /** Server tree CPU seconds ÷ (window seconds × server cores): 1 = every server core busy. */
  serverCoreShare: nonneg,
  /** CPU seconds of the target's helper services (e.g. a stub backend) in the window. */
  serviceCpuSeconds: nonneg,
  /** The busiest helper service's CPU seconds ÷ window seconds (one thread: 1 = saturated). */
  serviceBusy: nonneg,
  samples: int,
  /**
   * The server's CPU seconds are the scheduler's nanoseconds (`/proc/<pid>/task/<tid>/schedstat`)
   * for every process of its tree; false: clock ticks (10 ms) for some, where schedstat is missing
   * or a thread exited in the window. Absent in results before it was recorded (ticks).
   */
  serverCpuExact: z.boolean().optional(),
});

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
});
export type OpenLoop = z.infer<typeof openLoopSchema>;

export const stepResultSchema = z.strictObject({
  connections: z.number().int().positive(),
  /** Seconds actually measured. */
  durationSec: nonneg,
  rps: nonneg,
  ...countersShape,
  latency: latencySchema,
  /** HDR histogram of latencies in µs, compressed base64 (mergeable across windows). */
  histogram: z.string(),
  resources: resourceSchema,
  /** The loader's core was saturated: RPS here is the loader's ceiling, not the server's. */
  clientBound: z.boolean(),
  /** A helper service (the backend) was saturated: RPS here is the backend's limit. */
  backendBound: z.boolean(),
  /** The server's cores were far from busy while the loader was not saturated: the figure is bounded by waiting. */
  serverNotSaturated: z.boolean(),
  /** The server's cores were not all busy while the loader core was: the loader's figure, judged by the server (absent in old results). */
  loaderBound: z.boolean().optional(),
  /** RPS per server CPU-second (null when the server used no measurable CPU). */
  rpsPerCpuSecond: num.nullable(),
  openLoop: openLoopSchema.optional(),
});
export type StepResult = z.infer<typeof stepResultSchema>;

export const failureSchema = z.strictObject({
  phase: z.enum(['setup', 'start', 'ready', 'prepare', 'warmup', 'load', 'crash', 'interrupted']),
  message: z.string(),
  exitCode: z.number().int().nullable().optional(),
  signal: z.string().nullable().optional(),
  /** Last lines the server wrote on stderr/stdout. */
  stderrTail: z.string().optional(),
});

const windowBase = {
  scenario: z.string(),
  target: z.string(),
  /** 1-based block (a set of fresh server processes, one per target). */
  block: z.number().int().positive(),
  /** 1-based round within the block; every target is measured once per round. */
  round: z.number().int().positive(),
  /** 0-based position of this target in the round's seeded random order. */
  position: int,
  /** 0-based sequence number over the whole run (the order windows were measured in). */
  index: int,
  startedAt: z.iso.datetime(),
  /** Seconds of the run (resumed runs included) when this window ended: the budget clock. */
  elapsedSec: nonneg,
};

/** One measured window: one target, one round, every connection step in sequence. */
export const okWindowSchema = z.strictObject({
  ...windowBase,
  status: z.literal('ok'),
  durationSec: nonneg,
  rps: nonneg,
  ...countersShape,
  latency: latencySchema,
  histogram: z.string(),
  resources: resourceSchema,
  clientBound: z.boolean(),
  backendBound: z.boolean(),
  serverNotSaturated: z.boolean(),
  loaderBound: z.boolean().optional(),
  /** Server CPU time (user+sys of the process tree) per response, µs; null without a server pid or responses. */
  cpuPerRequestUs: num.nullable(),
  /** One entry per connection step (a single entry for a fixed load). */
  steps: z.array(stepResultSchema).min(1),
  /** `load.requests` / `--requests`: every step of this window sent exactly this many requests instead of running for a duration. */
  fixedRequests: z.number().int().positive().optional(),
  /** Why this window is left out of the estimates (it stays in the raw data): CPU steal over the threshold. */
  excluded: z.enum(['steal']).nullable(),
  openLoop: openLoopSchema.optional(),
});
export const failedWindowSchema = z.strictObject({
  ...windowBase,
  status: z.literal('failed'),
  failure: failureSchema,
});
export const windowSchema = z.discriminatedUnion('status', [okWindowSchema, failedWindowSchema]);
export type WindowRecord = z.infer<typeof windowSchema>;
export type OkWindow = z.infer<typeof okWindowSchema>;
export type FailedWindow = z.infer<typeof failedWindowSchema>;

/** One block: fresh server processes for every target of a scenario, warmed up, then rounds. */
export const blockSchema = z.strictObject({
  scenario: z.string(),
  block: z.number().int().positive(),
  startedAt: z.iso.datetime(),
  wallSec: nonneg,
  /** Seconds spent in rounds (the rest is starting, warming up and stopping the servers). */
  roundsWallSec: nonneg,
  /** Rounds planned when the block started (the dimensioning phase chooses it). */
  plannedRounds: int,
  /** Rounds run, extra ones included. */
  rounds: int,
  /** Extra rounds run to replace windows left out for CPU steal. */
  extraRounds: int,
  /** False when the run was interrupted or the budget ran out inside this block. */
  complete: z.boolean(),
  /** Shared processes: the scenario's place in its block's seeded order (1: on processes fresh from their start). */
  position: int.optional(),
  targets: z.array(
    z.strictObject({
      target: z.string(),
      status: z.enum(['ok', 'failed']),
      /** Spawn to ready, ms, with the block's servers starting together (cold starts one by one are in `targets[].costs`). */
      startupMs: nonneg.optional(),
      /** Per-second req/s of the warm-up windows, never used in any estimate. */
      warmupRps: z.array(nonneg),
      /** Whether the warm-up ended steady (within the tolerance) rather than at its maximum; for a carried process, whether its last two rotation windows were within the tolerance (false after a single rotation round: it takes two). */
      steady: z.boolean(),
      /** Shared processes: the process had served an earlier scenario of the block, and `warmupRps` holds its rotation rounds. */
      carried: z.boolean().optional(),
      failure: failureSchema.optional(),
    }),
  ),
});
export type BlockRecord = z.infer<typeof blockSchema>;

export const noiseLabelSchema = z.enum(['quiet', 'noisy', 'disturbed']);
export type NoiseLabel = z.infer<typeof noiseLabelSchema>;

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
  /** The status mix at this step over the usable windows: answers by status code, then the counters. */
  requests: int.optional(),
  statusCounts: statusCountsSchema.optional(),
  errors: int.optional(),
  timeouts: int.optional(),
  unexpected: int.optional(),
  /** Every answer had an expected status and there was no error or timeout at this step. */
  clean: z.boolean().optional(),
  loaderBoundWindows: int.optional(),
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
  windows: z.strictObject({ ok: int, failed: int, excludedSteal: int, clientBound: int, backendBound: int, serverNotSaturated: int, loaderBound: int.optional() }),
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
  /** The CoV verdict (absent in old results; null without a figure to judge). */
  verdict: pairVerdictSchema.nullable().optional(),
  latency: latencySchema,
  histogram: z.string(),
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
});
export type PairSummary = z.infer<typeof pairSummarySchema>;

export const rankingSchema = z.strictObject({
  scenario: z.string(),
  /** Places in descending relative throughput; targets in one place have overlapping intervals or differ by less than the practical band. */
  places: z.array(z.strictObject({ place: z.number().int().positive(), targets: z.array(z.string()), relativeRps: z.array(num) })),
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

/** Why a scenario stopped adding blocks. */
export const stopSchema = z.strictObject({
  scenario: z.string(),
  blocks: int,
  rounds: int,
  reason: z.enum(['precision', 'budget', 'max-blocks', 'interrupted', 'no-targets']),
  worstHalfWidth: num.nullable(),
});
export type StopRecord = z.infer<typeof stopSchema>;

export const verifyOutcomeSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  ok: z.boolean(),
  reason: z.string().optional(),
  /** Readable diff between the expectation and what the target answered. */
  diff: z.string().optional(),
});
export type VerifyOutcome = z.infer<typeof verifyOutcomeSchema>;

export const costsSchema = z.strictObject({
  /** Spawn → first 200 on the health path, ms, each cold start; median reported. */
  startupMs: z.strictObject({ median: nonneg, samples: z.array(nonneg), method: z.string() }),
  idleRssBytes: int,
  idlePssBytes: int.nullable(),
  processCount: int,
  /** Peak RSS under load over all windows of this target, bytes. */
  peakRssBytes: int.nullable(),
  artifact: z.strictObject({ bytes: int, method: z.string() }).nullable(),
});
export type Costs = z.infer<typeof costsSchema>;

export const targetInfoSchema = z.strictObject({
  name: z.string(),
  kind: z.enum(['process', 'url']),
  status: z.enum(['ok', 'skipped', 'failed']),
  /** Why the target was skipped or failed to set up. */
  reason: z.string().optional(),
  version: z.string().optional(),
  language: z.string().optional(),
  framework: z.string().optional(),
  command: z.array(z.string()).optional(),
  url: z.string().optional(),
  metadata: z.record(z.string(), z.unknown()),
  costs: costsSchema.optional(),
});
export type TargetInfo = z.infer<typeof targetInfoSchema>;

export const scenarioInfoSchema = z.strictObject({
  name: z.string(),
  description: z.string().optional(),
  group: z.string().optional(),
  /** How it was measured, when not in rounds of request/response windows (`stream`). */
  kind: z.enum(['stream']).optional(),
  requests: z.array(
    z.strictObject({
      method: z.string(),
      path: z.string(),
      headers: z.record(z.string(), z.string()),
      body: z.string().optional(),
    }),
  ),
  expect: z.strictObject({ status: z.array(z.number().int()) }),
  load: z.strictObject({
    connections: z.array(z.number().int().positive()),
    /** Settle before each window (its first step). */
    warmupSec: nonneg,
    /** A stepped load's settle before each later step (absent in older results: `warmupSec`, before every step). */
    stepWarmupSec: nonneg.optional(),
    durationSec: nonneg,
    rate: num.optional(),
    /** Requests per measured window (per step) instead of a duration. */
    requests: z.number().int().positive().optional(),
    timeoutSec: nonneg,
  }),
});

export const environmentSchema = z.strictObject({
  os: z.string(),
  kernel: z.string(),
  arch: z.string(),
  cpuModel: z.string(),
  cores: z.number().int().positive(),
  memoryBytes: int,
  hostname: z.string().optional(),
  node: z.string(),
  python: z.string().nullable(),
  benchsuite: z.string(),
  git: z.strictObject({ commit: z.string(), dirty: z.boolean() }).nullable(),
  driver: z.strictObject({
    name: z.string(),
    version: z.string(),
    flags: z.array(z.string()),
    ceilingNote: z.string().optional(),
    /** Why this driver was used (what `auto` passed over). */ reason: z.string(),
  }),
  pinning: z.strictObject({
    enabled: z.boolean(),
    tool: z.string().nullable(),
    serverCpus: z.array(z.number().int().nonnegative()),
    loaderCpus: z.array(z.number().int().nonnegative()),
    /** Why pinning is off, when it is. */
    reason: z.string().optional(),
  }),
  /** Environment variables removed from or set for server processes. */
  serverEnv: z.strictObject({ unset: z.array(z.string()), set: z.record(z.string(), z.string()) }),
  loadavgAtStart: z.array(num),
  /** Where process CPU time came from: `schedstat` (ns per thread, ticks where a window needed them) or `ticks` (utime + stime, 1/CLK_TCK s). */
  cpuClock: z.enum(['schedstat', 'ticks']).optional(),
});
export type Environment = z.infer<typeof environmentSchema>;

/** The measuring design as run (defaults filled in), recorded so a reader can check every figure. */
export const designSchema = z.strictObject({
  reference: z.string(),
  windowSec: nonneg,
  warmup: z.strictObject({ minSec: nonneg, maxSec: nonneg, tolerance: nonneg }),
  rounds: z.strictObject({ min: int, max: int }),
  blocks: z.strictObject({ min: int, max: int }),
  /** Who a block's processes served: each scenario's own block, or every scenario of the suite in turn (absent in old results: per-scenario). */
  processes: z.enum(['per-scenario', 'shared']).optional(),
  /** How a block's fresh processes were warmed: in rotation rounds, or one by one then a wake-up round (absent in older results: one by one). */
  freshWarmup: z.enum(['rotation', 'one-by-one']).optional(),
  /** Shared processes: unrecorded rotation rounds that warm a process for its next scenario. */
  carriedWarmupRounds: int.optional(),
  /** Seconds of each rotation window, and of the wake-up round's windows if any (absent in older results: rotation windows of 1 s, the warm-up's window, and wake-up windows of the measured length). */
  carriedWarmupWindowSec: nonneg.optional(),
  precision: nonneg,
  budgetSec: nonneg,
  stealThreshold: nonneg,
  practicalBand: nonneg,
  bootstrapResamples: int,
  confidence: nonneg,
  clientBoundBusy: nonneg,
  // The thresholds behind the sentences, as this run used them (absent in old results: DEFAULTS then).
  backendBoundBusy: nonneg.optional(),
  serverSaturatedShare: nonneg.optional(),
  loaderBound: z.strictObject({ serverShare: nonneg, loaderBusy: nonneg }).optional(),
  noisyWindowCov: nonneg.optional(),
  disturbedSteal: nonneg.optional(),
  covBands: z.strictObject({ excellent: nonneg, acceptable: nonneg, noisy: nonneg }).optional(),
  verdictShare: nonneg.optional(),
  /** How every interval was obtained (`INTERVAL_METHOD`). */
  intervalMethod: z.string().optional(),
  /** `--instructions`: fresh processes per pair, uninstrumented warm-up requests, counted requests at one connection and at the scenario's. */
  instructions: z.strictObject({ processes: int, warmupRequests: int, requests: int, loadedRequests: int }).optional(),
  /** `--slo`: seconds per probe (absent in older results: 2). */
  capacityProbeSec: nonneg.optional(),
  /** `--slo`: the capacity search as this run did it: blocks per target, coarse growth, bisection resolution, probes per block, kept-up and late shares (absent in older results). */
  capacity: z.strictObject({ blocks: int, startShare: nonneg, growth: nonneg, resolution: nonneg, maxProbes: int, keptUpShare: nonneg, lateShare: nonneg, confirmFailures: z.boolean() }).optional(),
  /** The budget planner's estimate of the minimum design, and what it changed to fit the budget. */
  budgetPlan: z
    .strictObject({
      minimumSec: nonneg,
      givenMinimumSec: nonneg,
      /** Each change from the given value to the fitted one; older results hold a sentence instead. */
      changes: z.array(z.union([z.strictObject({ what: z.enum(['rounds', 'warmup', 'blocks']), from: nonneg, to: nonneg, atSec: nonneg.optional(), scenario: z.string().optional() }), z.string()])),
      overBySec: nonneg,
    })
    .optional(),
});
export type DesignRecord = z.infer<typeof designSchema>;

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
   * It failed with the loader as the limit: the loader's core busy while the server's was not full,
   * and sends dropped, late or short of the offered rate (absent in results before it was judged).
   */
  loaderBound: z.boolean().optional(),
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
  /** The block could not finish (its server crashed, it could not start): why. */
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

/**
 * `--instructions`: user-space instructions per request of one (scenario, target) under valgrind's
 * callgrind, on fresh processes with the runtime's determinism flags (`flags`). Per level: the
 * count of each process ÷ the requests it answered inside the count, their median and spread
 * ((max − min) ÷ median). Kernel work and the cost of an instruction are not in it, so its
 * ratios differ from CPU-time ratios, in either direction.
 */
export const instructionsRecordSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  status: z.enum(['ok', 'skipped', 'failed']),
  reason: z.string().optional(),
  runtime: z.enum(['node', 'python']).optional(),
  flags: z.array(z.string()).optional(),
  warmupRequests: int,
  levels: z.array(
    z.strictObject({
      connections: z.number().int().positive(),
      requests: z.number().int().positive(),
      perProcess: z.array(nonneg),
      perRequest: nonneg,
      spread: nonneg,
    }),
  ),
});
export type InstructionsRecord = z.infer<typeof instructionsRecordSchema>;

/** One level of concurrent streams in one block (`kind: 'stream'` scenarios). */
export const streamLevelSchema = z.strictObject({
  /** Concurrent streams kept open. */
  streams: z.number().int().positive(),
  durationSec: nonneg,
  /** Streams started in the window (they give the latency figures). */
  started: int,
  /** Streams that ended with their end event inside the window. */
  completed: int,
  /** Streams that failed: a status other than 200, a socket error, no end event, a timeout. */
  errors: int,
  errorSamples: z.array(z.string()).optional(),
  /** Events of any name received inside the window. */
  events: int,
  eventsPerSec: nonneg,
  streamsPerSec: nonneg,
  /** Request sent → response headers (time to first byte), µs. */
  ttfb: latencySchema,
  /** Request sent → the first token event, µs. */
  firstDelta: latencySchema,
  /** Between consecutive token events of a stream, µs. */
  gap: latencySchema,
  /** Peak RSS of the target's process tree during the level. */
  peakRssBytes: int.nullable(),
  cpuSteal: nonneg,
});
export type StreamLevel = z.infer<typeof streamLevelSchema>;

/** Disconnects mid-stream and the backend's view of them (the stream observer protocol). */
export const streamCancelSchema = z.strictObject({
  /** Disconnects whose upstream request the observer saw. */
  disconnects: int,
  /** Upstream requests aborted within `waitMs` of the disconnect. */
  aborted: int,
  /** Upstream requests that completed or still ran `waitMs` after the disconnect. */
  neverAborted: int,
  /** Streams that ended before the disconnect point, or whose upstream request was not seen. */
  failed: int,
  failures: z.array(z.string()).optional(),
  afterEvents: z.number().int().positive(),
  waitMs: nonneg,
  /** Disconnect → upstream abort seen by the backend, µs (the aborted ones). */
  latency: latencySchema,
  /** Half the quickest round trip used to align the two processes' clocks, ms. */
  clockUncertaintyMs: nonneg,
});
export type StreamCancel = z.infer<typeof streamCancelSchema>;

/** One slow reader against a fast backend stream. */
export const streamBackpressureSchema = z.strictObject({
  readBytesPerSec: nonneg,
  durationSec: nonneg,
  /** Bytes the slow client read. */
  clientBytes: int,
  rssStartBytes: int,
  rssEndBytes: int,
  rssPeakBytes: int,
  /** Peak − start RSS of the target's process tree. */
  rssGrowthBytes: int,
  /** RSS of the target's tree about once a second. */
  rssSeries: z.array(z.strictObject({ sec: nonneg, bytes: int })),
  /**
   * The backend's side: bytes it wrote (`lateBytes` in the phase's second half), writes that waited
   * for drain and for how long. Throttled: still streaming at the end, and in the second half it
   * wrote no more than the client read plus `DEFAULTS.stream.backpressure.stallSlackBytes` (the
   * reader's pace reached the backend); a target that buffers lets it write on, or finish.
   */
  upstream: z
    .strictObject({
      bytes: int,
      lateBytes: int,
      waits: int,
      blockedMs: nonneg,
      outcome: z.enum(['in-flight', 'completed', 'aborted', 'failed']),
      throttled: z.boolean(),
    })
    .nullable(),
});
export type StreamBackpressure = z.infer<typeof streamBackpressureSchema>;

/** One target's streaming figures in one block (one fresh process). */
export const streamBlockSchema = z.strictObject({
  block: z.number().int().positive(),
  status: z.enum(['ok', 'failed']),
  failure: z.string().optional(),
  levels: z.array(streamLevelSchema),
  cancel: streamCancelSchema.nullable(),
  backpressure: streamBackpressureSchema.nullable(),
  wallSec: nonneg,
});
export type StreamBlock = z.infer<typeof streamBlockSchema>;

/** A streaming scenario's figures for one target: each block's levels, cancellation and backpressure. */
export const streamResultSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  blocks: z.array(streamBlockSchema),
});
export type StreamResult = z.infer<typeof streamResultSchema>;

export const resultSchema = z.strictObject({
  schemaVersion: z.literal(RESULT_SCHEMA_VERSION),
  suite: z.string(),
  startedAt: z.iso.datetime(),
  finishedAt: z.iso.datetime(),
  /** Stopped early (SIGINT/SIGTERM): windows not run are absent; `--resume` continues it. */
  interrupted: z.boolean(),
  /** This result continues an interrupted run (its windows file was read back). */
  resumed: z.boolean(),
  seed: z.number().int(),
  design: designSchema,
  environment: environmentSchema,
  scenarios: z.array(scenarioInfoSchema),
  targets: z.array(targetInfoSchema),
  verify: z.array(verifyOutcomeSchema),
  blocks: z.array(blockSchema),
  /** Every measured window, excluded ones included, in the order measured. */
  windows: z.array(windowSchema),
  summaries: z.array(pairSummarySchema),
  rankings: z.array(rankingSchema),
  stops: z.array(stopSchema),
  /** CPU profiles under `--profile` (never part of any estimate). */
  profiles: z.array(profileRecordSchema),
  /** Backends' own ceilings (scenarios that declare a backend). */
  ceilings: z.array(ceilingSchema),
  /** Thresholds checked after the run (`--threshold`, scenarios' `thresholds`); absent when none were given. */
  thresholds: z.array(thresholdOutcomeSchema).optional(),
  /** Capacity under an SLO (`--slo`); absent when not asked for. */
  capacity: z.array(capacitySchema).optional(),
  /** Instructions per request under callgrind (`--instructions`); absent when not asked for. */
  instructions: z.array(instructionsRecordSchema).optional(),
  /** Streaming scenarios' figures (`kind: 'stream'`); absent when the run had none. */
  streaming: z.array(streamResultSchema).optional(),
  /** The runner itself: its peak RSS and where the wall time went. */
  runner: z.strictObject({
    peakRssBytes: int,
    wallSec: nonneg,
    /** Seconds under load: warm-up and measured windows. */
    loadSec: nonneg,
    /** Seconds of measured windows. */
    measuredSec: nonneg,
  }),
  overall: z.strictObject({
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
    /** The run's CoV verdict over its pairs (absent in old results). */
    verdict: runVerdictSchema.nullable().optional(),
  }),
});
export type BenchResult = z.infer<typeof resultSchema>;

import { z } from 'zod';
import { int, nonneg, num } from './common.js';

// What was asked: the measuring design as run, and each scenario's requests and load.

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
    /** A stepped load's settle before each later step; absent with a single step. */
    stepWarmupSec: nonneg.optional(),
    durationSec: nonneg,
    rate: num.optional(),
    /** Requests per measured window (per step) instead of a duration. */
    requests: z.number().int().positive().optional(),
    timeoutSec: nonneg,
  }),
});

/**
 * What a budget was expected to buy (`analysis/forecast.ts`): a typical pair's noise (SDs of its
 * per-round log-ratio between blocks and within one), the blocks and rounds the run's rule picks,
 * the typical half-width then, and the budget that ±5% and ±2% would take (null: beyond the maximum).
 */
export const forecastSchema = z.strictObject({
  /** The method it was priced with: a method's name, as the run's registry names it (see `design.method`). */
  method: z.string(),
  source: z.enum(['prior', 'measured']),
  components: z.strictObject({ between: nonneg, within: nonneg }),
  blocks: int,
  rounds: int,
  halfWidth: nonneg,
  budgetFor: z.array(z.strictObject({ precision: nonneg, budgetSec: nonneg.nullable() })),
  /** A measured forecast's range from its record (`DEFAULTS.forecast.record`); absent before 2026-11-28's evening. */
  likely: z.strictObject({ low: nonneg, high: nonneg, coverage: nonneg }).optional(),
});

/** The measuring design as run (defaults filled in), recorded so a reader can check every figure. */
export const designSchema = z.strictObject({
  reference: z.string(),
  windowSec: nonneg,
  /** `served`: requests a fresh process served before it counted as warm (absent in results before it: warmed until steady within the tolerance). */
  /** `windowSec`: each warm-up window's length (absent in results before it: `warmupWindows`' rule, 1 s with a maximum of 2 s or more). */
  warmup: z.strictObject({ minSec: nonneg, maxSec: nonneg, tolerance: nonneg, served: int.optional(), windowSec: nonneg.optional() }),
  rounds: z.strictObject({ min: int, max: int }),
  blocks: z.strictObject({ min: int, max: int }),
  /** Who a block's processes served: each scenario's own block, or every scenario of the suite in turn. */
  processes: z.enum(['per-scenario', 'shared']),
  /** How a block's fresh processes were warmed: in rotation rounds, or one by one then a wake-up round. */
  freshWarmup: z.enum(['rotation', 'one-by-one']),
  /** Shared processes: what the fresh warm-up sent, every scenario's requests of the block or the first scenario's; absent in results before it: the first scenario's. */
  warmupRequests: z.enum(['first-scenario', 'all-scenarios']).optional(),
  /** Shared processes: unrecorded rotation rounds that warm a process for its next scenario. */
  carriedWarmupRounds: int,
  /**
   * Seconds of each rotation window, and of the wake-up round's windows if any. A version-2 result
   * without it used the warm-up's window for rotation (what `upgradeResult` records) and wake-up
   * windows of the measured length.
   */
  carriedWarmupWindowSec: nonneg,
  /** Requests a carried process's rotation windows served before its scenario's rounds (more windows for it until they had, within the warm-up's maximum); absent in results before it: the rotation rounds only. */
  carriedWarmupServed: int.optional(),
  /**
   * How a round loaded its targets: a method's name, as the run's registry names it
   * (`run/methods/index.ts`: today `sliced`, all in the same seconds in alternating slots, the
   * design's default with a driver that can, or `sequential`, one window after another, what a run
   * whose driver cannot slice records). A string, not a list: the result layer never reaches the
   * run's registry, and a result from a newer benchsuite with a method this one lacks still reads
   * (the reports say they do not know it, `methodSentences`). Absent in results from before sliced
   * rounds (every round was one window after another).
   */
  method: z.string().optional(),
  precision: nonneg,
  budgetSec: nonneg,
  stealThreshold: nonneg,
  practicalBand: nonneg,
  bootstrapResamples: int,
  confidence: nonneg,
  clientBoundBusy: nonneg,
  // The thresholds behind the sentences, as this run used them (`recordedThresholds`).
  backendBoundBusy: nonneg,
  serverSaturatedShare: nonneg,
  loaderBound: z.strictObject({ serverShare: nonneg, loaderBusy: nonneg }),
  noisyWindowCov: nonneg,
  disturbedSteal: nonneg,
  /** A window the host disturbed beyond steal (`DEFAULTS.hostDisturbance`); absent in results before it was judged. */
  hostDisturbance: z.strictObject({ otherShare: nonneg, loaderSlowdown: nonneg }).optional(),
  covBands: z.strictObject({ excellent: nonneg, acceptable: nonneg, noisy: nonneg }),
  verdictShare: nonneg,
  /** A pair's loader share above this is flagged (`DEFAULTS.loaderFloor.flagShare`); absent in results from before loader floors, which have no share. */
  loaderShareFlag: nonneg.optional(),
  /** Connection counts at or below this are low: the loader floor was measured there (`DEFAULTS.lowConnections`); absent in results from before loader floors. */
  lowConnections: int.optional(),
  /** How every interval was obtained (`INTERVAL_METHOD`); absent when the benchsuite that wrote the result did not say. */
  intervalMethod: z.string().optional(),
  /** `--instructions`: fresh processes per pair, uninstrumented warm-up requests, counted requests at one connection and at the scenario's. */
  instructions: z.strictObject({ processes: int, warmupRequests: int, requests: int, loadedRequests: int }).optional(),
  /** V8's young generation every Node target was started with, MB (`--min/max-semi-space-size`), or `default` (the runtime's own sizing); absent in results before it was fixed: the runtime's sizing. */
  youngGenerationMb: z.union([int, z.literal('default')]).optional(),
  /** V8's memory reducer in every Node target: `off` (`--no-memory-reducer`) or `default` (the runtime's own); absent in results before it was turned off: the runtime's own. */
  memoryReducer: z.enum(['off', 'default']).optional(),
  /** `aa`: the reference also ran as a second process in every block (the A/A control, `result.control`); absent in results before it: none. */
  control: z.enum(['aa', 'none']).optional(),
  /** Processes of every target in each block (`design.replicas`); absent in results before it: 1. */
  replicas: int.optional(),
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
      /** What the budget was expected to buy before the first block (the method's typical noise), said in the run's header. */
      forecast: forecastSchema.optional(),
      /** The same from this run's own noise, after its first blocks (the latest said). */
      measuredForecast: forecastSchema.optional(),
      /** Each loaded scenario's block in seconds as the planner priced it (`plannedBlockSecs`): with processes per scenario, what the forecast after block 2 prices a scenario not begun by (absent in older results). */
      blockSec: z.record(z.string(), nonneg).optional(),
    })
    .optional(),
});
export type DesignRecord = z.infer<typeof designSchema>;

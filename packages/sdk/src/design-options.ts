import { z } from 'zod';
import { DEFAULTS } from './defaults.js';
import { METHOD_NAMES } from './run/methods/index.js';
import { MEMORY_REDUCER_MODES } from './runtimes.js';

/*
 * The measuring design's options (`design` of a suite, `--quick`, the plan's `design`). Their own
 * module, so the budget planner reads them without importing the suite's options. Its method names
 * are the keys of the run's registry (`run/methods/index.ts`), so no module of that registry's
 * reach, and no module of the result (`result/`), imports this one (`.dependency-cruiser.mjs`).
 */

const range = (d: { min: number; max: number }) =>
  z
    .strictObject({ min: z.number().int().positive().default(d.min), max: z.number().int().positive().default(d.max) })
    .refine((r) => r.max >= r.min, { message: 'max must be ≥ min' })
    .default({ ...d });

/** The measuring design: rounds of short paired windows in blocks of fresh processes, adaptive precision. */
export const designOptionsSchema = z.strictObject({
  /** Target of the relative figures; defaults to `node-http` when present, else the first target. */
  reference: z.string().optional(),
  windowSec: z.number().positive().default(DEFAULTS.windowSec),
  warmup: z
    .strictObject({
      minSec: z.number().nonnegative().default(DEFAULTS.warmup.minSec),
      maxSec: z.number().nonnegative().default(DEFAULTS.warmup.maxSec),
      tolerance: z.number().positive().default(DEFAULTS.warmup.tolerance),
      /** Requests a fresh process serves before it is warm (within min and max seconds); 0: until steady within the tolerance. */
      served: z.number().int().nonnegative().default(DEFAULTS.warmup.served),
      /** Each warm-up window's length, after which what it served is checked. */
      windowSec: z.number().min(0.1).max(1).default(DEFAULTS.warmup.windowSec),
    })
    .refine((w) => w.maxSec >= w.minSec, { message: 'maxSec must be ≥ minSec' })
    .default({ ...DEFAULTS.warmup }),
  rounds: range(DEFAULTS.rounds),
  blocks: range(DEFAULTS.blocks),
  /** `per-scenario`: fresh processes for each scenario's block; `shared`: one set per block serves every scenario (`DEFAULTS.processes`). */
  processes: z.enum(['per-scenario', 'shared']).default(DEFAULTS.processes),
  /** Shared processes: what the fresh warm-up sends, every scenario's requests of the block at once (then no rotation rounds) or the first scenario's (`DEFAULTS.warmupRequests`). */
  warmupRequests: z.enum(['first-scenario', 'all-scenarios']).default(DEFAULTS.warmupRequests),
  /** Shared processes warmed on the first scenario (`warmupRequests`): unrecorded rotation rounds that warm a process for each later scenario of its block (`DEFAULTS.carriedWarmupRounds`). */
  carriedWarmupRounds: z.number().int().nonnegative().default(DEFAULTS.carriedWarmupRounds),
  /** Seconds of each rotation window of a carried process's warm-up (`DEFAULTS.carriedWarmupWindowSec`). */
  carriedWarmupWindowSec: z.number().positive().default(DEFAULTS.carriedWarmupWindowSec),
  /** Shared processes: requests a carried process's warm-up windows serve before its next scenario's rounds, more rotation windows for it until they have, within the warm-up's maximum (`DEFAULTS.carriedWarmupServed`; 0: the rotation rounds only). */
  carriedWarmupServed: z.number().int().nonnegative().default(DEFAULTS.carriedWarmupServed),
  /** How a round loads its targets: a method's name, a key of the registry `run/methods/index.ts` (`DEFAULTS.method`). */
  method: z.enum(METHOD_NAMES).default(DEFAULTS.method),
  /** V8's young generation of every Node target, MB (`--min/max-semi-space-size`), or `'default'` for the runtime's own sizing (`DEFAULTS.youngGenerationMb`). */
  youngGenerationMb: z.union([z.number().int().positive().max(1024), z.literal('default')]).default(DEFAULTS.youngGenerationMb),
  /** V8's memory reducer in every Node target: `'off'` (`--no-memory-reducer`) or `'default'`, the runtime's own (`DEFAULTS.memoryReducer`). */
  memoryReducer: z.enum(MEMORY_REDUCER_MODES).default(DEFAULTS.memoryReducer),
  /** `aa`: the reference also runs as a second process in every block, the run's A/A control (`DEFAULTS.control`); `none`: not. */
  control: z.enum(['aa', 'none']).default(DEFAULTS.control.kind),
  /** Processes of every target in each block, each loaded in its own slot (`DEFAULTS.replicas`). */
  replicas: z.number().int().min(1).max(8).default(DEFAULTS.replicas),
  precision: z.number().positive().max(1).default(DEFAULTS.precision),
  budgetSec: z.number().positive().default(DEFAULTS.budgetSec),
  stealThreshold: z.number().positive().max(1).default(DEFAULTS.stealThreshold),
  practicalBand: z.number().nonnegative().max(1).default(DEFAULTS.practicalBand),
  bootstrapResamples: z.number().int().min(100).default(DEFAULTS.bootstrapResamples),
  /** `--slo`: seconds of each open-loop probe of the capacity search (`DEFAULTS.capacity.probeSec`). */
  capacityProbeSec: z.number().positive().default(DEFAULTS.capacity.probeSec),
});
/**
 * Design options that measurements rejected, with why: a configuration that sets one is refused,
 * and so is resuming a run that recorded one (`readPlan`).
 */
export const removedDesignOptions = {
  freshWarmup:
    "removed: a block's fresh processes are warmed together in rotation rounds; warmed one by one, then a wake-up round, they sat idle through each other's warm-ups and the wake-up round cost 3.2 s per block",
} as const;

export type DesignOptions = z.input<typeof designOptionsSchema>;
export type Design = z.output<typeof designOptionsSchema>;

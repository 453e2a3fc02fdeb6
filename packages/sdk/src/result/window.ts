import { z } from 'zod';
import { countersShape, failureSchema, int, latencySchema, nonneg, num, openLoopSchema } from './common.js';

// One measured window and its connection steps: the raw data every estimate is computed from.

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
  /**
   * Busy fraction (0..1) of the loader's cores during the window, from /proc/stat (mean over them),
   * of the time the hypervisor left them (`loaderCoreSteal`; before 2026-12-02 stolen time counted as busy).
   */
  loaderCoreBusy: nonneg,
  /** Busy fraction (0..1) of the busiest loader core, of the time left it as above: a single-threaded loader saturates one core of several. */
  loaderBusiestCore: nonneg,
  /** The loader process's CPU seconds ÷ the window seconds the hypervisor left its cores, per thread it can use (0..1). */
  loaderThreadBusy: nonneg,
  /**
   * Seconds the loader process's threads were runnable but waited for a core (schedstat's run delay)
   * ÷ window seconds, per thread it can use: its busy share plus this is what it asked of its core
   * (another session's work on that core takes the rest). Absent without schedstat and in older results.
   */
  loaderThreadWait: nonneg.optional(),
  /** Share (0..1) of the server's and loader's cores' time taken by the hypervisor (steal) in the window. */
  cpuSteal: nonneg.optional(),
  /**
   * The same for the server's cores alone, and for the loader's: a stolen second runs no process, so
   * the busy shares here are of the time the hypervisor left (a saturated server under 30% steal
   * used 70% of the wall time, all it was given). Absent in results before 2026-12-02, whose shares
   * were of the wall time.
   */
  serverCoreSteal: nonneg.optional(),
  loaderCoreSteal: nonneg.optional(),
  /** Server tree CPU seconds ÷ (window seconds the hypervisor left the server cores × server cores): 1 = every server core busy. */
  serverCoreShare: nonneg,
  /**
   * The busiest thread of the server's tree: its CPU seconds ÷ the window seconds the hypervisor
   * left the server's cores (1 = a thread that ran throughout). A server on one thread is full at 1
   * however many cores it was given. Absent without per-thread schedstat, and in results before it
   * was recorded.
   */
  serverBusiestThread: nonneg.optional(),
  /** CPU seconds of the target's helper services (e.g. a stub backend) in the window. */
  serviceCpuSeconds: nonneg,
  /** The busiest helper service's CPU seconds ÷ the window seconds the hypervisor left the loader's cores, where services run (one thread: 1 = saturated). */
  serviceBusy: nonneg,
  samples: int,
  /**
   * The server's CPU seconds are the scheduler's nanoseconds (`/proc/<pid>/task/<tid>/schedstat`)
   * for every process of its tree; false: clock ticks (10 ms) for some, where schedstat is missing
   * or a thread exited in the window. Absent when no server process was sampled, and in results
   * written before it was recorded (ticks then).
   */
  serverCpuExact: z.boolean().optional(),
  /**
   * Share (0..1) of the server's and loader's cores' time the hypervisor left them that was used by
   * something other than the server's tree, the loader(s), helper services and the runner (clock
   * ticks, coarse): another process on the measured cores (before 2026-12-02 of all their time, steal
   * counted as another's). Absent in results before it was recorded.
   */
  otherCpuShare: nonneg.optional(),
});

/**
 * A time-sliced step (`design.method: 'sliced'`): every target of the round was loaded in the same
 * seconds, in alternating slots. Its `durationSec` is `activeSec` and its `rps` counts the responses
 * that arrived inside the slots; `requests` (and CPU per request) count every response.
 */
export const sliceSchema = z.strictObject({
  /** Seconds of each slot. */
  sliceSec: nonneg,
  /** Idle seconds after each of this target's slots before the next target's (its in-flight requests end there). */
  gapSec: nonneg,
  /** Slots the loader sent in. */
  slots: int,
  /** Seconds from each slot's first send to its last response inside it, summed: the step's `durationSec`. */
  activeSec: nonneg,
  /** Responses that arrived after their slot ended (requests in flight when it closed). */
  drained: int,
  /** Responses inside their slots in the slots' first halves and in their second halves (absent in results before they were counted). */
  halves: z.tuple([int, int]).optional(),
  /**
   * Responses inside their slots in each eighth of a slot (from its first send to its end), summed
   * over the slots; the halves are the first four and the last four (absent in results before
   * 2026-11-29).
   */
  eighths: z.array(int).length(8).optional(),
  /**
   * Each of this target's slots as `[start, req/s]`: its start in seconds from the round's first
   * slot (every target's slots of the step share that origin), and its throughput (responses inside
   * it ÷ its measured seconds; 0 where none was answered). What the host and the process did from
   * one slot to the next, per target (absent in results before 2026-12-03).
   */
  perSlot: z.array(z.tuple([z.number(), nonneg])).optional(),
});
export type SliceRecord = z.infer<typeof sliceSchema>;

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
  /** The loader's core was saturated: RPS here is the loader's ceiling, not the server's. Null: unknown (the loader's CPU was not measured, as in a merged k6 run). */
  clientBound: z.boolean().nullable(),
  /** A helper service (the backend) was saturated: RPS here is the backend's limit. */
  backendBound: z.boolean(),
  /** The server's cores were far from busy while the loader was not saturated: the figure is bounded by waiting. */
  serverNotSaturated: z.boolean(),
  /** The server's cores were not all busy while the loader core was: the loader's figure, judged by the server (false in a version-2 result that did not judge it). */
  loaderBound: z.boolean(),
  /** RPS per server CPU-second (null when the server used no measurable CPU). */
  rpsPerCpuSecond: num.nullable(),
  openLoop: openLoopSchema.optional(),
  slice: sliceSchema.optional(),
});
export type StepResult = z.infer<typeof stepResultSchema>;

const windowBase = {
  scenario: z.string(),
  target: z.string(),
  /** Which of the target's processes in the block (`design.replicas`): 2…k; absent: the first (or the only one). */
  process: z.number().int().min(2).optional(),
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
  /** Any step client-bound; null: unknown (the loader's CPU was not measured, as in a merged k6 run). */
  clientBound: z.boolean().nullable(),
  backendBound: z.boolean(),
  serverNotSaturated: z.boolean(),
  loaderBound: z.boolean(),
  /** Server CPU time (user+sys of the process tree) per response, µs; null without a server pid or responses. */
  cpuPerRequestUs: num.nullable(),
  /** One entry per connection step (a single entry for a fixed load). */
  steps: z.array(stepResultSchema).min(1),
  /** `load.requests` / `--requests`: every step of this window sent exactly this many requests instead of running for a duration. */
  fixedRequests: z.number().int().positive().optional(),
  /**
   * Why this window is left out of the estimates (it stays in the raw data): CPU steal over the
   * threshold, or `unsteady`: round 1 of a pair whose round 1 this run found off its later rounds
   * (`result.designBias`, said per pair in the report).
   */
  excluded: z.enum(['steal', 'unsteady']).nullable(),
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

import { z } from 'zod';
import { designOptionsSchema, type DesignOptions } from './design-options.js';
import type { Driver } from './driver.js';
import type { ScenarioInput } from './scenario.js';
import type { TargetInput } from './target.js';
import type { BudgetChange, BudgetPlan, RunForecast } from './analysis/budget.js';
import type { BlockRecord, CapacityProbe, StreamBackpressure, StreamCancel, StreamLevel, VerifyOutcome, WindowRecord } from './result-schema.js';

/** Progress events emitted by `runSuite`; the SDK never prints, the CLI renders these. */
export type SuiteEvent =
  | { type: 'not-pinned'; reason?: string | undefined }
  /** The planner changed the minimum design to fit the budget, or even the smallest design overruns it. */
  | { type: 'budget'; plan: Pick<BudgetPlan, 'minimumSec' | 'givenMinimumSec' | 'changes' | 'overBySec'>; budgetSec: number }
  /** A step beside the measured windows failed; the run goes on without its figures. */
  | { type: 'step-failed'; step: 'backend-ceiling' | 'loader-floor' | 'capacity' | 'artifact-size' | 'costs'; scenario?: string; target?: string; block?: number; message: string }
  | { type: 'ceiling'; scenario: string; service: string }
  | { type: 'loader-floor'; scenario: string; block: number; connections: number[] }
  /** Measured blocks cost more than planned: a change to the design for the rest of the run (recorded in `design.budgetPlan`). */
  | { type: 'replan'; change: BudgetChange }
  /** What the budget is expected to buy: before the first block from the method's typical noise, after block 2 (`afterBlock`) from this run's. */
  | {
      type: 'forecast';
      forecast: RunForecast;
      afterBlock?: number;
      /** With processes per scenario, each scenario's first blocks say one: how many of the suite's scenarios had begun. */
      scenarios?: { begun: number; of: number };
    }
  /** A capacity search starts (no `probe`) or has judged one open-loop probe. */
  | { type: 'capacity'; scenario: string; target: string; slo: string; block?: number; probe?: CapacityProbe }
  /** Windows lengthened so every connection sees enough responses at the latency the warm-up saw (and, from a scenario's second block, its earlier blocks). */
  | { type: 'window-fit'; scenario: string; block: number; fromSec: number; toSec: number; connections: number; minResponses: number }
  | { type: 'setup'; target: string; message: string }
  | { type: 'target-skipped'; target: string; reason: string }
  | { type: 'verify'; outcome: VerifyOutcome }
  | { type: 'costs'; target: string; message: string }
  | { type: 'profile'; scenario: string; target: string; status: 'start' | 'ok' | 'unavailable' | 'failed'; message?: string }
  | { type: 'instructions'; scenario: string; target: string; status: 'start' | 'process' | 'ok' | 'skipped' | 'failed'; process?: number; perRequest?: number; connections?: number; message?: string }
  | { type: 'driver'; name: string; reason: string }
  | {
      type: 'resume';
      dir: string;
      replayed: { windows: number; blocks: number; checks: number; costs: number };
      seed: number;
      driver: string;
      overrides: Record<string, unknown>;
      verify: boolean;
      pinning: boolean;
      costs: boolean;
    }
  | {
      type: 'stream';
      scenario: string;
      target: string;
      block: number;
      phase: 'start' | 'level' | 'cancel' | 'backpressure' | 'failed';
      level?: StreamLevel;
      cancel?: StreamCancel;
      backpressure?: StreamBackpressure;
      message?: string;
    }
  | { type: 'block-start'; scenario: string; block: number; targets: string[]; elapsedSec: number; budgetSec: number }
  | {
      type: 'warmup';
      scenario: string;
      block: number;
      target: string;
      /** Seconds of this target's warm-up windows so far. */
      sec: number;
      /** Requests they served. */
      served: number;
      rps: number;
      steady: boolean;
    }
  | { type: 'block-end'; block: BlockRecord }
  | { type: 'window'; window: WindowRecord; elapsedSec: number; budgetSec: number }
  | { type: 'precision'; scenario: string; blocks: number; rounds: number; worstHalfWidth: number | null; target: number; decision: 'continue' | 'precision' | 'budget' | 'max-blocks' };

/** Values from the command line that override every scenario's load profile. */
const loadOverridesSchema = z.strictObject({
  /** Measured seconds per window. */
  duration: z.number().positive().optional(),
  /** Settle seconds before each window of a stepped load (fixed loads are warmed up per block). */
  warmup: z.number().nonnegative().optional(),
  connections: z.union([z.number().int().positive(), z.array(z.number().int().positive()).min(1)]).optional(),
  /** Requests per measured window (per step) instead of a duration (`--requests`). */
  requests: z.number().int().positive().optional(),
  /** Offered requests per second for every scenario. */
  rate: z.number().positive().optional(),
  /** Open loop for every scenario (needs a rate, and a driver that can: k6). */
  openLoop: z.boolean().optional(),
});
export type LoadOverrides = z.infer<typeof loadOverridesSchema>;

const pinningOptionSchema = z.union([
  z.literal('auto'),
  z.literal(false),
  z.strictObject({ server: z.array(z.number().int().nonnegative()).min(1), loader: z.array(z.number().int().nonnegative()).min(1) }),
]);

export const suiteOptionsSchema = z.strictObject({
  /** Name recorded in the result. */
  suite: z.string().default('custom'),
  scenarios: z.array(z.unknown()).min(1, 'expected at least one scenario'),
  targets: z.array(z.unknown()).min(1, 'expected at least one target'),
  design: designOptionsSchema.default(designOptionsSchema.parse({})),
  driver: z.union([z.string(), z.custom<Driver>((v) => typeof v === 'object' && v !== null && 'run' in v, 'expected a driver')]).default('auto'),
  seed: z.number().int().optional(),
  overrides: loadOverridesSchema.default({}),
  /** Windows are appended to `<outDir>/windows.jsonl` as they finish; `--resume` continues from it. */
  outDir: z.string().optional(),
  /** Continue the interrupted run whose `windows.jsonl` is in `outDir`: same seed and plan, nothing finished runs again. */
  resume: z.boolean().default(false),
  pinning: pinningOptionSchema.default('auto'),
  /** Send each scenario's request once to each target and check it before any load. */
  verify: z.boolean().default(true),
  /** After each scenario's blocks, profile every target for one extra window (never in the estimates). */
  profile: z.boolean().default(false),
  /** Count user-space instructions per request under callgrind per (scenario, target), after its blocks (`DEFAULTS.instructions`). */
  instructions: z
    .union([
      z.boolean(),
      z.strictObject({
        processes: z.number().int().positive().optional(),
        warmupRequests: z.number().int().nonnegative().optional(),
        requests: z.number().int().positive().optional(),
        loadedRequests: z.number().int().positive().optional(),
      }),
    ])
    .default(false),
  /** Measure cost figures per process target (startup median of N cold starts, idle memory, artifact). */
  costs: z.union([z.boolean(), z.strictObject({ startups: z.number().int().positive() })]).default(false),
  /** Absolute checks on every pair's merged figures after the run, e.g. `p99<50ms,errors<0.1%,rps>20000` (each string may hold several terms). */
  thresholds: z.array(z.string()).default([]),
  /**
   * Run every Node target on each of these runtimes too (`node@22`, `node@24`, `bun`, `deno`), as
   * variants named `<target>@<runtime>`; the host's own Node is always among them (the baseline).
   */
  runtimes: z.array(z.string()).default([]),
  /** Capacity under this SLO per (scenario, target), e.g. `p99<50ms,errors<0.1%`: open-loop rates stepped up, then bisected. */
  slo: z.string().optional(),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal').optional(),
  onEvent: z.custom<(e: SuiteEvent) => void>((v) => typeof v === 'function', 'expected a function').optional(),
});

export interface RunSuiteOptions {
  suite?: string;
  scenarios: readonly ScenarioInput[];
  targets: readonly TargetInput[];
  /** Rounds, blocks, window length, warm-up, precision target, budget, steal threshold, reference. */
  design?: DesignOptions;
  /** A built-in driver's name (`auto` picks the one with the highest ceiling available), or a `Driver`. */
  driver?: string | Driver;
  seed?: number;
  overrides?: LoadOverrides;
  outDir?: string;
  resume?: boolean;
  pinning?: 'auto' | false | { server: number[]; loader: number[] };
  verify?: boolean;
  costs?: boolean | { startups: number };
  /** One extra profiled window per (scenario, target): top functions, time by package, collapsed stacks. */
  profile?: boolean;
  /** Instructions per request under valgrind's callgrind per (scenario, target): `true` or the counts to use (defaults in `DEFAULTS.instructions`). */
  instructions?: boolean | { processes?: number; warmupRequests?: number; requests?: number; loadedRequests?: number };
  /** Absolute checks after the run on every pair's merged figures: `['p99<50ms,errors<0.1%']`. */
  thresholds?: readonly string[];
  /** Runtimes every Node target also runs on: `['node@22', 'node@24', 'bun', 'deno']` (installed from the npm registry). */
  runtimes?: readonly string[];
  /** Capacity under an SLO per (scenario, target): `'p99<50ms,errors<0.1%'`. */
  slo?: string;
  signal?: AbortSignal;
  onEvent?: (event: SuiteEvent) => void;
}

/** A `benchsuite.config.ts`: scenarios and targets of your own, plus defaults for the flags. */
export interface BenchsuiteConfig extends Partial<Omit<RunSuiteOptions, 'signal' | 'onEvent' | 'outDir' | 'resume'>> {
  /** Suites selectable with `--suite`; the first is the default. When absent, `scenarios`/`targets` form one suite. */
  suites?: Record<string, { scenarios: readonly ScenarioInput[]; targets: readonly TargetInput[] }>;
}

/**
 * Identity helper for `benchsuite.config.ts`.
 *
 * @example
 * export default defineConfig({ scenarios: [myScenario], targets: [myTarget], design: { precision: 0.01 } })
 */
export function defineConfig<const T extends BenchsuiteConfig>(config: T): T {
  return config;
}

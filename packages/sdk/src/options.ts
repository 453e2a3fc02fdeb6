import { z } from 'zod';
import type { Driver } from './driver.js';
import type { ScenarioInput } from './scenario.js';
import type { TargetInput } from './target.js';
import type { BenchResult, Trial, VerifyOutcome } from './result-schema.js';

/** Progress events emitted by `runSuite`; the SDK never prints, the CLI renders these. */
export type SuiteEvent =
  | { type: 'log'; level: 'info' | 'warn'; message: string }
  | { type: 'setup'; target: string; message: string }
  | { type: 'target-skipped'; target: string; reason: string }
  | { type: 'verify'; outcome: VerifyOutcome }
  | { type: 'costs'; target: string; message: string }
  | { type: 'trial-start'; index: number; total: number; scenario: string; target: string; trial: number; etaSec: number | null }
  | { type: 'trial-phase'; index: number; phase: 'starting' | 'warmup' | 'measure' | 'stopping'; connections?: number; seconds?: number }
  | { type: 'trial-end'; index: number; total: number; trial: Trial };

/** Values from the command line that override every scenario's load profile. */
export const loadOverridesSchema = z.strictObject({
  duration: z.number().positive().optional(),
  warmup: z.number().nonnegative().optional(),
  connections: z.union([z.number().int().positive(), z.array(z.number().int().positive()).min(1)]).optional(),
});
export type LoadOverrides = z.infer<typeof loadOverridesSchema>;

export const pinningOptionSchema = z.union([
  z.literal('auto'),
  z.literal(false),
  z.strictObject({ server: z.array(z.number().int().nonnegative()).min(1), loader: z.array(z.number().int().nonnegative()).min(1) }),
]);

export const suiteOptionsSchema = z.strictObject({
  /** Name recorded in the result. */
  suite: z.string().default('custom'),
  scenarios: z.array(z.unknown()).min(1, 'expected at least one scenario'),
  targets: z.array(z.unknown()).min(1, 'expected at least one target'),
  trials: z.number().int().positive().default(3),
  driver: z.union([z.enum(['auto', 'autocannon', 'wrk']), z.custom<Driver>((v) => typeof v === 'object' && v !== null && 'run' in v, 'expected a driver')]).default('auto'),
  seed: z.number().int().optional(),
  overrides: loadOverridesSchema.default({}),
  /** Finished trials are appended to `<outDir>/trials.jsonl` as they finish. */
  outDir: z.string().optional(),
  pinning: pinningOptionSchema.default('auto'),
  /** Send each scenario's request once to each target and check it before any load. */
  verify: z.boolean().default(true),
  /** Measure cost figures per process target (startup median of N cold starts, idle memory, artifact). */
  costs: z.union([z.boolean(), z.strictObject({ startups: z.number().int().positive() })]).default(false),
  signal: z.custom<AbortSignal>((v) => v instanceof AbortSignal, 'expected an AbortSignal').optional(),
  onEvent: z.custom<(e: SuiteEvent) => void>((v) => typeof v === 'function', 'expected a function').optional(),
});

export interface RunSuiteOptions {
  suite?: string;
  scenarios: readonly ScenarioInput[];
  targets: readonly TargetInput[];
  trials?: number;
  driver?: 'auto' | 'autocannon' | 'wrk' | Driver;
  seed?: number;
  overrides?: LoadOverrides;
  outDir?: string;
  pinning?: 'auto' | false | { server: number[]; loader: number[] };
  verify?: boolean;
  costs?: boolean | { startups: number };
  signal?: AbortSignal;
  onEvent?: (event: SuiteEvent) => void;
}

/** A `benchsuite.config.ts`: scenarios and targets of your own, plus defaults for the flags. */
export interface BenchsuiteConfig extends Partial<Omit<RunSuiteOptions, 'signal' | 'onEvent' | 'outDir'>> {
  /** Suites selectable with `--suite`; the first is the default. When absent, `scenarios`/`targets` form one suite. */
  suites?: Record<string, { scenarios: readonly ScenarioInput[]; targets: readonly TargetInput[] }>;
}

/**
 * Identity helper for `benchsuite.config.ts`.
 *
 * @example
 * export default defineConfig({ scenarios: [myScenario], targets: [myTarget], trials: 5 })
 */
export function defineConfig<const T extends BenchsuiteConfig>(config: T): T {
  return config;
}

export type { BenchResult };

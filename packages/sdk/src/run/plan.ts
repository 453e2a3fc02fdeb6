import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { DEFAULTS } from '../defaults.js';
import { BenchsuiteConfigError } from '../errors.js';
import { designOptionsSchema, removedDesignOptions, type Design, type DesignOptions } from '../design-options.js';
import type { LoadOverrides, RunSuiteOptions } from '../options.js';
import { designSchema } from '../result-schema.js';
import { isMethodName, METHOD_NAMES, UNRECORDED_METHOD } from './methods/index.js';

const PLAN_FILE = 'run.json';

/** What a resumed run must reproduce: written once when a run starts. */
const storedPlanSchema = z.strictObject({
  suite: z.string(),
  seed: z.number().int(),
  design: designSchema,
  driver: z.string(),
  scenarios: z.array(z.string()),
  targets: z.array(z.string()),
  startedAt: z.iso.datetime(),
  /** Why the driver was chosen (said again when the run resumes). */
  driverReason: z.string().optional(),
  /** The rest of what the run was asked, so a resumed run asks the same. */
  options: z.strictObject({
    overrides: z.record(z.string(), z.unknown()),
    verify: z.boolean(),
    costs: z.union([z.boolean(), z.strictObject({ startups: z.number().int().positive() })]),
    profile: z.boolean(),
    instructions: z.union([z.boolean(), z.record(z.string(), z.number())]).optional(),
    pinning: z.unknown(),
    thresholds: z.array(z.string()).optional(),
    slo: z.string().optional(),
    runtimes: z.array(z.string()).optional(),
  }),
});
type StoredPlan = z.infer<typeof storedPlanSchema>;

/**
 * The run's plan: its seed, design (as fitted to the budget), driver and options, what `run.json`
 * holds. Written once when a run starts and never changed: what happens during the run is in its
 * journal (`run/journal.ts`), and `--resume` continues the plan it reads back.
 */
export type RunPlan = Omit<StoredPlan, 'design' | 'options'> & {
  design: StoredPlan['design'] & Design;
  options: Omit<StoredPlan['options'], 'overrides'> & { overrides: LoadOverrides };
};

/** `x` frozen all the way down: a plan is never changed once made (what happens during the run is journalled instead). */
export function frozen<T>(x: T): T {
  if (x && typeof x === 'object' && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) frozen(v);
  }
  return x;
}

/** Write the plan of a run that starts in `dir`. */
export function writePlan(dir: string, plan: RunPlan): void {
  writeFileSync(join(dir, PLAN_FILE), `${JSON.stringify(plan, null, 2)}\n`);
}

/**
 * Read the plan of the run in `dir` (to resume it), with a clear error when there is none or when
 * it cannot be continued: a plan that recorded a design option measurements rejected is refused
 * with why.
 */
export function readPlan(dir: string): RunPlan {
  const file = join(dir, PLAN_FILE);
  if (!existsSync(dir)) throw new BenchsuiteConfigError(`resume: ${dir} does not exist`);
  if (!existsSync(file)) throw new BenchsuiteConfigError(`resume: ${dir} holds no run to resume (no ${PLAN_FILE}; is it the folder a \`benchsuite run\` wrote?)`);
  let json: unknown;
  try {
    json = JSON.parse(readFileSync(file, 'utf8'));
  } catch (err) {
    throw new BenchsuiteConfigError(`resume: ${file} is not valid JSON (${(err as Error).message})`);
  }
  // A design option measurements rejected, as older plans recorded it: such a run cannot be
  // continued the way it began. Every plan before design.freshWarmup was recorded warmed its
  // fresh processes one by one.
  const design = (json as { design?: Record<string, unknown> } | null)?.design;
  const refuse = (option: keyof typeof removedDesignOptions, value: string) =>
    new BenchsuiteConfigError(`resume: the run in ${dir} recorded design.${option} ${value}, which this version cannot continue (${removedDesignOptions[option]}); start a new run`);
  if (design && typeof design === 'object') {
    if (design.freshWarmup !== 'rotation') throw refuse('freshWarmup', design.freshWarmup ? `'${String(design.freshWarmup)}'` : "absent (a plan from before rotation warm-ups: 'one-by-one')");
  }
  const parsed = storedPlanSchema.safeParse(json);
  if (!parsed.success) throw new BenchsuiteConfigError(`resume: ${file} is not a benchsuite run plan: ${parsed.error.issues[0]?.message ?? ''}`);
  const { options, design: d } = parsed.data;
  // Every plan before design.method was recorded measured one window after another; one by a newer
  // benchsuite may name a method this one lacks, and cannot be continued by it; every plan
  // before design.capacityProbeSec probed for the default's seconds; every plan before
  // design.youngGenerationMb and design.control ran Node with its own sizing and no A/A control.
  const method = d.method ?? UNRECORDED_METHOD;
  if (!isMethodName(method)) {
    throw new BenchsuiteConfigError(`resume: the run in ${dir} recorded design.method '${method}', which this version does not know (it knows ${METHOD_NAMES.join(', ')}); start a new run`);
  }
  return {
    ...parsed.data,
    design: {
      ...d,
      method,
      capacityProbeSec: d.capacityProbeSec ?? DEFAULTS.capacity.probeSec,
      youngGenerationMb: d.youngGenerationMb ?? 'default',
      // Every plan before design.memoryReducer ran Node with its memory reducer on.
      memoryReducer: d.memoryReducer ?? 'default',
      // Every plan before design.warmupRequests warmed its fresh processes on the first scenario.
      warmupRequests: d.warmupRequests ?? 'first-scenario',
      // Before warm-ups by work served, fresh processes warmed until steady within the tolerance;
      // before the warm-up had a window length, its windows were 1 s (half a maximum under 2 s).
      warmup: { ...d.warmup, served: d.warmup.served ?? 0, windowSec: d.warmup.windowSec ?? 1 },
      control: d.control ?? 'none',
      // Every plan before design.replicas ran one process per target in a block.
      replicas: d.replicas ?? 1,
      // Every plan before design.carriedWarmupServed warmed a carried process by its rotation rounds only.
      carriedWarmupServed: d.carriedWarmupServed ?? 0,
    },
    options: { ...options, overrides: options.overrides as LoadOverrides },
  };
}

/**
 * The options a resumed run takes from its plan: the seed, the design, the driver and every option
 * that shapes what is measured (connections, durations, warm-up, verify, pinning, costs, profile,
 * instructions, thresholds, SLO, runtimes). Only the definitions (scenarios, targets) come from the caller.
 */
export function planOptions(
  plan: RunPlan,
): Pick<RunSuiteOptions, 'suite' | 'seed' | 'design' | 'driver' | 'overrides' | 'verify' | 'costs' | 'profile' | 'instructions' | 'pinning' | 'thresholds' | 'slo' | 'runtimes'> {
  const o = plan.options;
  // The recorded design holds what the run derived too (thresholds, method): keep the options only.
  const keys = Object.keys(designOptionsSchema.shape) as (keyof DesignOptions)[];
  const design = Object.fromEntries(keys.filter((k) => k in plan.design).map((k) => [k, plan.design[k]])) as DesignOptions;
  return {
    suite: plan.suite,
    seed: plan.seed,
    design,
    driver: plan.driver,
    overrides: o.overrides,
    verify: o.verify,
    costs: o.costs,
    profile: o.profile,
    instructions: o.instructions ?? false,
    pinning: o.pinning as RunSuiteOptions['pinning'],
    thresholds: o.thresholds ?? [],
    ...(o.slo !== undefined ? { slo: o.slo } : {}),
    runtimes: o.runtimes ?? [],
  };
}

/**
 * What a run asks of its plan, any part of it: the facts two plans are compared on. Options are
 * compared as asked: costs, instructions and pinning on or off; scenarios and targets as sets.
 */
export interface PlanAsk {
  suite?: string | undefined;
  seed?: number | undefined;
  driver?: string | undefined;
  scenarios?: readonly string[] | undefined;
  targets?: readonly string[] | undefined;
  design?: DesignOptions;
  overrides?: { [K in keyof LoadOverrides]?: LoadOverrides[K] | undefined };
  options?: {
    verify?: boolean | undefined;
    costs?: boolean | undefined;
    pinning?: boolean | undefined;
    profile?: boolean | undefined;
    instructions?: boolean | undefined;
    thresholds?: readonly string[] | undefined;
    slo?: string | undefined;
    runtimes?: readonly string[] | undefined;
  };
}

/** A plan's facts as `PlanAsk` names them: every fact it holds, in the form a run asks it. */
function factsOf(plan: RunPlan): Required<Pick<PlanAsk, 'design' | 'overrides' | 'options'>> & PlanAsk {
  const o = plan.options;
  return {
    suite: plan.suite,
    seed: plan.seed,
    driver: plan.driver,
    scenarios: plan.scenarios,
    targets: plan.targets,
    design: plan.design,
    overrides: o.overrides,
    options: {
      verify: o.verify,
      costs: Boolean(o.costs),
      pinning: o.pinning !== false,
      profile: o.profile,
      instructions: Boolean(o.instructions),
      thresholds: o.thresholds ?? [],
      slo: o.slo,
      runtimes: o.runtimes ?? [],
    },
  };
}

const SETS = new Set(['scenarios', 'targets']);

/**
 * Where a run asks something its recorded plan holds otherwise: the facts of `asked` that differ,
 * as paths (`seed`, `design.precision`, `overrides.connections`, `options.verify`). A fact `asked`
 * leaves out is not compared; one it gives as undefined asks for its absence. The one comparison
 * of two plans: `--resume` with contradicting flags is refused from it.
 */
export function diffPlans(recorded: RunPlan, asked: PlanAsk): string[] {
  const facts = factsOf(recorded) as unknown as Record<string, unknown>;
  const same = (path: string, a: unknown, b: unknown) => {
    const norm = (x: unknown) => (SETS.has(path) && Array.isArray(x) ? [...x].sort() : (x ?? null));
    return JSON.stringify(norm(a)) === JSON.stringify(norm(b));
  };
  const out: string[] = [];
  for (const [key, value] of Object.entries(asked)) {
    if (key === 'design' || key === 'overrides' || key === 'options') {
      const recordedPart = (facts[key] ?? {}) as Record<string, unknown>;
      for (const [k, v] of Object.entries(value as Record<string, unknown>)) if (!same(`${key}.${k}`, recordedPart[k], v)) out.push(`${key}.${k}`);
    } else if (!same(key, facts[key], value)) out.push(key);
  }
  return out;
}

/** The scenarios and targets of the plan that a resumed run's definitions lack (a target may come back as its runtime variants). */
export function missingDefinitions(plan: RunPlan, scenarios: readonly string[], targets: readonly string[]): string[] {
  return [...plan.scenarios.filter((n) => !scenarios.includes(n)).map((n) => `scenario "${n}"`), ...plan.targets.filter((n) => !targets.includes(n)).map((n) => `target "${n}"`)];
}

import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import { BenchsuiteConfigError } from '../errors.js';
import { designOptionsSchema, type DesignOptions, type LoadOverrides, type RunSuiteOptions } from '../options.js';
import {
  blockSchema,
  capacityBlockSchema,
  ceilingSchema,
  costsSchema,
  designSchema,
  instructionsRecordSchema,
  profileRecordSchema,
  streamBlockSchema,
  verifyOutcomeSchema,
  windowSchema,
  type BlockRecord,
  type CapacityBlock,
  type Ceiling,
  type Costs,
  type InstructionsRecord,
  type ProfileRecord,
  type StreamBlock,
  type StreamResult,
  type VerifyOutcome,
  type WindowRecord,
} from '../result-schema.js';

export const WINDOWS_FILE = 'windows.jsonl';
const PLAN_FILE = 'run.json';

/** What a resumed run must reproduce: written once when a run starts. */
const runPlanSchema = z.strictObject({
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
/** The plan a run writes to `run.json` when it starts: what `--resume` continues. */
export type RunPlan = z.infer<typeof runPlanSchema>;

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
  const design = Object.fromEntries(keys.filter((k) => k in plan.design).map((k) => [k, (plan.design as Record<string, unknown>)[k]])) as DesignOptions;
  return {
    suite: plan.suite,
    seed: plan.seed,
    design,
    driver: plan.driver,
    overrides: o.overrides as LoadOverrides,
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

const lineSchema = z.discriminatedUnion('record', [
  /** `loadSec`: the run's seconds under load so far, so a resumed run's overhead counts the interrupted part too. */
  z.strictObject({ record: z.literal('window'), window: windowSchema, loadSec: z.number().nonnegative().optional() }),
  z.strictObject({ record: z.literal('block'), block: blockSchema }),
  z.strictObject({ record: z.literal('verify'), outcome: verifyOutcomeSchema }),
  z.strictObject({ record: z.literal('costs'), target: z.string(), costs: costsSchema }),
  z.strictObject({ record: z.literal('ceiling'), ceiling: ceilingSchema }),
  z.strictObject({ record: z.literal('profile'), profile: profileRecordSchema }),
  z.strictObject({ record: z.literal('instructions'), instructions: instructionsRecordSchema }),
  z.strictObject({ record: z.literal('stream'), scenario: z.string(), target: z.string(), block: streamBlockSchema }),
  /** A finished block of a capacity search (`--slo`), its probes' windows included. */
  z.strictObject({ record: z.literal('capacity'), scenario: z.string(), target: z.string(), block: capacityBlockSchema }),
]);
type Line = z.infer<typeof lineSchema>;

/** Everything a run appended before it stopped. */
export interface RunLog {
  windows: WindowRecord[];
  blocks: BlockRecord[];
  verify: VerifyOutcome[];
  costs: Map<string, Costs>;
  ceilings: Ceiling[];
  profiles: ProfileRecord[];
  instructions: InstructionsRecord[];
  /** Streaming scenarios' blocks, per (scenario, target). */
  streams: StreamResult[];
  /** Finished blocks of capacity searches, per (scenario, target). */
  capacity: Array<{ scenario: string; target: string; block: CapacityBlock }>;
  /** Seconds under load when the last window was written. */
  loadSec: number;
}

/**
 * The run's append-only log: every window, block, verify outcome and cost figure is written as it
 * finishes, so an interrupted run loses nothing and `resume` replays it instead of measuring again.
 */
export class RunJournal {
  private readonly file: string | undefined;
  constructor(readonly dir: string | undefined) {
    if (dir) mkdirSync(dir, { recursive: true });
    this.file = dir ? join(dir, WINDOWS_FILE) : undefined;
  }
  private append(line: Line): void {
    if (this.file) appendFileSync(this.file, `${JSON.stringify(line)}\n`);
  }
  window(window: WindowRecord, loadSec: number): void {
    this.append({ record: 'window', window, loadSec });
  }
  block(block: BlockRecord): void {
    this.append({ record: 'block', block });
  }
  verify(outcome: VerifyOutcome): void {
    this.append({ record: 'verify', outcome });
  }
  costs(target: string, costs: Costs): void {
    this.append({ record: 'costs', target, costs });
  }
  ceiling(ceiling: Ceiling): void {
    this.append({ record: 'ceiling', ceiling });
  }
  profile(profile: ProfileRecord): void {
    this.append({ record: 'profile', profile });
  }
  instructions(instructions: InstructionsRecord): void {
    this.append({ record: 'instructions', instructions });
  }
  stream(scenario: string, target: string, block: StreamBlock): void {
    this.append({ record: 'stream', scenario, target, block });
  }
  capacity(scenario: string, target: string, block: CapacityBlock): void {
    this.append({ record: 'capacity', scenario, target, block });
  }
  writePlan(plan: RunPlan): void {
    if (this.dir) writeFileSync(join(this.dir, PLAN_FILE), `${JSON.stringify(plan, null, 2)}\n`);
  }
}

/** Read the plan of the run in `dir` (to resume it), with a clear error when there is none. */
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
  const parsed = runPlanSchema.safeParse(json);
  if (!parsed.success) throw new BenchsuiteConfigError(`resume: ${file} is not a benchsuite run plan: ${parsed.error.issues[0]?.message ?? ''}`);
  return parsed.data;
}

/** Read back the log of the run in `dir`. A line cut short by a kill (the last one) is ignored. */
export function readLog(dir: string): RunLog {
  const log: RunLog = { windows: [], blocks: [], verify: [], costs: new Map(), ceilings: [], profiles: [], instructions: [], streams: [], capacity: [], loadSec: 0 };
  const file = join(dir, WINDOWS_FILE);
  if (!existsSync(file)) return log;
  const lines = readFileSync(file, 'utf8').split('\n');
  lines.forEach((text, i) => {
    if (!text.trim()) return;
    let line: Line;
    try {
      line = lineSchema.parse(JSON.parse(text));
    } catch (err) {
      if (i >= lines.length - 2) return; // the last line, cut short by the kill
      throw new BenchsuiteConfigError(`resume: ${file}:${i + 1} is not a record this version wrote: ${(err as Error).message.split('\n')[0]}`);
    }
    if (line.record === 'window') {
      log.windows.push(line.window);
      log.loadSec = Math.max(log.loadSec, line.loadSec ?? 0);
    } else if (line.record === 'block') log.blocks.push(line.block);
    else if (line.record === 'verify') log.verify.push(line.outcome);
    else if (line.record === 'ceiling') log.ceilings.push(line.ceiling);
    else if (line.record === 'profile') log.profiles.push(line.profile);
    else if (line.record === 'instructions') log.instructions.push(line.instructions);
    else if (line.record === 'capacity') log.capacity.push({ scenario: line.scenario, target: line.target, block: line.block });
    else if (line.record === 'stream') {
      const r = log.streams.find((x) => x.scenario === line.scenario && x.target === line.target);
      if (r) r.blocks.push(line.block);
      else log.streams.push({ scenario: line.scenario, target: line.target, blocks: [line.block] });
    } else log.costs.set(line.target, line.costs);
  });
  return log;
}

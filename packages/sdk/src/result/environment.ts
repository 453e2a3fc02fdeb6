import { z } from 'zod';
import { int, nonneg, num } from './common.js';

// Where and on what it ran: the machine, the driver, the targets and their costs, the verify step.

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

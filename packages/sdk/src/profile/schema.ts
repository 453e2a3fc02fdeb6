import { z } from 'zod';

const share = z.number().min(0).max(1);

/** Kinds of code a group of frames can be (see `classifyFrame`); `idle` and `meta` never get a share. */
export const profileGroupKindSchema = z.enum(['own', 'contract', 'package', 'runtime', 'kernel', 'other']);

/** One function of a profile, by self time. Shares are of the busy (non-idle) weight. */
export const profileFunctionSchema = z.strictObject({
  /** The frame as in the collapsed stacks: `function (path:line)` or `symbol (dso)`. */
  name: z.string(),
  /** Group it belongs to: a package name, `own`, `contract`, `runtime`, `gc`, `kernel` or `other`. */
  group: z.string(),
  /** Share of busy samples with this function at the top of the stack. */
  self: share,
  /** Share of busy samples with this function anywhere on the stack (counted once per sample). */
  total: share,
});
export type ProfileFunction = z.output<typeof profileFunctionSchema>;

/** Time by package: one group of frames (a dependency, the runtime, the target's own code…). */
export const profileGroupSchema = z.strictObject({
  name: z.string(),
  kind: profileGroupKindSchema,
  /** Share of busy samples whose top frame is in this group (groups' `self` sum to 1). */
  self: share,
  /** Share of busy samples with this group anywhere on the stack ("under hono: 80%"). */
  total: share,
});
export type ProfileGroup = z.output<typeof profileGroupSchema>;

/**
 * What one profiled window says, as stored in the result. Idle time (V8's `(idle)`: the event
 * loop waiting for I/O) is reported as `idle` and left out of every other share, so shares are of
 * CPU time actually spent and compare across profilers (py-spy and perf never sample idle).
 */
export const profileSummarySchema = z.strictObject({
  /** Profiler that took it: `node`, `py-spy`, `perf` or a target's own. */
  profiler: z.string(),
  /** What the weights count: samples, or µs of sampled time (V8). */
  unit: z.enum(['samples', 'us']),
  /** Samples taken, idle ones included. */
  samples: z.number().int().nonnegative(),
  /** Total weight (in `unit`), idle included. */
  weight: z.number().nonnegative(),
  /** Share of the weight spent idle; every other share leaves it out. */
  idle: share,
  durationSec: z.number().nonnegative().optional(),
  /** Nominal sampling interval, µs. */
  intervalUs: z.number().positive().optional(),
  /** Functions by self time, highest first (ties by name). */
  top: z.array(profileFunctionSchema),
  /** Time by package and kind of code, highest self share first (ties by name). */
  byPackage: z.array(profileGroupSchema),
  /** The collapsed stacks this summary was computed from, relative to `results.json`. */
  stacksFile: z.string().optional(),
});
export type ProfileSummary = z.output<typeof profileSummarySchema>;

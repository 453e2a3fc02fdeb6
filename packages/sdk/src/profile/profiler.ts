import { z } from 'zod';
import type { CollapsedProfile } from './collapsed.js';

/** A server command and environment, possibly changed so the profiler can reach inside. */
export interface PreparedCommand {
  command: string[];
  env: Record<string, string>;
}

export interface ProfileStartOptions {
  /**
   * The environment the target was started with, as `prepareCommand` returned it. The Node
   * profiler finds its hand-off folder there (or else in `/proc/<pid>/environ`).
   */
  env?: Readonly<Record<string, string>> | undefined;
  /** Command prefix pinning the profiler's own process (py-spy, perf), e.g. the loader's `['taskset', '-c', '1']`. */
  pin?: readonly string[] | undefined;
  /** The profiler ends by itself after this many seconds if `stop()` never comes. */
  maxDurationSec?: number | undefined;
  /** Sampling interval, µs; each profiler has its default (`PROFILE_DEFAULTS`). */
  intervalUs?: number | undefined;
}

/** A profile being taken; `stop()` ends it. */
export interface ProfileSession {
  /** Stop sampling, leave the profiler's own output at `outFile`, and return the stacks in collapsed form. */
  stop(): Promise<CollapsedProfile>;
}

/**
 * A sampling CPU profiler behind one small interface (as drivers are). The runner calls
 * `prepareCommand` before starting the server, `start` when the profiled window begins and the
 * session's `stop` when it ends.
 *
 * @example
 * const profiler = defineProfiler({
 *   name: 'my-profiler',
 *   available: async () => true,
 *   start: async (pid, outFile) => ({ stop: async () => ({ stacks: parseCollapsed(await readFile(outFile, 'utf8')), unit: 'samples', samples: 0 }) }),
 * });
 */
export interface Profiler {
  /** Recorded in the profile summary. */
  name: string;
  /** `true`, or why it cannot run here (binary missing, ptrace or perf_event not allowed). */
  available(): Promise<true | string>;
  /** Change the server's command and environment before it starts (Node: the preload hook). Absent: unchanged. */
  prepareCommand?(command: readonly string[], env: Readonly<Record<string, string>>): PreparedCommand;
  /** Start sampling `pid` (and its descendants where the profiler can); resolves once samples are being taken. */
  start(pid: number, outFile: string, options?: ProfileStartOptions): Promise<ProfileSession>;
}

/** Identity helper for typing a custom profiler. */
export function defineProfiler<const T extends Profiler>(profiler: T): T {
  return profiler;
}

const profilerSchema = z.custom<Profiler>(
  (v) => typeof v === 'object' && v !== null && typeof (v as Profiler).name === 'string' && typeof (v as Profiler).start === 'function' && typeof (v as Profiler).available === 'function',
  'expected a profiler name or an object with name, available() and start()',
);

/**
 * A target's profiling settings (for `processTargetSchema.profile`): which profiler (a built-in
 * name, `auto`, or its own), and which paths are its own code and the shared contract code.
 */
export const targetProfileSchema = z.strictObject({
  profiler: z.union([z.enum(['auto', 'node', 'py-spy', 'perf']), profilerSchema]).default('auto'),
  /** Path prefixes of the target's own code (see `ClassifyOptions.own`). */
  own: z.array(z.string()).optional(),
  /** Path prefixes of shared contract code (see `ClassifyOptions.contract`). */
  contract: z.array(z.string()).optional(),
});
export type TargetProfileOptions = z.output<typeof targetProfileSchema>;

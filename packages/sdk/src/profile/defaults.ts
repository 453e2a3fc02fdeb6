/**
 * Defaults of the profilers. They belong in `DEFAULTS` (packages/sdk/src/defaults.ts) as
 * `profile`; they sit here until the run loop takes them over, and nothing else restates them.
 */
export const PROFILE_DEFAULTS = {
  /**
   * V8 sampling interval, µs (V8's own default is 1000). 100 µs gives ~10k samples per second of
   * a 1-s window for a tolerable cost; measured overhead in packages/sdk/src/profile/README.md.
   */
  nodeIntervalUs: 100,
  /** py-spy samples per second (its default is 100). */
  pySpyRate: 250,
  /** perf sampling frequency, Hz: 999 rather than 1000 so sampling does not beat with timers. */
  perfFrequency: 999,
  /** Functions kept in a summary's `top`. */
  topFunctions: 20,
  /** A profiler stops by itself after this long if nobody calls `stop()` (a runner that died). */
  maxDurationSec: 120,
  /** How long `start()` waits for the profiler to confirm it is sampling, ms. */
  startTimeoutMs: 15_000,
  /** How long `stop()` waits for the profile to be written (and, for perf, `perf script`), ms. */
  stopTimeoutMs: 60_000,
} as const;

/*
 * What the warm-up's seconds (`design.warmup`) make of its windows. A module of its own so that the
 * result's upgrade and the run's warm-up read it without the design's options, whose method names
 * come from the run's registry (`run/methods/index.ts`).
 */

/** Warm-up windows: at most 1 s each, so a steady state is noticed within a second, and at least two fit the maximum. */
export function warmupWindows(w: { minSec: number; maxSec: number }): { windowSec: number; min: number; max: number } {
  const windowSec = Math.min(1, Math.max(w.maxSec / 2, 0.1));
  const min = Math.ceil(w.minSec / windowSec - 1e-9);
  const max = Math.max(min, Math.floor(w.maxSec / windowSec + 1e-9));
  return { windowSec, min, max };
}

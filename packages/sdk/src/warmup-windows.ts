/*
 * What the warm-up's seconds (`design.warmup`) make of its windows. A module of its own so that the
 * result's upgrade and the run's warm-up read it without the design's options, whose method names
 * come from the run's registry (`run/methods/index.ts`).
 */

/**
 * Warm-up windows: at most `windowSec` long (the design's, after each of which a warm-up by work
 * served checks what was served; 1 s in designs recorded before it had one), so a steady state is
 * noticed within a window, and at least two fit the maximum.
 */
export function warmupWindows(w: { minSec: number; maxSec: number; windowSec?: number | undefined }): { windowSec: number; min: number; max: number } {
  const windowSec = Math.min(w.windowSec ?? 1, Math.max(w.maxSec / 2, 0.1));
  const min = Math.ceil(w.minSec / windowSec - 1e-9);
  const max = Math.max(min, Math.floor(w.maxSec / windowSec + 1e-9));
  return { windowSec, min, max };
}

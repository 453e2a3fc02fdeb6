import { pinPrefix } from '../environment.js';
import type { Design } from '../options.js';
import { PhaseError, type StartedTarget } from './runtime.js';
import type { WindowContext, WindowSpec } from './window.js';

/** The warm-up's per-second req/s and whether it ended steady. */
export interface WarmupOutcome {
  rps: number[];
  steady: boolean;
}

/**
 * Has the warm-up reached a steady state? After at least `minWindows`, when the last window's
 * req/s is within `tolerance` of the one before. Pure, so the rule is tested on its own.
 */
export function isSteady(rps: readonly number[], minWindows: number, tolerance: number): boolean {
  if (rps.length < Math.max(2, minWindows)) return false;
  const a = rps.at(-2)!;
  const b = rps.at(-1)!;
  return a > 0 && Math.abs(b / a - 1) <= tolerance;
}

/** Warm-up windows: at most 1 s each, so a steady state is noticed within a second, and at least two fit the maximum. */
export function warmupWindows(w: Design['warmup']): { windowSec: number; min: number; max: number } {
  const windowSec = Math.min(1, Math.max(w.maxSec / 2, 0.1));
  const min = Math.ceil(w.minSec / windowSec - 1e-9);
  const max = Math.max(min, Math.floor(w.maxSec / windowSec + 1e-9));
  return { windowSec, min, max };
}

/**
 * Warm a fresh server up at the scenario's first connection step until its per-second req/s is
 * steady (within the tolerance) or the maximum is spent. Nothing from here reaches an estimate;
 * the series is kept in the block record so a reader can see the warm-up curve.
 */
export async function warmUp(ctx: WindowContext, target: StartedTarget, spec: WindowSpec, w: Design['warmup'], onSecond?: (rps: number, steady: boolean) => void): Promise<WarmupOutcome> {
  const { windowSec, min, max } = warmupWindows(w);
  const rps: number[] = [];
  const expectStatus = Array.isArray(spec.scenario.expect.status) ? spec.scenario.expect.status : [spec.scenario.expect.status];
  for (let i = 0; i < max; i++) {
    if (ctx.signal.aborted) throw new PhaseError('interrupted', 'interrupted');
    const res = await ctx.driver
      .run({
        baseUrl: target.baseUrl,
        requests: spec.requests,
        connections: spec.steps[0]!,
        warmupSec: 0,
        durationSec: windowSec,
        rate: spec.scenario.load.rate,
        timeoutSec: spec.scenario.load.timeout,
        expectStatus,
        pin: pinPrefix(ctx.pinning, ctx.pinning.loaderCpus),
        signal: ctx.signal,
      })
      .catch((err: Error) => {
        const e = target.exitInfo();
        if (e) throw new PhaseError('crash', `server exited during the warm-up`, target.tail(), e);
        throw new PhaseError(ctx.signal.aborted ? 'interrupted' : 'warmup', err.message);
      });
    rps.push(res.durationSec > 0 ? res.requests / res.durationSec : 0);
    const steady = isSteady(rps, min, w.tolerance);
    onSecond?.(rps.at(-1)!, steady);
    if (steady) return { rps, steady };
  }
  return { rps, steady: false };
}

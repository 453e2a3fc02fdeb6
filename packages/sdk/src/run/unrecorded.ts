import { loadOnce } from './load.js';
import { PhaseError } from './server-process.js';
import type { RoundItem, WindowContext } from './window.js';

/*
 * Unrecorded windows: the load of a warm-up (`warmup.ts`) and of a round one window after another
 * that records nothing (the sequential method's warm-up round, `methods/sequential.ts`). A module
 * of its own so the methods reach it without the warm-up schemes, which read the design's options.
 */

/** One unrecorded window at the scenario's first connection step: its req/s. */
export async function warmupWindow(ctx: WindowContext, { target, spec }: RoundItem, windowSec: number): Promise<number> {
  const expectStatus = Array.isArray(spec.scenario.expect.status) ? spec.scenario.expect.status : [spec.scenario.expect.status];
  const { res } = await loadOnce(ctx, {
    server: target,
    send: {
      requests: spec.requests,
      connections: spec.steps[0]!,
      warmupSec: 0,
      durationSec: windowSec,
      rate: spec.scenario.load.rate,
      timeoutSec: spec.scenario.load.timeout,
      expectStatus,
    },
    failures: 'warm-up',
  });
  return res.durationSec > 0 ? res.requests / res.durationSec : 0;
}

/**
 * One round of unrecorded windows, one per target in the given order: a rotation round of fresh
 * warm-ups or of a carried process's warm-up. Returns each target's req/s, or its error (that
 * target leaves; the others go on).
 */
export async function unrecordedWindows(ctx: WindowContext, items: readonly RoundItem[], windowSec: number): Promise<(number | { error: unknown })[]> {
  const out: (number | { error: unknown })[] = [];
  for (const item of items) {
    try {
      out.push(await warmupWindow(ctx, item, windowSec));
    } catch (err) {
      if (err instanceof PhaseError && err.phase === 'interrupted') throw err;
      out.push({ error: err });
    }
  }
  return out;
}

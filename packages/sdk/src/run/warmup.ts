import { subSeed } from '../analysis/bootstrap.js';
import type { Design } from '../design-options.js';
import type { BlockRecord } from '../result-schema.js';
import { seededShuffle } from '../random.js';
import type { StartedTarget } from './server-process.js';
import { warmupWindow } from './unrecorded.js';
import type { WindowContext, WindowSpec } from './window.js';
import { warmupWindows } from '../warmup-windows.js';

/** A target of a scenario's part of a block, as a warm-up sees it. */
export interface WarmTarget {
  /** It served an earlier scenario of the block (shared processes). */
  readonly carried: boolean;
  /** Its warm-up has reached a steady state. */
  readonly steady: boolean;
  /** Its warm-up windows so far. */
  readonly warmupRps: readonly number[];
  /** The windows its fresh warm-up took the last time a block warmed it the same way (`expectedWarmupWindows`); unknown in its first. */
  readonly expectedWindows?: number | undefined;
}

/**
 * How a block warms a scenario's targets before its rounds: rotation rounds of unrecorded windows.
 * A scheme says which targets take one window each in a round and in what order, whose req/s the
 * round records, and when a target is steady; the block runs the rounds (`run/block.ts`). A new
 * scheme is one more of these, chosen in `warmupSchemes`.
 */
export interface WarmupScheme {
  /** Seconds of each of its windows. */
  readonly windowSec: number;
  /** Its `round`-th round (from 1): the targets that take a window, in their seeded order; none when it is done. */
  order<T extends WarmTarget>(round: number, targets: readonly T[]): T[];
  /** Whether a round's window on this target is its warm-up's (recorded in the block, its steadiness judged). */
  records(t: WarmTarget): boolean;
  /** Whether a warm-up series has reached its steady state. */
  steady(rps: readonly number[]): boolean;
}

/** Where a scheme's seeded orders come from: the run's seed and the part of the block. */
interface SchemeSeed {
  seed: number;
  scenario: string;
  block: number;
}

/**
 * Fresh processes, warmed together until steady: each still warming gets one window of the
 * warm-up's length per round (`dueInRound`), in an order drawn afresh per round, until it is steady
 * or has had the maximum of windows.
 */
function freshRotation(design: Pick<Design, 'warmup'>, o: SchemeSeed): WarmupScheme {
  const { windowSec, min, max } = warmupWindows(design.warmup);
  return {
    windowSec,
    order: (round, targets) =>
      seededShuffle(
        dueInRound(
          round,
          targets.filter((t) => !t.carried),
          max,
        ),
        subSeed(o.seed, o.scenario, o.block, 'warmup', round),
      ),
    records: (t) => !t.carried,
    steady: (rps) => (design.warmup.served ? hasServed(rps, windowSec, min, design.warmup.served) : isSteady(rps, min, design.warmup.tolerance)),
  };
}

/**
 * The fresh targets that take a window in a warm-up's `round`: those still warming (not steady, under
 * `max` windows), each from the round that makes the windows it is expected to take end with the
 * longest's, so the fast ones do not sit idle through the slow ones' warm-up and meet round 1 as
 * rested as the others. A target with no expectation, or already started, takes every round; when
 * none is due but some still warm (one ended sooner than expected), they all take it. Pure.
 */
export function dueInRound<T extends WarmTarget>(round: number, fresh: readonly T[], max: number): T[] {
  const warming = fresh.filter((t) => !t.steady && t.warmupRps.length < max);
  const longest = Math.min(max, Math.max(0, ...fresh.map((t) => t.expectedWindows ?? 0)));
  const due = warming.filter((t) => t.expectedWindows === undefined || t.warmupRps.length > 0 || round > longest - Math.min(t.expectedWindows, longest));
  return due.length ? due : warming;
}

/**
 * The windows each target's fresh warm-up took in the latest block that warmed it the same way: the
 * scenario's own blocks, or any block's fresh warm-up when it is on every scenario's requests
 * (`mixed`). What `dueInRound` aligns the warm-ups' ends by. Pure.
 */
export function expectedWarmupWindows(blocks: readonly Pick<BlockRecord, 'scenario' | 'targets'>[], scenario: string, mixed: boolean): Map<string, number> {
  const out = new Map<string, number>();
  for (const b of blocks) {
    if (!mixed && b.scenario !== scenario) continue;
    for (const t of b.targets) if (t.status === 'ok' && !t.carried && t.warmupRps.length) out.set(t.target, t.warmupRps.length);
  }
  return out;
}

/**
 * Has the warm-up done its work? After at least `minWindows`, when the windows of `windowSec` have
 * served `requests` between them (each window's req/s × its length).
 */
function hasServed(rps: readonly number[], windowSec: number, minWindows: number, requests: number): boolean {
  return rps.length >= Math.max(1, minWindows) && rps.reduce((a, x) => a + x * windowSec, 0) >= requests;
}

/**
 * A carried process (it served an earlier scenario of its shared block): `carriedWarmupRounds`
 * rotation rounds of `carriedWarmupWindowSec` windows over every target of the part, the fresh ones
 * too (it keeps them awake); only the carried ones' windows are their warm-up. Then, with
 * `carriedWarmupServed`, more rounds for each carried process whose windows have not yet served
 * that many requests, until they have or the warm-up's maximum is spent (a slow server's single
 * window served too little to warm it); without it, a carried warm-up is steady when its last two
 * windows are within the tolerance.
 */
function carriedRotation(design: Pick<Design, 'warmup' | 'carriedWarmupRounds' | 'carriedWarmupWindowSec' | 'carriedWarmupServed'>, o: SchemeSeed): WarmupScheme {
  const windowSec = design.carriedWarmupWindowSec;
  const served = design.carriedWarmupServed ?? 0;
  const maxRounds = Math.max(design.carriedWarmupRounds, Math.floor(design.warmup.maxSec / windowSec + 1e-9));
  return {
    windowSec,
    order: <T extends WarmTarget>(round: number, targets: readonly T[]): T[] => {
      if (round <= design.carriedWarmupRounds) return seededShuffle(targets, subSeed(o.seed, o.scenario, o.block, -round));
      if (!served || round > maxRounds) return [];
      return seededShuffle(
        targets.filter((t) => t.carried && !t.steady),
        subSeed(o.seed, o.scenario, o.block, -round),
      );
    },
    records: (t) => t.carried,
    steady: (rps) => (served ? hasServed(rps, windowSec, 1, served) : isSteady(rps, 2, design.warmup.tolerance)),
  };
}

/**
 * The schemes a part of a block runs, in turn: fresh processes from cold, then carried ones (when it
 * has any and warm-ups are on, and the fresh warm-up was not on every scenario's requests: `mixed`).
 */
export function warmupSchemes(
  design: Pick<Design, 'warmup' | 'carriedWarmupRounds' | 'carriedWarmupWindowSec' | 'carriedWarmupServed'>,
  o: SchemeSeed,
  targets: readonly WarmTarget[],
  mixed = false,
): WarmupScheme[] {
  const carried = !mixed && targets.some((t) => t.carried) && design.warmup.maxSec > 0;
  return [freshRotation(design, o), ...(carried ? [carriedRotation(design, o)] : [])];
}

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

/**
 * How a result records that its fresh processes were warmed together in rotation rounds, the only
 * way since one-by-one warm-ups were removed (results without the field warmed them one by one).
 */
export const FRESH_WARMUP = 'rotation' as const;

/** Seconds of a shared block's rotation windows; a design recorded before they had their own length used the warm-up's. */
export const rotationWindowSec = (d: Pick<Design, 'warmup'> & { carriedWarmupWindowSec?: number | undefined }): number => d.carriedWarmupWindowSec ?? warmupWindows(d.warmup).windowSec;

/**
 * Warm one fresh server up at the scenario's first connection step until its per-second req/s is
 * steady (within the tolerance, on consecutive seconds) or the maximum is spent. Nothing from here
 * reaches an estimate; the series is kept in the block record so a reader can see the warm-up curve.
 */
export async function warmUp(ctx: WindowContext, target: StartedTarget, spec: WindowSpec, w: Design['warmup'], onSecond?: (rps: number, steady: boolean) => void): Promise<WarmupOutcome> {
  const { windowSec, min, max } = warmupWindows(w);
  const rps: number[] = [];
  for (let i = 0; i < max; i++) {
    rps.push(await warmupWindow(ctx, { target, spec }, windowSec));
    const steady = w.served ? hasServed(rps, windowSec, min, w.served) : isSteady(rps, min, w.tolerance);
    onSecond?.(rps.at(-1)!, steady);
    if (steady) return { rps, steady };
  }
  return { rps, steady: false };
}

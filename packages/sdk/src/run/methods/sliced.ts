import { DEFAULTS } from '../../defaults.js';
import { monotonicMs, type DriverRunResult } from '../../driver.js';
import type { Histogram } from '../../histogram.js';
import { seededShuffle } from '../../random.js';
import { subSeed } from '../../analysis/bootstrap.js';
import type { StepResult } from '../../result-schema.js';
import { availableSec, otherShare, type TreeSampler, type WindowResources } from '../../window-resources.js';
import { loadOnce } from '../load.js';
import { PhaseError, type StartedTarget } from '../server-process.js';
import { combineSteps, emptyResources, stepOf, type RoundItem, type WindowContext, type WindowFigures, type WindowSpec } from '../window.js';
import { oneAfterAnotherSec } from '../../analysis/round-cost.js';
import type { Scenario } from '../../scenario.js';
import type { MethodContext, RoundMethod } from './method.js';

/** How a sliced round divides its time: slot length, each target's idle gap after its slots, cycles. */
export interface SliceTiming {
  /** Seconds of every slot; `cycles × sliceSec` is each target's measured time. */
  sliceSec: number;
  /** Per target, idle seconds after each of its slots (its in-flight requests end there). */
  gapsSec: number[];
  /** Slots per target. */
  cycles: number;
}

/**
 * Slot length and gaps for one step of a sliced round, from each target's mean latency at that
 * step (connections ÷ req/s, Little's law; undefined: not known yet). The slot holds
 * `latencies` mean latencies of the slowest target (at least `minSec`, at most the window), so
 * every connection completes several requests in it; the cycles divide the window exactly.
 * Pure, so the rule is tested on its own.
 */
export function sliceTiming(latenciesSec: ReadonlyArray<number | undefined>, windowSec: number, o: typeof DEFAULTS.slice = DEFAULTS.slice): SliceTiming {
  const l = latenciesSec.map((x) => (x !== undefined && Number.isFinite(x) && x > 0 ? x : o.unknownLatencySec));
  const want = Math.min(windowSec, Math.max(o.minSec, o.latencies * Math.max(...l)));
  const cycles = Math.max(1, Math.round(windowSec / want));
  return { sliceSec: windowSec / cycles, gapsSec: l.map((x) => Math.max(o.minGapSec, o.gapLatencies * x)), cycles };
}

/**
 * The slots of each target, CLOCK_MONOTONIC ms from `epochMs`: every cycle visits each target once,
 * in a seeded order drawn afresh per cycle (so no target always follows the same one), each slot
 * followed by its target's gap. Pure.
 */
export function sliceSchedule(timing: SliceTiming, epochMs: number, seed: number): Array<Array<[number, number]>> {
  const n = timing.gapsSec.length;
  const slots: Array<Array<[number, number]>> = Array.from({ length: n }, () => []);
  let t = epochMs;
  for (let c = 0; c < timing.cycles; c++) {
    for (const k of seededShuffle(
      Array.from({ length: n }, (_, i) => i),
      subSeed(seed, 'cycle', c),
    )) {
      slots[k]!.push([t, t + timing.sliceSec * 1000]);
      t += (timing.sliceSec + timing.gapsSec[k]!) * 1000;
    }
  }
  return slots;
}

/** Wall seconds of a sliced step's schedule (slots and gaps), without the loaders' lead. */
export const scheduleSec = (t: SliceTiming): number => t.cycles * (t.gapsSec.length * t.sliceSec + t.gapsSec.reduce((a, g) => a + g, 0));

/** A target of a sliced round: what it serves, how the scenario loads it, and its req/s at the first step when known. */
export interface SliceItem {
  target: StartedTarget;
  spec: WindowSpec;
  /** Its recent req/s at the scenario's first connection step (from its warm-up), for the slot plan. */
  rps?: number | undefined;
}

/** A sliced round's outcome per target: its window's figures, or why it failed. */
export type SliceOutcome = WindowFigures | { error: PhaseError };

/**
 * Every target of a round in the same seconds: per connection step, one loader per target (the
 * driver's `slots`), all started together, each sending only in its target's slots of a seeded
 * schedule (`sliceSchedule`), so the host's slow and fast moments fall on every target alike and
 * a ratio to the reference compares the same moments. Each target's server tree is sampled around
 * its loader; its throughput and core shares are over its active time. A target whose loader or
 * server fails gets its error; the others' windows stand. Needs a driver with `capabilities.slots`.
 */
export async function measureSlicedRound(ctx: WindowContext, items: readonly SliceItem[], seed: number): Promise<SliceOutcome[]> {
  if (!ctx.driver.capabilities.slots) throw new Error(`${ctx.driver.name} cannot load targets in time slices`);
  const steps: StepResult[][] = items.map(() => []);
  const histograms: Histogram[][] = items.map(() => []);
  const failed: Array<PhaseError | undefined> = items.map(() => undefined);
  const first = items[0]?.spec.steps ?? [];
  for (const [si, connections] of first.entries()) {
    const live = items.map((_, k) => k).filter((k) => !failed[k]);
    if (!live.length || ctx.signal.aborted) break;
    const windowSec = items[live[0]!]!.spec.windowSec;
    const timing = sliceTiming(
      live.map((k) => (items[k]!.rps ? connections / items[k]!.rps! : undefined)),
      windowSec,
    );
    const leadSec = DEFAULTS.slice.leadSec + DEFAULTS.slice.leadPerConnectionSec * connections * live.length;
    const epochMs = monotonicMs() + leadSec * 1000;
    const plan = sliceSchedule(timing, epochMs, subSeed(seed, 'step', si));
    // What each target's loader and sampler gave, kept until every target's step has ended: the
    // cores' other CPU is what none of the round's servers and loaders used.
    const got: Array<{ k: number; j: number; res: DriverRunResult; resources: WindowResources; last: TreeSampler['last'] }> = [];
    const runs = live.map(async (k, j) => {
      const { target, spec } = items[k]!;
      const scenario = spec.scenario;
      try {
        const { res, resources, cores } = await loadOnce(ctx, {
          server: target,
          send: {
            requests: spec.requests,
            connections,
            warmupSec: 0,
            durationSec: windowSec,
            slots: plan[j],
            drainSec: timing.gapsSec[j]! + 0.05,
            timeoutSec: scenario.load.timeout,
            expectStatus: Array.isArray(scenario.expect.status) ? scenario.expect.status : [scenario.expect.status],
          },
          failures: 'window',
          // Several samplers at once: each walks /proc, so sample peak memory less often than a window's.
          sample: { intervalMs: 500 },
        });
        const active = res.sliced?.activeSec ?? 0;
        if (res.requests === 0 || !res.sliced || active <= 0) {
          throw new PhaseError('load', `no response in its slots at ${connections} connections (${res.errors} errors, ${res.timeouts} timeouts): is the server reachable at ${target.baseUrl}?`);
        }
        const sampled = resources ?? emptyResources();
        // The loader's CPU from itself when it said it (the sampler's fallback for an exited loader,
        // the runner's reaped-children ticks, adds every loader of the round that ended before it).
        const own = res.sliced.loaderCpuSec;
        const last = cores && own !== undefined ? { ...cores, knownSec: cores.knownSec + own - sampled.loaderCpuSeconds } : cores;
        got.push({ k, j, res, resources: own !== undefined ? { ...sampled, loaderCpuSeconds: own } : sampled, last });
      } catch (err) {
        failed[k] = err instanceof PhaseError ? err : new PhaseError('load', (err as Error).message);
      }
    });
    await Promise.all(runs);
    const roundKnown = got.reduce((a, g) => a + g.resources.serverCpuSeconds + g.resources.loaderCpuSeconds + g.resources.serviceCpuSeconds, 0);
    for (const g of got) {
      const { target } = items[g.k]!;
      const own = g.resources.serverCpuSeconds + g.resources.loaderCpuSeconds + g.resources.serviceCpuSeconds;
      const other = g.last ? otherShare({ ...g.last, knownSec: g.last.knownSec + roundKnown - own }) : undefined;
      const r = activeShares({ ...g.resources, ...(other !== undefined ? { otherCpuShare: other } : {}) }, g.res.sliced!.activeSec, g.last?.wallSec, {
        serverCores: ctx.pinning.serverCpus.length,
        loaderCores: ctx.pinning.enabled ? ctx.pinning.loaderCpus.length : 0,
        loaderThreads: ctx.driver.capabilities.threads === 'one' ? 1 : ctx.pinning.loaderCpus.length,
      });
      histograms[g.k]!.push(g.res.histogram);
      steps[g.k]!.push(
        stepOf(ctx, connections, g.res, r, {
          sampledServer: target.pid !== undefined,
          slice: { sliceSec: timing.sliceSec, gapSec: timing.gapsSec[g.j]!, startsSec: plan[g.j]!.map(([a]) => +((a - epochMs) / 1000).toFixed(4)) },
        }),
      );
    }
  }
  return items.map((it, k) => {
    if (failed[k]) return { error: failed[k]! };
    if (steps[k]!.length < first.length) return { error: new PhaseError('interrupted', 'interrupted') };
    return combineSteps(steps[k]!, histograms[k]!, it.target.pid !== undefined);
  });
}

/**
 * A sliced step's shares over the target's active time, not the round's wall time: its server's
 * CPU ÷ the seconds it was loaded (1 = its core busy through its slots), its loader's and its
 * busiest helper service's likewise. The loader cores' busy shares are the target's own loader
 * and services (pinned there) over its active time: over the round they would carry every other
 * target's slots (a heavy backend of one target would flag its neighbour). Steal stays over the
 * whole round (every target's slots alike), and each side's share is of the active seconds the
 * hypervisor left its cores (`availableSec`). Exported for its tests.
 */
export function activeShares(r: WindowResources, activeSec: number, wallSec: number | undefined, o: { serverCores: number; loaderCores: number; loaderThreads: number }): WindowResources {
  const serverSec = availableSec(activeSec, r.serverCoreSteal);
  const loaderSec = availableSec(activeSec, r.loaderCoreSteal);
  const loaderThreadBusy = r.loaderCpuSeconds / loaderSec / Math.max(1, o.loaderThreads);
  const loaderCoreBusy = o.loaderCores > 0 ? Math.min(1, (r.loaderCpuSeconds + r.serviceCpuSeconds) / loaderSec / o.loaderCores) : loaderThreadBusy;
  return {
    ...r,
    serverCoreShare: r.serverCpuSeconds / serverSec / Math.max(1, o.serverCores),
    loaderThreadBusy,
    loaderCoreBusy,
    loaderBusiestCore: loaderCoreBusy,
    ...(wallSec !== undefined && wallSec > 0 && { serviceBusy: (r.serviceBusy * wallSec) / activeSec }),
  };
}

/** A load whose rounds can be sliced: closed loop for a duration (a capped rate, an open loop or fixed request counts keep their windows one after another). */
const slicesLoad = (scenario: Pick<Scenario, 'load'>): boolean => !scenario.load.openLoop && scenario.load.rate === undefined && scenario.load.requests === undefined;

/**
 * Time-sliced rounds: every target of a round in the same seconds, in alternating slots
 * (`measureSlicedRound`), with a driver that can confine its sends to slots (wrk) and a closed-loop
 * load of a duration. Its warm-up rounds are sliced too (at the first step), so the processes meet
 * round 1 in the state its slots leave them in. A target's latest req/s at the first step (warm-up
 * or measured) plans its next slots.
 */
export const sliced: RoundMethod = {
  runsOn: (capabilities) => capabilities.slots === true,
  measures: slicesLoad,
  // No settle: the loaders open their connections in the lead before the first slot.
  plannedSettleSec: () => 0,
  // One loader start per step for all targets; the slots' idle gaps on top of the measured seconds.
  roundSec: (s, c) => (s.targets > 1 ? s.steps * (s.targets * s.windowSec * (1 + c.slicedGapShare) + c.slicedStepSec) : oneAfterAnotherSec(s, c)),
  /**
   * Within 0.065: the default runs of 2026-11-27 read 0.057–0.073 (issue 32), the same kind of run
   * as the sequential prior's (0.24, 2026-11-26), and the ratio of the two, 0.27, is what
   * `npm run bench:slices` measured in one hour on the same processes (0.145 against 0.53). It was
   * 0.145, that bench's figure in a noisy hour, and the header then forecast about 3× the half-width
   * the runs of 2026-11-28 reached (a 6-minute run: ±11.1% forecast, ±2.5–3.7% reached); those runs,
   * the young generation fixed on a fast, quiet host, read 0.026–0.049, bench:slices' noisy hour of
   * the same day 0.10–0.11 (docs/measurements.md). Between blocks the design's (`priorBetween`,
   * analysis/forecast.ts).
   */
  prior: { within: 0.065 },
  sentences: {
    help: 'every target of a round loaded in the same seconds, in alternating slots (needs a driver that can: wrk)',
    design: 'every target in the same seconds of each round, in time slices',
    forecast: 'time-sliced',
    sideBySide: 'every round loads each target in the same seconds, in alternating time slices',
    rounds(r) {
      const slices = r.windows.flatMap((w) => (w.status === 'ok' ? w.steps.flatMap((s) => (s.slice ? [s.slice.sliceSec] : [])) : []));
      const range = slices.length ? (Math.min(...slices) === Math.max(...slices) ? `${fmtSec(slices[0]!)}` : `${fmtSec(Math.min(...slices))}–${fmtSec(Math.max(...slices))}`) : '?';
      return (
        `time-sliced: every target of a round loaded in the same seconds, in alternating slots of ${range} (a seeded order per cycle), ` +
        "so a ratio compares the same moments of the host; each figure is still the server's own, with the core to itself in its slots"
      );
    },
  },
  async warmRound(ctx, items, windowSec) {
    const out = await measureSlicedRound(ctx, sliceItems(ctx, items, windowSec), ctx.nextRoundSeed());
    if (ctx.signal.aborted) throw new PhaseError('interrupted', 'interrupted');
    return out.map((o, i) => {
      if ('error' in o) return { error: o.error };
      ctx.saw(items[i]!.target, o.steps[0]!.rps);
      return o.rps;
    });
  },
  async measureRound(ctx, items, onWindow) {
    const startedAt = ctx.date().toISOString();
    const out = await measureSlicedRound(ctx, sliceItems(ctx, items), ctx.nextRoundSeed());
    if (ctx.signal.aborted) return;
    for (const [i, o] of out.entries()) {
      if (!('error' in o)) ctx.saw(items[i]!.target, o.steps[0]!.rps);
      onWindow(i, 'error' in o ? { startedAt, error: o.error } : { startedAt, figures: o });
    }
  },
};

/** A slot's length as the Rounds line says it. */
const fmtSec = (s: number) => (s < 1 ? `${Math.round(s * 1000)} ms` : `${+s.toFixed(2)} s`);

/** A round's items as a sliced round takes them: a warm-up round (`windowSec`) at the first step only, each with its latest req/s. */
const sliceItems = (ctx: MethodContext, items: readonly RoundItem[], windowSec?: number): SliceItem[] =>
  items.map((it) => ({ target: it.target, spec: windowSec === undefined ? it.spec : { ...it.spec, steps: it.spec.steps.slice(0, 1), windowSec }, rps: ctx.lastRps(it.target) }));

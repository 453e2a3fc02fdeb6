import { prepareRequests, type RequestSpec, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { subSeed } from '../analysis/bootstrap.js';
import { PhaseError, runtimeOf, type StartedTarget } from './runtime.js';
import { measureSlicedRound, slicesLoad } from './sliced.js';
import { unrecordedWindows } from './warmup.js';
import { measureWindow, type RoundItem, type WindowContext, type WindowFigures } from './window.js';

/** The run's clock: seconds on a monotonic scale for durations and the budget, and the date records carry. */
export interface Clock {
  now(): number;
  date(): Date;
}

export const systemClock: Clock = { now: () => performance.now() / 1000, date: () => new Date() };

/** A server process of a block: started once, then serving one scenario, or with shared processes each of the block's scenarios in turn. */
export interface BlockProcess {
  name: string;
  started?: StartedTarget;
  /** Why it could not start (it takes no part in the block). */
  failure?: unknown;
}

/** A measured window of a round: its figures, or why it failed, and when it began. */
export type WindowOutcome = { startedAt: string } & ({ figures: WindowFigures } | { error: unknown });

/**
 * Where a block meets servers and time: starting a block's processes, the requests a scenario
 * sends them, rounds of unrecorded warm-up windows and rounds of measured windows, and the clock.
 * The block and the scheduler see nothing else, so they run as well against a scripted executor
 * (the tests' fake) as against real processes (`processExecutor`). A round is the unit of
 * measuring: how a round's targets share its time (one after another, or interleaved) is the
 * executor's to choose, the block only reads each target's window.
 */
export interface Executor {
  readonly clock: Clock;
  /** One fresh process per target, all started at once; one that cannot start carries its failure. */
  start(targets: readonly Target[]): Promise<BlockProcess[]>;
  stop(procs: readonly BlockProcess[]): Promise<void>;
  /** What a scenario sends to a started process (its prepare hook may ask the server). */
  prepare(scenario: Scenario, target: StartedTarget): Promise<RequestSpec[]>;
  /** A round of unrecorded windows of `windowSec`, one per item in order: each item's req/s, or its error (that target leaves). Throws when the run is interrupted. */
  warmRound(items: readonly RoundItem[], windowSec: number): Promise<Array<number | { error: unknown }>>;
  /** A round of measured windows, one per item: each outcome goes to `onWindow` as soon as it is known. Ends early when the run is interrupted. */
  measureRound(items: readonly RoundItem[], onWindow: (index: number, outcome: WindowOutcome) => void): Promise<void>;
}

/** What the real executor needs: the driver, pinning, the run's signal, and the commands targets' setup produced. */
export interface ExecutorContext extends WindowContext {
  commands: ReadonlyMap<string, readonly string[]>;
  /**
   * Time-sliced rounds (`design.method: 'sliced'` with a driver that slices): the seed their slot
   * orders are drawn from. Absent: every round one window after another.
   */
  slices?: { seed: number } | undefined;
}

/**
 * The executor of real server processes: starts them (pinned, in their own process groups), and
 * measures a round either time-sliced (`ctx.slices`: every target in the same seconds, in
 * alternating slots, `measureSlicedRound`) or one window after another in the order given
 * (`measureWindow`). Scenarios whose load cannot be sliced (a capped rate, an open loop, fixed
 * request counts) and rounds of one target are measured one window after another either way. A
 * target's latest req/s at the scenario's first step (warm-up or measured) plans its next slots.
 */
export function processExecutor(ctx: ExecutorContext, clock: Clock = systemClock): Executor {
  const lastRps = new WeakMap<StartedTarget, number>();
  let rounds = 0;
  const sliced = (items: readonly RoundItem[]) => ctx.slices !== undefined && items.length > 1 && slicesLoad(items[0]!.spec.scenario);
  const sliceItems = (items: readonly RoundItem[], windowSec?: number) =>
    items.map((it) => ({ target: it.target, spec: windowSec === undefined ? it.spec : { ...it.spec, steps: it.spec.steps.slice(0, 1), windowSec }, rps: lastRps.get(it.target) }));
  const seen = (it: RoundItem, rps: number) => {
    if (rps > 0) lastRps.set(it.target, rps);
  };
  return {
    clock,
    async start(targets) {
      const procs: BlockProcess[] = targets.map((t) => ({ name: t.name }));
      await Promise.all(
        targets.map(async (t, i) => {
          if (ctx.signal.aborted) return;
          try {
            procs[i]!.started = await runtimeOf(t).start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(t.name) });
          } catch (err) {
            procs[i]!.failure = err;
          }
        }),
      );
      return procs;
    },
    async stop(procs) {
      await Promise.all(procs.map((p) => p.started?.stop()));
    },
    prepare: (scenario, target) => prepareRequests(scenario, target.baseUrl),
    async warmRound(items, windowSec) {
      if (!sliced(items)) {
        const out = await unrecordedWindows(ctx, items, windowSec);
        for (const [i, x] of out.entries()) if (typeof x === 'number') seen(items[i]!, x);
        return out;
      }
      // With sliced rounds the warm-up rounds are sliced too (at the first step), so the processes
      // meet round 1 in the state its slots leave them in.
      const out = await measureSlicedRound(ctx, sliceItems(items, windowSec), subSeed(ctx.slices!.seed, 'round', ++rounds));
      if (ctx.signal.aborted) throw new PhaseError('interrupted', 'interrupted');
      return out.map((o, i) => {
        if ('error' in o) return { error: o.error };
        seen(items[i]!, o.steps[0]!.rps);
        return o.rps;
      });
    },
    async measureRound(items, onWindow) {
      if (sliced(items)) {
        const startedAt = clock.date().toISOString();
        const out = await measureSlicedRound(ctx, sliceItems(items), subSeed(ctx.slices!.seed, 'round', ++rounds));
        if (ctx.signal.aborted) return;
        for (const [i, o] of out.entries()) {
          if (!('error' in o)) seen(items[i]!, o.steps[0]!.rps);
          onWindow(i, 'error' in o ? { startedAt, error: o.error } : { startedAt, figures: o });
        }
        return;
      }
      for (const [i, item] of items.entries()) {
        if (ctx.signal.aborted) return;
        const startedAt = clock.date().toISOString();
        let outcome: WindowOutcome;
        try {
          const figures = await measureWindow(ctx, item.target, item.spec);
          seen(item, figures.steps[0]!.rps);
          outcome = { startedAt, figures };
        } catch (error) {
          outcome = { startedAt, error };
        }
        onWindow(i, outcome);
      }
    },
  };
}

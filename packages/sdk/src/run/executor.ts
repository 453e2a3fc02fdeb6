import { prepareRequests, type RequestSpec, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { runtimeOf, type StartedTarget } from './runtime.js';
import { unrecordedWindows } from './warmup.js';
import { measureWindow, type WindowContext, type WindowFigures, type WindowSpec } from './window.js';

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

/** One target of a round: the process that serves it and how the scenario loads it. */
export interface RoundItem {
  target: StartedTarget;
  spec: WindowSpec;
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
}

/**
 * The executor of real server processes: starts them (pinned, in their own process groups), and
 * measures a round one window after another in the order given (`measureWindow`), the design every
 * figure in the README was measured with.
 */
export function processExecutor(ctx: ExecutorContext, clock: Clock = systemClock): Executor {
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
    warmRound: (items, windowSec) => unrecordedWindows(ctx, items, windowSec),
    async measureRound(items, onWindow) {
      for (const [i, item] of items.entries()) {
        if (ctx.signal.aborted) return;
        const startedAt = clock.date().toISOString();
        let outcome: WindowOutcome;
        try {
          outcome = { startedAt, figures: await measureWindow(ctx, item.target, item.spec) };
        } catch (error) {
          outcome = { startedAt, error };
        }
        onWindow(i, outcome);
      }
    },
  };
}

import { prepareRequests, type RequestSpec, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { subSeed } from '../analysis/bootstrap.js';
import { roundMethod, type MethodName } from './methods/index.js';
import type { MethodContext, WindowOutcome } from './methods/method.js';
import { runtimeOf, type StartedTarget } from './server-process.js';
import type { RoundItem, WindowContext } from './window.js';

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

/** What the real executor needs: the driver, pinning, the run's signal, the commands targets' setup produced, and how its rounds are measured. */
export interface ExecutorContext extends WindowContext {
  commands: ReadonlyMap<string, readonly string[]>;
  /** The run's way of measuring a round (`design.method` as its driver can run it, `runMethod`). */
  method: MethodName;
  /** The seed the rounds' own orders (a sliced round's slots) are drawn from. */
  seed: number;
}

/**
 * The executor of real server processes: starts them (pinned, in their own process groups), and
 * measures each round by the method the registry names for it (`run/methods/`, `roundMethod`:
 * the run's method for the scenario's load, one window after another for a round of one target).
 */
export function processExecutor(ctx: ExecutorContext, clock: Clock = systemClock): Executor {
  const lastRps = new WeakMap<StartedTarget, number>();
  let rounds = 0;
  const mctx: MethodContext = {
    ...ctx,
    date: () => clock.date(),
    nextRoundSeed: () => subSeed(ctx.seed, 'round', ++rounds),
    lastRps: (t) => lastRps.get(t),
    saw: (t, rps) => {
      if (rps > 0) lastRps.set(t, rps);
    },
  };
  const methodOf = (items: readonly RoundItem[]) => roundMethod(ctx.method, items[0]?.spec.scenario, items.length);
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
    warmRound: (items, windowSec) => methodOf(items).warmRound(mctx, items, windowSec),
    measureRound: (items, onWindow) => methodOf(items).measureRound(mctx, items, onWindow),
  };
}

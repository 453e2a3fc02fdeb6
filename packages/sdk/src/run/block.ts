import { DEFAULTS } from '../defaults.js';
import type { Design } from '../options.js';
import { seededShuffle } from '../random.js';
import type { BlockRecord, DesignRecord, FailedWindow, OkWindow, WindowRecord } from '../result-schema.js';
import { connectionSteps, prepareRequests, type RequestSpec, type Scenario } from '../scenario.js';
import { lastLines } from '../process.js';
import { subSeed } from '../analysis/bootstrap.js';
import type { SuiteEvent } from '../options.js';
import type { RunJournal } from './log.js';
import { PhaseError, type StartedTarget, type TargetRuntime } from './runtime.js';
import { fittedWindowSec, measureWindow, type WindowContext, type WindowSpec } from './window.js';
import { wakeUp, warmUp, warmupWindows } from './warmup.js';

export interface BlockContext extends WindowContext {
  /** The run's design; the stopping rule may shorten warm-ups during the run and records it in `budgetPlan`. */
  design: Design & { reference: string; budgetPlan?: DesignRecord['budgetPlan'] };
  seed: number;
  journal: RunJournal;
  emit: (e: SuiteEvent) => void;
  /** Seconds since the run began (a resumed run counts its earlier part too). */
  elapsed: () => number;
  /** Commands produced by targets' setup hooks. */
  commands: Map<string, readonly string[]>;
  /** Next 0-based window sequence number. */
  nextIndex: () => number;
  /** Seconds under load, for the overhead figure. */
  addLoad: (sec: number) => void;
  /** Seconds under load so far (a resumed run's included). */
  loadSec: () => number;
}

/** The seeded order of targets in one round: a fresh permutation per (scenario, block, round). */
export function roundOrder<T extends { name: string }>(targets: readonly T[], seed: number, scenario: string, block: number, round: number): T[] {
  return seededShuffle(targets, subSeed(seed, scenario, block, round));
}

/**
 * Extra rounds to replace windows left out for steal: one per round that lost a window, at most
 * as many as were planned, and only while the budget lasts.
 */
export function shouldAddRound(lostWindowInRound: boolean, extraSoFar: number, planned: number, budgetLeft: boolean): boolean {
  return lostWindowInRound && extraSoFar < planned && budgetLeft;
}

/** Settle seconds before each window: stepped loads re-open connections at a new count. */
export function windowSpec(scenario: Scenario, requests: readonly RequestSpec[], design: Pick<Design, 'windowSec'>, stepSettleSec: number): WindowSpec {
  const steps = connectionSteps(scenario.load);
  return {
    scenario,
    requests,
    steps,
    windowSec: scenario.load.duration ?? design.windowSec,
    settleSec: scenario.load.warmup ?? (steps.length > 1 ? stepSettleSec : 0),
  };
}

function failureOf(err: unknown, signal: AbortSignal): FailedWindow['failure'] {
  const f = err instanceof PhaseError ? err : new PhaseError(signal.aborted ? 'interrupted' : 'load', (err as Error)?.message ?? String(err));
  return {
    phase: signal.aborted && f.phase !== 'crash' ? 'interrupted' : f.phase,
    message: f.message,
    ...(f.exit ? { exitCode: f.exit.code, signal: f.exit.signal } : {}),
    ...(f.tail ? { stderrTail: lastLines(f.tail, 30) } : {}),
  };
}

interface Live {
  runtime: TargetRuntime;
  name: string;
  started?: StartedTarget;
  spec?: WindowSpec;
  info: BlockRecord['targets'][number];
}

/**
 * One block: a fresh server process per target (all idle on the server cores), each warmed up
 * until steady, then one unrecorded wake-up round (no target idle long before round 1), then
 * `plannedRounds` rounds in which every target is measured once, in a seeded random order. Windows
 * over the steal threshold stay in the data, marked, and are replaced by extra rounds while the
 * budget lasts. A target that fails leaves the block; the others go on.
 */
export async function runBlock(
  ctx: BlockContext,
  scenario: Scenario,
  runtimes: readonly TargetRuntime[],
  block: number,
  plannedRounds: number,
  budgetEndSec: number,
  stepSettleSec: number,
): Promise<{ record: BlockRecord; windows: WindowRecord[] }> {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const windows: WindowRecord[] = [];
  const live: Live[] = seededShuffle(
    runtimes.map((runtime) => ({ runtime, name: runtime.target.name, info: { target: runtime.target.name, status: 'ok' as const, warmupRps: [], steady: false } })),
    subSeed(ctx.seed, scenario.name, block, 'start'),
  );
  ctx.emit({ type: 'block-start', scenario: scenario.name, block, targets: live.map((l) => l.name), elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
  const fail = (l: Live, err: unknown) => {
    l.info = { ...l.info, status: 'failed', failure: failureOf(err, ctx.signal) };
  };
  let rounds = 0;
  let extra = 0;
  let roundsT0 = 0;
  let roundsWallSec = 0;
  try {
    // Start every target of the block at once (their start-up is not what is measured here; the
    // cost figures time cold starts one by one); they then sit idle on the server cores.
    await Promise.all(
      live.map(async (l) => {
        if (ctx.signal.aborted) return;
        try {
          l.started = await l.runtime.start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(l.name) });
          if (l.started.startupMs !== undefined) l.info.startupMs = l.started.startupMs;
          let requests: RequestSpec[];
          try {
            requests = await prepareRequests(scenario, l.started.baseUrl);
          } catch (err) {
            throw new PhaseError('prepare', `prepare hook failed: ${(err as Error).message}`);
          }
          l.spec = windowSpec(scenario, requests, ctx.design, stepSettleSec);
        } catch (err) {
          fail(l, err);
        }
      }),
    );
    for (const l of live) {
      if (ctx.signal.aborted || l.info.status !== 'ok' || !l.started || !l.spec) continue;
      try {
        let second = 0;
        const w = await warmUp(ctx, l.started, l.spec, ctx.design.warmup, (rps, steady) => ctx.emit({ type: 'warmup', scenario: scenario.name, block, target: l.name, second: ++second, rps, steady }));
        l.info.warmupRps = w.rps;
        l.info.steady = w.steady;
        ctx.addLoad(w.rps.length * warmupWindows(ctx.design.warmup).windowSec);
      } catch (err) {
        fail(l, err);
      }
    }
    // Windows long enough for many responses per connection, from the latency the warm-up saw.
    const warmed = live.filter((l) => l.info.status === 'ok' && l.spec);
    if (warmed.length && scenario.load.requests === undefined) {
      const base = warmed[0]!.spec!.windowSec;
      const fit = fittedWindowSec(
        base,
        warmed[0]!.spec!.steps,
        warmed.map((l) => l.info.warmupRps),
      );
      if (fit > base) {
        for (const l of warmed) l.spec = { ...l.spec!, windowSec: fit };
        ctx.emit({
          type: 'window-fit',
          scenario: scenario.name,
          block,
          fromSec: base,
          toSec: fit,
          connections: Math.max(...warmed[0]!.spec!.steps),
          minResponses: DEFAULTS.minResponsesPerConnection,
        });
      }
    }
    // The wake-up round: the targets warmed first have sat idle through the others' warm-ups.
    const awake = live.filter((l) => l.info.status === 'ok' && l.started && l.spec);
    if (!ctx.signal.aborted && awake.length > 1 && ctx.design.warmup.maxSec > 0) {
      const order = roundOrder(awake, ctx.seed, scenario.name, block, 0);
      const woke = await wakeUp(
        ctx,
        order.map((l) => ({ target: l.started!, spec: l.spec! })),
        order[0]!.spec!.windowSec,
      ).catch((err: unknown) => order.map(() => ({ error: err })));
      for (const [i, r] of woke.entries()) {
        if (typeof r === 'number') ctx.addLoad(order[i]!.spec!.windowSec);
        else fail(order[i]!, r.error);
      }
    }
    roundsT0 = performance.now();
    for (let round = 1; round <= plannedRounds + extra; round++) {
      const ready = live.filter((l) => l.info.status === 'ok' && l.started && l.spec);
      if (ctx.signal.aborted || !ready.length) break;
      let lost = false;
      for (const [position, l] of roundOrder(ready, ctx.seed, scenario.name, block, round).entries()) {
        if (ctx.signal.aborted) break;
        const base = { scenario: scenario.name, target: l.name, block, round, position, startedAt: new Date().toISOString() };
        let w: WindowRecord;
        try {
          const figures = await measureWindow(ctx, l.started!, l.spec!);
          const steal = figures.resources.cpuSteal ?? 0;
          const excluded = steal > ctx.design.stealThreshold ? ('steal' as const) : null;
          lost ||= excluded !== null;
          w = { ...base, index: ctx.nextIndex(), elapsedSec: ctx.elapsed(), status: 'ok', ...figures, excluded } satisfies OkWindow;
          ctx.addLoad(l.spec!.steps.length * l.spec!.settleSec + figures.durationSec);
        } catch (err) {
          const failure = failureOf(err, ctx.signal);
          if (failure.phase === 'interrupted') break;
          w = { ...base, index: ctx.nextIndex(), elapsedSec: ctx.elapsed(), status: 'failed', failure };
          fail(l, err);
        }
        windows.push(w);
        ctx.journal.window(w, ctx.loadSec());
        ctx.emit({ type: 'window', window: w, elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
      }
      if (ctx.signal.aborted) break;
      rounds = round;
      if (shouldAddRound(lost, extra, plannedRounds, ctx.elapsed() < budgetEndSec)) extra++;
    }
    roundsWallSec = (performance.now() - roundsT0) / 1000;
  } finally {
    await Promise.all(live.map((l) => l.started?.stop()));
  }
  const record: BlockRecord = {
    scenario: scenario.name,
    block,
    startedAt,
    wallSec: (performance.now() - t0) / 1000,
    roundsWallSec,
    plannedRounds,
    rounds,
    extraRounds: extra,
    complete: !ctx.signal.aborted,
    targets: live.map((l) => l.info).sort((a, b) => a.target.localeCompare(b.target)),
  };
  if (!ctx.signal.aborted) ctx.journal.block(record);
  ctx.emit({ type: 'block-end', block: record });
  return { record, windows };
}

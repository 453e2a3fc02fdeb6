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
import { fittedWindowSec, measureWindow, settleSecOf, type WindowContext, type WindowSpec } from './window.js';
import { isSteady, unrecordedWindows, warmUp, warmupWindows } from './warmup.js';

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

/** Settle seconds before each window (stepped loads re-open connections at a new count) and before each later step. */
export function windowSpec(scenario: Scenario, requests: readonly RequestSpec[], design: Pick<Design, 'windowSec'>, stepSettleSec: number): WindowSpec {
  const steps = connectionSteps(scenario.load);
  const settleSec = scenario.load.warmup ?? (steps.length > 1 ? stepSettleSec : 0);
  return {
    scenario,
    requests,
    steps,
    windowSec: scenario.load.duration ?? design.windowSec,
    settleSec,
    laterSettleSec: steps.length > 1 ? Math.min(settleSec, DEFAULTS.laterStepSettleSec) : 0,
  };
}

/** A failed window's record from what was thrown (an interruption is said as such). */
export function failureOf(err: unknown, signal: AbortSignal): FailedWindow['failure'] {
  const f = err instanceof PhaseError ? err : new PhaseError(signal.aborted ? 'interrupted' : 'load', (err as Error)?.message ?? String(err));
  return {
    phase: signal.aborted && f.phase !== 'crash' ? 'interrupted' : f.phase,
    message: f.message,
    ...(f.exit ? { exitCode: f.exit.code, signal: f.exit.signal } : {}),
    ...(f.tail ? { stderrTail: lastLines(f.tail, 30) } : {}),
  };
}

/** A server process of a block: started once, then serving one scenario, or with shared processes each of the block's scenarios in turn. */
export interface BlockProcess {
  runtime: TargetRuntime;
  name: string;
  started?: StartedTarget;
  /** Why it could not start or prepare (it takes no part in the block). */
  failure?: unknown;
  /** Scenarios it has served in this block so far: a carried process is warmed by rotation rounds. */
  served: number;
}

/**
 * Start one fresh server process per target, all at once (their start-up is not what is measured
 * here; the cost figures time cold starts one by one); they then sit idle on the server cores.
 */
export async function startBlockProcesses(ctx: BlockContext, runtimes: readonly TargetRuntime[]): Promise<BlockProcess[]> {
  const procs: BlockProcess[] = runtimes.map((runtime) => ({ runtime, name: runtime.target.name, served: 0 }));
  await Promise.all(
    procs.map(async (p) => {
      if (ctx.signal.aborted) return;
      try {
        p.started = await p.runtime.start({ pinning: ctx.pinning, signal: ctx.signal, command: ctx.commands.get(p.name) });
      } catch (err) {
        p.failure = err;
      }
    }),
  );
  return procs;
}

export async function stopBlockProcesses(procs: readonly BlockProcess[]): Promise<void> {
  await Promise.all(procs.map((p) => p.started?.stop()));
}

interface Live {
  proc: BlockProcess;
  name: string;
  spec?: WindowSpec;
  info: BlockRecord['targets'][number];
}

/**
 * One block: a fresh server process per target (all idle on the server cores), warmed up until
 * steady in rotation rounds (or one after another, then an unrecorded wake-up round: no target
 * idle long before round 1), then
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
  ctx.emit({ type: 'block-start', scenario: scenario.name, block, targets: runtimes.map((r) => r.target.name), elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
  const procs = await startBlockProcesses(ctx, runtimes);
  let out: { record: BlockRecord; windows: WindowRecord[] } | undefined;
  try {
    out = await runScenarioInBlock(ctx, scenario, procs, block, plannedRounds, budgetEndSec, stepSettleSec, { announce: false });
  } finally {
    await stopBlockProcesses(procs);
  }
  out.record.startedAt = startedAt;
  out.record.wallSec = (performance.now() - t0) / 1000;
  if (!ctx.signal.aborted) ctx.journal.block(out.record);
  ctx.emit({ type: 'block-end', block: out.record });
  return out;
}

/**
 * One scenario on a block's started processes: prepare, warm up (fresh processes until steady, in
 * rotation rounds or one after another then the wake-up round; a process that served an earlier scenario of the block
 * with `carriedWarmupRounds` rotation rounds), fit the window, then the rounds. Returns the
 * scenario's block record (journalled and announced by the caller) and its windows.
 */
export async function runScenarioInBlock(
  ctx: BlockContext,
  scenario: Scenario,
  procs: readonly BlockProcess[],
  block: number,
  plannedRounds: number,
  budgetEndSec: number,
  stepSettleSec: number,
  o: { announce: boolean; position?: number },
): Promise<{ record: BlockRecord; windows: WindowRecord[] }> {
  const t0 = performance.now();
  const startedAt = new Date().toISOString();
  const windows: WindowRecord[] = [];
  const live: Live[] = seededShuffle(
    procs.map((proc) => ({
      proc,
      name: proc.name,
      info: {
        target: proc.name,
        status: 'ok' as const,
        ...(proc.started?.startupMs !== undefined ? { startupMs: proc.started.startupMs } : {}),
        warmupRps: [],
        steady: false,
        ...(o.position !== undefined ? { carried: proc.served > 0 } : {}),
      },
    })),
    subSeed(ctx.seed, scenario.name, block, 'start'),
  );
  if (o.announce) ctx.emit({ type: 'block-start', scenario: scenario.name, block, targets: live.map((l) => l.name), elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
  const fail = (l: Live, err: unknown) => {
    l.info = { ...l.info, status: 'failed', failure: failureOf(err, ctx.signal) };
  };
  const ok = (l: Live) => l.info.status === 'ok' && l.proc.started !== undefined && l.spec !== undefined;
  let rounds = 0;
  let extra = 0;
  for (const l of live) {
    if (l.proc.failure !== undefined) fail(l, l.proc.failure);
    else if (l.proc.started?.exitInfo()) fail(l, new PhaseError('crash', 'the server exited while serving an earlier scenario of the block', l.proc.started.tail(), l.proc.started.exitInfo()));
  }
  await Promise.all(
    live.map(async (l) => {
      if (ctx.signal.aborted || l.info.status !== 'ok' || !l.proc.started) return;
      try {
        let requests: RequestSpec[];
        try {
          requests = await prepareRequests(scenario, l.proc.started.baseUrl);
        } catch (err) {
          throw new PhaseError('prepare', `prepare hook failed: ${(err as Error).message}`);
        }
        l.spec = windowSpec(scenario, requests, ctx.design, stepSettleSec);
      } catch (err) {
        fail(l, err);
      }
    }),
  );
  // One round of unrecorded windows in the given order (a warm-up's rotation, or the wake-up
  // round): each target's req/s goes to `got`; a target whose window failed leaves the block.
  const unrecordedRound = async (order: Live[], windowSec: number, got: (l: Live, rps: number) => void) => {
    const out = await unrecordedWindows(
      ctx,
      order.map((l) => ({ target: l.proc.started!, spec: l.spec! })),
      windowSec,
    ).catch((err: unknown) => order.map(() => ({ error: err })));
    for (const [i, x] of out.entries()) {
      const l = order[i]!;
      if (typeof x !== 'number') {
        fail(l, x.error);
        continue;
      }
      ctx.addLoad(windowSec);
      got(l, x);
    }
  };
  const carried = live.filter((l) => ok(l) && l.proc.served > 0);
  const inRotation = ctx.design.freshWarmup === 'rotation';
  // Fresh processes are warmed up until steady: in rotation rounds (each still warming gets one
  // window per round, in a seeded order), or one after another.
  const { windowSec: warmupSec, min: minWindows, max: maxWindows } = warmupWindows(ctx.design.warmup);
  for (let i = 1; inRotation && i <= maxWindows && !ctx.signal.aborted; i++) {
    const order = seededShuffle(
      live.filter((l) => ok(l) && l.proc.served === 0 && !l.info.steady),
      subSeed(ctx.seed, scenario.name, block, 'warmup', i),
    );
    if (!order.length) break;
    await unrecordedRound(order, warmupSec, (l, rps) => {
      l.info.warmupRps.push(rps);
      l.info.steady = isSteady(l.info.warmupRps, minWindows, ctx.design.warmup.tolerance);
      ctx.emit({ type: 'warmup', scenario: scenario.name, block, target: l.name, second: i, rps, steady: l.info.steady });
    });
  }
  for (const l of inRotation ? [] : live) {
    if (ctx.signal.aborted || !ok(l) || l.proc.served > 0) continue;
    try {
      let second = 0;
      const w = await warmUp(ctx, l.proc.started!, l.spec!, ctx.design.warmup, (rps, steady) =>
        ctx.emit({ type: 'warmup', scenario: scenario.name, block, target: l.name, second: ++second, rps, steady }),
      );
      l.info.warmupRps = w.rps;
      l.info.steady = w.steady;
      ctx.addLoad(w.rps.length * warmupSec);
    } catch (err) {
      fail(l, err);
    }
  }
  // A carried one by rotation rounds (every target once per round; they keep the fresh ones awake too).
  if (carried.length && !ctx.signal.aborted && ctx.design.warmup.maxSec > 0) {
    const windowSec = ctx.design.carriedWarmupWindowSec;
    for (let r = 1; r <= ctx.design.carriedWarmupRounds && !ctx.signal.aborted; r++) {
      await unrecordedRound(roundOrder(live.filter(ok), ctx.seed, scenario.name, block, -r), windowSec, (l, rps) => {
        if (l.proc.served === 0) return;
        l.info.warmupRps.push(rps);
        l.info.steady = isSteady(l.info.warmupRps, 2, ctx.design.warmup.tolerance);
        ctx.emit({ type: 'warmup', scenario: scenario.name, block, target: l.name, second: r, rps, steady: l.info.steady });
      });
    }
  }
  // Windows long enough for many responses per connection, from the latency the warm-up saw.
  const warmed = live.filter(ok);
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
  // The wake-up round, after warm-ups one by one: the targets warmed first have sat idle through
  // the others'. Its windows are the rotation's: a wake-up, like a rotation, only has to put load on
  // the process.
  const awake = live.filter(ok);
  if (!inRotation && !carried.length && !ctx.signal.aborted && awake.length > 1 && ctx.design.warmup.maxSec > 0) {
    await unrecordedRound(roundOrder(awake, ctx.seed, scenario.name, block, 0), ctx.design.carriedWarmupWindowSec, () => undefined);
  }
  const roundsT0 = performance.now();
  for (let round = 1; round <= plannedRounds + extra; round++) {
    const ready = live.filter(ok);
    if (ctx.signal.aborted || !ready.length) break;
    let lost = false;
    for (const [position, l] of roundOrder(ready, ctx.seed, scenario.name, block, round).entries()) {
      if (ctx.signal.aborted) break;
      const base = { scenario: scenario.name, target: l.name, block, round, position, startedAt: new Date().toISOString() };
      let w: WindowRecord;
      try {
        const figures = await measureWindow(ctx, l.proc.started!, l.spec!);
        const steal = figures.resources.cpuSteal ?? 0;
        const excluded = steal > ctx.design.stealThreshold ? ('steal' as const) : null;
        lost ||= excluded !== null;
        w = { ...base, index: ctx.nextIndex(), elapsedSec: ctx.elapsed(), status: 'ok', ...figures, excluded } satisfies OkWindow;
        ctx.addLoad(settleSecOf(l.spec!) + figures.durationSec);
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
  const roundsWallSec = (performance.now() - roundsT0) / 1000;
  for (const l of live) if (l.info.status === 'ok' && l.proc.started) l.proc.served++;
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
    ...(o.position !== undefined ? { position: o.position } : {}),
    targets: live.map((l) => l.info).sort((a, b) => a.target.localeCompare(b.target)),
  };
  return { record, windows };
}

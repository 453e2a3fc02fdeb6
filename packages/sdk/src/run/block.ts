import { DEFAULTS } from '../defaults.js';
import type { Design } from '../design-options.js';
import { seededShuffle } from '../random.js';
import type { BlockRecord, FailedWindow, WindowRecord } from '../result-schema.js';
import { connectionSteps, type RequestSpec, type Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { lastLines } from '../process.js';
import { subSeed } from '../analysis/bootstrap.js';
import type { RunContext } from './context.js';
import type { BlockProcess } from './executor.js';
import type { WindowOutcome } from './methods/method.js';
import { PhaseError, type StartedTarget } from './server-process.js';
import { blockState, cutShortRecord, isDone } from './state.js';
import { fittedWindowSec, settleSecOf, type RoundItem, type WindowSpec } from './window.js';
import { expectedWarmupWindows, warmupSchemes, type WarmTarget } from './warmup.js';

/** The seeded order of targets in one round: a fresh permutation per (scenario, block, round). */
export function roundOrder<T extends { name: string }>(targets: readonly T[], seed: number, scenario: string, block: number, round: number): T[] {
  return seededShuffle(targets, subSeed(seed, scenario, block, round));
}

/**
 * Extra rounds to replace windows left out for steal: one per round that lost a window, at most
 * as many as were planned, while the rounds still to run and one more, at the block's pace so far,
 * end within the block's part of the budget (where the run's rate of extra rounds was priced). A
 * block with no clean round so far and no extra one yet may add one beyond its part, within the
 * scenario's share, so its processes' start is not spent for no figure: at 2.5% steal a default
 * run's json-post lost every window of its first block, and its part had no room for a round
 * (2026-12-03 22:43). Pure.
 */
export function shouldAddRound(lostWindowInRound: boolean, extraSoFar: number, planned: number, room: { inPart: boolean; inShare: boolean; cleanRoundSoFar: boolean }): boolean {
  if (!lostWindowInRound || extraSoFar >= planned) return false;
  return room.inPart || (room.inShare && !room.cleanRoundSoFar && extraSoFar === 0);
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

/** One scenario of a block: the scenario and its targets (those that passed verify). */
export interface BlockEntry {
  readonly scenario: Scenario;
  readonly members: readonly Target[];
}

/** A block as the scheduler planned it: its number, its scenarios in their order, and each part's rounds, decided at its turn. */
export interface BlockPlan<E extends BlockEntry> {
  block: number;
  /** Shared processes: the block's processes serve each scenario in turn, each part its own record with its position; otherwise the block is its one scenario's. */
  shared: boolean;
  entries: readonly E[];
  /**
   * A part's rounds and the end of its share of the budget; undefined: left out of the block for the
   * budget. `todo`: the block's parts still to measure; `fresh`: no part of the block has run yet, so
   * this one warms its processes from cold.
   */
  part(e: E, todo: readonly E[], fresh: boolean): { rounds: number; budgetEndSec: number; shareEndSec: number } | undefined;
}

/** A block's part: journalled, then announced. */
function finish(ctx: RunContext, record: BlockRecord): void {
  ctx.journal.record({ record: 'block', block: record });
  ctx.emit({ type: 'block-end', block: record });
}

/**
 * A block: one fresh process per target of its scenarios (all idle on the server cores), started
 * at once, then each scenario's part in turn (`runScenarioInBlock`), then the processes stop. A
 * part the journal holds is not measured again (one a kill cut short is closed with a record made
 * from its windows). Returns the parts left out for the budget.
 */
export async function runBlock<E extends BlockEntry>(ctx: RunContext, plan: BlockPlan<E>): Promise<Set<E>> {
  const { executor, journal } = ctx;
  const b = plan.block;
  const todo = plan.entries.filter((e) => !isDone(journal.state, { step: 'block', scenario: e.scenario.name, block: b }));
  const t0 = executor.clock.now();
  const startedAt = executor.clock.date().toISOString();
  // A block of one scenario is announced before its processes start; a shared block's parts each at its turn.
  const first = todo[0];
  if (!plan.shared && first)
    ctx.emit({ type: 'block-start', scenario: first.scenario.name, block: b, targets: first.members.map((t) => t.name), elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
  const targets = [...new Map(todo.flatMap((e) => e.members.map((t) => [t.name, t] as const))).values()];
  const procs = targets.length ? await executor.start(targets) : [];
  const leftOut = new Set<E>();
  // Processes that served an earlier part of the block: a carried process is warmed by rotation rounds.
  const carried = new Set<string>();
  let own: BlockRecord | undefined;
  try {
    // Inside the try: the processes stop however the block ends.
    const mix = plan.shared && ctx.design.warmupRequests === 'all-scenarios' && !ctx.signal.aborted ? await warmupMix(ctx, procs, todo) : undefined;
    let position = 0;
    for (const e of plan.entries) {
      const names = e.members.map((t) => t.name);
      const state = blockState(journal.state, e.scenario.name, b);
      if (state === 'cut-short') journal.record({ record: 'block', block: cutShortRecord(journal.state, e.scenario.name, b, names) });
      if (state) continue;
      if (ctx.signal.aborted) break;
      const part = plan.part(e, todo, position === 0);
      if (!part) {
        leftOut.add(e);
        continue;
      }
      position++;
      const mine = procs.filter((p) => names.includes(p.name));
      const record = await runScenarioInBlock(ctx, { scenario: e.scenario, block: b, procs: mine, carried, ...part, ...(plan.shared ? { position } : {}), ...(mix ? { mix } : {}) });
      for (const t of record.targets) if (t.status === 'ok' && mine.some((p) => p.name === t.target && p.started)) carried.add(t.target);
      if (!plan.shared) own = record;
      // The first part of a shared block carries its processes' start.
      else finish(ctx, position === 1 ? { ...record, wallSec: executor.clock.now() - t0 } : record);
    }
  } finally {
    await executor.stop(procs);
  }
  // A block of one scenario: its record spans the block, from its processes' start to their stop.
  if (own) finish(ctx, { ...own, startedAt, wallSec: executor.clock.now() - t0 });
  return leftOut;
}

/** Per process of a shared block, each scenario's prepared requests (`warmupMix`). */
type Prepared = ReadonlyMap<string, ReadonlyMap<string, RequestSpec[]>>;

/**
 * What each process of a shared block is warmed on with `warmupRequests: 'all-scenarios'`: the
 * requests of every scenario it serves in the block, each scenario prepared once for it (its
 * prepare hook may ask the server) and kept for its part, sent one scenario's after another by each
 * connection in turn. A scenario whose prepare hook fails here is left out of the mix; it is
 * prepared again in its turn, where the failure is recorded as its own.
 */
async function warmupMix(ctx: RunContext, procs: readonly BlockProcess[], entries: readonly BlockEntry[]): Promise<Prepared> {
  const prepared = new Map<string, Map<string, RequestSpec[]>>();
  await Promise.all(
    procs.map(async (p) => {
      if (!p.started) return;
      const mine = new Map<string, RequestSpec[]>();
      for (const e of entries) {
        if (!e.members.some((t) => t.name === p.name)) continue;
        const requests = await ctx.executor.prepare(e.scenario, p.started).catch(() => undefined);
        if (requests) mine.set(e.scenario.name, requests);
      }
      prepared.set(p.name, mine);
    }),
  );
  return prepared;
}

/** A scenario's part of a block, as the scheduler planned it. */
interface Part {
  scenario: Scenario;
  block: number;
  /** The block's processes that serve this scenario. */
  procs: readonly BlockProcess[];
  /** Processes that served an earlier scenario of the block. */
  carried: ReadonlySet<string>;
  rounds: number;
  /** When the part's budget ends (elapsed seconds): no extra round for steal that would end after it (`shouldAddRound`). */
  budgetEndSec: number;
  /** When the scenario's whole share of the budget ends (elapsed seconds): the bound of a block's one round beyond its part. */
  shareEndSec: number;
  /** Shared processes: the part's place in the block's order (from 1). */
  position?: number;
  /** Shared processes warmed on every scenario's requests (`warmupMix`): each process's prepared requests per scenario, all of which a fresh one's warm-up sends; a carried part takes no rotation round. */
  mix?: Prepared;
}

/** A target of a part as it goes: its process, its requests, its warm-up so far, or why it left the block. */
interface Live extends WarmTarget {
  readonly name: string;
  readonly started: StartedTarget | undefined;
  readonly carried: boolean;
  spec?: WindowSpec;
  warmupRps: number[];
  /** Requests its recorded warm-up windows served. */
  warmupRequests: number;
  steady: boolean;
  failure?: FailedWindow['failure'];
}

const ok = (l: Live): l is Live & { started: StartedTarget; spec: WindowSpec } => l.failure === undefined && l.started !== undefined && l.spec !== undefined;
const item = (l: Live): RoundItem => ({ target: l.started!, spec: l.spec! });

/**
 * One scenario on a block's started processes: start (its targets with their requests), warm
 * (`warmupSchemes`: fresh processes until steady, carried ones by rotation rounds), fit the window,
 * then the rounds. Windows are journalled as they end; returns the part's block record (journalled
 * and announced by the block).
 */
async function runScenarioInBlock(ctx: RunContext, part: Part): Promise<BlockRecord> {
  const t0 = ctx.executor.clock.now();
  const startedAt = ctx.executor.clock.date().toISOString();
  const live = await startPart(ctx, part);
  await warm(ctx, part, live);
  fitWindow(ctx, part, live);
  const rounds = await measureRounds(ctx, part, live);
  return {
    scenario: part.scenario.name,
    block: part.block,
    startedAt,
    wallSec: ctx.executor.clock.now() - t0,
    roundsWallSec: rounds.wallSec,
    plannedRounds: part.rounds,
    rounds: rounds.done,
    extraRounds: rounds.extra,
    complete: !ctx.signal.aborted,
    ...(part.position !== undefined ? { position: part.position } : {}),
    targets: live.map((l) => targetRecord(l, part.position !== undefined)).sort((a, b) => a.target.localeCompare(b.target)),
  };
}

function targetRecord(l: Live, shared: boolean): BlockRecord['targets'][number] {
  return {
    target: l.name,
    status: l.failure ? 'failed' : 'ok',
    ...(l.started?.startupMs !== undefined ? { startupMs: l.started.startupMs } : {}),
    warmupRps: l.warmupRps,
    warmupRequests: l.warmupRequests,
    steady: l.steady,
    ...(shared ? { carried: l.carried } : {}),
    ...(l.failure ? { failure: l.failure } : {}),
  };
}

/**
 * A part's targets in a seeded order, each with its requests: one whose process did not start, or
 * exited while serving an earlier scenario of the block, or whose prepare hook failed, leaves it.
 */
async function startPart(ctx: RunContext, part: Part): Promise<Live[]> {
  const { scenario, block } = part;
  // What each fresh warm-up took last time, so all of them end together (`dueInRound`).
  const expected = expectedWarmupWindows(ctx.journal.state.blocks, scenario.name, part.mix !== undefined);
  const live: Live[] = seededShuffle(
    part.procs.map((p) => ({ name: p.name, started: p.started, carried: part.carried.has(p.name), warmupRps: [], warmupRequests: 0, steady: false, expectedWindows: expected.get(p.name) })),
    subSeed(ctx.seed, scenario.name, block, 'start'),
  );
  if (part.position !== undefined) ctx.emit({ type: 'block-start', scenario: scenario.name, block, targets: live.map((l) => l.name), elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
  for (const l of live) {
    const failure = part.procs.find((p) => p.name === l.name)?.failure;
    if (failure !== undefined) l.failure = failureOf(failure, ctx.signal);
    else if (l.started?.exitInfo())
      l.failure = failureOf(new PhaseError('crash', 'the server exited while serving an earlier scenario of the block', l.started.tail(), l.started.exitInfo()), ctx.signal);
  }
  await Promise.all(
    live.map(async (l) => {
      if (ctx.signal.aborted || l.failure || !l.started) return;
      try {
        const requests = part.mix?.get(l.name)?.get(scenario.name) ?? (await ctx.executor.prepare(scenario, l.started));
        l.spec = windowSpec(scenario, requests, ctx.design, DEFAULTS.stepSettleSec);
      } catch (err) {
        l.failure = failureOf(new PhaseError('prepare', `prepare hook failed: ${(err as Error).message}`), ctx.signal);
      }
    }),
  );
  return live;
}

/** Warm a part's targets by each of its schemes in turn, one rotation round after another; a target whose window fails leaves the block. */
async function warm(ctx: RunContext, part: Part, live: Live[]): Promise<void> {
  const { scenario, block } = part;
  const schemes = warmupSchemes(ctx.design, { seed: ctx.seed, scenario: scenario.name, block }, live.filter(ok), part.mix !== undefined);
  // Warmed on the mix, a fresh process sends every scenario's requests of its block.
  const mixOf = new Map(live.map((l) => [l.name, [...(part.mix?.get(l.name)?.values() ?? [])].flat()]));
  const warmItem = (l: Live): RoundItem => {
    const requests = mixOf.get(l.name)!;
    return requests.length && !l.carried ? { target: l.started!, spec: { ...l.spec!, requests } } : item(l);
  };
  for (const scheme of schemes) {
    for (let round = 1; !ctx.signal.aborted; round++) {
      const order = scheme.order(round, live.filter(ok));
      if (!order.length) break;
      const out = await ctx.executor.warmRound(order.map(warmItem), scheme.windowSec).catch((err: unknown) => order.map(() => ({ error: err })));
      for (const [i, x] of out.entries()) {
        const l = order[i]!;
        if (typeof x !== 'number') {
          l.failure = failureOf(x.error, ctx.signal);
          continue;
        }
        ctx.addLoad(scheme.windowSec);
        if (!scheme.records(l)) continue;
        l.warmupRps.push(x);
        l.warmupRequests += Math.round(x * scheme.windowSec);
        l.steady = scheme.steady(l.warmupRps);
        ctx.emit({ type: 'warmup', scenario: scenario.name, block, target: l.name, sec: l.warmupRps.length * scheme.windowSec, served: l.warmupRequests, rps: x, steady: l.steady });
      }
    }
  }
}

/**
 * Windows long enough for many responses per connection, from the latency the warm-up saw and,
 * from a scenario's second block on, the rates its earlier blocks measured at its most connections
 * (a fixed count of requests keeps its own). A warm-up runs at the first step and still climbs: on
 * the ramp of a slow host (2026-11-29) Hono's best warm-up window read 1,266 req/s where its rounds
 * at 500 connections read 2,000–2,800, and stretched every window of the block to 1.97 s where 1.0 s
 * held the 5 responses per connection.
 */
function fitWindow(ctx: RunContext, part: Part, live: Live[]): void {
  const warmed = live.filter(ok);
  if (!warmed.length || part.scenario.load.requests !== undefined) return;
  const { windowSec: base, steps } = warmed[0]!.spec;
  const most = Math.max(...steps);
  const measuredAtMost = (name: string): number[] =>
    ctx.journal.state.windows.flatMap((w) =>
      w.scenario === part.scenario.name && w.target === name && w.block < part.block && w.status === 'ok' && w.excluded === null ? w.steps.filter((s) => s.connections === most).map((s) => s.rps) : [],
    );
  const fit = fittedWindowSec(
    base,
    steps,
    warmed.map((l) => [...l.warmupRps, ...measuredAtMost(l.name)]),
  );
  if (fit <= base) return;
  for (const l of warmed) l.spec = { ...l.spec, windowSec: fit };
  ctx.emit({ type: 'window-fit', scenario: part.scenario.name, block: part.block, fromSec: base, toSec: fit, connections: Math.max(...steps), minResponses: DEFAULTS.minResponsesPerConnection });
}

/**
 * The part's rounds: every target once per round, in a seeded order, each window journalled as it
 * ends. A window over the steal threshold stays in the data, marked, and adds a round while it
 * ends within the part's budget (`shouldAddRound`); a target whose window fails leaves the block.
 */
async function measureRounds(ctx: RunContext, part: Part, live: Live[]): Promise<{ done: number; extra: number; wallSec: number }> {
  const { scenario, block } = part;
  const t0 = ctx.executor.clock.now();
  let done = 0;
  let extra = 0;
  let clean = false;
  for (let round = 1; round <= part.rounds + extra; round++) {
    const ready = live.filter(ok);
    if (ctx.signal.aborted || !ready.length) break;
    const order = roundOrder(ready, ctx.seed, scenario.name, block, round);
    let lost = false;
    await ctx.executor.measureRound(order.map(item), (position, outcome) => {
      const l = order[position]!;
      const w = windowRecord(ctx, { scenario: scenario.name, target: l.name, block, round, position }, outcome);
      if (!w) return; // interrupted: not a figure
      if (w.status === 'ok') {
        lost ||= w.excluded !== null;
        ctx.addLoad(settleSecOf(l.spec!) + w.durationSec);
      } else l.failure = w.failure;
      ctx.journal.record({ record: 'window', window: w });
      ctx.emit({ type: 'window', window: w, elapsedSec: ctx.elapsed(), budgetSec: ctx.design.budgetSec });
    });
    if (ctx.signal.aborted) break;
    done = round;
    clean ||= !lost;
    // The rounds still to run, and one more, at the block's pace so far.
    const endSec = ctx.elapsed() + (part.rounds + extra - round + 1) * ((ctx.executor.clock.now() - t0) / round);
    if (shouldAddRound(lost, extra, part.rounds, { inPart: endSec <= part.budgetEndSec, inShare: endSec <= part.shareEndSec, cleanRoundSoFar: clean })) extra++;
  }
  return { done, extra, wallSec: ctx.executor.clock.now() - t0 };
}

/** A window's record from its outcome, in its place in the run; none when the run was interrupted during it. */
function windowRecord(ctx: RunContext, place: Pick<WindowRecord, 'scenario' | 'target' | 'block' | 'round' | 'position'>, outcome: WindowOutcome): WindowRecord | undefined {
  const base = { ...place, startedAt: outcome.startedAt, index: ctx.journal.state.nextIndex, elapsedSec: ctx.elapsed() };
  if ('figures' in outcome) {
    const excluded = (outcome.figures.resources.cpuSteal ?? 0) > ctx.design.stealThreshold ? ('steal' as const) : null;
    return { ...base, status: 'ok', ...outcome.figures, excluded };
  }
  const failure = failureOf(outcome.error, ctx.signal);
  return failure.phase === 'interrupted' ? undefined : { ...base, status: 'failed', failure };
}

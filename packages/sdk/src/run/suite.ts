import { defaultMaxListeners, setMaxListeners } from 'node:events';
import { DEFAULTS } from '../defaults.js';
import { decidePinning, pinSelf } from '../environment.js';
import type { Design } from '../design-options.js';
import type { SuiteEvent, RunSuiteOptions } from '../options.js';
import type { BenchResult, StreamResult } from '../result-schema.js';
import { driverLoaded, type Scenario } from '../scenario.js';
import { targetSupports, type Target } from '../target.js';
import { nodeRuntimeFlags, withNodeFlags } from '../runtimes.js';
import { isReplica, processOf } from '../replicas.js';
import { controlTwin } from '../analysis/control.js';
import type { RunForecast } from '../analysis/budget.js';
import { forecastAtPace, likelyRange, measuredNoise, pairNoise, recordWithScenariosBegun, withUnseenScenarios, type ForecastRecord, type NoiseComponents } from '../analysis/forecast.js';
import { intervalLimits, type IntervalLimits } from '../analysis/limits.js';
import { methods } from './methods/index.js';
import { thresholdsOf } from '../design-thresholds.js';
import { kindOf } from '../scenario-kinds.js';
import { assembleResult } from './assemble.js';
import type { RunContext } from './context.js';
import { processExecutor, systemClock, type Clock, type Executor, type ExecutorContext } from './executor.js';
import { replayJournal, RunJournal } from './journal.js';
import { writePlan, type RunPlan } from './plan.js';
import { costsPhase, setupPhase, verifyPhase, type PhaseContext } from './phases.js';
import { isSuiteRunPlan, plannedBlockSecs, planRun, planSuiteRun } from './planning.js';
import { scheduleHttp } from './scheduler.js';
import type { SuitePlan, SuiteRunPlan } from './suite-plan.js';
import { designNow, emptyState, type RunState } from './state.js';

/** How far into a run its own noise replaces the prior in the forecast: blocks 1 (within) and 2 (between blocks too). */
const FORECAST_BLOCKS = 2;

/**
 * What this run's own noise says, from the windows so far: the forecast of its budget with the
 * typical pair's components (up to `maxBlock`; with one block the processes' part is still the
 * prior's) at the blocks the run reaches at the pace of those blocks (`blocksAtPace`), and what set
 * its intervals with the changes considered (`overall.limits`).
 */
function noiseOutlook(
  suite: SuitePlan,
  state: Pick<RunState, 'windows' | 'blocks'>,
  pairs: ReadonlyArray<{ scenario: string; target: string }>,
  maxBlock?: number,
): { forecast?: RunForecast; limits?: IntervalLimits } {
  const { design } = suite;
  const prior = design.budgetPlan?.forecast;
  if (!prior) return {};
  const measured = pairNoise(state.windows, pairs, design.reference, maxBlock);
  const own = measuredNoise(measured, prior.components.between);
  if (!own) return {};
  // Processes per scenario: the scenarios not begun yet are priced at the prior.
  const perScenario = design.processes === 'per-scenario';
  const begun = new Set(measured.map((p) => p.scenario)).size;
  const noise = perScenario ? withUnseenScenarios(own, prior.components, begun, suite.loadScenarios.length) : own;
  // After block 2, the forecast is said with the range its record (of forecasts after block 2) allows, and its budget lines price that range's centre;
  // with processes per scenario, the record's bias only for the share of scenarios still priced at the prior.
  const record = maxBlock === FORECAST_BLOCKS ? (perScenario ? recordWithScenariosBegun(DEFAULTS.forecast.record, begun, suite.loadScenarios.length) : DEFAULTS.forecast.record) : undefined;
  const forecastWith = (n: NoiseComponents, budgetFactor: number, method: Design['method'], r?: ForecastRecord) =>
    planRun(suite.scenarios, suite.targets, { ...design, method, budgetSec: design.budgetSec * budgetFactor }, { ...suite.opts, noise: n, record: r }).forecast;
  const planned = forecastWith(noise, 1, design.method, record);
  const paced =
    planned && maxBlock !== undefined ? forecastAtPace(noise, state, maxBlock, { ...design, scenarios: suite.loadScenarios.length, plannedSec: plannedBlockSecs(suite.planned, design) }) : undefined;
  const forecast = planned && paced ? { ...planned, ...paced, ...(record ? { likely: likelyRange(paced.halfWidth, record) } : {}) } : planned;
  const limits = intervalLimits(measured, {
    method: design.method,
    canSlice: suite.opts.design.method === 'sliced' && design.method === 'sequential',
    forecast: (n, factor, method) => forecastWith(n, factor, method)?.halfWidth,
    slicedWithinFactor: methods.sliced.prior.within / methods.sequential.prior.within,
  });
  return { ...(forecast ? { forecast } : {}), ...(limits ? { limits } : {}) };
}

/** Where a run meets time and servers: its clock, and the executor it makes once its driver and pinning are known. */
export interface RunSeam {
  clock: Clock;
  executor(ctx: ExecutorContext, clock: Clock): Executor;
}

const realServers: RunSeam = { clock: systemClock, executor: (ctx, clock) => processExecutor(ctx, clock) };

/** What a run reports to and listens on while it runs: given beside a plan, which holds none. */
export type RunHooks = Pick<RunSuiteOptions, 'signal' | 'onEvent'>;

/**
 * Run scenarios × targets in rounds of short paired windows and return one validated result.
 * For each scenario, blocks of fresh server processes (one per target, pinned apart from the load
 * generator) are warmed up until steady; then every round measures every target once, in a seeded
 * random order. Figures are medians of per-round ratios to a reference with two-level bootstrap
 * intervals; blocks are added until every interval is within the precision target or the budget is
 * spent. Never prints: progress goes to `onEvent`. Given options, it plans the run first
 * (`planSuiteRun`: invalid definitions throw `BenchsuiteConfigError` before anything starts); given
 * a plan, it runs that plan as it is and plans nothing (`hooks` then carry the signal and events).
 *
 * @example
 * const result = await runSuite({ scenarios: [baseline], targets: [mine, theirs], design: { precision: 0.02 } });
 * // or: plan, show the plan, run it
 * const plan = await planSuiteRun({ scenarios: [baseline], targets: [mine, theirs] });
 * const same = await runSuite(plan, { onEvent: console.log });
 */
export function runSuite(given: RunSuiteOptions | SuiteRunPlan, hooks: RunHooks = {}): Promise<BenchResult> {
  return runSuiteWith(given, realServers, hooks);
}

/** `runSuite` on a given clock and executor (the tests' scripted ones): plan (unless given one) → replay → schedule → assemble. */
export async function runSuiteWith(given: RunSuiteOptions | SuiteRunPlan, seam: RunSeam, hooks: RunHooks = {}): Promise<BenchResult> {
  // Plan: the options, definitions, design and driver (a resumed run's from the plan it wrote); a plan given is run as it is.
  const suite = isSuiteRunPlan(given) ? given : await planSuiteRun(given);
  const { opts, recorded, design } = suite;
  const onEvent = hooks.onEvent ?? opts.onEvent;
  const emit = (e: SuiteEvent) => onEvent?.(e);
  const signal = hooks.signal ?? opts.signal ?? new AbortController().signal;
  // A sliced round listens on the run's signal once per target (its loader, its crash watch): many
  // targets are no leak.
  setMaxListeners(Math.max(defaultMaxListeners, 4 * suite.targets.length + 10), signal);
  const startedAt = seam.clock.date();
  const t0 = seam.clock.now();

  // Replay: what an interrupted run journaled is never measured again.
  const replayed = replay(suite, emit);
  const { budget } = suite;
  // A capacity run (--slo) is not fitted to the budget: its blocks are what its interval needs.
  const windowed = opts.slo === undefined;
  if (windowed && budget && (budget.changes.length || budget.overBySec > 0)) emit({ type: 'budget', plan: budget, budgetSec: design.budgetSec });
  const resumedSec = replayed.windows.reduce((a, w) => Math.max(a, w.elapsedSec), 0);
  const elapsed = () => resumedSec + (seam.clock.now() - t0);

  const { driver, reason } = suite.driver;
  emit({ type: 'driver', name: driver.name, reason });
  // The method this driver can run, and what the budget buys with it (the plan's design holds both).
  const forecast = design.budgetPlan?.forecast;
  if (windowed && forecast && !recorded) emit({ type: 'forecast', forecast });
  const pinning = decidePinning(opts.pinning);
  const unpin = pinSelf(pinning);
  if (!pinning.enabled) emit({ type: 'not-pinned', reason: pinning.reason });
  const journal = new RunJournal(opts.outDir, replayed);
  if (!recorded && opts.outDir) writePlan(opts.outDir, newPlan(suite, driver.name, reason, startedAt));
  const commands = new Map<string, readonly string[]>();
  const phase: PhaseContext = { pinning, signal, emit, commands, journal };

  try {
    const { infos, usable, verify, members } = await prepareTargets(suite, phase);

    // Schedule: blocks of the http scenarios, then the scenarios of other kinds, each by its module.
    const windowCtx = { driver, pinning, signal, clientBoundBusy: design.clientBoundBusy, bottleneckThresholds: thresholdsOf(design) };
    const ctx: RunContext = {
      ...windowCtx,
      get design() {
        return designNow(design, journal.state.replans);
      },
      seed: suite.seed,
      journal,
      executor: seam.executor({ ...windowCtx, commands, method: design.method, seed: suite.seed }, seam.clock),
      emit,
      elapsed,
      commands,
      addLoad: (sec) => journal.record({ record: 'load', sec }),
    };
    // The pairs the run reports: not a target's replicas, nor the A/A control (its processes are one
    // build's: counted, they pulled the typical pair's spread between blocks towards 0).
    const twin = controlTwin(design);
    const pairs = suite.loadScenarios.flatMap((s) =>
      members(s)
        .filter((t) => !isReplica(t.name) && t.name !== twin)
        .map((t) => ({ scenario: s.name, target: t.name })),
    );
    // After block 2: what the budget buys with this run's own noise, said with its record's range.
    // Said once, when every scenario still measuring has had its block 2 (with processes per
    // scenario the blocks are interleaved, so every scenario's noise is read). Not after block 1: no record of such
    // forecasts exists, and the model's figure alone (±7.0% where the header's range centred on
    // ±12.8% and block 2's on ±14.1%, 2026-12-02 22:34) read about half what runs reach.
    let saidAfterBlocks: RunForecast | undefined;
    const afterBlock = (b: number) => {
      if (b !== FORECAST_BLOCKS) return;
      const { forecast: f } = noiseOutlook(suite, journal.state, pairs, b);
      if (!f) return;
      const of = suite.loadScenarios.length;
      const begun = new Set(journal.state.windows.map((w) => w.scenario)).size;
      emit({ type: 'forecast', forecast: f, afterBlock: b, ...(design.processes === 'per-scenario' && of > 1 ? { scenarios: { begun, of } } : {}) });
      saidAfterBlocks ??= f;
    };
    await scheduleHttp(
      ctx,
      suite.loadScenarios.map((scenario) => ({ scenario, members: members(scenario) })),
      {
        est: suite.est,
        planned: suite.planned,
        plannedSec: plannedBlockSecs(suite.planned, design),
        slo: suite.slo,
        profile: opts.profile,
        outDir: opts.outDir,
        instructionsPlan: suite.instructionsPlan,
        afterBlock,
      },
    );
    const streaming: StreamResult[] = [];
    for (const scenario of suite.kindScenarios) {
      if (!members(scenario).length || signal.aborted) continue;
      streaming.push(...(await kindOf(scenario)!.run(ctx, scenario, members(scenario))));
    }

    // Assemble: the result from the plan and everything the journal holds.
    return await assembleResult({
      suite,
      state: journal.state,
      targets: { infos, usable, verify },
      streaming,
      driver: { driver, reason },
      pinning,
      time: { startedAt, finishedAt: seam.clock.date(), wallSec: elapsed() },
      interrupted: signal.aborted,
      noise: { measuredForecast: saidAfterBlocks ?? noiseOutlook(suite, journal.state, pairs, FORECAST_BLOCKS).forecast, limits: noiseOutlook(suite, journal.state, pairs).limits },
    });
  } finally {
    await driver.close?.();
    unpin();
  }
}

/** The state an interrupted run's journal leaves (none for a new run), said in a `resume` event. */
function replay(suite: SuitePlan, emit: (e: SuiteEvent) => void): RunState {
  const { recorded, opts } = suite;
  if (!recorded || !opts.outDir) return emptyState();
  const state = replayJournal(opts.outDir);
  const o = recorded.options;
  emit({
    type: 'resume',
    dir: opts.outDir,
    replayed: { windows: state.windows.length, blocks: state.blocks.length, checks: state.verify.length, costs: state.costs.size },
    seed: recorded.seed,
    driver: recorded.driver,
    overrides: o.overrides,
    verify: o.verify,
    pinning: o.pinning !== false,
    costs: Boolean(o.costs),
  });
  return state;
}

/**
 * The targets a run measures: each set up (an unavailable one is said and left out), each
 * scenario verified on each once (a resumed run's outcomes replayed), their costs measured; a
 * scenario's members are the usable targets that support it and passed its check.
 */
async function prepareTargets(suite: SuitePlan, phase: PhaseContext) {
  const { opts } = suite;
  const infos = await setupPhase(suite.targets, phase);
  // The A/A twin runs what the reference's setup produced, a replica what its target's did, and each shares that fate.
  const twin = controlTwin(suite.design);
  const sourceOf = (name: string): string | undefined => {
    if (name === twin) return suite.design.reference;
    if (!isReplica(name)) return undefined;
    const { target } = processOf(name);
    return sourceOf(target) ?? target;
  };
  for (const t of suite.targets) {
    const source = sourceOf(t.name);
    if (!source || !infos.has(source)) continue;
    const from = infos.get(source)!;
    const command = phase.commands.get(source);
    if (command) phase.commands.set(t.name, command);
    Object.assign(infos.get(t.name)!, { status: from.status, ...(from.reason ? { reason: from.reason } : {}), ...(from.command ? { command: from.command } : {}) });
  }
  // Every Node target starts with the design's young generation and memory reducer (its setup's command, or its own).
  const flags = nodeRuntimeFlags(suite.design);
  for (const t of suite.targets) {
    if (t.kind !== 'process' || !flags.length) continue;
    const command = withNodeFlags(phase.commands.get(t.name) ?? t.command, flags);
    phase.commands.set(t.name, command);
    infos.get(t.name)!.command = command;
  }
  const usable = suite.targets.filter((t) => infos.get(t.name)!.status === 'ok');
  // A replica answers what its target answers: verified once, on the target's first process.
  const verify = opts.verify
    ? await verifyPhase(
        suite.scenarios,
        usable.filter((t) => !isReplica(t.name)),
        phase,
      )
    : [];
  const verified = (s: Scenario, t: Target) => !opts.verify || verify.some((v) => v.scenario === s.name && v.target === processOf(t.name).target && v.ok);
  if (opts.costs && !phase.signal.aborted) {
    await costsPhase(
      usable.filter((t) => t.name !== twin && !isReplica(t.name)),
      suite.scenarios,
      verified,
      infos,
      phase,
      typeof opts.costs === 'object' ? opts.costs.startups : DEFAULTS.startups,
    );
  }
  // Scenarios of other kinds (streaming) measure no ratio: the twin serves only the driver's.
  const member = (s: Scenario, t: Target) => targetSupports(t, s) && verified(s, t) && ((t.name !== twin && !isReplica(t.name)) || driverLoaded(s));
  return { infos, usable, verify, members: (s: Scenario) => usable.filter((t) => member(s, t)) };
}

/** The plan a new run writes when it starts: what `--resume` continues. */
function newPlan(suite: SuitePlan, driver: string, driverReason: string, startedAt: Date): RunPlan {
  const { opts } = suite;
  return {
    suite: opts.suite,
    seed: suite.seed,
    design: suite.design,
    driver,
    scenarios: suite.scenarios.map((s) => s.name),
    targets: [...suite.givenTargets],
    startedAt: startedAt.toISOString(),
    driverReason,
    options: {
      overrides: opts.overrides,
      verify: opts.verify,
      costs: opts.costs,
      profile: opts.profile,
      instructions: opts.instructions,
      pinning: opts.pinning,
      thresholds: opts.thresholds,
      ...(opts.slo !== undefined ? { slo: opts.slo } : {}),
      runtimes: opts.runtimes,
    },
  };
}

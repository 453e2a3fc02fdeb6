import { defaultMaxListeners, setMaxListeners } from 'node:events';
import { DEFAULTS } from '../defaults.js';
import { driverNeeds, resolveDriver } from '../drivers/index.js';
import { decidePinning, pinSelf } from '../environment.js';
import { BenchsuiteConfigError } from '../errors.js';
import type { Design } from '../design-options.js';
import type { SuiteEvent, RunSuiteOptions } from '../options.js';
import type { BenchResult, StreamResult, WindowRecord } from '../result-schema.js';
import { driverLoaded, type Scenario } from '../scenario.js';
import { targetSupports, type Target } from '../target.js';
import { validateSuite } from '../validate.js';
import { withNodeFlags, youngGenerationFlags } from '../runtimes.js';
import { controlTwin } from '../analysis/control.js';
import { minimumSec, planBudget, type BudgetPlan, type PlannedScenario, type RunForecast } from '../analysis/budget.js';
import { budgetFor, forecastBudget, measuredDf, pairNoise, pooledBetween, typicalComponents, type NoiseComponents } from '../analysis/forecast.js';
import { intervalLimits, type IntervalLimits } from '../analysis/limits.js';
import type { Driver } from '../driver.js';
import { methodFor, methods, runMethod } from './methods/index.js';
import { recordedThresholds, thresholdsOf } from '../design-thresholds.js';
import { INTERVAL_METHOD } from '../analysis/summarize.js';
import { parseThresholds } from '../analysis/thresholds.js';
import { kindOf } from '../kinds.js';
import { assembleResult } from './assemble.js';
import { windowSpec } from './block.js';
import { lowSteps } from './floor.js';
import { capacitySettings } from './capacity.js';
import type { RunContext, RunDesign } from './context.js';
import { processExecutor, systemClock, type Clock, type Executor, type ExecutorContext } from './executor.js';
import { replayJournal, RunJournal } from './journal.js';
import { frozen, missingDefinitions, planOptions, readPlan, writePlan, type RunPlan } from './plan.js';
import { costsPhase, setupPhase, verifyPhase, type PhaseContext } from './phases.js';
import { scheduleHttp } from './scheduler.js';
import type { SuitePlan } from './suite-plan.js';
import { designNow, emptyState, type RunState } from './state.js';
import { settleSecOf } from './window.js';
import { FRESH_WARMUP } from './warmup.js';
import { resolveReference } from '../reference.js';

/**
 * The minimum design fitted to the run's budget: the http scenarios' rounds and blocks, after the
 * time set aside for verifying and cold starts per target and for scenarios of another kind
 * (streaming), which take a fixed time. The run and `--dry-run` both plan with this.
 */
export function planRun(
  scenarios: readonly Scenario[],
  targets: readonly Target[],
  design: Pick<Design, 'windowSec' | 'rounds' | 'blocks' | 'warmup' | 'budgetSec'> & { processes?: Design['processes'] | undefined; method?: Design['method'] | undefined },
  o: {
    verify?: boolean | undefined;
    costs?: boolean | { startups: number } | undefined;
    instructions?: boolean | { processes?: number | undefined } | undefined;
    /** What the run's driver can do (whether it runs the design's method, `runMethod`); unknown: as the design says. */
    driverCapabilities?: Driver['capabilities'] | undefined;
    /** A typical pair's noise measured by this run so far, instead of the method's prior. */
    noise?: NoiseComponents | undefined;
  },
): BudgetPlan {
  const kindSec = scenarios.reduce((a, s) => a + (s.verifyOnly ? 0 : (kindOf(s)?.plannedSec(s, targets.filter((t) => targetSupports(t, s)).length, design) ?? 0)), 0);
  const perTarget = (o.verify ? DEFAULTS.planPerTarget.verifySec : 0) + (o.costs ? (typeof o.costs === 'object' ? o.costs.startups : DEFAULTS.startups) * DEFAULTS.planPerTarget.coldStartSec : 0);
  // --instructions: every (scenario, target) of the driver's scenarios on fresh processes under callgrind.
  const pairs = scenarios.filter(driverLoaded).reduce((a, s) => a + targets.filter((t) => targetSupports(t, s)).length, 0);
  const processes = typeof o.instructions === 'object' ? (o.instructions.processes ?? DEFAULTS.instructions.processes) : DEFAULTS.instructions.processes;
  const instructionsSec = o.instructions ? (pairs * DEFAULTS.instructions.pairSec * processes) / DEFAULTS.instructions.processes : 0;
  const method = runMethod(design.method ?? DEFAULTS.method, o.driverCapabilities);
  const planned = plannedScenarios(scenarios, targets, design, method);
  const costs = { ...DEFAULTS.planCosts, beforeSec: kindSec + instructionsSec + floorSec(scenarios, design) + targets.length * perTarget };
  const plan = planBudget(planned, design, costs);
  if (!planned.length) return plan;
  // What the budget buys for a typical pair, by the run's own rule (blocks before rounds).
  const fitted = { ...design, ...plan.design };
  const forecastPlan = {
    costSec: (blocks: number, rounds: number) => minimumSec(planned, { ...fitted, blocks: { min: blocks, max: blocks }, rounds: { min: rounds, max: rounds } }, costs),
    blocks: { min: fitted.blocks.min, max: fitted.blocks.max },
    rounds: { min: fitted.rounds.min, max: fitted.rounds.max },
  };
  const components = o.noise ?? methods[method].prior;
  const f = forecastBudget(components, design.budgetSec, forecastPlan);
  const forecast: RunForecast = {
    method,
    source: o.noise ? 'measured' : 'prior',
    components: { ...components },
    ...f,
    budgetFor: DEFAULTS.forecast.goals.map((precision) => ({ precision, budgetSec: budgetFor(components, precision, forecastPlan) })),
  };
  return { ...plan, expectedHalfWidth: f.halfWidth, forecast };
}

/** The loader floor's time in the minimum design (`run/floor.ts`): after each of the minimum of blocks, its windows at each low step. */
function floorSec(scenarios: readonly Scenario[], design: Pick<Design, 'windowSec' | 'blocks'>): number {
  return scenarios.filter(driverLoaded).reduce((a, s) => {
    const steps = lowSteps(s).length;
    const w = windowSpec(s, [], design, DEFAULTS.stepSettleSec);
    const perWindow = w.windowSec + DEFAULTS.loaderFloor.settleSec + DEFAULTS.planCosts.loaderStartSec;
    return a + design.blocks.min * steps * DEFAULTS.loaderFloor.windowsPerBlock * perWindow;
  }, 0);
}

/** What the budget planner needs of each loaded scenario: targets per round, steps, window, and the settle and round seconds of the method that measures its rounds. */
function plannedScenarios(scenarios: readonly Scenario[], targets: readonly Target[], design: Pick<Design, 'windowSec'>, method: Design['method']): PlannedScenario[] {
  return scenarios.filter(driverLoaded).map((s) => {
    const w = windowSpec(s, [], design, DEFAULTS.stepSettleSec);
    const m = methodFor(method, s);
    return {
      name: s.name,
      targets: targets.filter((t) => targetSupports(t, s)).length,
      steps: w.steps.length,
      windowSec: w.windowSec,
      settleSec: m.plannedSettleSec(settleSecOf(w)),
      roundSec: m.roundSec,
    };
  });
}

/**
 * The design a run measures with, once its driver is known: the method it can run (sliced rounds
 * need a driver that slices) and what its budget is expected to buy with that method (said in the
 * header, recorded in the budget plan). A resumed run keeps its plan's.
 */
function designFor(suite: SuitePlan, driver: Driver): RunDesign {
  if (suite.recorded) return suite.design;
  const method = runMethod(suite.design.method, driver.capabilities);
  const forecast = planRun(suite.scenarios, suite.targets, { ...suite.design, method }, suite.opts).forecast;
  return frozen({ ...suite.design, method, ...(suite.design.budgetPlan && forecast ? { budgetPlan: { ...suite.design.budgetPlan, forecast } } : {}) });
}

/** How far into a run its own noise replaces the prior in the forecast: blocks 1 (within) and 2 (between blocks too). */
const FORECAST_BLOCKS = 2;

/**
 * What this run's own noise says, from the windows so far: the forecast of its budget with the
 * typical pair's components (up to `maxBlock`; with one block the processes' part is still the
 * prior's), and what set its intervals with the changes considered (`overall.limits`).
 */
function noiseOutlook(
  suite: SuitePlan,
  windows: readonly WindowRecord[],
  pairs: ReadonlyArray<{ scenario: string; target: string }>,
  maxBlock?: number,
): { forecast?: RunForecast; limits?: IntervalLimits } {
  const { design } = suite;
  const prior = design.budgetPlan?.forecast;
  if (!prior) return {};
  const measured = pairNoise(windows, pairs, design.reference, maxBlock);
  const typical = typicalComponents(measured.map((p) => p.components));
  if (!typical) return {};
  const noise = { between: pooledBetween(prior.components.between, typical.between, measuredDf(measured), DEFAULTS.forecast.priorDf), within: typical.within };
  const forecastWith = (n: NoiseComponents, budgetFactor: number, method: Design['method']) =>
    planRun(suite.scenarios, suite.targets, { ...design, method, budgetSec: design.budgetSec * budgetFactor }, { ...suite.opts, noise: n }).forecast;
  const forecast = forecastWith(noise, 1, design.method);
  const limits = intervalLimits(measured, {
    method: design.method,
    canSlice: suite.opts.design.method === 'sliced' && design.method === 'sequential',
    forecast: (n, factor, method) => forecastWith(n, factor, method)?.halfWidth,
    slicedWithinFactor: methods.sliced.prior.within / methods.sequential.prior.within,
  });
  return { ...(forecast ? { forecast } : {}), ...(limits ? { limits } : {}) };
}

/**
 * Plan a run: a resumed run asks what its plan asked (seed, design, driver, load overrides and
 * options; the definitions come from the caller and must hold the plan's scenarios and targets);
 * a new one has its minimum design fitted to the budget before anything starts (fewer rounds,
 * shorter warm-ups, fewer blocks). Throws `BenchsuiteConfigError` on invalid definitions.
 */
function planSuite(given: RunSuiteOptions): SuitePlan {
  if (given.resume && !given.outDir) throw new BenchsuiteConfigError('resume: needs outDir, the folder of the run to continue');
  const recorded = given.resume ? frozen(readPlan(given.outDir!)) : undefined;
  const input: RunSuiteOptions = recorded ? { ...given, ...planOptions(recorded), ...(typeof given.driver === 'object' ? { driver: given.driver } : {}) } : given;
  const { opts, scenarios, targets } = validateSuite(input);
  const givenTargets = input.targets.map((t) => t.name);
  if (recorded) {
    const missing = missingDefinitions(
      recorded,
      scenarios.map((s) => s.name),
      [...givenTargets, ...targets.map((t) => t.name)],
    );
    if (missing.length) throw new BenchsuiteConfigError(`resume: the run in ${opts.outDir} had ${missing.join(', ')}, which this configuration lacks`);
  }
  const budget = recorded ? undefined : planRun(scenarios, targets, opts.design, opts);
  const fitted = recorded ? undefined : { ...opts.design, ...budget!.design };
  const design: RunDesign =
    recorded?.design ??
    frozen({
      ...opts.design,
      freshWarmup: FRESH_WARMUP,
      reference: resolveReference(opts.design, targets),
      confidence: DEFAULTS.confidence,
      ...recordedThresholds(),
      intervalMethod: INTERVAL_METHOD,
      ...budget!.design,
      budgetPlan: { minimumSec: budget!.minimumSec, givenMinimumSec: budget!.givenMinimumSec, changes: budget!.changes, overBySec: budget!.overBySec },
      // --slo: the capacity search as this run does it (blocks, growth, resolution, probes, shares).
      ...(opts.slo !== undefined ? { capacity: capacitySettings(fitted!) } : {}),
    });
  const seed = recorded?.seed ?? opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  return {
    opts,
    scenarios,
    targets,
    givenTargets,
    recorded,
    seed,
    design,
    budget,
    loadScenarios: scenarios.filter(driverLoaded),
    kindScenarios: scenarios.filter((s) => !s.verifyOnly && kindOf(s)),
    planned: plannedScenarios(scenarios, targets, design, design.method),
    est: { reference: design.reference, precision: design.precision, practicalBand: design.practicalBand, bootstrapResamples: design.bootstrapResamples, confidence: design.confidence, seed },
    thresholdTerms: {
      run: opts.thresholds.flatMap((t) => parseThresholds(t)),
      scenarios: new Map(scenarios.filter((s) => s.thresholds?.length).map((s) => [s.name, s.thresholds!.flatMap((t) => parseThresholds(t))])),
    },
    slo: opts.slo !== undefined ? { text: opts.slo, terms: parseThresholds(opts.slo) } : undefined,
    instructionsPlan: opts.instructions
      ? {
          processes: DEFAULTS.instructions.processes,
          warmupRequests: DEFAULTS.instructions.warmupRequests,
          requests: DEFAULTS.instructions.requests,
          loadedRequests: DEFAULTS.instructions.loadedRequests,
          ...(typeof opts.instructions === 'object' ? opts.instructions : {}),
        }
      : undefined,
  };
}

/** Where a run meets time and servers: its clock, and the executor it makes once its driver and pinning are known. */
export interface RunSeam {
  clock: Clock;
  executor(ctx: ExecutorContext, clock: Clock): Executor;
}

const realServers: RunSeam = { clock: systemClock, executor: (ctx, clock) => processExecutor(ctx, clock) };

/**
 * Run scenarios × targets in rounds of short paired windows and return one validated result.
 * For each scenario, blocks of fresh server processes (one per target, pinned apart from the load
 * generator) are warmed up until steady; then every round measures every target once, in a seeded
 * random order. Figures are medians of per-round ratios to a reference with two-level bootstrap
 * intervals; blocks are added until every interval is within the precision target or the budget is
 * spent. Never prints: progress goes to `onEvent`. Invalid definitions throw `BenchsuiteConfigError`
 * before anything starts.
 *
 * @example
 * const result = await runSuite({ scenarios: [baseline], targets: [mine, theirs], design: { precision: 0.02 } });
 */
export function runSuite(given: RunSuiteOptions): Promise<BenchResult> {
  return runSuiteWith(given, realServers);
}

/** `runSuite` on a given clock and executor (the tests' scripted ones): plan → replay → schedule → assemble. */
export async function runSuiteWith(given: RunSuiteOptions, seam: RunSeam): Promise<BenchResult> {
  // Plan: the options, definitions and design (a resumed run's from the plan it wrote).
  const suite = planSuite(given);
  const { opts, recorded } = suite;
  let design = suite.design;
  const emit = (e: SuiteEvent) => opts.onEvent?.(e);
  const signal = opts.signal ?? new AbortController().signal;
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

  const choice = await resolveDriver(opts.driver, driverNeeds(suite.scenarios, { slo: opts.slo })).catch((err: Error) => {
    throw new BenchsuiteConfigError(`driver: ${err.message}`);
  });
  const driver = choice.driver;
  emit({ type: 'driver', name: driver.name, reason: choice.reason });
  // The method this driver can run, and what the budget buys with it.
  suite.design = designFor(suite, driver);
  suite.planned = plannedScenarios(suite.scenarios, suite.targets, suite.design, suite.design.method);
  design = suite.design;
  const forecast = design.budgetPlan?.forecast;
  if (windowed && forecast && !recorded) emit({ type: 'forecast', forecast });
  const pinning = decidePinning(opts.pinning);
  const unpin = pinSelf(pinning);
  if (!pinning.enabled) emit({ type: 'not-pinned', reason: pinning.reason });
  const journal = new RunJournal(opts.outDir, replayed);
  if (!recorded && opts.outDir) writePlan(opts.outDir, newPlan(suite, driver.name, choice.reason, startedAt));
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
    const pairs = suite.loadScenarios.flatMap((s) => members(s).map((t) => ({ scenario: s.name, target: t.name })));
    // After each of the first blocks: what the budget buys with this run's own noise.
    const afterBlock = (b: number) => {
      if (b > FORECAST_BLOCKS) return;
      const { forecast: f } = noiseOutlook(suite, journal.state.windows, pairs, b);
      if (f) emit({ type: 'forecast', forecast: f, afterBlock: b });
    };
    await scheduleHttp(
      ctx,
      suite.loadScenarios.map((scenario) => ({ scenario, members: members(scenario) })),
      { est: suite.est, planned: suite.planned, slo: suite.slo, profile: opts.profile, outDir: opts.outDir, instructionsPlan: suite.instructionsPlan, afterBlock },
    );
    const streaming: StreamResult[] = [];
    for (const scenario of suite.kindScenarios) {
      if (!members(scenario).length || signal.aborted) continue;
      streaming.push(
        ...(await kindOf(scenario)!.run(
          ctx,
          scenario,
          members(scenario),
          journal.state.streams.filter((r) => r.scenario === scenario.name),
        )),
      );
    }

    // Assemble: the result from the plan and everything the journal holds.
    return await assembleResult({
      suite,
      state: journal.state,
      targets: { infos, usable, verify },
      streaming,
      driver: { driver, reason: choice.reason },
      pinning,
      time: { startedAt, finishedAt: seam.clock.date(), wallSec: elapsed() },
      interrupted: signal.aborted,
      noise: { measuredForecast: noiseOutlook(suite, journal.state.windows, pairs, FORECAST_BLOCKS).forecast, limits: noiseOutlook(suite, journal.state.windows, pairs).limits },
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
  // The A/A twin runs what the reference's setup produced, and shares its fate.
  const twin = controlTwin(suite.design);
  if (twin && infos.has(twin)) {
    const ref = infos.get(suite.design.reference)!;
    const command = phase.commands.get(suite.design.reference);
    if (command) phase.commands.set(twin, command);
    Object.assign(infos.get(twin)!, { status: ref.status, ...(ref.reason ? { reason: ref.reason } : {}), ...(ref.command ? { command: ref.command } : {}) });
  }
  // Every Node target starts with the design's young generation (its setup's command, or its own).
  const flags = youngGenerationFlags(suite.design.youngGenerationMb ?? 'default');
  for (const t of suite.targets) {
    if (t.kind !== 'process' || !flags.length) continue;
    const command = withNodeFlags(phase.commands.get(t.name) ?? t.command, flags);
    phase.commands.set(t.name, command);
    infos.get(t.name)!.command = command;
  }
  const usable = suite.targets.filter((t) => infos.get(t.name)!.status === 'ok');
  const verify = opts.verify ? await verifyPhase(suite.scenarios, usable, phase, phase.journal.state.verify) : [];
  const verified = (s: Scenario, t: Target) => !opts.verify || verify.some((v) => v.scenario === s.name && v.target === t.name && v.ok);
  if (opts.costs && !phase.signal.aborted) {
    await costsPhase(
      usable.filter((t) => t.name !== twin),
      suite.scenarios,
      verified,
      infos,
      phase.journal.state.costs,
      phase,
      typeof opts.costs === 'object' ? opts.costs.startups : DEFAULTS.startups,
    );
  }
  // Scenarios of other kinds (streaming) measure no ratio: the twin serves only the driver's.
  const member = (s: Scenario, t: Target) => targetSupports(t, s) && verified(s, t) && (t.name !== twin || driverLoaded(s));
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

import { DEFAULTS } from '../defaults.js';
import { driverNeeds, resolveDriver } from '../drivers/index.js';
import { BenchsuiteConfigError, DriverUnusableError } from '../errors.js';
import type { Design } from '../design-options.js';
import type { RunSuiteOptions } from '../options.js';
import { driverLoaded, type Scenario } from '../scenario.js';
import { targetSupports, type Target } from '../target.js';
import { validateSuite } from '../validate.js';
import { blockSec, minimumSec, planBudget, type BudgetPlan, type RunForecast } from '../analysis/budget.js';
import type { PlannedScenario } from '../analysis/round-cost.js';
import { budgetFor, forecastBudget, likelyRange, priorBetween, type ForecastRecord, type NoiseComponents } from '../analysis/forecast.js';
import type { Driver } from '../driver.js';
import { methodFor, methods, runMethod } from './methods/index.js';
import { recordedThresholds } from '../design-thresholds.js';
import { INTERVAL_METHOD } from '../analysis/summarize.js';
import { parseThresholds } from '../analysis/thresholds.js';
import { kindOf } from '../scenario-kinds.js';
import { windowSpec } from './block.js';
import { lowSteps } from './floor.js';
import { capacityDurationSec, capacitySettings } from './capacity.js';
import type { RunDesign } from './context.js';
import { frozen, missingDefinitions, planOptions, readPlan } from './plan.js';
import type { SuitePlan, SuiteRunPlan } from './suite-plan.js';
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
  design: Pick<Design, 'windowSec' | 'rounds' | 'blocks' | 'warmup' | 'budgetSec'> & {
    processes?: Design['processes'] | undefined;
    method?: Design['method'] | undefined;
    replicas?: Design['replicas'] | undefined;
  },
  o: {
    verify?: boolean | undefined;
    costs?: boolean | { startups: number } | undefined;
    instructions?: boolean | { processes?: number | undefined } | undefined;
    /** What the run's driver can do (whether it runs the design's method, `runMethod`); unknown: as the design says. */
    driverCapabilities?: Driver['capabilities'] | undefined;
    /** A typical pair's noise measured by this run so far, instead of the method's prior. */
    noise?: NoiseComponents | undefined;
    /**
     * The record a measured forecast is said with (`likelyRange`; the forecast after block 2's), so
     * its budget lines price the range's centre; a prior forecast always has its own
     * (`DEFAULTS.forecast.priorRecord`).
     */
    record?: ForecastRecord | undefined;
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
  // What the budget buys for a typical pair, by the run's own rule (blocks before rounds), each
  // fresh warm-up at its typical length rather than the maximum the minimum design is fitted with.
  const fitted = { ...design, ...plan.design };
  const typical = { ...fitted, warmup: { ...fitted.warmup, maxSec: typicalWarmupSec(fitted.warmup) } };
  const forecastPlan = {
    costSec: (blocks: number, rounds: number) => minimumSec(planned, { ...typical, blocks: { min: blocks, max: blocks }, rounds: { min: rounds, max: rounds } }, costs),
    blocks: { min: fitted.blocks.min, max: fitted.blocks.max },
    rounds: { min: fitted.rounds.min, max: fitted.rounds.max },
  };
  // With k processes per target a round's figure is a geometric mean over k of each side: both parts of a prior's noise shrink by √k.
  // Between blocks, a block's processes drift with the scenarios they serve: all of the run's when shared.
  const k = design.replicas ?? DEFAULTS.replicas;
  const served = (design.processes ?? DEFAULTS.processes) === 'shared' ? planned.length : 1;
  const components = o.noise ?? { between: priorBetween(served) / Math.sqrt(k), within: methods[method].prior.within / Math.sqrt(k) };
  const f = forecastBudget(components, design.budgetSec, forecastPlan);
  // Said with a record, the forecast's figure is the range's centre (the model's × e^−logBias), and
  // a goal's budget is the one whose centre reaches it.
  const record = o.noise ? o.record : DEFAULTS.forecast.priorRecord;
  const modelGoal = (precision: number) => precision * Math.exp(record?.logBias ?? 0);
  const forecast: RunForecast = {
    method,
    source: o.noise ? 'measured' : 'prior',
    components: { ...components },
    ...f,
    budgetFor: DEFAULTS.forecast.goals.map((precision) => ({ precision, budgetSec: budgetFor(components, modelGoal(precision), forecastPlan) })),
    ...(record ? { likely: likelyRange(f.halfWidth, record) } : {}),
  };
  return { ...plan, expectedHalfWidth: f.halfWidth, forecast };
}

/**
 * Each loaded scenario's block as the planner prices it: its minimum of rounds, each fresh warm-up
 * at its typical length. What the forecast after block 2 prices the scenarios not begun by, scaled
 * as the begun ones ran (`blocksPerScenarioAtPace`).
 */
export function plannedBlockSecs(planned: readonly PlannedScenario[], design: Pick<Design, 'rounds' | 'warmup'>): Map<string, number> {
  const warmupSec = typicalWarmupSec(design.warmup);
  return new Map(planned.map((p) => [p.name, blockSec(p, design.rounds.min, warmupSec, DEFAULTS.planCosts)]));
}

/**
 * A fresh warm-up's typical seconds per process, for the forecast: the requests it asks for at
 * `DEFAULTS.planCosts.warmupRps`, within its minimum and maximum (the maximum without a count).
 */
function typicalWarmupSec(w: Pick<Design['warmup'], 'minSec' | 'maxSec'> & { served?: number | undefined }): number {
  if (!w.served) return w.maxSec;
  return Math.min(w.maxSec, Math.max(w.minSec, w.served / DEFAULTS.planCosts.warmupRps));
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
  if (!suite.design.budgetPlan) return frozen({ ...suite.design, method });
  // The planner's price of each scenario's block is kept with the plan, so a replay of the forecast prices the scenarios to come as the run did.
  const blockSec = Object.fromEntries(plannedBlockSecs(plannedScenarios(suite.scenarios, suite.targets, suite.design, method), suite.design));
  return frozen({ ...suite.design, method, budgetPlan: { ...suite.design.budgetPlan, ...(forecast ? { forecast } : {}), blockSec } });
}

/**
 * The options, definitions and design of a run before its driver is known: a resumed run asks what its plan asked (seed, design, driver, load overrides and
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

/**
 * Plan a run, all of it, before anything starts: validate the options and definitions (a resumed
 * run's from the plan it wrote), fit the minimum design to the budget, resolve the driver and the
 * method it can run, forecast what the budget buys, and choose the seed. The plan is frozen:
 * `runSuite(plan)` runs exactly it, and a caller prints it first (the CLI's header and `--dry-run`).
 * Throws `BenchsuiteConfigError` on invalid options, `DriverUnusableError` on an unusable driver.
 *
 * @example
 * const plan = await planSuiteRun({ scenarios: [baseline], targets: [mine, theirs] });
 * console.log(plan.driver.name, plan.design.rounds);
 * const result = await runSuite(plan);
 */
export async function planSuiteRun(given: RunSuiteOptions): Promise<SuiteRunPlan> {
  const base = planSuite(given);
  const { opts, scenarios, targets } = base;
  const choice = await resolveDriver(opts.driver, driverNeeds(scenarios, { slo: opts.slo })).catch((err: Error) => {
    throw new DriverUnusableError(`driver: ${err.message}`);
  });
  const design = designFor(base, choice.driver);
  // What the header and `--dry-run` say the budget buys: the minimum design priced with the method this driver runs.
  const budget = planRun(scenarios, targets, opts.design, { ...opts, driverCapabilities: choice.driver.capabilities });
  return Object.freeze({
    ...base,
    kind: 'suite-run-plan' as const,
    design,
    planned: frozen(plannedScenarios(scenarios, targets, design, design.method)),
    budget: base.budget && frozen(base.budget),
    driver: Object.freeze({ driver: choice.driver, name: choice.driver.name, reason: choice.reason }),
    outlook: frozen({
      budget,
      windowSec: opts.overrides.duration ?? design.windowSec,
      ...(opts.slo !== undefined ? { capacity: capacityOutlook(opts.slo, design, scenarios.length * targets.length) } : {}),
    }),
  });
}

/** A capacity run's search as the run does it (`--slo`), and how long all its searches take. */
function capacityOutlook(slo: string, design: RunDesign, searches: number): NonNullable<SuiteRunPlan['outlook']['capacity']> {
  const settings = capacitySettings(design);
  const { typicalSec, maxSec } = capacityDurationSec(design, settings, searches);
  return { slo, settings, probeSec: design.capacityProbeSec ?? DEFAULTS.capacity.probeSec, typicalSec, maxSec };
}

/** Whether `runSuite` was given a plan (`planSuiteRun`) rather than options. */
export const isSuiteRunPlan = (x: RunSuiteOptions | SuiteRunPlan): x is SuiteRunPlan => (x as Partial<SuiteRunPlan>).kind === 'suite-run-plan';

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import { driverNeeds, resolveDriver } from '../drivers/index.js';
import { decidePinning, pinSelf } from '../environment.js';
import { BenchsuiteConfigError } from '../errors.js';
import type { Design, SuiteEvent, RunSuiteOptions } from '../options.js';
import type { BenchResult, BlockRecord, Capacity, Ceiling, InstructionsRecord, ProfileRecord, DesignRecord, StopRecord, StreamResult, WindowRecord } from '../result-schema.js';
import { connectionSteps, driverLoaded, type Scenario } from '../scenario.js';
import { targetSupports, type Target } from '../target.js';
import { validateSuite } from '../validate.js';
import { planBudget, type BudgetPlan, type PlannedScenario } from '../analysis/budget.js';
import { recordedThresholds, thresholdsOf } from '../design-thresholds.js';
import { INTERVAL_METHOD, type EstimatorOptions } from '../analysis/summarize.js';
import { windowSpec, type BlockContext } from './block.js';
import { capacitySettings } from './capacity.js';
import { settleSecOf } from './window.js';
import { rotationWindowSec } from './warmup.js';
import { planOptions, readLog, readPlan, RunJournal, WINDOWS_FILE, type RunLog } from './log.js';
import { costsPhase, setupPhase, verifyPhase, type PhaseContext } from './phases.js';
import { measureHttpScenario, type HttpRun } from './http-scenario.js';
import { measureSharedScenarios } from './shared.js';
import { assembleResult } from './assemble.js';
import { parseThresholds } from '../analysis/thresholds.js';
import { kindOf } from '../kinds.js';

/** The reference of the relative figures: the design's, else `node-http` when present, else the first target. */
export function resolveReference(design: Pick<Design, 'reference'>, targets: readonly Pick<Target, 'name'>[]): string {
  if (design.reference) return design.reference;
  if (targets.some((t) => t.name === DEFAULTS.reference)) return DEFAULTS.reference;
  // With runtimes as a dimension, the reference on the host's Node (its variant comes first).
  return targets.find((t) => t.name.startsWith(`${DEFAULTS.reference}@`))?.name ?? targets[0]!.name;
}

/**
 * The minimum design fitted to the run's budget: the http scenarios' rounds and blocks, after the
 * time set aside for verifying and cold starts per target and for scenarios of another kind
 * (streaming), which take a fixed time. The run and `--dry-run` both plan with this.
 */
export function planRun(
  scenarios: readonly Scenario[],
  targets: readonly Target[],
  design: Pick<Design, 'windowSec' | 'rounds' | 'blocks' | 'warmup' | 'budgetSec'> & { processes?: Design['processes'] | undefined },
  o: { verify?: boolean | undefined; costs?: boolean | { startups: number } | undefined; instructions?: boolean | { processes?: number | undefined } | undefined },
): BudgetPlan {
  const kindSec = scenarios.reduce((a, s) => a + (s.verifyOnly ? 0 : (kindOf(s)?.plannedSec(s, targets.filter((t) => targetSupports(t, s)).length, design) ?? 0)), 0);
  const perTarget = (o.verify ? DEFAULTS.planPerTarget.verifySec : 0) + (o.costs ? (typeof o.costs === 'object' ? o.costs.startups : DEFAULTS.startups) * DEFAULTS.planPerTarget.coldStartSec : 0);
  // --instructions: every (scenario, target) of the driver's scenarios on fresh processes under callgrind.
  const pairs = scenarios.filter(driverLoaded).reduce((a, s) => a + targets.filter((t) => targetSupports(t, s)).length, 0);
  const processes = typeof o.instructions === 'object' ? (o.instructions.processes ?? DEFAULTS.instructions.processes) : DEFAULTS.instructions.processes;
  const instructionsSec = o.instructions ? (pairs * DEFAULTS.instructions.pairSec * processes) / DEFAULTS.instructions.processes : 0;
  return planBudget(plannedScenarios(scenarios, targets, design), design, { ...DEFAULTS.planCosts, beforeSec: kindSec + instructionsSec + targets.length * perTarget });
}

/** What the budget planner needs of each loaded scenario: targets per round, steps, window and settle. */
function plannedScenarios(scenarios: readonly Scenario[], targets: readonly Target[], design: Pick<Design, 'windowSec'>): PlannedScenario[] {
  return scenarios.filter(driverLoaded).map((s) => {
    const w = windowSpec(s, [], design, DEFAULTS.stepSettleSec);
    return { name: s.name, targets: targets.filter((t) => targetSupports(t, s)).length, steps: w.steps.length, windowSec: w.windowSec, settleSec: settleSecOf(w) };
  });
}

/** Drop a line a kill cut short at the end of the windows file, so appending continues on a clean line. */
function repairLog(dir: string): void {
  const file = join(dir, WINDOWS_FILE);
  if (!existsSync(file)) return;
  const text = readFileSync(file, 'utf8');
  if (!text || text.endsWith('\n')) return;
  writeFileSync(file, text.slice(0, text.lastIndexOf('\n') + 1));
}

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
export async function runSuite(given: RunSuiteOptions): Promise<BenchResult> {
  // A resumed run asks what its plan asked: seed, design, driver, load overrides and options.
  if (given.resume && !given.outDir) throw new BenchsuiteConfigError('resume: needs outDir, the folder of the run to continue');
  const plan = given.resume ? readPlan(given.outDir!) : undefined;
  const input: RunSuiteOptions = plan ? { ...given, ...planOptions(plan), ...(typeof given.driver === 'object' ? { driver: given.driver } : {}) } : given;
  const { opts, scenarios, targets } = validateSuite(input);
  const emit = (e: SuiteEvent) => opts.onEvent?.(e);
  const signal = opts.signal ?? new AbortController().signal;
  const startedAt = new Date();
  const wall0 = performance.now();

  // A resumed run takes its seed and design from the plan it wrote, and its finished work from its log.
  let log: RunLog = { windows: [], blocks: [], verify: [], costs: new Map(), ceilings: [], profiles: [], instructions: [], streams: [], capacity: [], loadSec: 0 };
  let seed = opts.seed ?? Math.floor(Math.random() * 2 ** 31);
  let designIn: Design = opts.design;
  if (opts.resume) {
    if (!opts.outDir || !plan) throw new BenchsuiteConfigError('resume: needs outDir, the folder of the run to continue');
    const given = input.targets.map((t) => t.name);
    const missing = [
      ...plan.scenarios.filter((n) => !scenarios.some((s) => s.name === n)).map((n) => `scenario "${n}"`),
      ...plan.targets.filter((n) => !given.includes(n) && !targets.some((t) => t.name === n)).map((n) => `target "${n}"`),
    ];
    if (missing.length) throw new BenchsuiteConfigError(`resume: the run in ${opts.outDir} had ${missing.join(', ')}, which this configuration lacks`);
    seed = plan.seed;
    // Plans from before these fields: processes were per scenario, which uses no rotation rounds
    // (a shared plan always recorded its rotation rounds); rotation windows were the warm-up's (its
    // later blocks' wake-up rounds then take that length too, not the measured one: never recorded);
    // fresh processes were warmed one by one.
    designIn = {
      ...plan.design,
      processes: plan.design.processes ?? 'per-scenario',
      freshWarmup: plan.design.freshWarmup ?? 'one-by-one',
      carriedWarmupRounds: plan.design.carriedWarmupRounds ?? DEFAULTS.carriedWarmupRounds,
      carriedWarmupWindowSec: rotationWindowSec(plan.design),
      capacityProbeSec: plan.design.capacityProbeSec ?? DEFAULTS.capacity.probeSec,
    };
    repairLog(opts.outDir);
    log = readLog(opts.outDir);
    const o = plan.options.overrides;
    emit({
      type: 'resume',
      dir: opts.outDir,
      replayed: { windows: log.windows.length, blocks: log.blocks.length, checks: log.verify.length, costs: log.costs.size },
      seed: plan.seed,
      driver: plan.driver,
      overrides: o,
      verify: plan.options.verify,
      pinning: plan.options.pinning !== false,
      costs: Boolean(plan.options.costs),
    });
  }
  const thresholdTerms = {
    run: opts.thresholds.flatMap((t) => parseThresholds(t)),
    scenarios: new Map(scenarios.filter((s) => s.thresholds?.length).map((s) => [s.name, s.thresholds!.flatMap((t) => parseThresholds(t))])),
  };
  const slo = opts.slo !== undefined ? { text: opts.slo, terms: parseThresholds(opts.slo) } : undefined;
  const reference = resolveReference(designIn, targets);
  const design: DesignRecord & Design = {
    ...designIn,
    reference,
    confidence: DEFAULTS.confidence,
    ...recordedThresholds(),
    intervalMethod: INTERVAL_METHOD,
  };
  // The minimum design fitted to the budget before anything starts (fewer rounds, shorter
  // warm-ups, fewer blocks), and said; the stopping rule then keeps the budget as the run goes.
  const planned = plannedScenarios(scenarios, targets, design);
  const budgetPlan = planRun(scenarios, targets, design, opts);
  Object.assign(design, budgetPlan.design, {
    budgetPlan: { minimumSec: budgetPlan.minimumSec, givenMinimumSec: budgetPlan.givenMinimumSec, changes: budgetPlan.changes, overBySec: budgetPlan.overBySec },
  });
  if (budgetPlan.changes.length || budgetPlan.overBySec > 0) emit({ type: 'budget', plan: budgetPlan, budgetSec: design.budgetSec });
  const resumedSec = log.windows.reduce((a, w) => Math.max(a, w.elapsedSec), 0);
  const elapsed = () => resumedSec + (performance.now() - wall0) / 1000;

  const choice = await resolveDriver(opts.driver, driverNeeds(scenarios, { slo: opts.slo })).catch((err: Error) => {
    throw new BenchsuiteConfigError(`driver: ${err.message}`);
  });
  const driver = choice.driver;
  emit({ type: 'driver', name: driver.name, reason: choice.reason });
  const pinning = decidePinning(opts.pinning);
  const unpin = pinSelf(pinning);
  if (!pinning.enabled) emit({ type: 'not-pinned', reason: pinning.reason });
  const journal = new RunJournal(opts.outDir);
  if (!opts.resume) {
    journal.writePlan({
      suite: opts.suite,
      seed,
      design,
      driver: driver.name,
      scenarios: scenarios.map((s) => s.name),
      targets: input.targets.map((t) => t.name),
      startedAt: startedAt.toISOString(),
      driverReason: choice.reason,
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
    });
  }
  const commands = new Map<string, readonly string[]>();
  const phase: PhaseContext = { pinning, signal, emit, commands, journal };

  try {
    const infos = await setupPhase(targets, phase);
    const usable = targets.filter((t) => infos.get(t.name)!.status === 'ok');
    const verify = opts.verify ? await verifyPhase(scenarios, usable, phase, log.verify) : [];
    const verified = (s: Scenario, t: Target) => !opts.verify || verify.some((v) => v.scenario === s.name && v.target === t.name && v.ok);

    if (opts.costs && !signal.aborted) await costsPhase(usable, scenarios, verified, infos, log.costs, phase, typeof opts.costs === 'object' ? opts.costs.startups : DEFAULTS.startups);

    // Rounds of paired windows, scenario by scenario, in blocks of fresh processes.
    const windows: WindowRecord[] = [...log.windows];
    const blocks: BlockRecord[] = [];
    const stops: StopRecord[] = [];
    const ceilings: Ceiling[] = [...log.ceilings];
    const profiles: ProfileRecord[] = [...log.profiles];
    const instructions: InstructionsRecord[] = [...log.instructions];
    const instructionsPlan = opts.instructions
      ? {
          processes: DEFAULTS.instructions.processes,
          warmupRequests: DEFAULTS.instructions.warmupRequests,
          requests: DEFAULTS.instructions.requests,
          loadedRequests: DEFAULTS.instructions.loadedRequests,
          ...(typeof opts.instructions === 'object' ? opts.instructions : {}),
        }
      : undefined;
    if (instructionsPlan) Object.assign(design, { instructions: instructionsPlan });
    if (slo) Object.assign(design, { capacity: capacitySettings(design) });
    const capacity: Capacity[] = [];
    let index = windows.reduce((a, w) => Math.max(a, w.index + 1), 0);
    let loadSec = log.loadSec;
    const est: EstimatorOptions = { reference, precision: design.precision, practicalBand: design.practicalBand, bootstrapResamples: design.bootstrapResamples, confidence: design.confidence, seed };
    const ctx: BlockContext = {
      driver,
      pinning,
      signal,
      clientBoundBusy: design.clientBoundBusy,
      bottleneckThresholds: thresholdsOf(design),
      design,
      seed,
      journal,
      emit,
      elapsed,
      commands,
      nextIndex: () => index++,
      addLoad: (sec) => (loadSec += sec),
      loadSec: () => loadSec,
    };
    const loadScenarios = scenarios.filter(driverLoaded);
    const kindScenarios = scenarios.filter((s) => !s.verifyOnly && kindOf(s));
    const stepSettle = DEFAULTS.stepSettleSec;
    const perRound = (s: Scenario) => {
      const steps = connectionSteps(s.load).length;
      const n = usable.filter((t) => targetSupports(t, s) && verified(s, t)).length;
      const w = windowSpec(s, [], design, stepSettle);
      return n * (steps * w.windowSec + settleSecOf(w));
    };
    const weights = loadScenarios.map(perRound);
    const http: HttpRun = {
      ctx,
      est,
      log,
      windows,
      blocks,
      stops,
      ceilings,
      profiles,
      instructions,
      capacity,
      planned,
      weights,
      slo,
      profile: opts.profile,
      outDir: opts.outDir,
      instructionsPlan,
    };
    const membersOf = (s: Scenario) => usable.filter((t) => targetSupports(t, s) && verified(s, t));
    if (design.processes === 'shared' && !slo) {
      // One set of fresh processes per block serves every scenario, in a seeded order per block.
      await measureSharedScenarios(
        http,
        loadScenarios.map((scenario, si) => ({ scenario, members: membersOf(scenario), weight: weights[si]! })),
      );
    } else
      for (const [si, scenario] of loadScenarios.entries()) {
        await measureHttpScenario(http, scenario, si, membersOf(scenario));
      }

    // Scenarios of another kind (streaming), each measured by its own module.
    const streaming: StreamResult[] = [];
    for (const scenario of kindScenarios) {
      const members = usable.filter((t) => targetSupports(t, scenario) && verified(scenario, t));
      if (!members.length || signal.aborted) continue;
      streaming.push(
        ...(await kindOf(scenario)!.run(
          ctx,
          scenario,
          members,
          log.streams.filter((r) => r.scenario === scenario.name),
        )),
      );
    }

    // The recorded design is the planned one; a change made during the run is in its budget plan.
    const midRun = design.budgetPlan?.changes.find((c) => typeof c === 'object' && c.what === 'warmup' && c.atSec !== undefined);
    if (typeof midRun === 'object') design.warmup.maxSec = midRun.from;

    return await assembleResult({
      opts,
      scenarios,
      targets,
      loadScenarios,
      kindScenarios,
      usable,
      infos,
      verify,
      windows,
      blocks,
      stops,
      ceilings,
      profiles,
      instructions,
      instructionsPlan,
      capacity,
      slo,
      streaming,
      est,
      design,
      pinning,
      driver,
      choice,
      seed,
      startedAt,
      wall0,
      resumedSec,
      loadSec,
      thresholdTerms,
      signal,
    });
  } finally {
    await driver.close?.();
    unpin();
  }
}

import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEFAULTS } from '../defaults.js';
import { driverNeeds, resolveDriver } from '../drivers/index.js';
import { captureEnvironment, decidePinning, pinSelf } from '../environment.js';
import { BenchsuiteConfigError } from '../errors.js';
import type { Design, SuiteEvent, RunSuiteOptions } from '../options.js';
import {
  RESULT_SCHEMA_VERSION,
  resultSchema,
  type BenchResult,
  type BlockRecord,
  type Capacity,
  type Ceiling,
  type InstructionsRecord,
  type ProfileRecord,
  type DesignRecord,
  type PairSummary,
  type StopRecord,
  type StreamResult,
  type WindowRecord,
} from '../result-schema.js';
import { connectionSteps, driverLoaded, scenarioRequests, type Scenario } from '../scenario.js';
import { targetSupports, type Target } from '../target.js';
import { validateSuite } from '../validate.js';
import { median } from '../analysis/bootstrap.js';
import { optimalRounds, varianceComponents } from '../analysis/components.js';
import { decideStop, scenarioBudget } from '../analysis/stopping.js';
import { blockSec, budgetSentences, planBudget, type BudgetPlan, type PlannedScenario } from '../analysis/budget.js';
import { recordedThresholds, thresholdsOf } from '../design-thresholds.js';
import { estimate, INTERVAL_METHOD, overallOf, RATIO_METHOD, rankScenario, ratioGroups, summarizePair, WindowIndex, type EstimatorOptions } from '../analysis/summarize.js';
import { runBlock, windowSpec, type BlockContext } from './block.js';
import { planOptions, readLog, readPlan, RunJournal, WINDOWS_FILE, type RunLog } from './log.js';
import { measureCosts, setupPhase, verifyPhase, type PhaseContext } from './phases.js';
import { runtimeOf } from './runtime.js';
import { measureCeiling } from './ceiling.js';
import { profileTarget } from './profile.js';
import { countInstructions } from './instructions.js';
import { capacityOf } from './capacity.js';
import { evaluateThresholds, parseThresholds } from '../analysis/thresholds.js';
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
  design: Pick<Design, 'windowSec' | 'rounds' | 'blocks' | 'warmup' | 'budgetSec'>,
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
export function plannedScenarios(scenarios: readonly Scenario[], targets: readonly Target[], design: Pick<Design, 'windowSec'>): PlannedScenario[] {
  return scenarios.filter(driverLoaded).map((s) => {
    const w = windowSpec(s, [], design, DEFAULTS.stepSettleSec);
    return { name: s.name, targets: targets.filter((t) => targetSupports(t, s)).length, steps: w.steps.length, windowSec: w.windowSec, settleSec: w.settleSec };
  });
}

/** Headline half-widths of a scenario so far (relative figures, or absolute ones where there is no reference). */
function headlineHalfWidths(scenario: string, names: readonly string[], windows: readonly WindowRecord[], o: EstimatorOptions): Array<number | null> {
  const index = new WindowIndex(windows);
  const measured = names.filter((n) => windows.some((w) => w.scenario === scenario && w.target === n && w.status === 'ok'));
  const hasRef = measured.includes(o.reference);
  const out: Array<number | null> = [];
  for (const name of measured) {
    if (hasRef && name === o.reference) continue;
    if (hasRef) {
      out.push(estimate(ratioGroups(windows, scenario, name, o.reference, index), o, [scenario, name, 'ratio'], RATIO_METHOD).halfWidth);
    } else {
      const mine = windows.filter((w) => w.scenario === scenario && w.target === name && w.status === 'ok' && w.excluded === null);
      const blocks = [...new Set(mine.map((w) => w.block))];
      out.push(
        estimate(
          blocks.map((b) => mine.filter((w) => w.block === b).map((w) => (w.status === 'ok' ? w.rps : 0))),
          o,
          [scenario, name, 'rps'],
          RATIO_METHOD,
        ).halfWidth,
      );
    }
  }
  return out;
}

/** Rounds for the next block: the minimum while dimensioning, then Kalibera & Jones's optimum, fitted to the budget. */
function planRounds(
  design: Design,
  scenario: string,
  names: readonly string[],
  reference: string,
  windows: readonly WindowRecord[],
  blocks: readonly BlockRecord[],
  budgetLeftSec: number,
): { rounds: number; blockSec: number } {
  const mine = blocks.filter((b) => b.scenario === scenario && b.rounds > 0);
  if (!mine.length) return { rounds: design.rounds.min, blockSec: 0 };
  const roundSec = median(mine.map((b) => b.roundsWallSec / b.rounds));
  const fixedSec = median(mine.map((b) => Math.max(0, b.wallSec - b.roundsWallSec)));
  let rounds = design.rounds.min;
  if (mine.length >= design.blocks.min) {
    // Components of the noisiest target's log-ratio decide the split between blocks and rounds.
    let worst = { between: null as number | null, within: null as number | null };
    let worstTotal = -1;
    for (const name of names) {
      if (name === reference) continue;
      const vc = varianceComponents(ratioGroups(windows, scenario, name, reference).map((g) => g.filter((x) => x > 0).map(Math.log)));
      const total = (vc.between ?? 0) ** 2 + (vc.within ?? 0) ** 2;
      if (total > worstTotal) {
        worst = vc;
        worstTotal = total;
      }
    }
    rounds = optimalRounds({ blockSec: fixedSec, roundSec }, worst, design.rounds);
  }
  const fit = Math.floor((budgetLeftSec - fixedSec) / Math.max(roundSec, 1e-3));
  rounds = Math.max(design.rounds.min, Math.min(rounds, fit));
  return { rounds, blockSec: fixedSec + rounds * roundSec };
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
  let log: RunLog = { windows: [], blocks: [], verify: [], costs: new Map(), ceilings: [], profiles: [], instructions: [], streams: [] };
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
    designIn = plan.design;
    repairLog(opts.outDir);
    log = readLog(opts.outDir);
    const o = plan.options.overrides;
    emit({
      type: 'log',
      level: 'info',
      message: `resume: replaying ${log.windows.length} windows, ${log.blocks.length} blocks, ${log.verify.length} checks and ${log.costs.size} cost figures from ${opts.outDir}; continuing with seed ${plan.seed}, driver ${plan.driver}, ${Object.keys(o).length ? `overrides ${JSON.stringify(o)}` : 'no load overrides'}, verify ${plan.options.verify ? 'on' : 'off'}, pinning ${plan.options.pinning === false ? 'off' : 'on'}, costs ${plan.options.costs ? 'on' : 'off'}`,
    });
  }
  const thresholdTerms = {
    run: opts.thresholds.flatMap((t) => parseThresholds(t)),
    scenarios: new Map(scenarios.filter((s) => s.thresholds?.length).map((s) => [s.name, s.thresholds!.flatMap((t) => parseThresholds(t))])),
  };
  const slo = opts.slo !== undefined ? { text: opts.slo, terms: parseThresholds(opts.slo) } : undefined;
  const reference = resolveReference(designIn, targets);
  const design: DesignRecord & Design = { ...designIn, reference, confidence: DEFAULTS.confidence, ...recordedThresholds(), intervalMethod: INTERVAL_METHOD };
  // The minimum design fitted to the budget before anything starts (fewer rounds, shorter
  // warm-ups, fewer blocks), and said; the stopping rule then keeps the budget as the run goes.
  const planned = plannedScenarios(scenarios, targets, design);
  const budgetPlan = planRun(scenarios, targets, design, opts);
  Object.assign(design, budgetPlan.design, {
    budgetPlan: { minimumSec: budgetPlan.minimumSec, givenMinimumSec: budgetPlan.givenMinimumSec, changes: budgetPlan.changes, overBySec: budgetPlan.overBySec },
  });
  for (const line of budgetSentences(budgetPlan, design.budgetSec)) emit({ type: 'log', level: 'warn', message: `budget: ${line}` });
  const resumedSec = log.windows.reduce((a, w) => Math.max(a, w.elapsedSec), 0);
  const elapsed = () => resumedSec + (performance.now() - wall0) / 1000;

  const choice = await resolveDriver(opts.driver, driverNeeds(scenarios, { slo: opts.slo })).catch((err: Error) => {
    throw new BenchsuiteConfigError(`driver: ${err.message}`);
  });
  const driver = choice.driver;
  emit({ type: 'driver', name: driver.name, reason: choice.reason });
  const pinning = decidePinning(opts.pinning);
  const unpin = pinSelf(pinning);
  if (!pinning.enabled) emit({ type: 'log', level: 'warn', message: `not pinned: ${pinning.reason}` });
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

    if (opts.costs && !signal.aborted) {
      const startups = typeof opts.costs === 'object' ? opts.costs.startups : DEFAULTS.startups;
      for (const t of usable) {
        if (signal.aborted) break;
        const logged = log.costs.get(t.name);
        if (logged) {
          infos.get(t.name)!.costs = logged;
          continue;
        }
        try {
          const scenario = scenarios.find((s) => targetSupports(t, s) && driverLoaded(s) && verified(s, t));
          const costs = await measureCosts(t, scenario, phase, startups);
          if (costs) {
            infos.get(t.name)!.costs = costs;
            journal.costs(t.name, costs);
          }
        } catch (err) {
          emit({ type: 'log', level: 'warn', message: `${t.name}: cost figures failed: ${(err as Error).message}` });
        }
      }
    }

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
    const capacity: Capacity[] = [];
    let index = windows.reduce((a, w) => Math.max(a, w.index + 1), 0);
    let loadSec = 0;
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
    };
    const loadScenarios = scenarios.filter(driverLoaded);
    const kindScenarios = scenarios.filter((s) => !s.verifyOnly && kindOf(s));
    const stepSettle = DEFAULTS.stepSettleSec;
    const perRound = (s: Scenario) => {
      const steps = connectionSteps(s.load).length;
      const n = usable.filter((t) => targetSupports(t, s) && verified(s, t)).length;
      const w = windowSpec(s, [], design, stepSettle);
      return n * steps * (w.windowSec + w.settleSec);
    };
    const weights = loadScenarios.map(perRound);
    for (const [si, scenario] of loadScenarios.entries()) {
      const members = usable.filter((t) => targetSupports(t, scenario) && verified(scenario, t));
      const names = members.map((t) => t.name);
      if (!members.length) {
        stops.push({ scenario: scenario.name, blocks: 0, rounds: 0, reason: 'no-targets', worstHalfWidth: null });
        continue;
      }
      if (signal.aborted) {
        stops.push({ scenario: scenario.name, blocks: 0, rounds: 0, reason: 'interrupted', worstHalfWidth: null });
        continue;
      }
      if (scenario.backend && !ceilings.some((c) => c.scenario === scenario.name)) {
        try {
          emit({ type: 'log', level: 'info', message: `${scenario.name}: measuring the backend's own ceiling (service ${scenario.backend.service} loaded directly)` });
          const c = await measureCeiling(scenario, members, { driver, pinning, signal, windowSec: design.windowSec, est });
          if (c) {
            ceilings.push(c);
            journal.ceiling(c);
          }
        } catch (err) {
          emit({ type: 'log', level: 'warn', message: `${scenario.name}: backend ceiling not measured: ${(err as Error).message}` });
        }
      }
      if (slo) {
        // A capacity run: open-loop probes per target instead of rounds of paired windows.
        for (const t of members) {
          if (signal.aborted || capacity.some((c) => c.scenario === scenario.name && c.target === t.name)) continue;
          emit({ type: 'log', level: 'info', message: `${scenario.name} × ${t.name}: capacity under ${slo.text}` });
          const c = await capacityOf(ctx, scenario, t, slo, design.blocks.min, (block, p) =>
            emit({
              type: 'log',
              level: 'info',
              message: `${scenario.name} × ${t.name} block ${block}: ${Math.round(p.rate)} req/s offered → ${Math.round(p.achievedRps)} req/s, p99 ${(p.p99 / 1000).toFixed(1)} ms, ${p.meets ? 'meets' : `fails ${p.failed}`}`,
            }),
          );
          capacity.push(c);
        }
        continue;
      }
      const budgetEnd = elapsed() + scenarioBudget(design.budgetSec - elapsed(), weights, si);
      const runtimes = members.map(runtimeOf);
      let stop: StopRecord['reason'] | undefined;
      let worst: number | null = null;
      let b = 0;
      while (!stop) {
        b++;
        const loggedBlock = log.blocks.find((x) => x.scenario === scenario.name && x.block === b);
        const loggedWindows = log.windows.filter((w) => w.scenario === scenario.name && w.block === b);
        const plan = planRounds(design, scenario.name, names, reference, windows, blocks, budgetEnd - elapsed());
        if (loggedBlock || loggedWindows.length) {
          // Replayed from the log of the interrupted run: nothing that finished runs again.
          blocks.push(
            loggedBlock ?? {
              scenario: scenario.name,
              block: b,
              startedAt: loggedWindows[0]!.startedAt,
              wallSec: 0,
              roundsWallSec: 0,
              plannedRounds: 0,
              rounds: Math.max(...loggedWindows.map((w) => w.round)),
              extraRounds: 0,
              complete: false,
              targets: names.map((n) => ({ target: n, status: 'ok' as const, warmupRps: [], steady: false })),
            },
          );
        } else {
          const { record, windows: ws } = await runBlock(ctx, scenario, runtimes, b, plan.rounds, budgetEnd, stepSettle);
          blocks.push(record);
          windows.push(...ws);
          if (signal.aborted) {
            stop = 'interrupted';
            break;
          }
        }
        const halfWidths = headlineHalfWidths(scenario.name, names, windows, est);
        worst = halfWidths.length ? Math.max(...halfWidths.map((h) => h ?? Infinity)) : null;
        if (worst === Infinity) worst = null;
        const next = planRounds(design, scenario.name, names, reference, windows, blocks, budgetEnd - elapsed());
        // A block cut short by an interruption keeps its windows but does not count towards the
        // minimum or maximum of blocks: a resumed run still completes as many as planned.
        const done = blocks.filter((x) => x.scenario === scenario.name && x.complete).length;
        // The minimum of the scenarios still to come, as the planner estimated it, is kept for them.
        const reserveSec = planned.slice(si + 1).reduce((a, p) => a + design.blocks.min * blockSec(p, design.rounds.min, design.warmup.maxSec, DEFAULTS.planCosts), 0);
        const decision = decideStop(
          { blocks: done, halfWidths, budgetLeftSec: budgetEnd - elapsed(), nextBlockSec: next.blockSec, minimumBudgetLeftSec: design.budgetSec - elapsed() - reserveSec },
          design,
        );
        emit({
          type: 'precision',
          scenario: scenario.name,
          blocks: done,
          rounds: windows.filter((w) => w.scenario === scenario.name && w.target === names[0]).length,
          worstHalfWidth: worst,
          target: design.precision,
          decision,
        });
        // Every block the interrupted run logged is replayed, whatever the rule says now (its
        // clock differs): a resumed result holds every window exactly once.
        const logged = log.windows.some((w) => w.scenario === scenario.name && w.block === b + 1) || log.blocks.some((x) => x.scenario === scenario.name && x.block === b + 1);
        if (decision !== 'continue' && !logged) stop = decision;
      }
      if (opts.profile && !signal.aborted) {
        for (const t of members) {
          if (signal.aborted || profiles.some((p) => p.scenario === scenario.name && p.target === t.name)) continue;
          emit({ type: 'profile', scenario: scenario.name, target: t.name, status: 'start' });
          const p = await profileTarget(ctx, scenario, t, opts.outDir, stepSettle);
          emit({ type: 'profile', scenario: scenario.name, target: t.name, status: p.status, ...(p.reason ? { message: p.reason } : {}) });
          if (signal.aborted && p.status === 'failed') break;
          profiles.push(p);
          journal.profile(p);
        }
      }
      if (instructionsPlan && !signal.aborted) {
        for (const t of members) {
          if (signal.aborted || instructions.some((x) => x.scenario === scenario.name && x.target === t.name)) continue;
          emit({ type: 'instructions', scenario: scenario.name, target: t.name, status: 'start' });
          const x = await countInstructions(ctx, scenario, t, instructionsPlan);
          emit({ type: 'instructions', scenario: scenario.name, target: t.name, status: x.status, ...(x.reason ? { message: x.reason } : {}) });
          if (signal.aborted && x.status === 'failed') break;
          instructions.push(x);
          journal.instructions(x);
        }
      }
      const mine = blocks.filter((x) => x.scenario === scenario.name);
      stops.push({ scenario: scenario.name, blocks: mine.length, rounds: mine.reduce((a, x) => a + x.rounds, 0), reason: stop, worstHalfWidth: worst });
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

    // Figures: every (scenario, target) pair that has windows.
    const windowIndex = new WindowIndex(windows);
    const summaries: PairSummary[] = [];
    for (const s of loadScenarios) {
      for (const t of usable) {
        if (!windows.some((w) => w.scenario === s.name && w.target === t.name)) continue;
        summaries.push(
          summarizePair({
            scenario: s.name,
            target: t.name,
            windows,
            estimator: est,
            serverCpus: pinning.serverCpus,
            thresholds: design,
            index: windowIndex,
            ceilingRps: ceilings.find((c) => c.scenario === s.name)?.rps.point,
            connectionSteps: connectionSteps(s.load),
          }),
        );
      }
    }
    const thresholdOutcomes = thresholdTerms.run.length || thresholdTerms.scenarios.size ? evaluateThresholds(summaries, thresholdTerms.run, thresholdTerms.scenarios) : undefined;
    const rankings = loadScenarios.map((s) => rankScenario(s.name, summaries, design.practicalBand)).filter((r) => r.places.length > 0);
    for (const info of infos.values()) {
      if (!info.costs) continue;
      const peaks = windows.filter((w) => w.status === 'ok' && w.target === info.name).map((w) => (w.status === 'ok' ? w.resources.serverPeakRssBytes : 0));
      info.costs.peakRssBytes = peaks.length ? Math.max(...peaks) : null;
    }
    const okWindows = windows.filter((w) => w.status === 'ok');
    // Streaming levels and backpressure phases are measured time too.
    const streamSec = streaming.reduce((a, r) => a + r.blocks.reduce((b, x) => b + x.levels.reduce((c, l) => c + l.durationSec, 0) + (x.backpressure?.durationSec ?? 0), 0), 0);
    const measuredSec = okWindows.reduce((a, w) => a + (w.status === 'ok' ? w.durationSec : 0), 0) + streamSec;
    const wallSec = (performance.now() - wall0) / 1000 + resumedSec;
    const firstScenario = loadScenarios[0] ?? scenarios[0]!;
    const result: BenchResult = {
      schemaVersion: RESULT_SCHEMA_VERSION,
      suite: opts.suite,
      startedAt: startedAt.toISOString(),
      finishedAt: new Date().toISOString(),
      interrupted: signal.aborted,
      resumed: opts.resume,
      seed,
      design,
      environment: captureEnvironment({
        driver: {
          name: driver.name,
          version: await driver.version(),
          flags: driver.flags({
            connections: connectionSteps(firstScenario.load)[0]!,
            durationSec: windowSpec(firstScenario, [], design, stepSettle).windowSec,
            warmupSec: windowSpec(firstScenario, [], design, stepSettle).settleSec,
            timeoutSec: firstScenario.load.timeout,
            rate: firstScenario.load.rate,
            requestCount: firstScenario.load.requests,
          }),
          ...(driver.note ? { ceilingNote: driver.note } : {}),
          reason: choice.reason,
        },
        pinning: { enabled: pinning.enabled, tool: pinning.tool, serverCpus: pinning.serverCpus, loaderCpus: pinning.loaderCpus, ...(pinning.reason ? { reason: pinning.reason } : {}) },
        serverEnv: {
          unset: [...new Set(targets.flatMap((t) => (t.kind === 'process' ? t.unsetEnv : [])))],
          set: { PORT: '0 (any free port) unless a target sets it', ...(pinning.enabled ? { BENCHSUITE_SERVER_CPUS: pinning.serverCpus.join(',') } : {}) },
        },
      }),
      scenarios: scenarios.map((s) => ({
        name: s.name,
        ...(s.description ? { description: s.description } : {}),
        ...(s.group ? { group: s.group } : {}),
        ...(s.kind !== 'http' ? { kind: s.kind } : {}),
        requests: scenarioRequests(s),
        expect: { status: Array.isArray(s.expect.status) ? s.expect.status : [s.expect.status] },
        load: {
          connections: connectionSteps(s.load),
          warmupSec: windowSpec(s, [], design, stepSettle).settleSec,
          durationSec: windowSpec(s, [], design, stepSettle).windowSec,
          ...(s.load.rate ? { rate: s.load.rate } : {}),
          ...(s.load.requests ? { requests: s.load.requests } : {}),
          timeoutSec: s.load.timeout,
        },
      })),
      targets: [...infos.values()],
      verify,
      blocks,
      windows,
      summaries,
      rankings,
      stops,
      profiles,
      ceilings,
      ...(instructionsPlan ? { instructions } : {}),
      ...(thresholdOutcomes ? { thresholds: thresholdOutcomes } : {}),
      ...(slo ? { capacity } : {}),
      ...(kindScenarios.length ? { streaming } : {}),
      runner: { peakRssBytes: process.resourceUsage().maxRSS * 1024, wallSec, loadSec, measuredSec },
      overall: overallOf(summaries, windows, loadSec > 0 ? (performance.now() - wall0) / 1000 / loadSec : null, design),
    };
    const checked = resultSchema.safeParse(result);
    if (!checked.success)
      throw new Error(
        `internal error: result does not match its schema: ${checked.error.issues
          .slice(0, 3)
          .map((i) => `${i.path.join('.')}: ${i.message}`)
          .join('; ')}`,
      );
    return checked.data;
  } finally {
    unpin();
  }
}

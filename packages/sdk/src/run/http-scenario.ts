import { DEFAULTS } from '../defaults.js';
import { median } from '../analysis/bootstrap.js';
import { blockSec, type PlannedScenario, wakeWindowSec } from '../analysis/budget.js';
import { blocksAhead, optimalRounds, varianceComponents } from '../analysis/components.js';
import { decideStop, fitsWithShorterWarmups, scenarioBudget } from '../analysis/stopping.js';
import { estimate, RATIO_METHOD, ratioGroups, WindowIndex, type EstimatorOptions } from '../analysis/summarize.js';
import type { ThresholdTerm } from '../analysis/thresholds.js';
import type { Design } from '../options.js';
import type { BlockRecord, Capacity, Ceiling, InstructionsRecord, ProfileRecord, StopRecord, WindowRecord } from '../result-schema.js';
import type { Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { runBlock, type BlockContext } from './block.js';
import { capacityOf, capacitySettings } from './capacity.js';
import { measureCeiling } from './ceiling.js';
import { countInstructions, type InstructionsPlan } from './instructions.js';
import type { RunLog } from './log.js';
import { profileTarget } from './profile.js';
import { runtimeOf } from './runtime.js';

/** What one run's http scenarios share: the block context, the estimator, the log being replayed and the records being filled. */
export interface HttpRun {
  ctx: BlockContext;
  est: EstimatorOptions;
  /** What an interrupted run logged (replayed, never measured again). */
  log: RunLog;
  windows: WindowRecord[];
  blocks: BlockRecord[];
  stops: StopRecord[];
  ceilings: Ceiling[];
  profiles: ProfileRecord[];
  instructions: InstructionsRecord[];
  capacity: Capacity[];
  /** The planner's view of every http scenario (the later ones' minimum is kept for them). */
  planned: PlannedScenario[];
  /** Each scenario's share of the budget. */
  weights: number[];
  slo: { text: string; terms: ThresholdTerm[] } | undefined;
  profile: boolean;
  outDir: string | undefined;
  instructionsPlan: InstructionsPlan | undefined;
}

/**
 * One http scenario (the `si`-th) on the targets that passed verify: the backend's ceiling when it
 * declares one, then either the capacity search (`--slo`) or blocks of fresh processes with rounds
 * of paired windows until the stopping rule says so; then its profiles and instruction counts.
 * Appends to the run's records and its stop reason to `run.stops`.
 */
export async function measureHttpScenario(run: HttpRun, scenario: Scenario, si: number, members: readonly Target[]): Promise<void> {
  const { ctx } = run;
  const { design, elapsed } = ctx;
  const names = members.map((t) => t.name);
  if (!members.length) {
    run.stops.push({ scenario: scenario.name, blocks: 0, rounds: 0, reason: 'no-targets', worstHalfWidth: null });
    return;
  }
  if (ctx.signal.aborted) {
    run.stops.push({ scenario: scenario.name, blocks: 0, rounds: 0, reason: 'interrupted', worstHalfWidth: null });
    return;
  }
  await scenarioCeiling(run, scenario, members);
  if (run.slo) {
    // A capacity run: open-loop probes per target instead of rounds of paired windows.
    const settings = capacitySettings(design);
    for (const t of members) {
      if (ctx.signal.aborted || run.capacity.some((c) => c.scenario === scenario.name && c.target === t.name)) continue;
      const event = { type: 'capacity', scenario: scenario.name, target: t.name, slo: run.slo.text } as const;
      ctx.emit(event);
      const replayed = run.log.capacity.filter((c) => c.scenario === scenario.name && c.target === t.name).map((c) => c.block);
      const c = await capacityOf(ctx, scenario, t, run.slo, settings.blocks, { ...settings, probeSec: design.capacityProbeSec }, replayed, (block, probe) => ctx.emit({ ...event, block, probe }));
      run.capacity.push(c);
    }
    return;
  }
  const budgetEnd = elapsed() + scenarioBudget(design.budgetSec - elapsed(), run.weights, si);
  const runtimes = members.map(runtimeOf);
  let stop: StopRecord['reason'] | undefined;
  let worst: number | null = null;
  let b = 0;
  while (!stop) {
    b++;
    const plan = planRounds(design, scenario.name, names, design.reference, run.windows, run.blocks, budgetEnd - elapsed());
    const replayed = replayedBlock(run.log, scenario.name, b, names);
    if (replayed) {
      // Replayed from the log of the interrupted run: nothing that finished runs again.
      run.blocks.push(replayed);
    } else {
      const { record, windows: ws } = await runBlock(ctx, scenario, runtimes, b, plan.rounds, budgetEnd, DEFAULTS.stepSettleSec);
      run.blocks.push(record);
      run.windows.push(...ws);
      if (ctx.signal.aborted) {
        stop = 'interrupted';
        break;
      }
    }
    const halfWidths = headlineHalfWidths(scenario.name, names, run.windows, run.est);
    worst = halfWidths.length ? Math.max(...halfWidths.map((h) => h ?? Infinity)) : null;
    if (worst === Infinity) worst = null;
    const next = planRounds(design, scenario.name, names, design.reference, run.windows, run.blocks, budgetEnd - elapsed());
    // A block cut short by an interruption keeps its windows but does not count towards the
    // minimum or maximum of blocks: a resumed run still completes as many as planned.
    const done = completeBlocks(run.blocks, scenario.name);
    // The minimum of the scenarios still to come, as the planner estimated it, is kept for them.
    const reserve = (warmupSec: number) =>
      run.planned.slice(si + 1).reduce((a, p) => a + design.blocks.min * blockSec(p, design.rounds.min, { sec: warmupSec, wakeWindowSec: wakeWindowSec(design) }, DEFAULTS.planCosts), 0);
    let decision = decideStop(
      { blocks: done, halfWidths, budgetLeftSec: budgetEnd - elapsed(), nextBlockSec: next.blockSec, minimumBudgetLeftSec: design.budgetSec - elapsed() - reserve(design.warmup.maxSec) },
      design,
    );
    const left = design.budgetSec - elapsed();
    if (
      decision === 'budget' &&
      done < design.blocks.min &&
      fitsWithShorterWarmups({ nextBlockSec: next.blockSec, targets: members.length, leftSec: left, shortReserveSec: reserve(design.warmup.minSec), warmup: design.warmup })
    ) {
      // Recorded with the planner's own changes, from when it applies; said like them.
      const change = { what: 'warmup' as const, from: design.warmup.maxSec, to: design.warmup.minSec, atSec: Math.round(elapsed()), scenario: scenario.name };
      design.warmup.maxSec = design.warmup.minSec;
      if (design.budgetPlan) design.budgetPlan.changes.push(change);
      ctx.emit({ type: 'replan', change });
      decision = 'continue';
    }
    ctx.emit({
      type: 'precision',
      scenario: scenario.name,
      blocks: done,
      // Replayed windows are all in `run.windows` from the start: count those of the blocks so far.
      rounds: run.windows.filter((w) => w.scenario === scenario.name && w.target === names[0] && w.block <= b).length,
      worstHalfWidth: worst,
      target: design.precision,
      decision,
    });
    // Every block the interrupted run logged is replayed, whatever the rule says now (its
    // clock differs): a resumed result holds every window exactly once.
    if (decision !== 'continue' && !wasLogged(run.log, scenario.name, b + 1)) stop = decision;
  }
  await afterBlocks(run, scenario, members, stop, worst);
}

/** A block the interrupted run logged (its record, or one made from its windows when it was cut short), or undefined. */
export function replayedBlock(log: RunLog, scenario: string, b: number, names: readonly string[]): BlockRecord | undefined {
  const record = log.blocks.find((x) => x.scenario === scenario && x.block === b);
  if (record) return record;
  const windows = log.windows.filter((w) => w.scenario === scenario && w.block === b);
  if (!windows.length) return undefined;
  return {
    scenario,
    block: b,
    startedAt: windows[0]!.startedAt,
    wallSec: 0,
    roundsWallSec: 0,
    plannedRounds: 0,
    rounds: Math.max(...windows.map((w) => w.round)),
    extraRounds: 0,
    complete: false,
    targets: names.map((n) => ({ target: n, status: 'ok' as const, warmupRps: [], steady: false })),
  };
}

/** Whether the interrupted run logged anything of this block. */
export const wasLogged = (log: RunLog, scenario: string, b: number): boolean =>
  log.windows.some((w) => w.scenario === scenario && w.block === b) || log.blocks.some((x) => x.scenario === scenario && x.block === b);

/** The backend's own ceiling, once per run, for a scenario that declares its backend. */
export async function scenarioCeiling(run: HttpRun, scenario: Scenario, members: readonly Target[]): Promise<void> {
  const { ctx } = run;
  if (scenario.backend && !run.ceilings.some((c) => c.scenario === scenario.name)) {
    try {
      ctx.emit({ type: 'ceiling', scenario: scenario.name, service: scenario.backend.service });
      const c = await measureCeiling(scenario, members, { driver: ctx.driver, pinning: ctx.pinning, signal: ctx.signal, windowSec: ctx.design.windowSec, est: run.est });
      if (c) {
        run.ceilings.push(c);
        ctx.journal.ceiling(c);
      }
    } catch (err) {
      ctx.emit({ type: 'step-failed', step: 'backend-ceiling', scenario: scenario.name, message: (err as Error).message });
    }
  }
}

/** After a scenario's blocks: its profiles and instruction counts (each on fresh processes), then its stop record. */
export async function afterBlocks(run: HttpRun, scenario: Scenario, members: readonly Target[], stop: StopRecord['reason'], worst: number | null): Promise<void> {
  const { ctx } = run;
  if (run.profile && !ctx.signal.aborted) {
    for (const t of members) {
      if (ctx.signal.aborted || run.profiles.some((p) => p.scenario === scenario.name && p.target === t.name)) continue;
      ctx.emit({ type: 'profile', scenario: scenario.name, target: t.name, status: 'start' });
      const p = await profileTarget(ctx, scenario, t, run.outDir, DEFAULTS.stepSettleSec);
      ctx.emit({ type: 'profile', scenario: scenario.name, target: t.name, status: p.status, ...(p.reason ? { message: p.reason } : {}) });
      if (ctx.signal.aborted && p.status === 'failed') break;
      run.profiles.push(p);
      ctx.journal.profile(p);
    }
  }
  if (run.instructionsPlan && !ctx.signal.aborted) {
    for (const t of members) {
      if (ctx.signal.aborted || run.instructions.some((x) => x.scenario === scenario.name && x.target === t.name)) continue;
      ctx.emit({ type: 'instructions', scenario: scenario.name, target: t.name, status: 'start' });
      const x = await countInstructions(ctx, scenario, t, run.instructionsPlan);
      ctx.emit({ type: 'instructions', scenario: scenario.name, target: t.name, status: x.status, ...(x.reason ? { message: x.reason } : {}) });
      if (ctx.signal.aborted && x.status === 'failed') break;
      run.instructions.push(x);
      ctx.journal.instructions(x);
    }
  }
  const mine = run.blocks.filter((x) => x.scenario === scenario.name);
  run.stops.push({ scenario: scenario.name, blocks: mine.length, rounds: mine.reduce((a, x) => a + x.rounds, 0), reason: stop, worstHalfWidth: worst });
}

/** Headline half-widths of a scenario so far (relative figures, or absolute ones where there is no reference). */
export function headlineHalfWidths(scenario: string, names: readonly string[], windows: readonly WindowRecord[], o: EstimatorOptions): Array<number | null> {
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

/** A scenario's complete blocks: one cut short by an interruption counts towards neither the minimum nor the maximum. */
export const completeBlocks = (blocks: readonly BlockRecord[], scenario: string): number => blocks.filter((x) => x.scenario === scenario && x.complete).length;

/**
 * A scenario's measured costs per block, none before its first: its blocks with rounds, seconds per round, and the
 * seconds outside its rounds (start, warm-up, rotation rounds) as a median over its blocks and as
 * the least of them (with shared processes, a part that did not carry the processes' start).
 */
export function blockCosts(blocks: readonly BlockRecord[], scenario: string): { blocks: number; roundSec: number; fixedSec: number; leastFixedSec: number } | undefined {
  const mine = blocks.filter((b) => b.scenario === scenario && b.rounds > 0);
  if (!mine.length) return undefined;
  const fixed = mine.map((b) => Math.max(0, b.wallSec - b.roundsWallSec));
  return { blocks: mine.length, roundSec: median(mine.map((b) => b.roundsWallSec / b.rounds)), fixedSec: median(fixed), leastFixedSec: Math.min(...fixed) };
}

/**
 * The blocks a run plans for from here and the part of the time left that this scenario's blocks
 * divide among them (its share, with shared processes, of what the planned blocks' starts leave).
 */
export interface BlocksAhead {
  blocks: number;
  shareSec: number;
}

/**
 * Rounds for the next block: the minimum while dimensioning, then Kalibera & Jones's optimum,
 * fitted to this block's part of the budget: its share of the time left divided by the blocks that
 * still fit at the minimum of rounds (`blocksAhead`; with shared processes the caller counts them
 * for the whole block), or all the scenario may still use in the last block that fits.
 */
export function planRounds(
  design: Design,
  scenario: string,
  names: readonly string[],
  reference: string,
  windows: readonly WindowRecord[],
  blocks: readonly BlockRecord[],
  budgetLeftSec: number,
  ahead?: BlocksAhead,
): { rounds: number; blockSec: number } {
  const costs = blockCosts(blocks, scenario);
  if (!costs) return { rounds: design.rounds.min, blockSec: 0 };
  const { roundSec, fixedSec } = costs;
  let rounds = design.rounds.min;
  if (costs.blocks >= design.blocks.min) {
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
  const plan = ahead ?? {
    blocks: blocksAhead({ blockSec: fixedSec, roundSec }, { leftSec: budgetLeftSec, minRounds: design.rounds.min, blocksLeft: design.blocks.max - costs.blocks }),
    shareSec: budgetLeftSec,
  };
  const partSec = plan.blocks > 1 ? Math.min(budgetLeftSec, plan.shareSec / plan.blocks) : budgetLeftSec;
  const fit = Math.floor((partSec - fixedSec) / Math.max(roundSec, 1e-3));
  rounds = Math.max(design.rounds.min, Math.min(rounds, fit));
  return { rounds, blockSec: fixedSec + rounds * roundSec };
}

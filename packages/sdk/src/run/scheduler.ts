import { DEFAULTS } from '../defaults.js';
import { subSeed } from '../analysis/bootstrap.js';
import { controlTwin } from '../analysis/control.js';
import { isReplica, processOf } from '../replicas.js';
import { blockCosts, blockSec, measuredStartSec, planRounds, sharedBlocksAhead } from '../analysis/budget.js';
import type { PlannedScenario } from '../analysis/round-cost.js';
import { blockBeyondMinimumFits, completeBlocks, decideStop, fitNextBlock, fitsWithShorterWarmups, headlineByTarget, paceOfBegun, scenarioShares, type StopDecision } from '../analysis/stopping.js';
import type { EstimatorOptions } from '../analysis/summarize.js';
import type { ThresholdTerm } from '../analysis/thresholds.js';
import { seededShuffle } from '../random.js';
import type { StopRecord } from '../result-schema.js';
import type { Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { runBlock, windowSpec, type BlockEntry, type BlockPlan } from './block.js';
import { capacityOf, capacitySettings } from './capacity.js';
import { measureCeiling } from './ceiling.js';
import { floorSession, lowSteps, type FloorSession } from './floor.js';
import type { RunContext } from './context.js';
import { countInstructions, type InstructionsPlan } from './instructions.js';
import { profileTarget } from './profile.js';
import { isDone } from './state.js';
import { settleSecOf } from './window.js';

/** What the scheduler needs besides the run's context: the estimator, the planner's view of the scenarios, and what follows their blocks. */
export interface ScheduleOptions {
  est: EstimatorOptions;
  /** The planner's view of every http scenario, in order (with processes per scenario, the minimum of those not begun is kept for them at its price). */
  planned: readonly PlannedScenario[];
  /** Processes per scenario: each scenario's block as the planner prices it (`plannedBlockSecs`), what a scenario to come is taken to cost. */
  plannedSec: ReadonlyMap<string, number>;
  slo: { text: string; terms: ThresholdTerm[] } | undefined;
  profile: boolean;
  outDir: string | undefined;
  instructionsPlan: InstructionsPlan | undefined;
  /** Called after each block (with processes per scenario, after every scenario still measuring has had its block of that number) with its 1-based number. */
  afterBlock?: ((block: number) => void) | undefined;
}

/** An http scenario to measure and its targets (those that passed verify). */
export interface Scheduled {
  scenario: Scenario;
  members: readonly Target[];
}

/** A scenario the block loop serves, and how it stands. */
interface Entry extends BlockEntry {
  /** Every target of the scenario (those that passed verify); `members` are those still measured. */
  readonly all: readonly Target[];
  readonly names: readonly string[];
  readonly weight: number;
  stop?: StopRecord['reason'];
  /** The widest headline half-width after its last block (null: none estimable yet). */
  worst: number | null;
  /**
   * Targets whose headline figure met the precision target after the minimum of blocks: they take
   * no more windows in this scenario (the reference always does), so the scenario's later rounds
   * are shorter and its budget goes to the pairs still wide.
   */
  readonly precise: Set<string>;
}

/**
 * How the budget is kept from block to block: which parts a block holds and their rounds (each
 * decided at its turn), and each scenario's decision after the block (precision, maximum of
 * blocks, budget). Two policies: a shared block's processes serve every scenario still measuring
 * (`suiteBudget`); with processes per scenario a block serves one scenario (`scenarioShares`).
 */
interface BudgetPolicy {
  block(active: readonly Entry[], b: number): BlockPlan<Entry>;
  decide(active: readonly Entry[], leftOut: ReadonlySet<Entry>, b: number): Map<Entry, { decision: StopDecision; done: number }>;
}

/** The scenarios of one shared block, in the block's seeded order (drawn afresh for every block). */
export function scenarioOrder<T extends { scenario: { name: string } }>(entries: readonly T[], seed: number, block: number): T[] {
  return seededShuffle(entries, subSeed(seed, 'scenarios', block));
}

/**
 * The http scenarios of a run: the backend's ceiling where a scenario declares one, then either
 * the capacity search (`--slo`) or blocks until every scenario's stopping rule stops it (with the
 * loader's floor after each block at low connection counts), then each scenario's profiles and
 * instruction counts and its stop record. With shared processes every
 * block serves every scenario still measuring; with processes per scenario, each block serves one
 * scenario, the scenarios' blocks interleaved (`interleavedBlocks`); a capacity search (`--slo`)
 * measures one scenario after another.
 */
export async function scheduleHttp(ctx: RunContext, list: readonly Scheduled[], o: ScheduleOptions): Promise<void> {
  const floor = floorSession({ driver: ctx.driver, pinning: ctx.pinning, signal: ctx.signal, windowSec: ctx.design.windowSec, lowConnections: lowConnectionsOf(ctx) });
  try {
    await scheduleBlocks(ctx, list, o, floor);
  } finally {
    await floor.close();
  }
}

const lowConnectionsOf = (ctx: RunContext) => ctx.design.lowConnections ?? DEFAULTS.lowConnections;

async function scheduleBlocks(ctx: RunContext, list: readonly Scheduled[], o: ScheduleOptions, floor: FloorSession): Promise<void> {
  const stop = (e: Entry, reason: StopRecord['reason']) => ctx.journal.record({ record: 'stop', stop: { scenario: e.scenario.name, blocks: 0, rounds: 0, reason, worstHalfWidth: null } });
  const all = list.map((x): Entry => {
    // Its weight in a shared block's budget: its cost per round (a stepped load measures several windows per round).
    const w = windowSpec(x.scenario, [], ctx.design, DEFAULTS.stepSettleSec);
    const precise = new Set<string>();
    return {
      scenario: x.scenario,
      all: x.members,
      get members() {
        return x.members.filter((t) => !precise.has(processOf(t.name).target));
      },
      names: x.members.map((t) => t.name),
      weight: x.members.length * (w.steps.length * w.windowSec + settleSecOf(w)),
      worst: null,
      precise,
    };
  });
  if (ctx.design.processes === 'shared' && !o.slo) {
    for (const e of all) if (!e.members.length) stop(e, 'no-targets');
    const entries = all.filter((e) => e.members.length);
    for (const e of entries) if (!ctx.signal.aborted) await scenarioCeiling(ctx, o, e);
    await blocksUntilStopped(ctx, entries, suiteBudget(ctx, o), floor, o.afterBlock);
    for (const e of entries) await afterBlocks(ctx, o, e);
    return;
  }
  if (o.slo) {
    for (const e of all) {
      if (!e.members.length) stop(e, 'no-targets');
      else if (ctx.signal.aborted) stop(e, 'interrupted');
      else {
        await scenarioCeiling(ctx, o, e);
        await capacities(ctx, e, o.slo);
      }
    }
    return;
  }
  for (const e of all) if (!e.members.length) stop(e, 'no-targets');
  const entries = all.filter((e) => e.members.length);
  for (const e of entries) if (!ctx.signal.aborted) await scenarioCeiling(ctx, o, e);
  await interleavedBlocks(ctx, entries, o, floor);
  for (const e of entries) await afterBlocks(ctx, o, e);
}

/**
 * Processes per scenario: the scenarios' blocks interleaved, block `b` of every scenario still
 * measuring (in a seeded order drawn afresh for each `b`) before any scenario's block `b + 1`,
 * each block of its own fresh processes. Each block's rounds and each scenario's decision after it
 * come from its share of the time left (`scenarioBudgetPolicy`), read again before and after every
 * block. Interleaved, not one scenario's blocks after another's: a block that ran over its price
 * (rounds added for steal, a scenario dearer than the planner priced it) is paid for by every
 * scenario's later blocks alike, where one after another the last scenario paid for all (a
 * 6-minute run of 2026-12-03 gave baseline and auth 6 blocks each and json-post, last, 3: ±153% on
 * t with 2 degrees of freedom); a burst of steal falls on several scenarios' blocks, not on one
 * scenario's; the forecast after block 2 reads every scenario's noise; and an interrupted run has
 * blocks of every scenario.
 */
async function interleavedBlocks(ctx: RunContext, entries: readonly Entry[], o: ScheduleOptions, floor: FloorSession): Promise<void> {
  const policy = scenarioBudgetPolicy(ctx, o, entries);
  for (let b = 1; entries.some((e) => !e.stop); b++) {
    for (const e of scenarioOrder(
      entries.filter((x) => !x.stop),
      ctx.seed,
      b,
    )) {
      // A block beyond the minimum was decided after the scenario's last block, before the other
      // scenarios' blocks took their time: checked again now, so none starts that its share of the
      // time left cannot hold. One below the minimum goes on as decided: the others kept its time
      // (their blocks beyond the minimum leave it), and a warm-up cut may have made room for it
      // that the blocks so far, warmed longer, do not show.
      if (
        b > 1 &&
        !ctx.signal.aborted &&
        completeBlocks(ctx.journal.state.blocks, e.scenario.name) >= ctx.design.blocks.min &&
        !isDone(ctx.journal.state, { step: 'block', scenario: e.scenario.name, block: b })
      ) {
        // Its precision and maximum of blocks were judged after its last block, with these windows.
        if (!policy.fits(e)) {
          applyDecisions(ctx, new Map([[e, { decision: 'budget' as const, done: completeBlocks(ctx.journal.state.blocks, e.scenario.name) }]]), b - 1);
          continue;
        }
      }
      const leftOut = ctx.signal.aborted ? undefined : await runBlock(ctx, policy.block([e], b));
      if (leftOut && !ctx.signal.aborted) await floorWindows(ctx, floor, [e], leftOut, b);
      if (!leftOut || ctx.signal.aborted) {
        for (const x of entries) x.stop ??= 'interrupted';
        return;
      }
      applyDecisions(ctx, policy.decide([e], leftOut, b), b);
    }
    o.afterBlock?.(b);
  }
}

/**
 * Blocks until every scenario stopped: the policy plans block `b`, the block runs, then each
 * scenario's decision is said (a `precision` event) and applied. A block the interrupted run's
 * journal holds is replayed whatever the rule says now (its clock differs): a resumed result holds
 * every window exactly once.
 */
async function blocksUntilStopped(ctx: RunContext, entries: readonly Entry[], policy: BudgetPolicy, floor: FloorSession, afterBlock?: (b: number) => void): Promise<void> {
  for (let b = 1; entries.some((e) => !e.stop); b++) {
    const active = entries.filter((e) => !e.stop);
    const leftOut = ctx.signal.aborted ? undefined : await runBlock(ctx, policy.block(active, b));
    if (leftOut && !ctx.signal.aborted) await floorWindows(ctx, floor, active, leftOut, b);
    if (!leftOut || ctx.signal.aborted) {
      for (const e of entries) e.stop ??= 'interrupted';
      break;
    }
    afterBlock?.(b);
    applyDecisions(ctx, policy.decide(active, leftOut, b), b);
  }
}

/**
 * Each scenario's decision after its block `b`, said (a `precision` event) and applied. A scenario
 * whose next block the interrupted run's journal holds goes on to replay it, whatever the rule says now.
 */
function applyDecisions(ctx: RunContext, decisions: ReadonlyMap<Entry, { decision: StopDecision; done: number }>, b: number): void {
  for (const [e, { decision, done }] of decisions) {
    ctx.emit({
      type: 'precision',
      scenario: e.scenario.name,
      blocks: done,
      // Replayed windows are all in the state from the start: count those of the blocks so far.
      rounds: ctx.journal.state.windows.filter((w) => w.scenario === e.scenario.name && w.target === e.names[0] && w.block <= b).length,
      worstHalfWidth: e.worst,
      target: ctx.design.precision,
      decision,
    });
    if (decision !== 'continue' && !isDone(ctx.journal.state, { step: 'block', scenario: e.scenario.name, block: b + 1 })) e.stop = decision;
  }
}

/**
 * The loader's floor after a block, for each scenario with a low connection step that measured its
 * part of the block now (not left out, not replayed: a resumed run has that part's floor windows in
 * its journal, or goes without them).
 */
async function floorWindows(ctx: RunContext, floor: FloorSession, active: readonly Entry[], leftOut: ReadonlySet<Entry>, b: number): Promise<void> {
  const measured = (e: Entry) => ctx.journal.state.blocks.some((x) => x.scenario === e.scenario.name && x.block === b && x.rounds > 0);
  const held = (e: Entry) => isDone(ctx.journal.state, { step: 'floor', scenario: e.scenario.name, block: b });
  for (const e of active) {
    if (ctx.signal.aborted || leftOut.has(e) || !lowSteps(e.scenario, lowConnectionsOf(ctx)).length || !measured(e) || held(e)) continue;
    try {
      ctx.emit({ type: 'loader-floor', scenario: e.scenario.name, block: b, connections: lowSteps(e.scenario, lowConnectionsOf(ctx)) });
      for (const window of await floor.windows(e.scenario, b)) ctx.journal.record({ record: 'floor-window', window });
    } catch (err) {
      ctx.emit({ type: 'step-failed', step: 'loader-floor', scenario: e.scenario.name, block: b, message: (err as Error).message });
    }
  }
}

/**
 * A scenario's headline half-widths now, and the widest (null while one is not estimable). From its
 * minimum of complete blocks on, a target whose figure is within the precision target joins
 * `precise` and takes no more windows of this scenario.
 */
function worstOf(ctx: RunContext, est: EstimatorOptions, e: Entry): { halfWidths: Array<number | null>; worst: number | null } {
  // The A/A twin is the run's control, not a figure to make precise: it measures as long as the others do.
  const twin = controlTwin(ctx.design);
  const byTarget = headlineByTarget(
    e.scenario.name,
    e.names.filter((n) => n !== twin && !isReplica(n)),
    ctx.journal.state.windows,
    est,
  );
  const halfWidths = [...byTarget.values()];
  if (completeBlocks(ctx.journal.state.blocks, e.scenario.name) >= ctx.design.blocks.min) {
    for (const [name, h] of byTarget) if (h !== null && h <= ctx.design.precision && name !== ctx.design.reference) e.precise.add(name);
  }
  const worst = halfWidths.length ? Math.max(...halfWidths.map((h) => h ?? Infinity)) : null;
  return { halfWidths, worst: worst === Infinity ? null : worst };
}

/**
 * Shared processes: each block starts one process per target and serves every scenario still
 * measuring, in a seeded order per block. Blocks before rounds: a part's rounds come from its share
 * of what the blocks that still fit leave (`sharedBlocksAhead`, `planRounds`); a scenario past its
 * minimum of blocks whose part would end after the budget is left out of the block and stops. After
 * a block each scenario applies the stopping rule (precision, maximum of blocks), and the next block
 * goes on with the scenarios that continue and fit what is left (`fitNextBlock`).
 */
function suiteBudget(ctx: RunContext, o: ScheduleOptions): BudgetPolicy {
  const state = () => ctx.journal.state;
  const left = () => ctx.design.budgetSec - ctx.elapsed();
  // Each scenario's share of what is left, by its cost per round, among those still measuring.
  const share = (e: Entry, among: readonly Entry[], leftSec = left()) => {
    const total = among.reduce((a, x) => a + x.weight, 0);
    return total > 0 ? (Math.max(0, leftSec) * e.weight) / total : 0;
  };
  // A block's start and its first scenario's warm-up from cold: as the blocks so far paid it, else
  // at the warm-up's maximum for every process.
  const startSec = (among: readonly Entry[]) => measuredStartSec(state().blocks) ?? DEFAULTS.planCosts.blockStartSec + Math.max(...among.map((e) => e.members.length)) * ctx.design.warmup.maxSec;
  // Blocks before rounds: how many shared blocks still fit, and what their starts leave to share.
  const plannedBlocks = (among: readonly Entry[]) =>
    sharedBlocksAhead(
      among.map((e) => blockCosts(state().blocks, e.scenario.name)),
      {
        startSec: startSec(among),
        leftSec: left(),
        minRounds: ctx.design.rounds.min,
        blocksLeft: ctx.design.blocks.max - Math.min(...among.map((e) => completeBlocks(state().blocks, e.scenario.name))),
      },
    );
  // A scenario's rounds in its part of the planned blocks: its share of what their starts leave.
  const rounds = (e: Entry, shareSec: number, among: readonly Entry[], planned: ReturnType<typeof plannedBlocks>) =>
    planRounds(
      ctx.design,
      e.scenario.name,
      e.names,
      ctx.design.reference,
      state().windows,
      state().blocks,
      shareSec,
      planned && { blocks: planned.blocks, shareSec: share(e, among, planned.leftSec) },
    );
  return {
    block(active, b) {
      const ahead = plannedBlocks(active);
      return {
        block: b,
        shared: true,
        entries: scenarioOrder(active, ctx.seed, b),
        part(e, todo, fresh) {
          // The block's first part warms its processes from cold: its rounds fit what that leaves.
          const startCost = fresh ? startSec(active) : 0;
          const shareSec = share(e, todo.slice(todo.indexOf(e)));
          const plan = rounds(e, Math.max(0, shareSec - startCost), active, ahead);
          // The block was planned to fit the budget, but an earlier part of it can overrun its
          // estimate (a window fit that lengthened every window of a stepped scenario, rounds added
          // for steal): a scenario past its minimum of blocks whose part would end after the budget
          // is left out of the block and stops for the budget.
          if (completeBlocks(state().blocks, e.scenario.name) >= ctx.design.blocks.min && ctx.elapsed() + startCost + plan.blockSec > ctx.design.budgetSec) return undefined;
          // Extra rounds for steal end with the part they were priced in.
          return { rounds: plan.rounds, budgetEndSec: ctx.elapsed() + startCost + plan.partSec, shareEndSec: ctx.elapsed() + shareSec };
        },
      };
    },
    decide(active, leftOut) {
      // The stopping rule per scenario (precision, maximum of blocks), then the budget for the suite.
      const decisions = new Map<Entry, { decision: StopDecision; done: number }>();
      const going: Array<{ name: string; blocks: number; nextSec: number; worst: number | null }> = [];
      const next = plannedBlocks(active);
      for (const e of active) {
        const { halfWidths, worst } = worstOf(ctx, o.est, e);
        e.worst = worst;
        // A block cut short by an interruption does not count towards the minimum or maximum.
        const done = completeBlocks(state().blocks, e.scenario.name);
        const decision = leftOut.has(e) ? 'budget' : decideStop({ blocks: done, halfWidths, budgetLeftSec: Infinity, nextBlockSec: 0 }, ctx.design);
        decisions.set(e, { decision, done });
        if (decision === 'continue') going.push({ name: e.scenario.name, blocks: done, nextSec: rounds(e, share(e, active), active, next).blockSec, worst: e.worst });
      }
      const fits = fitNextBlock(going, { leftSec: left(), startSec: startSec(active), minBlocks: ctx.design.blocks.min });
      for (const [e, d] of decisions) if (d.decision === 'continue' && !fits.has(e.scenario.name)) d.decision = 'budget';
      return decisions;
    },
  };
}

/**
 * Processes per scenario: a scenario's next block within its share of what is left
 * (`scenarioShares`, read again before and after each block: blocks before rounds across the
 * scenarios still measuring, so each is brought to the common number of blocks the time left buys
 * before any takes rounds beyond it). A scenario begun costs what its blocks took; one not begun
 * (only before its first block), the planner's price of its block (`o.plannedSec`) × the largest
 * measured ÷ priced of the scenarios begun. After a block the stopping rule (`decideStop`) reads
 * its next block's cost; a block beyond the minimum also leaves the other scenarios' minimum. A
 * scenario below its minimum whose next block does not fit may cut every warm-up to its minimum
 * for the rest of the run (`fitsWithShorterWarmups`): a replan, journalled and said.
 */
function scenarioBudgetPolicy(ctx: RunContext, o: ScheduleOptions, entries: readonly Entry[]): BudgetPolicy & { fits(e: Entry): boolean } {
  const state = () => ctx.journal.state;
  // Read at each use: a warm-up cut (a replan) holds from its event on.
  const design = () => ctx.design;
  // Seconds of a block at the minimum of rounds, as the scenario's blocks so far took it.
  const measured = (name: string) => {
    const c = blockCosts(state().blocks, name);
    return c && c.fixedSec + design().rounds.min * c.roundSec;
  };
  // Every loaded scenario is priced (`plannedBlockSecs` over the planner's scenarios, the list's).
  const priced = (name: string) => o.plannedSec.get(name)!;
  const pace = () => paceOfBegun(entries.flatMap((x) => (measured(x.scenario.name) === undefined ? [] : [measured(x.scenario.name)! / priced(x.scenario.name)])));
  const costOf = (name: string) => measured(name) ?? priced(name) * pace();
  // The scenarios still measuring, `e` first (its share is the first).
  const still = (e: Entry) => [e, ...entries.filter((x) => x !== e && !x.stop)];
  const share = (e: Entry) => {
    const ahead = still(e).map((x) => ({ blockSec: costOf(x.scenario.name), done: completeBlocks(state().blocks, x.scenario.name) }));
    const s = scenarioShares(design().budgetSec - ctx.elapsed(), ahead, design().blocks.max);
    return { shareSec: s.shareSec[0]!, blocks: s.blocks[0]! - ahead[0]!.done };
  };
  const next = (e: Entry) => {
    const s = share(e);
    return {
      ...planRounds(design(), e.scenario.name, e.names, design().reference, state().windows, state().blocks, s.shareSec, { blocks: Math.max(1, s.blocks), shareSec: s.shareSec }),
      shareSec: s.shareSec,
    };
  };
  // The minimum of blocks the other scenarios still measuring lack, kept for them: a scenario not
  // begun at the planner's price with this warm-up, one begun as its blocks took.
  const reserve = (e: Entry, warmupSec: number) =>
    entries
      .filter((x) => x !== e && !x.stop)
      .reduce((a, x) => {
        const lack = Math.max(0, design().blocks.min - completeBlocks(state().blocks, x.scenario.name));
        const p = o.planned.find((q) => q.name === x.scenario.name);
        const sec = measured(x.scenario.name) ?? (p ? blockSec(p, design().rounds.min, warmupSec, DEFAULTS.planCosts) : 0);
        return a + lack * sec;
      }, 0);
  // What the budget leaves once the other scenarios' lacking minimum is kept for them.
  const minimumLeft = (e: Entry) => design().budgetSec - ctx.elapsed() - reserve(e, design().warmup.maxSec);
  return {
    fits(e) {
      const { blockSec, shareSec } = next(e);
      return blockBeyondMinimumFits({ nextBlockSec: blockSec, budgetLeftSec: shareSec, minimumBudgetLeftSec: minimumLeft(e) });
    },
    block(active, b) {
      // Planned before the block starts, from the time left then; extra rounds for steal end with
      // the block's part of the share, where they were priced (`blockCosts`).
      const { rounds, partSec, shareSec } = next(active[0]!);
      const budgetEndSec = ctx.elapsed() + partSec;
      const shareEndSec = ctx.elapsed() + shareSec;
      return { block: b, shared: false, entries: active, part: () => ({ rounds, budgetEndSec, shareEndSec }) };
    },
    decide(active) {
      const e = active[0]!;
      const { halfWidths, worst } = worstOf(ctx, o.est, e);
      e.worst = worst;
      const { blockSec: nextSec, shareSec } = next(e);
      // A block cut short by an interruption keeps its windows but does not count towards the
      // minimum or maximum of blocks: a resumed run still completes as many as planned.
      const done = completeBlocks(state().blocks, e.scenario.name);
      let decision = decideStop({ blocks: done, halfWidths, budgetLeftSec: shareSec, nextBlockSec: nextSec, minimumBudgetLeftSec: minimumLeft(e) }, design());
      const leftSec = design().budgetSec - ctx.elapsed();
      if (
        decision === 'budget' &&
        done < design().blocks.min &&
        design().warmup.maxSec > design().warmup.minSec &&
        fitsWithShorterWarmups({ nextBlockSec: nextSec, targets: e.members.length, leftSec, shortReserveSec: reserve(e, design().warmup.minSec), warmup: design().warmup })
      ) {
        // Recorded with the planner's own changes, from when it applies; said like them.
        const change = { what: 'warmup' as const, from: design().warmup.maxSec, to: design().warmup.minSec, atSec: Math.round(ctx.elapsed()), scenario: e.scenario.name };
        ctx.journal.record({ record: 'replan', change });
        ctx.emit({ type: 'replan', change });
        decision = 'continue';
      }
      return new Map([[e, { decision, done }]]);
    },
  };
}

/** The backend's own ceiling, once per run, for a scenario that declares its backend. */
async function scenarioCeiling(ctx: RunContext, o: ScheduleOptions, e: Entry): Promise<void> {
  const { scenario } = e;
  if (!scenario.backend || isDone(ctx.journal.state, { step: 'ceiling', scenario: scenario.name })) return;
  try {
    ctx.emit({ type: 'ceiling', scenario: scenario.name, service: scenario.backend.service });
    const c = await measureCeiling(scenario, e.all, { driver: ctx.driver, pinning: ctx.pinning, signal: ctx.signal, windowSec: ctx.design.windowSec, est: o.est });
    if (c) ctx.journal.record({ record: 'ceiling', ceiling: c });
  } catch (err) {
    ctx.emit({ type: 'step-failed', step: 'backend-ceiling', scenario: scenario.name, message: (err as Error).message });
  }
}

/**
 * A capacity run (`--slo`): open-loop probes per target in blocks of fresh processes instead of
 * rounds of paired windows, with the settings the design recorded (`capacitySettings`); the blocks
 * an interrupted run journalled are replayed, not searched again.
 */
async function capacities(ctx: RunContext, e: Entry, slo: { text: string; terms: ThresholdTerm[] }): Promise<void> {
  const { design } = ctx;
  const settings = design.capacity ?? capacitySettings(design);
  for (const t of e.all) {
    if (ctx.signal.aborted || isDone(ctx.journal.state, { step: 'capacity', scenario: e.scenario.name, target: t.name })) continue;
    const event = { type: 'capacity', scenario: e.scenario.name, target: t.name, slo: slo.text } as const;
    ctx.emit(event);
    const probeSec = design.capacityProbeSec ?? DEFAULTS.capacity.probeSec;
    const capacity = await capacityOf(ctx, e.scenario, t, slo, settings.blocks, { ...settings, probeSec }, (block, probe) => ctx.emit({ ...event, block, probe }));
    ctx.journal.record({ record: 'capacity', capacity });
  }
}

/** After a scenario's blocks: its profiles and instruction counts (each on fresh processes), then its stop record. */
async function afterBlocks(ctx: RunContext, o: ScheduleOptions, e: Entry): Promise<void> {
  // Every target of the scenario, the precise ones too; not the A/A twin (a second process of the reference).
  const { scenario } = e;
  const members = e.all.filter((t) => t.name !== controlTwin(ctx.design) && !isReplica(t.name));
  const { journal } = ctx;
  if (o.profile && !ctx.signal.aborted) {
    for (const t of members) {
      if (ctx.signal.aborted || isDone(journal.state, { step: 'profile', scenario: scenario.name, target: t.name })) continue;
      ctx.emit({ type: 'profile', scenario: scenario.name, target: t.name, status: 'start' });
      const p = await profileTarget(ctx, scenario, t, o.outDir, DEFAULTS.stepSettleSec);
      ctx.emit({ type: 'profile', scenario: scenario.name, target: t.name, status: p.status, ...(p.reason ? { message: p.reason } : {}) });
      if (ctx.signal.aborted && p.status === 'failed') break;
      journal.record({ record: 'profile', profile: p });
    }
  }
  if (o.instructionsPlan && !ctx.signal.aborted) {
    for (const t of members) {
      if (ctx.signal.aborted || isDone(journal.state, { step: 'instructions', scenario: scenario.name, target: t.name })) continue;
      ctx.emit({ type: 'instructions', scenario: scenario.name, target: t.name, status: 'start' });
      const x = await countInstructions(ctx, scenario, t, o.instructionsPlan);
      ctx.emit({ type: 'instructions', scenario: scenario.name, target: t.name, status: x.status, ...(x.reason ? { message: x.reason } : {}) });
      if (ctx.signal.aborted && x.status === 'failed') break;
      journal.record({ record: 'instructions', instructions: x });
    }
  }
  const mine = journal.state.blocks.filter((x) => x.scenario === scenario.name);
  journal.record({ record: 'stop', stop: { scenario: scenario.name, blocks: mine.length, rounds: mine.reduce((a, x) => a + x.rounds, 0), reason: e.stop ?? 'interrupted', worstHalfWidth: e.worst } });
}

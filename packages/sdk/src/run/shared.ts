import { DEFAULTS } from '../defaults.js';
import { subSeed } from '../analysis/bootstrap.js';
import { blocksAhead } from '../analysis/components.js';
import { decideStop, type StopDecision } from '../analysis/stopping.js';
import { seededShuffle } from '../random.js';
import type { StopRecord } from '../result-schema.js';
import type { Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import { runScenarioInBlock, startBlockProcesses, stopBlockProcesses, type BlockProcess } from './block.js';
import { afterBlocks, blockCosts, completeBlocks, headlineHalfWidths, planRounds, replayedBlock, scenarioCeiling, scenarioFloor, wasLogged, type HttpRun } from './http-scenario.js';
import { runtimeOf } from './runtime.js';

/** One http scenario of a shared-process run: its targets (those that passed verify), its share weight, and how it stands. */
interface Entry {
  scenario: Scenario;
  members: readonly Target[];
  weight: number;
  stop?: StopRecord['reason'];
  worst: number | null;
}

/** The scenarios of one shared block, in the block's seeded order (drawn afresh for every block). */
export function scenarioOrder<T extends { scenario: { name: string } }>(entries: readonly T[], seed: number, block: number): T[] {
  return seededShuffle(entries, subSeed(seed, 'scenarios', block));
}

/**
 * Which scenarios go on to the next shared block, among those whose stopping rule said `continue`:
 * as many as fit the budget left with the block's start, those below the minimum of blocks first,
 * then the least precise (widest worst half-width; none yet counts as widest). Pure, so the rule is
 * tested on its own.
 */
export function fitNextBlock(c: ReadonlyArray<{ name: string; blocks: number; nextSec: number; worst: number | null }>, o: { leftSec: number; startSec: number; minBlocks: number }): Set<string> {
  const rank = (x: (typeof c)[number]) => [x.blocks < o.minBlocks ? 0 : 1, -(x.worst ?? Number.POSITIVE_INFINITY)] as const;
  const sorted = [...c].sort((a, b) => rank(a)[0] - rank(b)[0] || rank(a)[1] - rank(b)[1]);
  const out = new Set<string>();
  let total = o.startSec;
  for (const x of sorted) {
    if (total + x.nextSec > o.leftSec) continue;
    out.add(x.name);
    total += x.nextSec;
  }
  return out;
}

/**
 * Blocks before rounds, with shared processes: how many blocks still fit the time left with every
 * scenario at its minimum of rounds (each at its least cost outside rounds, a part that did not
 * carry the start, plus one start per block), and the time their starts leave for the scenarios to
 * share. None before every scenario has run a block. Pure, so the rule is tested on its own.
 */
export function sharedBlocksAhead(
  costs: ReadonlyArray<{ leastFixedSec: number; roundSec: number } | undefined>,
  o: { startSec: number; leftSec: number; minRounds: number; blocksLeft: number },
): { blocks: number; leftSec: number } | undefined {
  if (!costs.length || costs.some((c) => c === undefined)) return undefined;
  const perBlock = { blockSec: o.startSec + costs.reduce((a, c) => a + c!.leastFixedSec, 0), roundSec: costs.reduce((a, c) => a + c!.roundSec, 0) };
  const blocks = blocksAhead(perBlock, o);
  return { blocks, leftSec: o.leftSec - blocks * o.startSec };
}

/**
 * Blocks of shared processes (`design.processes: 'shared'`): each block starts one fresh process per
 * target and runs every scenario still measuring on them, one after another in a seeded order
 * drawn afresh per block. The first scenario warms the processes up from cold (until steady, in
 * rotation rounds or one by one then the wake-up round: `design.freshWarmup`); each later one with `design.carriedWarmupRounds` rotation rounds. Then
 * rounds of paired windows, as in a scenario's own block. After every block each scenario applies
 * the stopping rule (precision, maximum of blocks); the budget is kept for the suite: the next
 * block goes on only with the scenarios whose blocks fit what is left.
 */
export async function measureSharedScenarios(run: HttpRun, list: ReadonlyArray<{ scenario: Scenario; members: readonly Target[]; weight: number }>): Promise<void> {
  const { ctx } = run;
  const { design, elapsed } = ctx;
  const entries: Entry[] = [];
  for (const x of list) {
    if (!x.members.length) run.stops.push({ scenario: x.scenario.name, blocks: 0, rounds: 0, reason: 'no-targets', worstHalfWidth: null });
    else entries.push({ ...x, worst: null });
  }
  for (const e of entries) if (!ctx.signal.aborted) await scenarioCeiling(run, e.scenario, e.members);
  for (const e of entries) await scenarioFloor(run, e.scenario);
  const names = (e: Entry) => e.members.map((t) => t.name);
  // Each scenario's share of what is left, by its cost per round, among those still measuring.
  const share = (e: Entry, among: readonly Entry[], leftSec = design.budgetSec - elapsed()) => {
    const total = among.reduce((a, x) => a + x.weight, 0);
    return total > 0 ? (Math.max(0, leftSec) * e.weight) / total : 0;
  };
  // A block's start, and its first scenario's warm-up from cold at its maximum.
  const startSec = (among: readonly Entry[]) => DEFAULTS.planCosts.blockStartSec + Math.max(...among.map((e) => e.members.length)) * design.warmup.maxSec;
  // Blocks before rounds: how many shared blocks still fit, and what their starts leave to share.
  const plannedBlocks = (among: readonly Entry[]) =>
    sharedBlocksAhead(
      among.map((e) => blockCosts(run.blocks, e.scenario.name)),
      {
        startSec: startSec(among),
        leftSec: design.budgetSec - elapsed(),
        minRounds: design.rounds.min,
        blocksLeft: design.blocks.max - Math.min(...among.map((e) => completeBlocks(run.blocks, e.scenario.name))),
      },
    );
  // A scenario's part of the planned blocks: its share of what their starts leave.
  const partOf = (e: Entry, among: readonly Entry[], planned: ReturnType<typeof plannedBlocks>) => planned && { blocks: planned.blocks, shareSec: share(e, among, planned.leftSec) };
  let b = 0;
  while (entries.some((e) => !e.stop)) {
    b++;
    if (ctx.signal.aborted) {
      for (const e of entries) e.stop ??= 'interrupted';
      break;
    }
    const active = entries.filter((e) => !e.stop);
    const ahead = plannedBlocks(active);
    const order = scenarioOrder(active, ctx.seed, b);
    const todo = order.filter((e) => !wasLogged(run.log, e.scenario.name, b));
    const byName = new Map(todo.flatMap((e) => e.members.map((t) => [t.name, t] as const)));
    const t0 = performance.now();
    const procs: BlockProcess[] = todo.length ? await startBlockProcesses(ctx, [...byName.values()].map(runtimeOf)) : [];
    // Scenarios past their minimum of blocks whose part of this block no longer fit the budget.
    const leftOut = new Set<Entry>();
    try {
      let position = 0;
      for (const e of order) {
        const replayed = replayedBlock(run.log, e.scenario.name, b, names(e));
        if (replayed) {
          // Replayed from the log of the interrupted run: nothing that finished runs again.
          run.blocks.push(replayed);
          continue;
        }
        if (ctx.signal.aborted) break;
        const shareSec = share(e, todo.slice(todo.indexOf(e)));
        const plan = planRounds(design, e.scenario.name, names(e), design.reference, run.windows, run.blocks, shareSec, partOf(e, active, ahead));
        // The next block was planned to fit the budget, but an earlier part of it can overrun its
        // estimate (a window fit that lengthened every window of a stepped scenario, rounds added
        // for steal): a scenario past its minimum of blocks whose part would end after the budget
        // is left out of the block and stops for the budget.
        if (completeBlocks(run.blocks, e.scenario.name) >= design.blocks.min && elapsed() + plan.blockSec > design.budgetSec) {
          leftOut.add(e);
          continue;
        }
        position++;
        const mine = procs.filter((p) => e.members.some((t) => t.name === p.name));
        const { record, windows } = await runScenarioInBlock(ctx, e.scenario, mine, b, plan.rounds, elapsed() + shareSec, DEFAULTS.stepSettleSec, { announce: true, position });
        // The first scenario of the block carries the processes' start.
        if (position === 1) record.wallSec = (performance.now() - t0) / 1000;
        run.blocks.push(record);
        run.windows.push(...windows);
        if (!ctx.signal.aborted) ctx.journal.block(record);
        ctx.emit({ type: 'block-end', block: record });
      }
    } finally {
      await stopBlockProcesses(procs);
    }
    if (ctx.signal.aborted) {
      for (const e of entries) e.stop ??= 'interrupted';
      break;
    }
    // The stopping rule per scenario (precision, maximum of blocks), then the budget for the suite.
    const decisions = new Map<Entry, { decision: StopDecision; done: number }>();
    const going: Array<{ name: string; blocks: number; nextSec: number; worst: number | null }> = [];
    const next = plannedBlocks(active);
    for (const e of active) {
      const halfWidths = headlineHalfWidths(e.scenario.name, names(e), run.windows, run.est);
      const worst = halfWidths.length ? Math.max(...halfWidths.map((h) => h ?? Infinity)) : null;
      e.worst = worst === Infinity ? null : worst;
      // A block cut short by an interruption does not count towards the minimum or maximum.
      const done = completeBlocks(run.blocks, e.scenario.name);
      const decision = leftOut.has(e) ? 'budget' : decideStop({ blocks: done, halfWidths, budgetLeftSec: Infinity, nextBlockSec: 0 }, design);
      decisions.set(e, { decision, done });
      if (decision === 'continue') {
        const nextSec = planRounds(design, e.scenario.name, names(e), design.reference, run.windows, run.blocks, share(e, active), partOf(e, active, next)).blockSec;
        going.push({ name: e.scenario.name, blocks: done, nextSec, worst: e.worst });
      }
    }
    const fits = fitNextBlock(going, { leftSec: design.budgetSec - elapsed(), startSec: startSec(active), minBlocks: design.blocks.min });
    for (const e of active) {
      let { decision, done } = decisions.get(e)!;
      if (decision === 'continue' && !fits.has(e.scenario.name)) decision = 'budget';
      ctx.emit({
        type: 'precision',
        scenario: e.scenario.name,
        blocks: done,
        rounds: run.windows.filter((w) => w.scenario === e.scenario.name && w.target === names(e)[0] && w.block <= b).length,
        worstHalfWidth: e.worst,
        target: design.precision,
        decision,
      });
      // Every block the interrupted run logged is replayed, whatever the rule says now.
      if (decision !== 'continue' && !wasLogged(run.log, e.scenario.name, b + 1)) e.stop = decision;
    }
  }
  for (const e of entries) await afterBlocks(run, e.scenario, e.members, e.stop ?? 'interrupted', e.worst);
}

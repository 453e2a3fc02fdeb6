import { DEFAULTS } from '../defaults.js';
import type { Design } from '../design-options.js';
import type { BlockRecord, WindowRecord } from '../result-schema.js';
import { median } from './bootstrap.js';
import { blocksAhead, optimalRounds, varianceComponents } from './components.js';
import type { NoiseComponents } from './forecast.js';
import { oneAfterAnotherSec, type PlanCosts, type PlannedScenario } from './round-cost.js';
import { ratioGroups } from './summarize.js';

/*
 * The budget planner: before anything starts, the cost of each scenario's minimum design is
 * estimated from fixed per-step costs, and the minimum is fitted to the run's budget — fewer
 * rounds first, then shorter warm-ups, then fewer blocks — each change recorded (the report words it, with its consequence).
 * Pure, so it is tested on fixed costs; the run then measures real costs as it goes, and plans
 * each block's rounds from them (`planRounds`, `sharedBlocksAhead`, below).
 */
/**
 * One change the planner made to fit the budget: rounds per block, warm-up seconds or blocks, from
 * → to. `atSec` (with the `scenario` that needed it): made during the run, from that second on.
 */
export type BudgetChange = { what: 'rounds' | 'warmup' | 'blocks'; from: number; to: number; atSec?: number; scenario?: string };

export interface BudgetPlan {
  /** The design to run: the given one, or its minimum fitted to the budget. */
  design: Pick<Design, 'rounds' | 'blocks' | 'warmup'>;
  /** Estimated wall time of the minimum design as fitted, s. */
  minimumSec: number;
  /** Estimated wall time of the minimum design as given, s. */
  givenMinimumSec: number;
  /** What was changed to fit, from the given value to the fitted one (the report words each with its cost). */
  changes: BudgetChange[];
  /** Seconds by which even the smallest design exceeds the budget (0 when it fits). */
  overBySec: number;
  /**
   * The half-width of the headline figures this budget is expected to reach (relative: 0.012 is
   * ±1.2%): `forecast.halfWidth`. The run's header and `--dry-run` say it when present.
   */
  expectedHalfWidth?: number;
  /** What the budget is expected to buy, and what ±5% and ±2% would take (`analysis/forecast.ts`). */
  forecast?: RunForecast;
}

/**
 * What a run's budget is expected to buy, from the noise of a typical pair (`source`: `prior`, the
 * typical noise of the method on a shared 2-vCPU VM, before anything is measured; `measured`, this
 * run's first blocks): the blocks and rounds the run's rule picks, the typical half-width then, and
 * the least budget that would reach ±5% and ±2% (null: not within the maximum of blocks and rounds).
 */
export interface RunForecast {
  /** The method it is priced with: this run's (`MethodName`), or the name a resumed run's plan recorded (`result/design.ts` keeps no list). */
  method: string;
  source: 'prior' | 'measured';
  components: NoiseComponents;
  blocks: number;
  rounds: number;
  halfWidth: number;
  budgetFor: Array<{ precision: number; budgetSec: number | null }>;
  /** A measured forecast's range: where the half-width reached fell in `coverage` of such forecasts' record (`likelyRange`). */
  likely?: { low: number; high: number; coverage: number };
}

/** Seconds of one block of `rounds` rounds of a scenario: start, warm-ups of `warmupSec` per target, rounds. */
export function blockSec(s: PlannedScenario, rounds: number, warmupSec: number, c: PlanCosts): number {
  return c.blockStartSec + s.targets * warmupSec + rounds * roundSec(s, c);
}

/** Seconds of one round of a scenario, by the method that measures it. */
const roundSec = (s: PlannedScenario, c: PlanCosts): number => (s.roundSec ?? oneAfterAnotherSec)(s, c);

/**
 * Seconds of a scenario's part of a shared block on processes that served an earlier scenario of
 * it: the rotation rounds (`warmup.rounds` of every target, windows of `warmup.windowSec`), then the rounds.
 */
export function carriedBlockSec(s: PlannedScenario, rounds: number, warmup: { windowSec: number; rounds: number }, c: PlanCosts): number {
  return s.targets * warmup.rounds * (warmup.windowSec + c.loaderStartSec) + rounds * roundSec(s, c);
}

/** What the planner reads of a design; a design without processes or rotation rounds has their defaults' meaning. */
type PlanShape = Pick<Design, 'rounds' | 'blocks' | 'warmup'> & Partial<Pick<Design, 'processes' | 'warmupRequests' | 'carriedWarmupRounds' | 'carriedWarmupWindowSec'>>;

/**
 * Seconds of the whole run at its minimum: every scenario's minimum blocks of minimum rounds. With
 * shared processes a block starts and warms its processes from cold once, on its first scenario
 * (the costliest is assumed), and warms them for each later one by rotation rounds (none when the
 * fresh warm-up sent every scenario's requests: `warmupRequests`).
 */
export function minimumSec(scenarios: readonly PlannedScenario[], d: PlanShape, c: PlanCosts): number {
  const rotationSec = d.carriedWarmupWindowSec ?? DEFAULTS.carriedWarmupWindowSec;
  // Warm-up often runs to its maximum on a noisy host: plan for it.
  const own = scenarios.map((s) => blockSec(s, d.rounds.min, d.warmup.maxSec, c));
  if (d.processes !== 'shared' || !scenarios.length) return c.beforeSec + own.reduce((a, x) => a + d.blocks.min * x, 0);
  // Warmed on every scenario's requests, a later scenario takes no rotation round.
  const rotations = (d.warmupRequests ?? DEFAULTS.warmupRequests) === 'all-scenarios' ? 0 : (d.carriedWarmupRounds ?? DEFAULTS.carriedWarmupRounds);
  const carried = scenarios.map((s) => carriedBlockSec(s, d.rounds.min, { windowSec: rotationSec, rounds: rotations }, c));
  const first = Math.max(...own.map((x, i) => x - carried[i]!));
  return c.beforeSec + d.blocks.min * (carried.reduce((a, x) => a + x, 0) + first);
}

/**
 * Fit the minimum design to the budget: rounds per block down to `floor.rounds`, then warm-up down
 * to its minimum, then blocks down to `floor.blocks`. What still does not fit is said with how much
 * it is over; the run then stops on budget as early as it can (after one block per scenario).
 */
export function planBudget(
  scenarios: readonly PlannedScenario[],
  design: PlanShape & Pick<Design, 'budgetSec'>,
  costs: PlanCosts = DEFAULTS.planCosts,
  floor: { rounds: number; blocks: number } = DEFAULTS.planFloor,
): BudgetPlan {
  const d = {
    rounds: { ...design.rounds },
    blocks: { ...design.blocks },
    warmup: { ...design.warmup },
    processes: design.processes,
    warmupRequests: design.warmupRequests,
    carriedWarmupRounds: design.carriedWarmupRounds,
    carriedWarmupWindowSec: design.carriedWarmupWindowSec,
  };
  const given = minimumSec(scenarios, d, costs);
  const changes: BudgetChange[] = [];
  const fits = () => minimumSec(scenarios, d, costs) <= design.budgetSec;
  if (!fits() && d.rounds.min > floor.rounds) {
    const was = d.rounds.min;
    while (!fits() && d.rounds.min > floor.rounds) d.rounds.min--;
    d.rounds.max = Math.max(d.rounds.max, d.rounds.min);
    changes.push({ what: 'rounds', from: was, to: d.rounds.min });
  }
  if (!fits() && d.warmup.maxSec > d.warmup.minSec) {
    const was = d.warmup.maxSec;
    d.warmup.maxSec = d.warmup.minSec;
    changes.push({ what: 'warmup', from: was, to: d.warmup.maxSec });
  }
  if (!fits() && d.blocks.min > floor.blocks) {
    const was = d.blocks.min;
    while (!fits() && d.blocks.min > floor.blocks) d.blocks.min--;
    changes.push({ what: 'blocks', from: was, to: d.blocks.min });
  }
  const fitted = minimumSec(scenarios, d, costs);
  return { design: { rounds: d.rounds, blocks: d.blocks, warmup: d.warmup }, minimumSec: fitted, givenMinimumSec: given, changes, overBySec: Math.max(0, fitted - design.budgetSec) };
}

/**
 * The run's rate of rounds added to replace windows left out for steal: extra rounds ÷ planned
 * rounds over all its blocks so far (steal is the host's, so every scenario's blocks count); 0
 * before any. Pure.
 */
export function extraRoundRate(blocks: ReadonlyArray<Pick<BlockRecord, 'plannedRounds' | 'extraRounds'>>): number {
  const planned = blocks.reduce((a, b) => a + b.plannedRounds, 0);
  return planned > 0 ? blocks.reduce((a, b) => a + b.extraRounds, 0) / planned : 0;
}

/**
 * A scenario's measured costs per block, none before its first: its blocks with rounds, seconds a
 * planned round costs, and the seconds outside its rounds (start, warm-up, rotation rounds) as a
 * median over its blocks and as the least of them (with shared processes, a part that did not carry
 * the processes' start). A planned round costs one round as its blocks took it plus the extra rounds
 * for steal at the run's rate so far (`extraRoundRate`), so the blocks ahead are priced with them:
 * unpriced, a stepped scenario's block on a noisy hour took 156 s where 60 s were planned
 * (2026-12-03 18:48, two rounds of five windows added), and the later blocks paid for it.
 */
export function blockCosts(blocks: readonly BlockRecord[], scenario: string): { blocks: number; roundSec: number; fixedSec: number; leastFixedSec: number } | undefined {
  const mine = blocks.filter((b) => b.scenario === scenario && b.rounds > 0);
  if (!mine.length) return undefined;
  const fixed = mine.map((b) => Math.max(0, b.wallSec - b.roundsWallSec));
  const roundSec = median(mine.map((b) => b.roundsWallSec / b.rounds)) * (1 + extraRoundRate(blocks.filter((b) => b.rounds > 0)));
  return { blocks: mine.length, roundSec, fixedSec: median(fixed), leastFixedSec: Math.min(...fixed) };
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
 * for the whole block), or all the scenario may still use in the last block that fits. The part
 * (`partSec`) is also where the block's extra rounds for steal end: they were priced in it.
 */
export function planRounds(
  design: Pick<Design, 'rounds' | 'blocks'>,
  scenario: string,
  names: readonly string[],
  reference: string,
  windows: readonly WindowRecord[],
  blocks: readonly BlockRecord[],
  budgetLeftSec: number,
  ahead?: BlocksAhead,
): { rounds: number; blockSec: number; partSec: number } {
  const costs = blockCosts(blocks, scenario);
  const partOf = (plan: BlocksAhead) => (plan.blocks > 1 ? Math.min(budgetLeftSec, plan.shareSec / plan.blocks) : budgetLeftSec);
  if (!costs) return { rounds: design.rounds.min, blockSec: 0, partSec: ahead ? partOf(ahead) : budgetLeftSec };
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
  const partSec = partOf(plan);
  const fit = Math.floor((partSec - fixedSec) / Math.max(roundSec, 1e-3));
  rounds = Math.max(design.rounds.min, Math.min(rounds, fit));
  return { rounds, blockSec: fixedSec + rounds * roundSec, partSec };
}

/**
 * A shared block's start as the run's blocks so far paid it: per block, the seconds outside rounds
 * of its first part (processes started and warmed from cold) less the median of its later parts'
 * (each a rotation round on carried processes); the largest over those blocks, as the next block's
 * first scenario may be the slowest to warm. None before a block has both kinds of part. The
 * scheduler had priced a start at every target's warm-up maximum (1.5 s + 3 s per process: 16.5 s
 * for a 6-minute run's 5 processes), where it took 6–10 s (2026-11-28 18:06): its last block then
 * took the time left as rounds, 7 blocks where 8 fitted, and 24 s of the budget went unused. Pure.
 */
export function measuredStartSec(blocks: ReadonlyArray<Pick<BlockRecord, 'block' | 'position' | 'rounds' | 'wallSec' | 'roundsWallSec'>>): number | undefined {
  const byBlock = new Map<number, Array<Pick<BlockRecord, 'position' | 'rounds' | 'wallSec' | 'roundsWallSec'>>>();
  for (const b of blocks) if (b.rounds > 0 && b.position !== undefined) byBlock.set(b.block, [...(byBlock.get(b.block) ?? []), b]);
  const fixed = (b: Pick<BlockRecord, 'wallSec' | 'roundsWallSec'>) => Math.max(0, b.wallSec - b.roundsWallSec);
  const starts: number[] = [];
  for (const parts of byBlock.values()) {
    const first = parts.find((p) => p.position === 1);
    const carried = parts.filter((p) => p.position !== 1);
    if (first && carried.length) starts.push(Math.max(0, fixed(first) - median(carried.map(fixed))));
  }
  return starts.length ? Math.max(...starts) : undefined;
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

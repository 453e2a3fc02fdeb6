import { DEFAULTS } from '../defaults.js';
import type { Design } from '../options.js';

/**
 * The budget planner: before anything starts, the cost of each scenario's minimum design is
 * estimated from fixed per-step costs, and the minimum is fitted to the run's budget — fewer
 * rounds first, then shorter warm-ups, then fewer blocks — each change recorded (the report words it, with its consequence).
 * Pure, so it is tested on fixed costs; the run then measures real costs as it goes.
 */
export interface PlannedScenario {
  name: string;
  /** Targets measured in each round. */
  targets: number;
  /** Connection steps measured inside each window (one for a fixed load). */
  steps: number;
  windowSec: number;
  /** Unrecorded settle seconds of one window (before its first step, and before each later one if any). */
  settleSec: number;
}

export interface PlanCosts {
  /** Starting a block's servers (all at once) and stopping them, s. */
  blockStartSec: number;
  /** A loader process starting and stopping around each measured step, s. */
  loaderStartSec: number;
  /** Verify, costs and setup before the first block, s. */
  beforeSec: number;
}

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
   * ±1.2%), from a calibration of the host's noise; absent until one is made. The run's header and
   * `--dry-run` say it when present.
   */
  expectedHalfWidth?: number;
}

/**
 * Seconds of one block of `rounds` rounds of a scenario: start, warm-ups of `warmup.sec`, the
 * wake-up round after warm-ups one by one (one window of `warmup.wakeWindowSec` per target, with 2
 * or more; none without it: warm-ups in rotation), rounds.
 */
export function blockSec(s: PlannedScenario, rounds: number, warmup: { sec: number; wakeWindowSec?: number | undefined }, c: PlanCosts): number {
  const perWindow = s.steps * (s.windowSec + c.loaderStartSec) + s.settleSec;
  const wake = s.targets > 1 && warmup.wakeWindowSec !== undefined ? s.targets * (warmup.wakeWindowSec + c.loaderStartSec) : 0;
  return c.blockStartSec + s.targets * warmup.sec + wake + rounds * s.targets * perWindow;
}

/**
 * Seconds of a scenario's part of a shared block on processes that served an earlier scenario of
 * it: the rotation rounds (`warmup.rounds` of every target, windows of `warmup.windowSec`), then the rounds.
 */
export function carriedBlockSec(s: PlannedScenario, rounds: number, warmup: { windowSec: number; rounds: number }, c: PlanCosts): number {
  const perWindow = s.steps * (s.windowSec + c.loaderStartSec) + s.settleSec;
  return s.targets * warmup.rounds * (warmup.windowSec + c.loaderStartSec) + rounds * s.targets * perWindow;
}

/** What the planner reads of a design; a design without processes, fresh warm-up or rotation rounds has their defaults' meaning. */
type PlanShape = Pick<Design, 'rounds' | 'blocks' | 'warmup'> & Partial<Pick<Design, 'processes' | 'freshWarmup' | 'carriedWarmupRounds' | 'carriedWarmupWindowSec'>>;

/** The wake-up round's window, s, when the design has one (fresh processes warmed one by one). */
export const wakeWindowSec = (d: Partial<Pick<Design, 'freshWarmup' | 'carriedWarmupWindowSec'>>): number | undefined =>
  (d.freshWarmup ?? DEFAULTS.freshWarmup) === 'one-by-one' ? (d.carriedWarmupWindowSec ?? DEFAULTS.carriedWarmupWindowSec) : undefined;

/**
 * Seconds of the whole run at its minimum: every scenario's minimum blocks of minimum rounds. With
 * shared processes a block starts and warms its processes from cold once, on its first scenario
 * (the costliest is assumed), and warms them for each later one by rotation rounds.
 */
export function minimumSec(scenarios: readonly PlannedScenario[], d: PlanShape, c: PlanCosts): number {
  const rotationSec = d.carriedWarmupWindowSec ?? DEFAULTS.carriedWarmupWindowSec;
  // Warm-up often runs to its maximum on a noisy host: plan for it.
  const own = scenarios.map((s) => blockSec(s, d.rounds.min, { sec: d.warmup.maxSec, wakeWindowSec: wakeWindowSec(d) }, c));
  if (d.processes !== 'shared' || !scenarios.length) return c.beforeSec + own.reduce((a, x) => a + d.blocks.min * x, 0);
  const carried = scenarios.map((s) => carriedBlockSec(s, d.rounds.min, { windowSec: rotationSec, rounds: d.carriedWarmupRounds ?? DEFAULTS.carriedWarmupRounds }, c));
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
    freshWarmup: design.freshWarmup,
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

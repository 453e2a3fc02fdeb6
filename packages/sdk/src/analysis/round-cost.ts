/*
 * What the budget planner knows of a scenario and of the run's fixed costs, and the cost of a round
 * one window after another. A module of its own because each way of measuring a round
 * (`run/methods/`) prices its round with these, and the planner (`budget.ts`) reads the design's
 * options, whose method names come from that registry: here, neither reaches the other.
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
  /** Seconds of one round, by the way its rounds are measured (`RoundMethod.roundSec`); absent: one window after another (`oneAfterAnotherSec`). */
  roundSec?: RoundCost | undefined;
}

/** The planner's seconds of one round of a scenario. */
export type RoundCost = (s: PlannedScenario, c: PlanCosts) => number;

export interface PlanCosts {
  /** Starting a block's servers (all at once) and stopping them, s. */
  blockStartSec: number;
  /** A loader process starting and stopping around each measured step, s. */
  loaderStartSec: number;
  /** Verify, costs and setup before the first block, s. */
  beforeSec: number;
  /** A sliced round's cost per connection step beyond its measured seconds: the loaders' lead, their stop and the last drain, s. */
  slicedStepSec: number;
  /** A sliced round's idle gaps after the slots, as a share of its measured seconds. */
  slicedGapShare: number;
}

/** Seconds of one round of a scenario whose targets' windows run one after another: each window's steps, loader starts and settle. */
export const oneAfterAnotherSec: RoundCost = (s, c) => s.targets * (s.steps * (s.windowSec + c.loaderStartSec) + s.settleSec);

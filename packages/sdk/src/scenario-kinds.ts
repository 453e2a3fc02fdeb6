import type { Design } from './design-options.js';
import type { StreamResult } from './result-schema.js';
import type { Scenario } from './scenario.js';
import type { Target } from './target.js';
import type { RunContext } from './run/context.js';
import { runStreamScenario, streamBlockSec, streamPlan } from './stream/kind.js';

/**
 * How a scenario of one kind is measured. The `http` kind is the run loop itself (blocks of
 * fresh processes, rounds of paired windows, `run/suite.ts`); any other kind is one module that
 * measures its scenario on its targets and says how long that takes, registered here.
 */
export interface ScenarioKind {
  /** Planned seconds of the scenario over the design's minimum of blocks (the budget planner reserves them). */
  plannedSec(scenario: Scenario, targets: number, design: Pick<Design, 'windowSec' | 'blocks'>): number;
  /** Measure the scenario; what a resumed run already has is in the run's state (`isDone`), kept, not measured again. */
  run(ctx: RunContext, scenario: Scenario, members: readonly Target[]): Promise<StreamResult[]>;
}

/** Scenario kinds other than `http`, by the name a scenario's `kind` gives. */
const scenarioKinds = {
  stream: {
    plannedSec: (scenario, targets, design) => targets * design.blocks.min * streamBlockSec(streamPlan(scenario, design)),
    run: runStreamScenario,
  },
} as const satisfies Record<Exclude<Scenario['kind'], 'http'>, ScenarioKind>;

/** The module of a scenario's kind, or undefined for `http` (the run loop's own). */
export function kindOf(scenario: Scenario): ScenarioKind | undefined {
  return scenario.kind === 'http' ? undefined : scenarioKinds[scenario.kind];
}

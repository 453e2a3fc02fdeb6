import type { BudgetPlan } from '../analysis/budget.js';
import type { PlannedScenario } from '../analysis/round-cost.js';
import type { Driver } from '../driver.js';
import type { EstimatorOptions } from '../analysis/summarize.js';
import type { ThresholdTerm } from '../analysis/thresholds.js';
import type { Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import type { validateSuite } from '../validate.js';
import type { RunDesign } from './context.js';
import type { InstructionsPlan } from './instructions.js';
import type { capacitySettings } from './capacity.js';
import type { RunPlan } from './plan.js';

/**
 * A run as planned, before anything starts: its validated options and definitions, the design as
 * fitted to the budget (a resumed run's as its plan recorded it), and what follows from them.
 */
export interface SuitePlan {
  opts: ReturnType<typeof validateSuite>['opts'];
  scenarios: readonly Scenario[];
  targets: readonly Target[];
  /** Target names as given (before runtime variants), as the plan records them. */
  givenTargets: readonly string[];
  /** The plan of the interrupted run this one resumes. */
  recorded: RunPlan | undefined;
  seed: number;
  design: RunDesign;
  /** The planner's fit of the minimum design to the budget (a new run says it when it changed something). */
  budget: BudgetPlan | undefined;
  loadScenarios: readonly Scenario[];
  kindScenarios: readonly Scenario[];
  planned: readonly PlannedScenario[];
  est: EstimatorOptions;
  thresholdTerms: { run: ThresholdTerm[]; scenarios: Map<string, ThresholdTerm[]> };
  slo: { text: string; terms: ThresholdTerm[] } | undefined;
  instructionsPlan: InstructionsPlan | undefined;
}

/**
 * A run as `planSuiteRun` plans it, frozen: what the run will do and what its caller prints before
 * it starts. `runSuite` given one runs it as it is and plans nothing.
 */
export interface SuiteRunPlan extends Readonly<SuitePlan> {
  readonly kind: 'suite-run-plan';
  /** The design the run measures with: its method the one the driver can run, its forecast priced with it. */
  readonly design: RunDesign;
  /** The driver resolved from the options, and why it was chosen. */
  readonly driver: Readonly<{ driver: Driver; name: string; reason: string }>;
  /** What the run says of itself before it starts (the CLI's header and `--dry-run`). */
  readonly outlook: Readonly<{
    /** The minimum design fitted to the budget with the driver's method: the estimate, what it changed, the forecast. */
    budget: BudgetPlan;
    /** The measured length of a window (the overrides', else the design's). */
    windowSec: number;
    /** A capacity run (`slo`): the SLO, the search's settings, and how long all its searches take. */
    capacity?: { slo: string; settings: ReturnType<typeof capacitySettings>; probeSec: number; typicalSec: number; maxSec: number };
  }>;
}

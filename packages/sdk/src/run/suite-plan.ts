import type { PlannedScenario, BudgetPlan } from '../analysis/budget.js';
import type { EstimatorOptions } from '../analysis/summarize.js';
import type { ThresholdTerm } from '../analysis/thresholds.js';
import type { Scenario } from '../scenario.js';
import type { Target } from '../target.js';
import type { validateSuite } from '../validate.js';
import type { RunDesign } from './context.js';
import type { InstructionsPlan } from './instructions.js';
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

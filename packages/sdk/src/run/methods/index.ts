import type { Driver } from '../../driver.js';
import type { MethodName } from '../../method-names.js';
import type { Scenario } from '../../scenario.js';
import type { RoundMethod } from './method.js';
import { sequential } from './sequential.js';
import { sliced } from './sliced.js';

/**
 * The ways of measuring a round, one line each (a new one: its module in this folder and its line
 * here; docs/ARCHITECTURE.md, "A way of measuring a round"). The keys are `METHOD_NAMES`
 * (`method-names.ts`), which the result schema and the options read.
 */
export const methods: { readonly [K in MethodName]: RoundMethod } = {
  sliced,
  sequential,
};

/** The method that measures what the run's own cannot: one window after another. */
const FALLBACK: MethodName = 'sequential';
export const fallbackMethod: RoundMethod = methods[FALLBACK];

/** The method a run measures with: the design's when its driver can run it, else the fallback's (a result records which). */
export function runMethod(asked: MethodName, capabilities: Driver['capabilities'] | undefined): MethodName {
  // Unknown driver (a plan before one is chosen): as the design asks.
  return !capabilities || methods[asked].runsOn(capabilities) ? asked : FALLBACK;
}

/** The method that measures a scenario's rounds in a run of `name`: its own, unless it does not measure this load. */
export const methodFor = (name: MethodName, scenario: Pick<Scenario, 'load'>): RoundMethod => (methods[name].measures(scenario) ? methods[name] : fallbackMethod);

/** The method that measures one round: the scenario's (`methodFor`), but a round of one target has nothing to interleave and is the fallback's. */
export const roundMethod = (name: MethodName, scenario: Pick<Scenario, 'load'> | undefined, targets: number): RoundMethod => (scenario && targets > 1 ? methodFor(name, scenario) : fallbackMethod);

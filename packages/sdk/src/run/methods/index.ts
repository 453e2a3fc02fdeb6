import type { Driver } from '../../driver.js';
import type { Scenario } from '../../scenario.js';
import type { MethodSentences, RoundMethod } from './method.js';
import { sequential } from './sequential.js';
import { sliced } from './sliced.js';

/**
 * The ways of measuring a round, one line each: a new one is its module in this folder and its line
 * here (docs/ARCHITECTURE.md, "A way of measuring a round"). The keys are the methods' names
 * (`MethodName`, `METHOD_NAMES`): the design's options, `--method` and the run read them from here;
 * a result records the name as a string (`result/design.ts`), and its reader finds the sentences by
 * it (`methodSentences`).
 */
export const methods = {
  sliced,
  sequential,
} as const satisfies Record<string, RoundMethod>;

/** A way of measuring a round, by name: a key of the registry. */
export type MethodName = keyof typeof methods;

/** Every method's name, in the registry's order (`design.method`'s values, `--method`'s). */
export const METHOD_NAMES = Object.keys(methods) as readonly MethodName[];

/** The method that measures what the run's own cannot: one window after another. */
const FALLBACK: MethodName = 'sequential';
export const fallbackMethod: RoundMethod = methods[FALLBACK];

/** The method of a plan or result from before `design.method` was recorded: every round was one window after another. */
export const UNRECORDED_METHOD: MethodName = 'sequential';

/** Whether a name (a result's, a plan's, a flag's) is a method of this registry. */
export const isMethodName = (name: string): name is MethodName => Object.hasOwn(methods, name);

/** The method a run measures with: the design's when its driver can run it, else the fallback's (a result records which). */
export function runMethod(asked: MethodName, capabilities: Driver['capabilities'] | undefined): MethodName {
  // Unknown driver (a plan before one is chosen): as the design asks.
  return !capabilities || methods[asked].runsOn(capabilities) ? asked : FALLBACK;
}

/** The method that measures a scenario's rounds in a run of `name`: its own, unless it does not measure this load. */
export const methodFor = (name: MethodName, scenario: Pick<Scenario, 'load'>): RoundMethod => (methods[name].measures(scenario) ? methods[name] : fallbackMethod);

/** The method that measures one round: the scenario's (`methodFor`), but a round of one target has nothing to interleave and is the fallback's. */
export const roundMethod = (name: MethodName, scenario: Pick<Scenario, 'load'> | undefined, targets: number): RoundMethod => (scenario && targets > 1 ? methodFor(name, scenario) : fallbackMethod);

/**
 * The sentences of the method a result records (`design.method`, or its forecast's), for the
 * reports: a result without one is from before methods were recorded (`UNRECORDED_METHOD`'s). A
 * name this registry does not hold (a result from a newer benchsuite) gets sentences that name it
 * and say this version does not know it, rather than another method's words or an error.
 */
export function methodSentences(name: string | undefined): MethodSentences {
  const known = name ?? UNRECORDED_METHOD;
  return isMethodName(known) ? methods[known].sentences : unknownMethodSentences(known);
}

const unknownMethodSentences = (name: string): MethodSentences => ({
  help: 'not a method of this benchsuite',
  design: `every target in each round by the "${name}" method, which this benchsuite does not know`,
  forecast: `"${name}"`,
  sideBySide: `every round measures each target by the "${name}" method (unknown to this benchsuite)`,
  rounds: () => `"${name}": a way of measuring a round this benchsuite does not know (the result was written by another version)`,
});

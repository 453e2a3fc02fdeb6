/**
 * The names of the ways of measuring a round (`design.method`): the keys of the registry in
 * `run/methods/index.ts`, which must hold exactly these (its type says so). They sit apart because
 * the result schema and the options name them without reaching the run loop.
 */
export const METHOD_NAMES = ['sliced', 'sequential'] as const;

/** A way of measuring a round, by name. */
export type MethodName = (typeof METHOD_NAMES)[number];

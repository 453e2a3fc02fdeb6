import { z } from 'zod';
import { int, nonneg } from './common.js';

/** A factor with its 95% interval (a t-interval on logs) and the samples behind it. */
const factorSchema = z.strictObject({ point: nonneg, ci95: z.tuple([nonneg, nonneg]).nullable(), n: int }).nullable();

/**
 * The design's own biases as this run measured them (`analysis/design-bias.ts`): round 1 against
 * its block's later rounds (a trend while a figure is taken), and in time-sliced rounds each
 * target's slots' first half against their second (what the switch between servers costs) and
 * what that does to each pair's ratio. Absent in results from before it was measured.
 */
export const designBiasSchema = z.strictObject({
  /** An effect beyond this fraction, with its interval excluding 1, is flagged (`DEFAULTS.designBias.flag`). */
  flag: nonneg,
  roundOne: z.strictObject({
    /** The mean over pairs of round 1 ÷ the later rounds (each pair's ratio to the reference), with its interval over pairs. */
    overall: factorSchema,
    pairs: z.array(z.strictObject({ scenario: z.string(), target: z.string(), roundOne: factorSchema, flagged: z.boolean() })),
  }),
  slotHalves: z.strictObject({
    /** Per target, its slots' first half ÷ second half (responses), over blocks. */
    targets: z.array(z.strictObject({ scenario: z.string(), target: z.string(), firstHalf: factorSchema, flagged: z.boolean() })),
    /** Per pair, the factor the first halves put on its ratio to the reference (1: none). */
    pairs: z.array(z.strictObject({ scenario: z.string(), target: z.string(), onRatio: nonneg, flagged: z.boolean() })),
  }),
});
export type DesignBiasRecord = z.infer<typeof designBiasSchema>;

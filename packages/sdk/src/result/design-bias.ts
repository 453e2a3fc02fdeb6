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
    /**
     * Round 1 ÷ the later rounds of the pairs' ratios to the reference: the mean over blocks (a
     * scenario's block with processes per scenario) of each block's mean over its pairs, with its
     * interval over blocks and `n` the blocks (`overallOver`). Before 2026-11-29 it was the mean over
     * pairs of each pair's mean over blocks, its interval over pairs and `n` the pairs, which took
     * pairs that share the reference's windows as independent and read too narrow.
     */
    overall: factorSchema,
    /** What `overall`'s `n` counts, its interval's unit: `blocks` (absent in results before 2026-11-29, whose unit was the pairs). */
    overallOver: z.literal('blocks').optional(),
    pairs: z.array(z.strictObject({ scenario: z.string(), target: z.string(), roundOne: factorSchema, flagged: z.boolean() })),
  }),
  slotHalves: z.strictObject({
    /** Per target, its slots' first half ÷ second half (responses), over blocks. */
    targets: z.array(z.strictObject({ scenario: z.string(), target: z.string(), firstHalf: factorSchema, flagged: z.boolean() })),
    /**
     * Per pair, the factor the first halves put on its ratio to the reference (1: none), the mean
     * over blocks of each block's, with its t-interval over blocks and `n` the blocks (absent in
     * results before 2026-12-01, whose factor had no interval and was flagged by its point when
     * either side's own halves were).
     */
    pairs: z.array(z.strictObject({ scenario: z.string(), target: z.string(), onRatio: nonneg, ci95: z.tuple([nonneg, nonneg]).nullable().optional(), n: int.optional(), flagged: z.boolean() })),
  }),
});
export type DesignBiasRecord = z.infer<typeof designBiasSchema>;

import { z } from 'zod';
import { estimateSchema, int, nonneg } from './common.js';

/** One scenario's A/A figures: the reference's second process ÷ the reference, loaded in the same rounds. */
export const controlScenarioSchema = z.strictObject({
  scenario: z.string(),
  /** Blocks with paired rounds. */
  blocks: int,
  /** Twin ÷ reference throughput (1 if the run's intervals hold), with the same estimator as every ratio. */
  ratio: estimateSchema.nullable(),
  /** Whether that interval contains 1 (null: no interval yet). */
  containsOne: z.boolean().nullable(),
  /** SDs of the A/A log-ratio: between blocks (beyond what the rounds explain; two processes' levels) and of a round within a block. */
  between: nonneg.nullable(),
  within: nonneg.nullable(),
});
export type ControlScenario = z.infer<typeof controlScenarioSchema>;

/**
 * The run's A/A control (`design.control: 'aa'`): the reference ran as a second, independent
 * process in every block. Absent when the run had none (`--control none`, a capacity run, a
 * reference that is a URL) and in results from before it.
 */
export const controlSchema = z.strictObject({
  reference: z.string(),
  twin: z.string(),
  scenarios: z.array(controlScenarioSchema),
  /**
   * One process's own level, SD of its log (the A/A between-block SD ÷ √2, pooled over scenarios),
   * with its 95% interval (chi-square) and degrees of freedom: blocks − 1, since a block's
   * processes serve all its scenarios. Null with fewer than two blocks.
   */
  processSd: z.strictObject({ point: nonneg, ci95: z.tuple([nonneg, nonneg]).nullable(), df: int }).nullable(),
  /** Every scenario's A/A interval contains 1 (null: none had an interval). */
  holds: z.boolean().nullable(),
});
export type ControlRecord = z.infer<typeof controlSchema>;

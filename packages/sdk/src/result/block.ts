import { z } from 'zod';
import { failureSchema, int, nonneg, num } from './common.js';

// A block of fresh processes, and why a scenario stopped adding blocks.

/** One block: fresh server processes for every target of a scenario, warmed up, then rounds. */
export const blockSchema = z.strictObject({
  scenario: z.string(),
  block: z.number().int().positive(),
  startedAt: z.iso.datetime(),
  wallSec: nonneg,
  /** Seconds spent in rounds (the rest is starting, warming up and stopping the servers). */
  roundsWallSec: nonneg,
  /** Rounds planned when the block started (the dimensioning phase chooses it). */
  plannedRounds: int,
  /** Rounds run, extra ones included. */
  rounds: int,
  /** Extra rounds run to replace windows left out for CPU steal. */
  extraRounds: int,
  /** False when the run was interrupted or the budget ran out inside this block. */
  complete: z.boolean(),
  /** Shared processes: the scenario's place in its block's seeded order (1: on processes fresh from their start). */
  position: int.optional(),
  targets: z.array(
    z.strictObject({
      target: z.string(),
      /** Which of the target's processes (`design.replicas`): 2…k; absent: the first (or the only one). */
      process: z.number().int().min(2).optional(),
      status: z.enum(['ok', 'failed']),
      /** Spawn to ready, ms, with the block's servers starting together (cold starts one by one are in `targets[].costs`). */
      startupMs: nonneg.optional(),
      /** Per-second req/s of the warm-up windows, never used in any estimate. */
      warmupRps: z.array(nonneg),
      /** Requests its warm-up windows served (fresh processes: the work `design.warmup.served` asks for); absent in results before it was recorded. */
      warmupRequests: z.number().int().nonnegative().optional(),
      /** Whether the warm-up ended warm (served its requests, or steady within the tolerance) rather than at its maximum; for a carried process, whether its last two rotation windows were within the tolerance (false after a single rotation round: it takes two). */
      steady: z.boolean(),
      /** Shared processes: the process had served an earlier scenario of the block, and `warmupRps` holds its rotation rounds. */
      carried: z.boolean().optional(),
      failure: failureSchema.optional(),
    }),
  ),
});
export type BlockRecord = z.infer<typeof blockSchema>;

/** Why a scenario stopped adding blocks. */
export const stopSchema = z.strictObject({
  scenario: z.string(),
  blocks: int,
  rounds: int,
  reason: z.enum(['precision', 'budget', 'max-blocks', 'interrupted', 'no-targets']),
  worstHalfWidth: num.nullable(),
});
export type StopRecord = z.infer<typeof stopSchema>;

import { z } from 'zod';
import { int, nonneg } from './common.js';

/**
 * `--instructions`: user-space instructions per request of one (scenario, target) under valgrind's
 * callgrind, on fresh processes with the runtime's determinism flags (`flags`). Per level: the
 * count of each process ÷ the requests it answered inside the count, their median and spread
 * ((max − min) ÷ median). Kernel work and the cost of an instruction are not in it, so its
 * ratios differ from CPU-time ratios, in either direction.
 */
export const instructionsRecordSchema = z.strictObject({
  scenario: z.string(),
  target: z.string(),
  status: z.enum(['ok', 'skipped', 'failed']),
  reason: z.string().optional(),
  runtime: z.enum(['node', 'python']).optional(),
  flags: z.array(z.string()).optional(),
  warmupRequests: int,
  /** Requests each count's own connections served before it, uninstrumented; absent in results before 2026-11-29 (none: their counts followed a reconnection). */
  resettleRequests: int.optional(),
  /** What the counts leave out: `collections`, V8's garbage collections (`Heap::CollectGarbage`, inclusive); absent in results before 2026-11-29, whose counts held them. */
  excluded: z.array(z.enum(['collections'])).optional(),
  levels: z.array(
    z.strictObject({
      connections: z.number().int().positive(),
      requests: z.number().int().positive(),
      perProcess: z.array(nonneg),
      perRequest: nonneg,
      spread: nonneg,
    }),
  ),
});
export type InstructionsRecord = z.infer<typeof instructionsRecordSchema>;

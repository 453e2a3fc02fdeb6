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

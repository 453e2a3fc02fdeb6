import { z } from 'zod';
import { estimateSchema, latencySchema } from './common.js';

/**
 * The loader's round-trip floor for one scenario: the run's driver against a trivial responder
 * (`responder`) pinned to the server's cores, at each of the scenario's connection steps at or
 * below `design.lowConnections`, with the scenario's requests and window. What it measures is the
 * loader's own time per request, the kernel's loopback and the least a server can do.
 */
export const loaderFloorSchema = z.strictObject({
  scenario: z.string(),
  driver: z.string(),
  /** What answered, in a few words. */
  responder: z.string(),
  steps: z.array(
    z.strictObject({
      connections: z.number().int().positive(),
      /** Median req/s over the floor's windows, with its interval. */
      rps: estimateSchema,
      /** Latency of the floor's windows merged, µs. */
      latency: latencySchema,
      /** The loader's busiest core was saturated (the floor is then the loader's ceiling, not a round trip). */
      clientBound: z.boolean(),
    }),
  ),
});
export type LoaderFloor = z.infer<typeof loaderFloorSchema>;

import { z } from 'zod';
import { estimateSchema, int, latencySchema, nonneg } from './common.js';

/**
 * One window of the loader's round-trip floor: the run's driver against the trivial responder at
 * one low connection step, after a scenario's part of a block. The run journals each; the result
 * keeps them in `loaderFloors[].windows` (without their histograms, which the steps merge).
 */
export const floorWindowSchema = z.strictObject({
  scenario: z.string(),
  block: z.number().int().positive(),
  connections: z.number().int().positive(),
  requests: int,
  durationSec: nonneg,
  rps: nonneg,
  /** HDR histogram of its latencies in µs, compressed base64. */
  histogram: z.string(),
  /** The loader's busiest core (or the loader per thread) was saturated in it. */
  clientBound: z.boolean(),
});
export type FloorWindow = z.infer<typeof floorWindowSchema>;

/**
 * The loader's round-trip floor for one scenario: the run's driver against a trivial responder
 * (`responder`) pinned to the server's cores, at each of the scenario's connection steps at or
 * below `design.lowConnections`, with the scenario's requests and window, measured after the
 * scenario's part of every block. What it measures is the loader's own time per request, the
 * kernel's loopback (its wake-ups included) and the least a server can do.
 */
export const loaderFloorSchema = z.strictObject({
  scenario: z.string(),
  driver: z.string(),
  /** What answered, in a few words. */
  responder: z.string(),
  steps: z.array(
    z.strictObject({
      connections: z.number().int().positive(),
      /** Median req/s over the floor's windows, with its interval (blocks, then windows, resampled). */
      rps: estimateSchema,
      /** Latency of the floor's windows merged, µs. */
      latency: latencySchema,
      /** Windows whose loader was saturated (then the floor is the loader's ceiling, not a round trip). */
      clientBoundWindows: int,
    }),
  ),
  /** Every floor window, in the order measured (histograms left out: `steps[].latency` merges them). */
  windows: z.array(floorWindowSchema.omit({ histogram: true, scenario: true })),
});
export type LoaderFloor = z.infer<typeof loaderFloorSchema>;
